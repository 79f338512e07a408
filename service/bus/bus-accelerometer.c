/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.thinkpad.Accelerometer object. Every guarded handler has the same shape, as in systemd: read
 * and validate the arguments (InvalidArgs naming the valid range) against the state of the moment,
 * authorize (bus-polkit.c: the first time polkit is asked and the call comes back through this handler
 * from the top with the answer, so the checks run again against the state of that moment), change the
 * configuration through the core's one path (context_apply_config(), config.h: persisted first, then
 * applied, undone and the old file written back when a part is refused, reported to the observer, which
 * emits PropertiesChanged), map a refusal to its D-Bus error (Error.NotSaved when the state file cannot
 * be written), reply. Every configuring method goes through change_config(). On any error nothing
 * changes. */

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bus-accelerometer.h"
#include "bus-creds.h"
#include "bus-errors.h"
#include "bus-face.h"
#include "bus-method.h"
#include "bus-polkit.h"
#include "bus-stream.h"
#include "claims.h"
#include "diagnose-bus.h"
#include "diagnose.h"
#include "ec-protocol.h"
#include "input-devices.h"
#include "log.h"
#include "movement-watch.h"
#include "readout.h"
#include "strutil.h"
#include "strv.h"

/* Properties */

/* Properties that are a field of the core's Context (the objects' userdata is the BusFace, so sd-bus'
 * offset readers cannot reach them). "b" is sent as an int, as sd-bus wants it. */
#define DEFINE_PROPERTY_GET_CONTEXT_FIELD(function, sig, type, member)                                      \
        static int function(sd_bus *bus, const char *path, const char *interface, const char *property,     \
                            sd_bus_message *reply, void *userdata, sd_bus_error *error)                     \
        {                                                                                                   \
                const BusFace *f = userdata;                                                                \
                return sd_bus_message_append(reply, sig, (type) f->context->member);                        \
        }

DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_has_accelerometer, "b", int, has_accelerometer)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_sampling_rate, "u", uint32_t, config.sampling_rate)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_invert, "b", int, config.invert)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_input_devices, "b", int, config.input_devices)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_polling, "b", int, poller.polling)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_effective_rate, "u", uint32_t, poller.poll_rate)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_suspended, "b", int, suspend.active)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_tilt_step, "d", double, config.tilt_step)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_shock_sensitivity, "d", double, config.shock_sensitivity)
DEFINE_PROPERTY_GET_CONTEXT_FIELD(property_get_paused_until, "t", uint64_t, protection.paused_until_usec)

static const HdapsState *device_state(BusFace *f)
{
        Context *c = f->context;
        return c->has_accelerometer ? backend_get_state(c->backend) : NULL;
}

static int property_get_backend(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", c->has_accelerometer ? backend_name(c->backend) : "");
}

static int property_get_backend_reason(sd_bus *bus, const char *path, const char *interface,
                                       const char *property, sd_bus_message *reply, void *userdata,
                                       sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", c->backend_reason ?: "");
}

/* BackendReasonCode: "found" (Backend works), "not-initialized" (a backend, but the accelerometer did
 * not answer at start), "no-accelerometer" (none found). */
static int property_get_backend_reason_code(sd_bus *bus, const char *path, const char *interface,
                                            const char *property, sd_bus_message *reply, void *userdata,
                                            sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s",
                                     c->has_accelerometer ? "found"
                                     : c->backend         ? "not-initialized"
                                                          : "no-accelerometer");
}

static int property_get_hardware_state(sd_bus *bus, const char *path, const char *interface,
                                       const char *property, sd_bus_message *reply, void *userdata,
                                       sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", hardware_state_to_string(c->poller.hardware_state));
}

static int property_get_last_error(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", c->poller.last_error ?: "");
}

static int property_get_model(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", c->backend && c->backend->model ? c->backend->model : "");
}

static int property_get_axis_code(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "u", c->backend ? backend_get_axis_code(c->backend) : 0u);
}

static int property_get_position(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        const HdapsState *s;

        readout_refresh(c);
        s = device_state(f);
        return sd_bus_message_append(reply, "(ii)", s ? s->x : 0, s ? s->y : 0);
}

