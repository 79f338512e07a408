/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one path of a readout through the daemon (see readout.h). */

#include "context.h"
#include "input-devices.h"
#include "log.h"
#include "movement-watch.h"
#include "readout.h"

/* The observer's motion event for the events of ev in kind (one MOTION_EVENT_* bit). */
static void report_motion_event(Context *c, const MotionEvents *ev, unsigned kind)
{
        MotionEvents one = *ev;

        one.mask = kind;
        if (c->observer && c->observer->motion)
                c->observer->motion(c, &one, c->observer_userdata);
}

/* Each event, then the properties it changed, in the order of the events' signals. */
static void report_motion(Context *c, const MotionEvents *ev)
{
        const MotionState *ms = motion_get_state(c->motion);

        if (ev->mask & MOTION_EVENT_TILT) {
                report_motion_event(c, ev, MOTION_EVENT_TILT);
                context_changed(c, CHANGE_MASK(CHANGE_PITCH) | CHANGE_MASK(CHANGE_ROLL));
        }
        if (ev->mask & MOTION_EVENT_ORIENTATION)
                context_changed(c, CHANGE_MASK(CHANGE_ORIENTATION));
        if (ev->mask & MOTION_EVENT_SHOCK) {
                log_info("Shock: %.2f g (%s), %llu so far", ev->shock_magnitude, ev->shock_reason,
                         (unsigned long long) ms->shock_count);
                report_motion_event(c, ev, MOTION_EVENT_SHOCK);
                context_changed(c, CHANGE_MASK(CHANGE_SHOCK_COUNT) | CHANGE_MASK(CHANGE_LAST_SHOCK));
        }
        if (ev->mask & MOTION_EVENT_SHOCK_ACTIVE)
                context_changed(c, CHANGE_MASK(CHANGE_SHOCK_ACTIVE));
        if (ev->mask & MOTION_EVENT_MOVED) {
                log_info("Moved: %.2f g from where it rested (movement %llu since start)", ev->move_strength,
                         (unsigned long long) ms->move_count);
                report_motion_event(c, ev, MOTION_EVENT_MOVED);
                context_changed(c, CHANGE_MASK(CHANGE_MOVE_COUNT));
        }
        if (ev->mask & MOTION_EVENT_MOVING)
                context_changed(c, CHANGE_MASK(CHANGE_MOVING));
}

static void check_activity(Context *c)
{
        const HdapsState *s = backend_get_state(c->backend);

        if (s->keyboard_activity != c->last_keyboard) {
                c->last_keyboard = s->keyboard_activity;
                context_changed(c, CHANGE_MASK(CHANGE_KEYBOARD_ACTIVITY));
        }
        if (s->mouse_activity != c->last_mouse) {
                c->last_mouse = s->mouse_activity;
                context_changed(c, CHANGE_MASK(CHANGE_MOUSE_ACTIVITY));
        }
}

void readout_process(Context *c, const HdapsReadout *ro)
{
        uint64_t t = ro->time_ns / NSEC_PER_USEC;
        int r;

        context_check_rest(c);
        check_activity(c);
        if (input_devices_enabled(c->input_devices)) {
                const HdapsState *st = backend_get_state(c->backend);
                r = input_devices_report(c->input_devices, ro->x, ro->y, st, context_full_rate(c));
                if (r < 0)
                        log_debug_errno(r, "Writing to the hdaps input devices failed: %m");
        }

        bool shock_active = false;
        if (c->motion) {
                const HdapsState *s = backend_get_state(c->backend);
                MotionSample ms = {
                        .time_usec = t,
                        .x = ro->x,
                        .y = ro->y,
                        .rest_x = s->rest_x,
                        .rest_y = s->rest_y,
                        .new_readouts = ro->readouts,
                        .keyboard = ro->keyboard,
                        .mouse = ro->mouse,
                        .rate_hz = c->poller.poll_rate,
                        .watch_movement = movement_watched(c),
                };
                MotionEvents ev = {};

                motion_feed(c->motion, &ms, &ev);
                if (ev.mask)
                        report_motion(c, &ev);
                shock_active = motion_get_state(c->motion)->shock_active;
                if (c->observer && c->observer->processed)
                        c->observer->processed(c, t, ro->readouts > 0, c->observer_userdata);
        }
        if (c->observer && c->observer->readout) {
                ReadoutEvent e = {.time_usec = t, .readout = ro, .shock_active = shock_active};
                c->observer->readout(c, &e, c->observer_userdata);
        }
        protection_tick(c, shock_active, now_usec());
}

bool readout_on_demand(Context *c)
{
        bool pending;
        int r;

        if (c->poller.polling || !c->has_accelerometer || c->suspend.active ||
            c->poller.hardware_state == HARDWARE_STOPPED)
                return false;
        pending = backend_get_state(c->backend)->calibration_pending;
        r = backend_update(c->backend);
        if (r < 0) {
                log_debug_errno(r, "On-demand readout failed, keeping the cached values: %m");
                return false;
        }
        return pending && !backend_get_state(c->backend)->calibration_pending;
}

void context_calibrate(Context *c)
{
        backend_calibrate(c->backend);
        c->calibration_requested = true;
        (void) readout_on_demand(c);
        context_check_rest(c); /* when that readout finished it; otherwise the next readout does */
}

static int on_rest_check(sd_event_source *s, void *userdata)
{
        context_check_rest(userdata);
        return 0;
}

void readout_refresh(Context *c)
{
        int r;

        if (!readout_on_demand(c))
                return;
        if (!c->rest_check) {
                r = sd_event_add_defer(c->event, &c->rest_check, on_rest_check, c);
                if (r < 0) {
                        /* The next readout (a poll tick, Calibrate, another reader's) takes it. */
                        log_debug_errno(r, "Failed to defer taking the rest position: %m");
                        return;
                }
                (void) sd_event_source_set_description(c->rest_check, "rest-check");
        }
        (void) sd_event_source_set_enabled(c->rest_check, SD_EVENT_ONESHOT);
}

void readout_current_angles(Context *c, double *ret_pitch, double *ret_roll,
                            MotionOrientation *ret_orientation)
{
        const MotionState *ms = c->motion ? motion_get_state(c->motion) : NULL;

        *ret_pitch = ms ? ms->pitch : 0;
        *ret_roll = ms ? ms->roll : 0;
        *ret_orientation = ms ? ms->orientation : MOTION_ORIENTATION_UNDEFINED;
        if (!ms || c->poller.polling || !c->has_accelerometer || !c->backend)
                return;

        readout_refresh(c);
        const HdapsState *s = backend_get_state(c->backend);
        if (!s || !s->valid)
                return;
        MotionSample sample = {.x = s->x, .y = s->y, .rest_x = s->rest_x, .rest_y = s->rest_y};
        motion_angles_of(c->motion, &sample, ret_pitch, ret_roll, ret_orientation);
}
