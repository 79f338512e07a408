/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The D-Bus face (see bus-face.h): the connection, the core's observer, the one table from change bits
 * to property names, and the signals of org.thinkpad.Accelerometer. */

#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-accelerometer.h"
#include "bus-bounds.h"
#include "bus-creds.h"
#include "bus-ec.h"
#include "bus-errors.h"
#include "bus-face.h"
#include "bus-logind.h"
#include "bus-polkit.h"
#include "bus-stream.h"
#include "claims.h"
#include "diagnose-bus.h"
#include "diagnose.h"
#include "log.h"
#include "strv.h"

/* The property each change bit stands for, and a deprecated alias that changes with it. */
static const char *const change_properties[_CHANGE_BIT_MAX] = {
        [CHANGE_HAS_ACCELEROMETER] = "HasAccelerometer",
        [CHANGE_BACKEND] = "Backend",
        [CHANGE_BACKEND_REASON] = "BackendReason",
        [CHANGE_HARDWARE_STATE] = "HardwareState",
        [CHANGE_LAST_ERROR] = "LastError",
        [CHANGE_AXIS_CODE] = "AxisCode",
        [CHANGE_REST_POSITION] = "RestPosition",
        [CHANGE_KEYBOARD_ACTIVITY] = "KeyboardActivity",
        [CHANGE_MOUSE_ACTIVITY] = "MouseActivity",
        [CHANGE_SAMPLING_RATE] = "SamplingRate",
        [CHANGE_OVERSAMPLING_RATIO] = "OversamplingRatio",
        [CHANGE_FILTER_ORDER] = "FilterOrder",
        [CHANGE_FAKE_DATA_MODE] = "FakeDataMode",
        [CHANGE_INVERT] = "Invert",
        [CHANGE_INPUT_DEVICES] = "InputDevices",
        [CHANGE_POLLING] = "Polling",
        [CHANGE_EFFECTIVE_RATE] = "EffectiveRate",
        [CHANGE_EFFECTIVE_RATE_REASON] = "EffectiveRateReason",
        [CHANGE_SUSPENDED] = "Suspended",
        [CHANGE_PITCH] = "Pitch",
        [CHANGE_ROLL] = "Roll",
        [CHANGE_ORIENTATION] = "Orientation",
        [CHANGE_TILT_STEP] = "TiltStep",
        [CHANGE_SHOCK_SENSITIVITY] = "ShockSensitivity",
        [CHANGE_SHOCK_ACTIVE] = "ShockActive",
        [CHANGE_SHOCK_COUNT] = "ShockCount",
        [CHANGE_LAST_SHOCK] = "LastShock",
        [CHANGE_PROTECTED_DISKS] = "ProtectedDisks",
        [CHANGE_PARKED] = "Parked",
        [CHANGE_PARK_COUNT] = "ParkCount",
        [CHANGE_PROTECTION_STATE] = "ProtectionState",
        [CHANGE_PAUSED_UNTIL] = "PausedUntil",
        [CHANGE_MOVEMENT_WATCHED] = "MovementWatched",
        [CHANGE_MOVING] = "Moving",
        [CHANGE_MOVE_COUNT] = "MoveCount",
};
/* A second property sent with the same change: an old name, or a reason's stable code. */
static const char *const change_aliases[_CHANGE_BIT_MAX] = {
        [CHANGE_POLLING] = "Claimed", /* Polling's old name */
        [CHANGE_BACKEND_REASON] = "BackendReasonCode",
        [CHANGE_EFFECTIVE_RATE_REASON] = "EffectiveRateReasonCode",
};

const char *bus_change_property(ChangeBit bit, const char **ret_alias)
{
        if ((unsigned) bit >= _CHANGE_BIT_MAX)
                return NULL;
        if (ret_alias)
                *ret_alias = change_aliases[bit];
        return change_properties[bit];
}

static void emit_properties_changed(BusFace *f, const char *const *properties)
{
        int r;

        if (!f->bus)
                return;
        r = sd_bus_emit_properties_changed_strv(f->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE,
                                                (char **) properties);
        if (r < 0)
                log_debug_errno(r, "Failed to emit PropertiesChanged for %s: %m", properties[0]);
}

void bus_emit_changes(BusFace *f, ChangeMask mask)
{
        const char *properties[2 * _CHANGE_BIT_MAX + 1];
        size_t n = 0;

        for (unsigned bit = 0; bit < _CHANGE_BIT_MAX; bit++)
                if (mask & CHANGE_MASK(bit)) {
                        /* A missing row would end the list here (test-change-table.c). */
                        assert(change_properties[bit]);
                        properties[n++] = change_properties[bit];
                        if (change_aliases[bit])
                                properties[n++] = change_aliases[bit];
                }
        properties[n] = NULL;
        if (n > 0)
                emit_properties_changed(f, properties);
}

/* The signals */

