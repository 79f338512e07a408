/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Polling: a CLOCK_MONOTONIC timer at 1/SamplingRate, armed only while a client claims or disk
 * protection is armed (and the device is present and awake). Each tick: one readout -> Sample signal,
 * motion processing -> Tilt/Shock and property changes, disk protection. No claim: no timer at all. */

#include <errno.h>
#include <time.h>

#include "context.h"
#include "ec-protocol.h"
#include "log.h"

#define POLL_ACCURACY_DIVISOR 10   /* timer slack: 10% of the period */
#define POLL_ERROR_LOG_EVERY  1000 /* after the first failure, one warning per this many */

uint64_t now_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static uint64_t poll_period_usec(const Context *c)
{
        unsigned rate = c->config.sampling_rate ?: HDAPS_DEFAULT_SAMPLING_RATE;
        return USEC_PER_SEC / rate;
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

static void poll_once(Context *c)
{
        HdapsReadout ro;
        int r;

        r = backend_poll(c->backend, &ro);
        if (r == -EBUSY)
                return; /* no new readout yet: keep the cached values */
        if (r < 0) {
                if (c->poll_errors++ % POLL_ERROR_LOG_EVERY == 0)
                        log_warning_errno(r, "Reading the accelerometer failed (%u in a row): %m",
                                          c->poll_errors);
                return;
        }
        if (c->poll_errors > 0) {
                log_info("Reading the accelerometer works again after %u failures", c->poll_errors);
                c->poll_errors = 0;
        }

        uint64_t t = ro.time_ns / NSEC_PER_USEC;
        r = sd_bus_emit_signal(c->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Sample", "tii", t, ro.x, ro.y);
        if (r < 0)
                log_debug_errno(r, "Failed to emit Sample: %m");

        poller_check_rest(c);
        check_activity(c);

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

        /* Keep the cadence of the schedule; after a stall, start over from now instead of catching up. */
        if (next <= now)
                next = now + period;
        (void) sd_event_source_set_time(s, next);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

static bool poller_wanted(const Context *c)
{
        return c->has_accelerometer && !c->suspended &&
               (c->claims || sensor_proxy_claimed(c) || protection_armed(c));
}

void poller_update(Context *c)
{
        bool want = poller_wanted(c);
        int r;

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
                        log_debug("Polling started at %u Hz", c->config.sampling_rate);
                }
        } else if (!want && c->poll_timer) {
                c->poll_timer = sd_event_source_disable_unref(c->poll_timer);
                if (c->backend)
                        backend_set_streaming(c->backend, false);
                log_debug("Polling stopped");
        }

        if (want != c->polling) {
                c->polling = want;
                bus_emit_changed(c, "Claimed");
        }
}

void poller_rate_changed(Context *c)
{
        uint64_t period = poll_period_usec(c);

        if (!c->poll_timer)
                return;
        (void) sd_event_source_set_time_accuracy(c->poll_timer, MAX(period / POLL_ACCURACY_DIVISOR, 1u));
        (void) sd_event_source_set_time_relative(c->poll_timer, period);
        (void) sd_event_source_set_enabled(c->poll_timer, SD_EVENT_ONESHOT);
}

void poller_refresh_on_demand(Context *c)
{
        int r;

        if (c->polling || !c->has_accelerometer || c->suspended)
                return;
        r = backend_update(c->backend);
        if (r < 0)
                log_debug_errno(r, "On-demand readout failed, keeping the cached values: %m");
        else
                poller_check_rest(c);
}
