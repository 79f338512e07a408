/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Polling: a CLOCK_MONOTONIC timer, armed only while a client claims or disk protection is armed (and
 * the device is present and awake), at the highest rate any of them needs (EffectiveRate): armed disk
 * protection and plain claims the configured SamplingRate, ClaimAtRate claims their own, a SensorProxy
 * claim SENSOR_PROXY_RATE_HZ. The backend's (EC's) sampling rate follows it, set as the seeds'
 * sampling_rate attribute sets it while polling (docs/PROTOCOL.md, "Rate changes while polling"). Each tick:
 * one readout -> Sample signal, motion processing -> Tilt/Shock and property changes, disk protection. No
 * claim: no timer at all. */

#include <errno.h>
#include <time.h>

#include "context.h"
#include "diagnose.h"
#include "input-devices.h"
#include "ec-protocol.h"
#include "log.h"
#include "strutil.h"

#define POLL_ACCURACY_DIVISOR 10 /* timer slack: 10% of the period */
/* The seeds stop polling at the first hard error ("poll failed, disabling updates", tp_smapi 0.43
 * hdaps_mousedev_poll). tpacceld tolerates a few in a row (a single fault of a working EC), then stops
 * and re-initializes the device with an exponential back-off; claims keep waiting meanwhile. */
#define POLL_HARD_ERRORS_MAX   5
#define REINIT_DELAY_MIN_USEC  (1 * USEC_PER_SEC)
#define REINIT_DELAY_MAX_USEC  (60 * USEC_PER_SEC)
#define BUSY_LOG_INTERVAL_USEC (60 * USEC_PER_SEC) /* at most one "EC busy" line per minute */
#define BUSY_LOG_MIN_PERCENT   10                  /* ... when this share of a window's ticks was busy */

static const char *const hardware_state_table[] = {
        [HARDWARE_OK] = "ok",
        [HARDWARE_FAILING] = "failing",
        [HARDWARE_STOPPED] = "stopped",
};

const char *hardware_state_to_string(HardwareState s)
{
        return (unsigned) s < ELEMENTSOF(hardware_state_table) ? hardware_state_table[s] : "ok";
}

static unsigned full_rate(const Context *c)
{
        return c->config.sampling_rate ?: HDAPS_DEFAULT_SAMPLING_RATE;
}

static uint64_t poll_period_usec(const Context *c)
{
        return USEC_PER_SEC / (c->poll_rate ?: full_rate(c));
}

static void emit_motion_events(Context *c, const MotionEvents *ev)
{
        const MotionState *ms = motion_get_state(c->motion);

        if (ev->mask & MOTION_EVENT_TILT) {
                (void) sd_bus_emit_signal(c->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Tilt", "dds",
                                          ev->pitch, ev->roll,
                                          motion_orientation_to_string(ev->orientation));
                bus_emit_changed(c, "Pitch", "Roll");
        }
        if (ev->mask & MOTION_EVENT_ORIENTATION)
                bus_emit_changed(c, "Orientation");
        if (ev->mask & MOTION_EVENT_SHOCK) {
                log_info("Shock: %.2f g (%s), %llu so far", ev->shock_magnitude, ev->shock_reason,
                         (unsigned long long) ms->shock_count);
                (void) sd_bus_emit_signal(c->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Shock", "dts",
                                          ev->shock_magnitude, ev->shock_time_usec, ev->shock_reason);
                bus_emit_changed(c, "ShockCount", "LastShock");
        }
        if (ev->mask & MOTION_EVENT_SHOCK_ACTIVE)
                bus_emit_changed(c, "ShockActive");
}

void poller_check_rest(Context *c)
{
        const HdapsState *s;

        if (!c->has_accelerometer)
                return;
        s = backend_get_state(c->backend);
        if (s->calibration_pending)
                return;
        if (c->config.has_rest && c->config.rest_x == s->rest_x && c->config.rest_y == s->rest_y)
                return;

        c->config.has_rest = true;
        c->config.rest_x = s->rest_x;
        c->config.rest_y = s->rest_y;
        log_info("Rest position is now (%d, %d)", s->rest_x, s->rest_y);
        if (c->motion)
                motion_reset(c->motion);
        context_save_state(c);
        bus_emit_changed(c, "RestPosition");
}

static void check_activity(Context *c)
{
        const HdapsState *s = backend_get_state(c->backend);

        if (s->keyboard_activity != c->last_keyboard) {
                c->last_keyboard = s->keyboard_activity;
                bus_emit_changed(c, "KeyboardActivity");
        }
        if (s->mouse_activity != c->last_mouse) {
                c->last_mouse = s->mouse_activity;
                bus_emit_changed(c, "MouseActivity");
        }
}