static int property_get_rest_position(sd_bus *bus, const char *path, const char *interface,
                                      const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "(ii)", c->config.has_rest ? c->config.rest_x : 0,
                                     c->config.has_rest ? c->config.rest_y : 0);
}

static int property_get_temperature(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        const HdapsState *s;

        readout_refresh(c);
        s = device_state(f);
        return sd_bus_message_append(reply, "i", s ? s->temperature : 0);
}

static int property_get_activity(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        const HdapsState *s = device_state(f);
        bool keyboard = streq(property, "KeyboardActivity");

        return sd_bus_message_append(reply, "b",
                                     s ? (keyboard ? s->keyboard_activity : s->mouse_activity) : false);
}

/* OversamplingRatio and FilterOrder are the EC's own, read back with 0x17/0x82 after every init and
 * every configuration change (context_read_back_ec_config()), as the 2006 patch series' sysfs attributes
 * asked the EC (PATCH 09: oversampling_ratio = EC rate / sampling_rate). Not on every property read: another
 * transaction between two poll ticks drops the prefetched readout. The configured value only when the
 * EC could not say. */
static int property_get_ec_config(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        bool ratio = streq(property, "OversamplingRatio");
        unsigned value;

        if (c->has_accelerometer && c->ec_config_valid)
                value = ratio ? c->ec_oversampling_ratio : c->ec_filter_order;
        else
                value = ratio ? c->config.oversampling_ratio : c->config.filter_order;
        return sd_bus_message_append(reply, "u", value);
}

static int property_get_fake_data_mode(sd_bus *bus, const char *path, const char *interface,
                                       const char *property, sd_bus_message *reply, void *userdata,
                                       sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(
                reply, "b", c->has_accelerometer ? backend_get_config(c->backend)->fake_data_mode : false);
}

static const MotionState *motion_state(BusFace *f)
{
        Context *c = f->context;
        return c->motion ? motion_get_state(c->motion) : NULL;
}

/* Pitch, Roll and Orientation: the motion state while polling, else computed from a fresh readout
 * (readout_current_angles()), as Position is: never a value from an earlier poll. */
static int property_get_angle(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        double pitch, roll;
        MotionOrientation o;

        readout_current_angles(((BusFace *) userdata)->context, &pitch, &roll, &o);
        return sd_bus_message_append(reply, "d", streq(property, "Pitch") ? pitch : roll);
}

static int property_get_orientation(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error)
{
        double pitch, roll;
        MotionOrientation o;

        readout_current_angles(((BusFace *) userdata)->context, &pitch, &roll, &o);
        return sd_bus_message_append(reply, "s", motion_orientation_to_string(o));
}

static int property_get_last_polled(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error)
{
        const MotionState *m = motion_state(userdata);
        return sd_bus_message_append(reply, "t", m ? m->last_sample_usec : UINT64_C(0));
}

static int property_get_shock_min_rate(sd_bus *bus, const char *path, const char *interface,
                                       const char *property, sd_bus_message *reply, void *userdata,
                                       sd_bus_error *error)
{
        return sd_bus_message_append(reply, "u", (uint32_t) MOTION_SHOCK_MIN_RATE_HZ);
}

static int property_get_shock_active(sd_bus *bus, const char *path, const char *interface,
                                     const char *property, sd_bus_message *reply, void *userdata,
                                     sd_bus_error *error)
{
        const MotionState *m = motion_state(userdata);
        return sd_bus_message_append(reply, "b", m ? m->shock_active : false);
}

static int property_get_shock_hold_ms(sd_bus *bus, const char *path, const char *interface,
                                      const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "u",
                                     c->motion ? motion_get_config(c->motion)->shock_hold_ms
                                               : (unsigned) MOTION_SHOCK_HOLD_MS_DEFAULT);
}

static int property_get_shock_count(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error)
{
        const MotionState *m = motion_state(userdata);
        return sd_bus_message_append(reply, "t", m ? m->shock_count : (uint64_t) 0);
}