static void emit_motion(BusFace *f, const MotionEvents *ev)
{
        if (!f->bus)
                return;
        if (ev->mask & MOTION_EVENT_TILT)
                (void) sd_bus_emit_signal(f->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Tilt", "dds",
                                          ev->pitch, ev->roll,
                                          motion_orientation_to_string(ev->orientation));
        if (ev->mask & MOTION_EVENT_SHOCK)
                (void) sd_bus_emit_signal(f->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Shock", "dts",
                                          ev->shock_magnitude, ev->shock_time_usec, ev->shock_reason);
        if (ev->mask & MOTION_EVENT_MOVED)
                (void) sd_bus_emit_signal(f->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Moved", "td",
                                          ev->move_time_usec, ev->move_strength);
}

/* "as" cannot go through sd_bus_emit_signal()'s varargs as a string list (it wants a count and the
 * strings one by one), so the message is built with sd_bus_message_append_strv(). */
static void emit_heads_parked(BusFace *f, char *const *disks, bool parked)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        if (!f->bus)
                return;
        r = sd_bus_message_new_signal(f->bus, &m, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "HeadsParked");
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char **) disks);
        if (r >= 0)
                r = sd_bus_message_append(m, "b", parked);
        if (r >= 0)
                r = sd_bus_send(f->bus, m, NULL);
        if (r < 0)
                log_warning_errno(r, "Failed to send HeadsParked(%s): %m", parked ? "true" : "false");
}

/* The core's observer */

static void on_changed(Context *c, ChangeMask mask, void *userdata)
{
        BusFace *f = userdata;
        bus_emit_changes(f, mask);
}

/* Every readout to the sample streams, and as the Sample signal (decimated; bus-stream.c). */
static void on_readout(Context *c, const ReadoutEvent *e, void *userdata)
{
        BusFace *f = userdata;
        bus_stream_readout(f, e->readout, e->shock_active);
}

static void on_motion(Context *c, const MotionEvents *ev, void *userdata)
{
        BusFace *f = userdata;
        emit_motion(f, ev);
}

static void on_processed(Context *c, uint64_t time_usec, bool new_data, void *userdata)
{
        BusFace *f = userdata;
        sensor_proxy_readout(f, time_usec, new_data);
}

static void on_heads_parked(Context *c, char *const *disks, bool parked, void *userdata)
{
        BusFace *f = userdata;
        emit_heads_parked(f, disks, parked);
}

static void on_tick(Context *c, void *userdata)
{
        BusFace *f = userdata;
        diagnose_bus_tick(f);
}

/* After the core's shutdown: the names go. */
static void on_shutdown(Context *c, void *userdata)
{
        BusFace *f = userdata;
        int r;

        sensor_proxy_stop(f);
        if (f->bus) {
                /* Sent, not waited for: a busy bus daemon must not hold the shutdown up. */
                r = sd_bus_release_name_async(f->bus, NULL, ACCEL_BUS_NAME, NULL, NULL);
                if (r < 0)
                        log_debug_errno(r, "Failed to release %s: %m", ACCEL_BUS_NAME);
                (void) sd_bus_flush(f->bus);
        }
}

static const ContextObserver bus_observer = {
        .changed = on_changed,
        .readout = on_readout,
        .motion = on_motion,
        .processed = on_processed,
        .heads_parked = on_heads_parked,
        .tick = on_tick,
        .shutdown = on_shutdown,
};

/* The connection */

static int open_bus(const BusOptions *o, sd_bus **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (!o->address)
                return o->session ? sd_bus_open_user_with_description(ret, "tpacceld")
                                  : sd_bus_open_system_with_description(ret, "tpacceld");

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_description(bus, "tpacceld");
        r = sd_bus_set_address(bus, o->address);
        if (r < 0)
                return r;
        r = sd_bus_set_bus_client(bus, true);
        if (r < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

/* Runs when the loop is asked to exit (SIGTERM/SIGINT), before sd-bus closes the connection. */
static int on_loop_exit(sd_event_source *s, void *userdata)
{
        BusFace *f = userdata;

        /* The calls waiting for their sender's uid are answered before the connection closes. */
        f->creds = bus_creds_free(f->creds);
        context_shutdown(f->context);
        return 0;
}

/* --exit-idle-time: every method call restarts the idle time. */
static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;

        if (sd_bus_message_is_method_call(m, NULL, NULL))
                idle_exit_note_call(c->idle_exit);
        return 0; /* let every message through */
}

int bus_face_new(Context *c, BusFace **ret)
{
        BusFace *f;

        assert(c);
        assert(ret);

        f = calloc(1, sizeof(BusFace));
        if (!f)
                return log_error_errno(-ENOMEM, "Failed to set up the D-Bus face: %m");
        f->context = c;
        f->own_uid = geteuid();
        context_set_observer(c, &bus_observer, f);
        *ret = f;
        return 0;
}

/* The name is another process's (a second tpacceld, the demo started twice): says whose, with its
 * pid when the bus tells it. Returns -EEXIST. */
static int log_name_taken(BusFace *f, const char *bus_kind)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        char who[32] = ""; /* " (pid N)" */
        pid_t pid = 0;

        if (sd_bus_get_name_creds(f->bus, ACCEL_BUS_NAME, SD_BUS_CREDS_PID, &creds) >= 0 &&
            sd_bus_creds_get_pid(creds, &pid) >= 0 && pid > 0)
                snprintf(who, sizeof(who), " (pid %d)", (int) pid);
        return log_error_errno(-EEXIST,
                               "Another process%s already serves %s on the %s bus: is tpacceld running "
                               "already? Stop it first",
                               who, ACCEL_BUS_NAME, bus_kind);
}