static void set_hardware_state(Context *c, HardwareState state)
{
        if (c->hardware_state == state)
                return;
        c->hardware_state = state;
        bus_emit_changed(c, "HardwareState");
}

static void set_last_error(Context *c, const char *what, int r)
{
        char *e = strprintf("%s: %s", what, strerror(-r));
        if (!e)
                return;
        free(c->last_error);
        c->last_error = e;
        bus_emit_changed(c, "LastError");
}

static int on_reinit_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void arm_reinit(Context *c)
{
        int r;

        if (!c->reinit_timer) {
                r = sd_event_add_time_relative(c->event, &c->reinit_timer, CLOCK_MONOTONIC,
                                               c->reinit_delay_usec, 0, on_reinit_timer, c);
                if (r < 0) {
                        log_error_errno(r, "Failed to start the re-initialization timer: %m");
                        return;
                }
                (void) sd_event_source_set_description(c->reinit_timer, "reinit");
                return;
        }
        (void) sd_event_source_set_time_relative(c->reinit_timer, c->reinit_delay_usec);
        (void) sd_event_source_set_enabled(c->reinit_timer, SD_EVENT_ONESHOT);
}

void poller_stop_reinit(Context *c)
{
        c->reinit_timer = sd_event_source_disable_unref(c->reinit_timer);
}

void poller_hardware_reinitialized(Context *c)
{
        if (c->hardware_state == HARDWARE_STOPPED)
                log_info("The accelerometer works again after re-initialization; polling resumes");
        poller_stop_reinit(c);
        c->hard_errors = 0;
        set_hardware_state(c, HARDWARE_OK);
        poller_update(c);
}

static int on_reinit_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Context *c = userdata;
        int r;

        if (c->suspended || c->hardware_state != HARDWARE_STOPPED) {
                /* Asleep: resume re-initializes. Try again later anyway, in case resume failed. */
                if (c->hardware_state == HARDWARE_STOPPED)
                        arm_reinit(c);
                return 0;
        }
        r = context_init_device(c);
        if (r >= 0) {
                poller_hardware_reinitialized(c);
                return 0;
        }
        set_last_error(c, "re-initializing the accelerometer failed", r);
        c->reinit_delay_usec = MIN(c->reinit_delay_usec * 2, (uint64_t) REINIT_DELAY_MAX_USEC);
        log_debug_errno(r, "Re-initializing the accelerometer failed, next try in %llu s: %m",
                        (unsigned long long) (c->reinit_delay_usec / USEC_PER_SEC));
        arm_reinit(c);
        return 0;
}

/* A hard error of a poll tick: counted; after POLL_HARD_ERRORS_MAX in a row polling stops (logged
 * once) and the device is re-initialized with a back-off. */
static void poll_hard_error(Context *c, int r)
{
        c->hard_errors++;
        set_last_error(c, "reading the accelerometer failed", r);
        if (c->hardware_state == HARDWARE_OK) {
                log_warning_errno(r, "Reading the accelerometer failed: %m; polling goes on");
                set_hardware_state(c, HARDWARE_FAILING);
        }
        if (c->hard_errors < POLL_HARD_ERRORS_MAX)
                return;

        log_error_errno(r,
                        "Reading the accelerometer failed %u times in a row (%m): polling stopped; "
                        "re-initializing in %d s, then with a back-off up to %d s",
                        c->hard_errors, (int) (REINIT_DELAY_MIN_USEC / USEC_PER_SEC),
                        (int) (REINIT_DELAY_MAX_USEC / USEC_PER_SEC));
        set_hardware_state(c, HARDWARE_STOPPED);
        c->reinit_delay_usec = REINIT_DELAY_MIN_USEC;
        arm_reinit(c);
        /* on_poll_timer() stops the timer (poller_wanted() is false while stopped). */
}

/* Ticks without a new readout lower the effective rate: counted, and logged at most once per
 * BUSY_LOG_INTERVAL_USEC when they were a noticeable share of the ticks. */
static void count_tick(Context *c, bool busy, uint64_t now)
{
        if (c->busy_window_start_usec == 0)
                c->busy_window_start_usec = now;
        c->busy_window_ticks++;
        if (busy) {
                c->busy_ticks++;
                c->busy_window_busy++;
        }
        if (now - c->busy_window_start_usec < BUSY_LOG_INTERVAL_USEC)
                return;
        if (c->busy_window_busy * 100 >= c->busy_window_ticks * BUSY_LOG_MIN_PERCENT)
                log_warning("The EC was busy or had no new readout in %llu of %llu poll ticks over the last "
                            "%llu s (%llu since start): the effective rate is %.1f Hz, not %u Hz",
                            (unsigned long long) c->busy_window_busy,
                            (unsigned long long) c->busy_window_ticks,
                            (unsigned long long) ((now - c->busy_window_start_usec) / USEC_PER_SEC),
                            (unsigned long long) c->busy_ticks,
                            (double) (c->busy_window_ticks - c->busy_window_busy) * USEC_PER_SEC /
                                    (double) (now - c->busy_window_start_usec),
                            c->config.sampling_rate);
        c->busy_window_start_usec = now;
        c->busy_window_ticks = c->busy_window_busy = 0;
}