static int property_get_last_shock(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        const MotionState *m = motion_state(userdata);
        return sd_bus_message_append(reply, "(td)", m ? m->last_shock_usec : (uint64_t) 0,
                                     m ? m->last_shock_magnitude : 0.0);
}

static int property_get_vibration_level(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error)
{
        const MotionState *m = motion_state(userdata);
        return sd_bus_message_append(reply, "d", m ? m->vibration_level : 0.0);
}

static int property_get_protected_disks(sd_bus *bus, const char *path, const char *interface,
                                        const char *property, sd_bus_message *reply, void *userdata,
                                        sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        char *empty[] = {NULL};
        return sd_bus_message_append_strv(reply, c->config.protected_disks ?: empty);
}

static int property_get_parked(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "b",
                                     c->disk_protect ? disk_protect_parked(c->disk_protect) : false);
}

static int property_get_park_count(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(
                reply, "t", c->disk_protect ? disk_protect_park_count(c->disk_protect) : (uint64_t) 0);
}

static int property_get_protection_state(sd_bus *bus, const char *path, const char *interface,
                                         const char *property, sd_bus_message *reply, void *userdata,
                                         sd_bus_error *error)
{
        return sd_bus_message_append(reply, "s", protection_state(((BusFace *) userdata)->context));
}

static int property_get_movement(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        const MotionState *m = motion_state(f);
        bool watched = movement_watched(f->context);

        if (streq(property, "MovementWatched"))
                return sd_bus_message_append(reply, "b", watched);
        return sd_bus_message_append(reply, "b", watched && m && m->moving);
}

static int property_get_move_count(sd_bus *bus, const char *path, const char *interface,
                                   const char *property, sd_bus_message *reply, void *userdata,
                                   sd_bus_error *error)
{
        const MotionState *m = motion_state(userdata);
        return sd_bus_message_append(reply, "t", m ? m->move_count : (uint64_t) 0);
}

/* Methods */