int bus_start(BusFace *f, const BusOptions *o, const ContextOptions *co)
{
        Context *c = f->context;
        const char *bus_kind = o->address ? "given" : o->session ? "session" : "system";
        int r;

        f->session_bus = o->session;

        r = sd_event_add_exit(c->event, &f->exit_source, on_loop_exit, f);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the exit handler: %m");
        /* Before sd-bus' own exit handler, which flushes and closes the connection. */
        (void) sd_event_source_set_priority(f->exit_source, SD_EVENT_PRIORITY_IMPORTANT);

        r = bus_errors_register();
        if (r < 0)
                return log_error_errno(r, "Failed to register the D-Bus error names: %m");

        r = open_bus(o, &f->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the %s bus%s%s: %m",
                                       o->address   ? "given"
                                       : o->session ? "session"
                                                    : "system",
                                       o->address ? " at " : "", o->address ?: "");

        /* At a real-time policy (the unit's), bus work spends a budget (bus-pump.h). */
        r = sched_getscheduler(0);
        if (r < 0)
                log_warning_errno(-errno,
                                  "Cannot tell the scheduling policy, so bus work has no budget: %m");
        bus_budget_init(&f->bus_budget, r == SCHED_RR || r == SCHED_FIFO, now_usec());
        if (f->bus_budget.enabled)
                log_info("Real-time scheduling: bus work takes at most %d%% of the CPU",
                         BUS_BUDGET_SHARE_PERCENT);
        /* The pump ends the loop with status 1 when the connection goes. */
        r = bus_pump_new(f->bus, c->event, SD_EVENT_PRIORITY_NORMAL, &f->bus_budget, &f->pump);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
        r = bus_bounds_register(f);
        if (r < 0)
                return r;

        /* Objects first, the name last, so that clients never see a half-built service. */
        /* One match for clients leaving the bus: their claims, and through the callback their streams. */
        r = claims_start(f, bus_streams_owner_gone);
        if (r < 0)
                return r;
        r = bus_accelerometer_register(f);
        if (r < 0)
                return r;
        r = bus_ec_register(f);
        if (r < 0)
                return r;

        if (o->session)
                log_debug("Session bus: not watching logind for suspend");
        else {
                r = bus_logind_start(f);
                if (r < 0)
                        return r;
        }

        r = context_start(c, co);
        if (r < 0)
                return r;
        if (c->idle_exit) {
                r = sd_bus_add_filter(f->bus, NULL, on_message, f);
                if (r < 0)
                        return log_error_errno(r, "Failed to watch for method calls: %m");
        }

        r = sd_bus_request_name(f->bus, ACCEL_BUS_NAME, 0);
        if (r == -EEXIST)
                return log_name_taken(f, bus_kind);
        if (r < 0)
                return log_error_errno(r, "Failed to acquire the bus name %s: %m", ACCEL_BUS_NAME);
        log_info("Serving %s on the %s bus (backend: %s)", ACCEL_BUS_NAME, bus_kind,
                 c->has_accelerometer ? backend_name(c->backend) : "none");

        /* The second name, for desktops (only logs when it cannot be had). */
        return sensor_proxy_start(f, o->sensor_proxy);
}

BusFace *bus_face_free(BusFace *f)
{
        if (!f)
                return NULL;
        /* Every way out (a fatal error at start-up included) powers off, unparks and releases the names. */
        context_shutdown(f->context);
        f->exit_source = sd_event_source_disable_unref(f->exit_source);
        f->ec_queue = ec_queue_free(f->ec_queue);
        f->sensor_proxy = sensor_proxy_free(f->sensor_proxy);
        f->diagnose_calls = diagnose_calls_free(f->diagnose_calls);
        /* Before the context: the run is the poller's hook. */
        f->diagnosis = diagnosis_free(f->diagnosis);
        f->streams = bus_streams_free(f->streams); /* before the claims and the bus */
        claims_free(f);
        f->logind = bus_logind_free(f->logind);
        f->polkit_pending = polkit_pending_free(f->polkit_pending); /* cancels the questions in flight */
        f->creds = bus_creds_free(f->creds);
        f->pump = bus_pump_free(f->pump);
        f->bus = sd_bus_flush_close_unref(f->bus);
        /* The core outlives the face: nobody observes it any more. */
        context_set_observer(f->context, NULL, NULL);
        free(f);
        return NULL;
}