static void poll_once(Context *c)
{
        HdapsReadout ro;
        int r;

        if (c->diagnosis)
                diagnosis_before_poll(c->diagnosis);
        r = backend_poll(c->backend, &ro);
        count_tick(c, r == -EBUSY, now_usec());
        if (c->diagnosis)
                diagnosis_after_poll(c->diagnosis, r, &ro);
        if (r == -EBUSY)
                return; /* no new readout this tick: keep the cached values */
        if (r < 0) {
                poll_hard_error(c, r);
                return;
        }
        if (c->hardware_state == HARDWARE_FAILING)
                log_info("Reading the accelerometer works again after %u failures", c->hard_errors);
        c->hard_errors = 0;
        set_hardware_state(c, HARDWARE_OK);

        uint64_t t = ro.time_ns / NSEC_PER_USEC;
        r = sd_bus_emit_signal(c->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Sample", "tii", t, ro.x, ro.y);
        if (r < 0)
                log_debug_errno(r, "Failed to emit Sample: %m");

        poller_check_rest(c);
        check_activity(c);
        if (input_devices_enabled(c->input_devices)) {
                const HdapsState *st = backend_get_state(c->backend);
                r = input_devices_report(c->input_devices, ro.x, ro.y, st, full_rate(c));
                if (r < 0)
                        log_debug_errno(r, "Writing to the hdaps input devices failed: %m");
        }

        bool shock_active = false;
        if (c->motion) {
                const HdapsState *s = backend_get_state(c->backend);
                MotionSample ms = {
                        .time_usec = t,
                        .x = ro.x,
                        .y = ro.y,
                        .rest_x = s->rest_x,
                        .rest_y = s->rest_y,
                        .new_readouts = ro.readouts,
                        .keyboard = ro.keyboard,
                        .mouse = ro.mouse,
                };
                MotionEvents ev = {};

                motion_feed(c->motion, &ms, &ev);
                if (ev.mask)
                        emit_motion_events(c, &ev);
                shock_active = motion_get_state(c->motion)->shock_active;
                sensor_proxy_readout(c, t, ro.readouts > 0);
        }
        protection_tick(c, shock_active, now_usec());
}

static int on_poll_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Context *c = userdata;
        uint64_t period = poll_period_usec(c), next = usec + period, now = now_usec();

        poll_once(c);
        if (c->hardware_state == HARDWARE_STOPPED) {
                poller_update(c); /* drops this timer; sd-event keeps it alive until we return */
                return 0;
        }
        diagnose_bus_tick(c); /* may stop polling: then s is gone */
        if (!c->poll_timer)
                return 0;

        /* Keep the cadence of the schedule; after a stall, start over from now instead of catching up. */
        if (next <= now)
                next = now + period;
        (void) sd_event_source_set_time(s, next);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

static bool poller_wanted(const Context *c)
{
        return c->has_accelerometer && !c->suspended && c->hardware_state != HARDWARE_STOPPED &&
               (claims_any(c) || sensor_proxy_claimed(c) || protection_armed(c) || c->diagnosis ||
                input_devices_enabled(c->input_devices));
}

/* The rate polling needs now and why (a new string); 0 when nothing polls. */
static unsigned wanted_rate(const Context *c, char **ret_reason)
{
        unsigned full = full_rate(c), rate = 0, claimed;
        const char *claimer = NULL;

        if (!poller_wanted(c)) {
                if (!c->has_accelerometer)
                        *ret_reason = strdup("not polling: there is no accelerometer");
                else if (c->suspended)
                        *ret_reason = strdup("not polling: suspended");
                else if (c->hardware_state == HARDWARE_STOPPED)
                        *ret_reason = strdup("not polling: the hardware failed (HardwareState stopped)");
                else
                        *ret_reason = strdup("not polling: nothing claims the accelerometer");
                return 0;
        }
        if (protection_armed(c)) {
                *ret_reason = strprintf("disk protection is armed (the full SamplingRate, %u Hz)", full);
                return full;
        }
        if (c->diagnosis) {
                *ret_reason = strprintf("a diagnosis is running (the full SamplingRate, %u Hz)", full);
                return full;
        }
        if (input_devices_enabled(c->input_devices)) {
                *ret_reason =
                        strprintf("the input devices are enabled (the full SamplingRate, %u Hz)", full);
                return full;
        }
        claimed = claims_max_rate(c, full, &claimer);
        if (sensor_proxy_claimed(c) && MIN((unsigned) SENSOR_PROXY_RATE_HZ, full) > claimed) {
                rate = MIN((unsigned) SENSOR_PROXY_RATE_HZ, full);
                *ret_reason = strprintf("a %s claim (screen rotation, %u Hz)", SENSOR_PROXY_BUS_NAME, rate);
                return rate;
        }
        *ret_reason = strprintf("a claim by %s at %u Hz%s", strna(claimer), claimed,
                                claimed == full ? " (the full SamplingRate)" : "");
        return claimed;
}

/* Sets the backend's sampling rate to rate, unless it is there already. The EC's config change drops
 * the prefetched readout; the next tick then does the bounded full read, so no readout is lost. */
static void set_backend_rate(Context *c, unsigned rate)
{
        int r;

        if ((c->backend_rate ?: c->config.sampling_rate) == rate)
                return;
        r = backend_set_sampling_rate(c->backend, rate);
        if (r < 0) {
                /* Kernel drivers without a rate attribute poll at their own rate: reading slower is fine. */
                if (r != -EOPNOTSUPP)
                        log_warning_errno(r,
                                          "Setting the accelerometer's sampling rate to %u Hz failed, "
                                          "polling at %u Hz anyway: %m",
                                          rate, rate);
                return;
        }
        c->backend_rate = rate;
        log_debug("The accelerometer samples at %u Hz now", rate);
}

/* Brings the rate in force (EffectiveRate) to what polling needs: the backend's rate and the timer. */
static void apply_rate(Context *c)
{
        _cleanup_free_ char *reason = NULL;
        unsigned rate = wanted_rate(c, &reason);
        bool changed = rate != c->poll_rate;

        if (rate > 0)
                set_backend_rate(c, rate);
        else if (c->has_accelerometer && !c->suspended && c->hardware_state != HARDWARE_STOPPED)
                /* Nobody polls: the EC goes back to the configured rate (SamplingRate x ratio), what
                 * on-demand readers and the EC's own configuration (0x17/0x82) then show. */
                set_backend_rate(c, full_rate(c));
        if (changed) {
                log_debug("Polling rate %u Hz: %s", rate, strna(reason));
                c->poll_rate = rate;
                if (c->poll_timer && rate > 0) {
                        uint64_t period = poll_period_usec(c);
                        (void) sd_event_source_set_time_accuracy(c->poll_timer,
                                                                 MAX(period / POLL_ACCURACY_DIVISOR, 1u));
                        (void) sd_event_source_set_time_relative(c->poll_timer, period);
                        (void) sd_event_source_set_enabled(c->poll_timer, SD_EVENT_ONESHOT);
                }
                bus_emit_changed(c, "EffectiveRate");
        }
        if (reason && (!c->poll_rate_reason || strcmp(reason, c->poll_rate_reason) != 0)) {
                free(c->poll_rate_reason);
                c->poll_rate_reason = TAKE_PTR(reason);
                bus_emit_changed(c, "EffectiveRateReason");
        }
}

void poller_update(Context *c)
{
        bool want = poller_wanted(c);
        int r;

        apply_rate(c);
        if (want && !c->poll_timer) {
                uint64_t period = poll_period_usec(c);
                r = sd_event_add_time_relative(c->event, &c->poll_timer, CLOCK_MONOTONIC, period,
                                               MAX(period / POLL_ACCURACY_DIVISOR, 1u), on_poll_timer, c);
                if (r < 0) {
                        log_error_errno(r, "Failed to start the polling timer: %m");
                        want = false;
                } else {
                        (void) sd_event_source_set_description(c->poll_timer, "poll");
                        if (c->motion)
                                motion_reset(c->motion);
                        backend_set_streaming(c->backend, true);
                        log_debug("Polling started at %u Hz", c->poll_rate);
                }
        } else if (!want && c->poll_timer) {
                c->poll_timer = sd_event_source_disable_unref(c->poll_timer);
                if (c->backend)
                        backend_set_streaming(c->backend, false);
                log_debug("Polling stopped");
        }

        if (want != c->polling) {
                c->polling = want;
                bus_emit_changed(c, "Polling", "Claimed"); /* Claimed: its deprecated alias */
        }
}

void poller_rate_changed(Context *c)
{
        c->backend_rate = 0; /* SetSamplingRate set the backend to the configured rate */
        c->poll_rate = 0;    /* re-arm the timer even if the rate in force stays */
        apply_rate(c);
}

void poller_refresh_on_demand(Context *c)
{
        int r;

        if (c->polling || !c->has_accelerometer || c->suspended || c->hardware_state == HARDWARE_STOPPED)
                return;
        r = backend_update(c->backend);
        if (r < 0)
                log_debug_errno(r, "On-demand readout failed, keeping the cached values: %m");
        else
                poller_check_rest(c);
}