static int method_claim(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        int r;

        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        r = claims_add(f, m, 0, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 1: waits for the sender's uid, runs again (bus-creds.h) */
        return sd_bus_reply_method_return(m, NULL);
}

static int method_claim_at_rate(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        uint32_t rate;
        int r;

        r = sd_bus_message_read(m, "u", &rate);
        if (r < 0)
                return r;
        /* Above the configured SamplingRate is valid: polling never goes above it (poller_set_claim()). */
        if (rate < HDAPS_SAMPLING_RATE_MIN || rate > HDAPS_SAMPLING_RATE_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "ClaimAtRate: rate %u Hz is out of range %u..%u", rate,
                                         HDAPS_SAMPLING_RATE_MIN, HDAPS_SAMPLING_RATE_MAX);
        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        r = claims_add(f, m, rate, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        return sd_bus_reply_method_return(m, NULL);
}

/* ClaimMovement: a claim of its own kind (claims.c), which watches for movement. */
static int method_claim_movement(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        int r;

        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        r = claims_add_movement(f, m, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 1: waits for the sender's uid, runs again */
        return sd_bus_reply_method_return(m, NULL);
}

static int method_release_movement(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        int r;

        r = claims_remove_movement(f, m);
        if (r < 0)
                return r;
        if (r == 0)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_CLAIMED, "%s holds no movement claim",
                                         strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

static int property_get_effective_rate_reason(sd_bus *bus, const char *path, const char *interface,
                                              const char *property, sd_bus_message *reply, void *userdata,
                                              sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", c->poller.poll_rate_reason ?: "not polling");
}

static int property_get_effective_rate_reason_code(sd_bus *bus, const char *path, const char *interface,
                                                   const char *property, sd_bus_message *reply,
                                                   void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        return sd_bus_message_append(reply, "s", c->poller.poll_rate_reason_code ?: "unclaimed");
}

static int method_release(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        int r;

        /* Not before the sender's earlier calls that wait for its uid (bus-creds.h: ordering rules). */
        r = bus_sender_in_order(f, m, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        r = claims_remove(f, m);
        if (r < 0)
                return r;
        if (r == 0)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_CLAIMED, "%s holds no claim",
                                         strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

/* Every guarded handler below: parse, validate, bus_authorize() (0: polkit was asked, return 1 and run
 * again from the top with its answer), validate what only an authorized caller may learn, change, reply. */

static int method_calibrate(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        int r;

        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        /* Like a setter: a change that could not be saved is refused, and nothing changes. The
         * state file is written (with the configuration in force) before the calibration is armed; the new
         * rest position is saved when a readout takes it, and if that fails it is not made (poller.h). */
        r = bus_save_config(f, &c->config, error);
        if (r < 0)
                return r;
        log_info("Calibration requested by %s: the next readout becomes the rest position",
                 strna(sd_bus_message_get_sender(m)));
        context_calibrate(c);
        return sd_bus_reply_method_return(m, NULL);
}

/* Makes next (taken) the configuration through the core's one path (context_apply_config(): saved
 * first, applied, undone when a part is refused, reported to the observer, which emits
 * PropertiesChanged) and maps a refusal to the D-Bus error of the part that refused. Returns 0 (with
 * *ret_changed: what changed) or a negative errno with error set; then nothing changed. */
static int change_config(BusFace *f, StateConfig *next, ChangeMask *ret_changed, sd_bus_error *error)
{
        Context *c = f->context;
        _cleanup_(config_error_done) ConfigError e = {};
        int r;

        r = context_apply_config(c, next, CONFIG_APPLY_CHANGE, ret_changed, &e);
        return r < 0 ? bus_error_from_config(error, c, &e) : 0;
}

/* next: a copy of the configuration in force, for a setter to change. Returns 0 or -ENOMEM. */
static int copy_config(BusFace *f, StateConfig *next)
{
        Context *c = f->context;
        return state_config_copy(next, &c->config);
}

/* SamplingRate x OversamplingRatio must fit the EC's 16-bit rate, checked against the other value of the
 * moment (the handler runs again after polkit's answer); the message says which limit. */
static int check_sampling_rate(BusFace *f, unsigned rate, sd_bus_error *error)
{
        Context *c = f->context;
        if (rate < HDAPS_SAMPLING_RATE_MIN || rate > HDAPS_SAMPLING_RATE_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "SamplingRate %u is out of range %u..%u", rate,
                                         HDAPS_SAMPLING_RATE_MIN, HDAPS_SAMPLING_RATE_MAX);
        if ((uint64_t) rate * c->config.oversampling_ratio > EC_RATE_MAX)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "SamplingRate %u x OversamplingRatio %u exceeds %u: valid range with this "
                        "ratio is %u..%u",
                        rate, c->config.oversampling_ratio, EC_RATE_MAX, HDAPS_SAMPLING_RATE_MIN,
                        MIN((unsigned) HDAPS_SAMPLING_RATE_MAX, EC_RATE_MAX / c->config.oversampling_ratio));
        return 0;
}

static int check_oversampling_ratio(BusFace *f, unsigned ratio, sd_bus_error *error)
{
        Context *c = f->context;
        unsigned max = EC_RATE_MAX / c->config.sampling_rate;

        if (ratio < HDAPS_OVERSAMPLING_RATIO_MIN || ratio > max)
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_INVALID_ARGS,
                        "OversamplingRatio %u is out of range %u..%u (SamplingRate %u x ratio "
                        "must not exceed %u)",
                        ratio, HDAPS_OVERSAMPLING_RATIO_MIN, max, c->config.sampling_rate, EC_RATE_MAX);
        return 0;
}

static int check_filter_order(BusFace *f, unsigned order, sd_bus_error *error)
{
        if (order < EC_FILTER_ORDER_MIN || order > EC_FILTER_ORDER_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "FilterOrder %u is out of range %u..%u", order, EC_FILTER_ORDER_MIN,
                                         EC_FILTER_ORDER_MAX);
        return 0;
}

/* A setter of the EC's configuration: an unsigned in StateConfig, checked before polkit is asked. */
typedef struct DeviceSetting {
        const char *property;
        size_t config_offset;
        int (*check)(BusFace *f, unsigned value, sd_bus_error *error);
} DeviceSetting;

static const DeviceSetting sampling_rate_setting = {"SamplingRate", offsetof(StateConfig, sampling_rate),
                                                    check_sampling_rate};
static const DeviceSetting oversampling_ratio_setting = {
        "OversamplingRatio", offsetof(StateConfig, oversampling_ratio), check_oversampling_ratio};
static const DeviceSetting filter_order_setting = {"FilterOrder", offsetof(StateConfig, filter_order),
                                                   check_filter_order};

static int set_device_setting(sd_bus_message *m, BusFace *f, const DeviceSetting *s, sd_bus_error *error)
{
        _cleanup_(state_config_done) StateConfig next = {};
        ChangeMask changed;
        uint32_t value;
        int r;

        r = sd_bus_message_read(m, "u", &value);
        if (r < 0)
                return r;
        r = s->check(f, value, error);
        if (r < 0)
                return r;
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        r = copy_config(f, &next);
        if (r < 0)
                return r;
        *(unsigned *) ((uint8_t *) &next + s->config_offset) = value;
        r = change_config(f, &next, &changed, error);
        if (r < 0)
                return r;
        if (changed != 0)
                log_info("%s set to %u by %s", s->property, value, strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_sampling_rate(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_device_setting(m, userdata, &sampling_rate_setting, error);
}

static int method_set_oversampling_ratio(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_device_setting(m, userdata, &oversampling_ratio_setting, error);
}

static int method_set_filter_order(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_device_setting(m, userdata, &filter_order_setting, error);
}

static int method_set_fake_data_mode(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        int enabled, r;

        r = sd_bus_message_read(m, "b", &enabled);
        if (r < 0)
                return r;
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        r = context_set_fake_data_mode(c, enabled); /* reports FakeDataMode */
        if (r < 0)
                return bus_error_from_backend(error, c->backend, r, "FakeDataMode");
        log_info("FakeDataMode set to %u by %s", (unsigned) enabled, strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_invert(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(state_config_done) StateConfig next = {};
        BusFace *f = userdata;
        ChangeMask changed;
        int invert, r;

        r = sd_bus_message_read(m, "b", &invert);
        if (r < 0)
                return r;
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        r = copy_config(f, &next);
        if (r < 0)
                return r;
        config_set_invert(&next, invert); /* the rest position follows the axes */
        r = change_config(f, &next, &changed, error);
        if (r < 0)
                return r;
        if (changed != 0)
                log_info("Invert set to %s by %s", invert ? "true" : "false",
                         strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

/* SetInputDevices(true) without /dev/uinput: every backend supports the devices, the device node is what
 * is missing (FileNotFound) or could not be opened (Failed), as opening it at start said. */
static int input_devices_missing(const BusFace *f, sd_bus_error *error)
{
        Context *c = f->context;
        int r = c->input_devices_error;

        if (r == -ENOENT || r == -ENODEV || r == -ENXIO)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FILE_NOT_FOUND,
                                         "%s does not exist: this kernel has no uinput (load the uinput "
                                         "module, then restart tpacceld)",
                                         INPUT_DEVICES_UINPUT_PATH);
        return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
                                 "%s could not be opened when tpacceld started: %s (is the unit's "
                                 "DeviceAllow=%s rw in place, and 62-tpaccel-uinput.rules?)",
                                 INPUT_DEVICES_UINPUT_PATH, r < 0 ? strerror(-r) : "not tried",
                                 INPUT_DEVICES_UINPUT_PATH);
}

/* The hdaps input devices through uinput (input-devices.h): persisted; while on, polling runs. */
static int method_set_input_devices(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(state_config_done) StateConfig next = {};
        BusFace *f = userdata;
        Context *c = f->context;
        ChangeMask changed;
        int enabled, r;

        r = sd_bus_message_read(m, "b", &enabled);
        if (r < 0)
                return r;
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        if (enabled && !c->input_devices)
                return input_devices_missing(f, error);
        r = copy_config(f, &next);
        if (r < 0)
                return r;
        next.input_devices = enabled;
        r = change_config(f, &next, &changed, error);
        if (r < 0)
                return r;
        if (changed != 0)
                log_info("Input devices %s by %s", enabled ? "enabled" : "disabled",
                         strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

/* The motion parameters set over D-Bus: validated here against their ranges. */
typedef struct MotionSetting {
        const char *property, *unit;
        double min, max;
        size_t config_offset; /* the double in StateConfig that persists it */
} MotionSetting;

static const MotionSetting shock_sensitivity_setting = {
        "ShockSensitivity",
        "",
        MOTION_SENSITIVITY_MIN,
        MOTION_SENSITIVITY_MAX,
        offsetof(StateConfig, shock_sensitivity),
};

static const MotionSetting tilt_step_setting = {
        "TiltStep", " degrees", MOTION_TILT_STEP_MIN, MOTION_TILT_STEP_MAX, offsetof(StateConfig, tilt_step),
};

static int set_motion_setting(sd_bus_message *m, BusFace *f, const MotionSetting *s, sd_bus_error *error)
{
        Context *c = f->context;
        char value_text[STR_DOUBLE_SIZE], min[STR_DOUBLE_SIZE], max[STR_DOUBLE_SIZE];
        _cleanup_(state_config_done) StateConfig next = {};
        double value;
        int r;

        r = sd_bus_message_read(m, "d", &value);
        if (r < 0)
                return r;
        if (!isfinite(value) || value < s->min || value > s->max)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s %s is out of range %s..%s%s",
                                         s->property, str_double(value, value_text), str_double(s->min, min),
                                         str_double(s->max, max), s->unit);
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        if (!c->motion)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED,
                                         "Motion processing is not available");
        r = copy_config(f, &next);
        if (r < 0)
                return r;
        *(double *) ((uint8_t *) &next + s->config_offset) = value;
        r = change_config(f, &next, NULL, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

static int method_set_shock_sensitivity(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_motion_setting(m, userdata, &shock_sensitivity_setting, error);
}

static int method_set_tilt_step(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_motion_setting(m, userdata, &tilt_step_setting, error);
}

/* A list of disks to protect: at most STATE_DISKS_MAX valid names, none twice, each one a disk that can
 * park its heads now. Returns 0 or a negative errno with error set (InvalidArgs, NotSupported). */
static int check_protected_disks(BusFace *f, char *const *disks, sd_bus_error *error)
{
        Context *c = f->context;
        int r;

        if (strv_length(disks) > STATE_DISKS_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "At most %d disks can be protected", STATE_DISKS_MAX);
        for (size_t i = 0; disks && disks[i]; i++) {
                char excerpt[STR_EXCERPT_SIZE];

                if (!state_disk_name_valid(disks[i]))
                        return sd_bus_error_setf(
                                error, SD_BUS_ERROR_INVALID_ARGS,
                                "'%s' is not a block device name (at most %d letters, digits, "
                                "'_' and '-')",
                                str_excerpt(disks[i], excerpt), STATE_DISK_NAME_MAX);
                for (size_t j = 0; j < i; j++)
                        if (streq(disks[i], disks[j]))
                                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                                         "'%s' is listed twice", disks[i]);
        }
        for (size_t i = 0; disks && disks[i]; i++) {
                _cleanup_free_ char *message = NULL;

                if (!c->disk_protect)
                        return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED,
                                                 "Disk protection is not available");
                r = disk_protect_check_disk(c->disk_protect, disks[i], &message);
                if (r < 0)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s",
                                                 message ? message : strerror(-r));
        }
        return 0;
}

static int method_set_protected_disks(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(state_config_done) StateConfig next = {};
        _cleanup_strv_free_ char **disks = NULL;
        BusFace *f = userdata;
        Context *c = f->context;
        ChangeMask changed;
        int r;

        r = sd_bus_message_read_strv(m, &disks);
        if (r < 0)
                return r;
        r = check_protected_disks(f, disks, error);
        if (r < 0)
                return r;
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        if (!c->disk_protect)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED,
                                         "Disk protection is not available");
        r = copy_config(f, &next);
        if (r < 0)
                return r;
        strv_free(next.protected_disks);
        next.protected_disks = TAKE_PTR(disks);
        r = change_config(f, &next, &changed, error);
        if (r < 0)
                return r;
        if (changed != 0)
                log_info("Protected disks set to %zu disk(s) by %s", strv_length(c->config.protected_disks),
                         strna(sd_bus_message_get_sender(m)));
        return sd_bus_reply_method_return(m, NULL);
}

static int method_pause(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        uint32_t seconds;
        int r;

        r = sd_bus_message_read(m, "u", &seconds);
        if (r < 0)
                return r;
        if (seconds > PAUSE_SECONDS_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Pause %u s is out of range 1..%d seconds (0 resumes)", seconds,
                                         PAUSE_SECONDS_MAX);
        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        r = protection_pause(c, seconds);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

#define PROP(name, sig, getter, flags) SD_BUS_PROPERTY(name, sig, getter, 0, flags)
#define CHANGE                         SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST                          SD_BUS_VTABLE_PROPERTY_CONST

static const sd_bus_vtable accelerometer_vtable[] = {
        SD_BUS_VTABLE_START(0),
        PROP("HasAccelerometer", "b", property_get_has_accelerometer, CHANGE),
        PROP("Backend", "s", property_get_backend, CHANGE),
        PROP("BackendReason", "s", property_get_backend_reason, CHANGE),
        PROP("BackendReasonCode", "s", property_get_backend_reason_code, CHANGE),
        PROP("HardwareState", "s", property_get_hardware_state, CHANGE),
        PROP("LastError", "s", property_get_last_error, CHANGE),
        PROP("Model", "s", property_get_model, CONST),
        PROP("AxisCode", "u", property_get_axis_code, CHANGE),
        PROP("Position", "(ii)", property_get_position, 0),
        PROP("RestPosition", "(ii)", property_get_rest_position, CHANGE),
        PROP("Temperature", "i", property_get_temperature, 0),
        PROP("KeyboardActivity", "b", property_get_activity, CHANGE),
        PROP("MouseActivity", "b", property_get_activity, CHANGE),
        PROP("SamplingRate", "u", property_get_sampling_rate, CHANGE),
        PROP("OversamplingRatio", "u", property_get_ec_config, CHANGE),
        PROP("FilterOrder", "u", property_get_ec_config, CHANGE),
        PROP("FakeDataMode", "b", property_get_fake_data_mode, CHANGE),
        PROP("Invert", "b", property_get_invert, CHANGE),
        PROP("InputDevices", "b", property_get_input_devices, CHANGE),
        PROP("Polling", "b", property_get_polling, CHANGE),
        PROP("Claimed", "b", property_get_polling,
             CHANGE | SD_BUS_VTABLE_DEPRECATED), /* Polling's old name */
        PROP("EffectiveRate", "u", property_get_effective_rate, CHANGE),
        PROP("EffectiveRateReason", "s", property_get_effective_rate_reason, CHANGE),
        PROP("EffectiveRateReasonCode", "s", property_get_effective_rate_reason_code, CHANGE),
        PROP("Suspended", "b", property_get_suspended, CHANGE),
        PROP("Pitch", "d", property_get_angle, CHANGE),
        PROP("Roll", "d", property_get_angle, CHANGE),
        PROP("Orientation", "s", property_get_orientation, CHANGE),
        PROP("TiltStep", "d", property_get_tilt_step, CHANGE),
        PROP("ShockSensitivity", "d", property_get_shock_sensitivity, CHANGE),
        PROP("ShockActive", "b", property_get_shock_active, CHANGE),
        PROP("ShockHoldMs", "u", property_get_shock_hold_ms, CONST),
        PROP("ShockCount", "t", property_get_shock_count, CHANGE),
        PROP("LastShock", "(td)", property_get_last_shock, CHANGE),
        PROP("VibrationLevel", "d", property_get_vibration_level, 0),
        PROP("LastPolled", "t", property_get_last_polled, 0),
        PROP("ShockMinRate", "u", property_get_shock_min_rate, CONST),
        PROP("ProtectedDisks", "as", property_get_protected_disks, CHANGE),
        PROP("Parked", "b", property_get_parked, CHANGE),
        PROP("ParkCount", "t", property_get_park_count, CHANGE),
        PROP("ProtectionState", "s", property_get_protection_state, CHANGE),
        PROP("PausedUntil", "t", property_get_paused_until, CHANGE),
        PROP("MovementWatched", "b", property_get_movement, CHANGE),
        PROP("Moving", "b", property_get_movement, CHANGE),
        PROP("MoveCount", "t", property_get_move_count, CHANGE),

        SD_BUS_METHOD("Claim", "", "", method_claim, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ClaimAtRate", SD_BUS_ARGS("u", rate), SD_BUS_NO_RESULT,
                                method_claim_at_rate, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Release", "", "", method_release, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ClaimMovement", "", "", method_claim_movement, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ReleaseMovement", "", "", method_release_movement, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("AcquireStream", SD_BUS_NO_ARGS, SD_BUS_RESULT("h", fd, "u", record_size),
                                method_acquire_stream, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("SubscribeSamples", "", "", method_subscribe_samples, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("UnsubscribeSamples", "", "", method_unsubscribe_samples, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Calibrate", "", "", method_calibrate, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Diagnose", SD_BUS_ARGS("s", format), SD_BUS_RESULT("s", report),
                                method_diagnose, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetSamplingRate", SD_BUS_ARGS("u", rate), SD_BUS_NO_RESULT,
                                method_set_sampling_rate, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetOversamplingRatio", SD_BUS_ARGS("u", ratio), SD_BUS_NO_RESULT,
                                method_set_oversampling_ratio, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetFilterOrder", SD_BUS_ARGS("u", order), SD_BUS_NO_RESULT,
                                method_set_filter_order, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetFakeDataMode", SD_BUS_ARGS("b", enabled), SD_BUS_NO_RESULT,
                                method_set_fake_data_mode, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetInputDevices", SD_BUS_ARGS("b", enabled), SD_BUS_NO_RESULT,
                                method_set_input_devices, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetInvert", SD_BUS_ARGS("b", invert), SD_BUS_NO_RESULT, method_set_invert,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetShockSensitivity", SD_BUS_ARGS("d", sensitivity), SD_BUS_NO_RESULT,
                                method_set_shock_sensitivity, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetTiltStep", SD_BUS_ARGS("d", degrees), SD_BUS_NO_RESULT,
                                method_set_tilt_step, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProtectedDisks", SD_BUS_ARGS("as", disks), SD_BUS_NO_RESULT,
                                method_set_protected_disks, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Pause", SD_BUS_ARGS("u", seconds), SD_BUS_NO_RESULT, method_pause,
                                SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_ARGS("Sample", SD_BUS_ARGS("t", time_usec, "i", x, "i", y), 0),
        SD_BUS_SIGNAL_WITH_ARGS("Tilt", SD_BUS_ARGS("d", pitch, "d", roll, "s", orientation), 0),
        SD_BUS_SIGNAL_WITH_ARGS("Shock", SD_BUS_ARGS("d", magnitude, "t", time_usec, "s", reason), 0),
        SD_BUS_SIGNAL_WITH_ARGS("HeadsParked", SD_BUS_ARGS("as", disks, "b", parked), 0),
        SD_BUS_SIGNAL_WITH_ARGS("Moved", SD_BUS_ARGS("t", time_usec, "d", strength), 0),
        SD_BUS_VTABLE_END,
};

const sd_bus_vtable *bus_accelerometer_vtable(void)
{
        return accelerometer_vtable;
}

int bus_accelerometer_register(BusFace *f)
{
        int r;

        r = sd_bus_add_object_vtable(f->bus, NULL, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, accelerometer_vtable,
                                     f);
        if (r < 0)
                return log_error_errno(r, "Failed to export %s: %m", ACCEL_OBJECT_PATH);
        return 0;
}
