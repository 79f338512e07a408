/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"
#include "motion-params.h"
#include "motion.h"
#include "movement.h"
#include "orientation.h"
#include "shock.h"
#include "strutil.h"
#include "tilt.h"

/* Plausible HDAPS scales: about 155-160 counts per g; anything outside this range is a typo. */
#define MOTION_COUNTS_PER_G_MIN 10.0
#define MOTION_COUNTS_PER_G_MAX 10000.0

struct Motion {
        MotionConfig config;
        MotionState state;
        TiltTracker tilt;
        OrientationTracker orientation;
        ShockDetector shock;
        MovementDetector movement;
        double tilt_pitch, tilt_roll; /* angles sent with the last Tilt event */
        bool tilt_sent;
};

static const char *const motion_orientation_table[_MOTION_ORIENTATION_MAX] = {
        [MOTION_ORIENTATION_UNDEFINED] = "undefined", [MOTION_ORIENTATION_NORMAL] = "normal",
        [MOTION_ORIENTATION_BOTTOM_UP] = "bottom-up", [MOTION_ORIENTATION_LEFT_UP] = "left-up",
        [MOTION_ORIENTATION_RIGHT_UP] = "right-up",
};

DEFINE_STRING_TABLE_LOOKUP(motion_orientation, MotionOrientation);

/* isfinite() first: NaN compares false with everything and would slip through a range check. */
static bool in_range(double v, double lo, double hi)
{
        return isfinite(v) && v >= lo && v <= hi;
}

int motion_config_validate(const MotionConfig *c, const char **ret_msg)
{
        const char *msg = NULL;

        assert(c);

        if (!in_range(c->counts_per_g, MOTION_COUNTS_PER_G_MIN, MOTION_COUNTS_PER_G_MAX))
                msg = "counts_per_g must be between 10 and 10000";
        else if (!in_range(c->tilt_step, MOTION_TILT_STEP_MIN, MOTION_TILT_STEP_MAX))
                msg = "tilt step must be between 0.1 and 45 degrees";
        else if (!in_range(c->shock_sensitivity, MOTION_SENSITIVITY_MIN, MOTION_SENSITIVITY_MAX))
                msg = "shock sensitivity must be between 0.1 and 10";
        else if (c->shock_hold_ms < MOTION_SHOCK_HOLD_MS_MIN || c->shock_hold_ms > MOTION_SHOCK_HOLD_MS_MAX)
                msg = "shock hold time must be between 100 and 60000 ms";

        if (ret_msg)
                *ret_msg = msg;
        return msg ? -EINVAL : 0;
}

int motion_new(const MotionConfig *config, Motion **ret)
{
        assert(config);
        assert(ret);

        int r = motion_config_validate(config, NULL);
        if (r < 0)
                return r;

        Motion *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->config = *config;
        shock_init(&m->shock, config->shock_sensitivity, config->shock_hold_ms);
        movement_init(&m->movement);
        m->state.orientation = MOTION_ORIENTATION_UNDEFINED;
        *ret = m;
        return 0;
}

Motion *motion_free(Motion *m)
{
        free(m);
        return NULL;
}

/* How far TILT_EVENT_NOISE_BAND_COUNTS of noise can move an angle of deg degrees (toward vertical, the
 * worst case), in degrees. */
static double noise_deg(const Motion *m, double deg)
{
        double s = fabs(sin(deg * M_PI / 180.0)) + TILT_EVENT_NOISE_BAND_COUNTS / m->config.counts_per_g;
        return asin(MIN(s, 1.0)) * 180.0 / M_PI - fabs(deg);
}

static bool angle_moved(const Motion *m, double now, double sent)
{
        return fabs(now - sent) >= MAX(m->config.tilt_step, noise_deg(m, sent));
}

static void update_tilt_event(Motion *m, bool orientation_changed, MotionEvents *ret)
{
        bool moved = !m->tilt_sent || angle_moved(m, m->state.pitch, m->tilt_pitch) ||
                     angle_moved(m, m->state.roll, m->tilt_roll);
        if (!moved && !orientation_changed)
                return;
        m->tilt_pitch = m->state.pitch;
        m->tilt_roll = m->state.roll;
        m->tilt_sent = true;
        ret->mask |= MOTION_EVENT_TILT;
}

void motion_feed(Motion *m, const MotionSample *s, MotionEvents *ret)
{
        assert(m);
        assert(s);

        bool new_data = s->new_readouts > 0;
        bool activity = s->keyboard || s->mouse;
        double x = s->x - s->rest_x, y = s->y - s->rest_y;

        *ret = (MotionEvents) {};

        ShockResult shock = {};
        if (s->rate_hz == 0 || s->rate_hz >= MOTION_SHOCK_MIN_RATE_HZ)
                shock_feed(&m->shock, s->time_usec, x / m->config.counts_per_g, y / m->config.counts_per_g,
                           new_data, activity, &shock);
        else {
                /* Too slow for the detector: its history means nothing at the next fast readout, and
                 * a shock in progress is over (nothing watches it any more). */
                shock_reset(&m->shock);
                if (m->shock.active) {
                        m->shock.active = false;
                        shock.active_changed = true;
                }
        }

        MovementResult movement = {};
        if (s->watch_movement)
                movement_feed(&m->movement, s->time_usec, x / m->config.counts_per_g,
                              y / m->config.counts_per_g, new_data, activity, &movement);
        else
                movement.moving_changed = movement_stop(&m->movement);

        if (new_data) {
                tilt_update(&m->tilt, s->time_usec, x, y, !activity && !m->shock.active);
                tilt_angles(&m->tilt, x, y, m->config.counts_per_g, &m->state.pitch, &m->state.roll);
        }
        bool orientation_changed =
                orientation_update(&m->orientation, s->time_usec, m->state.pitch, m->state.roll, new_data);

        m->state.orientation = m->orientation.current;
        m->state.last_sample_usec = s->time_usec;
        m->state.drift_x = m->tilt.drift_x;
        m->state.drift_y = m->tilt.drift_y;
        m->state.shock_active = m->shock.active;
        m->state.shock_count = m->shock.count;
        m->state.last_shock_usec = m->shock.last_onset_usec;
        m->state.last_shock_magnitude = m->shock.last_magnitude;
        m->state.vibration_level = shock_vibration_level(&m->shock);
        m->state.moving = m->movement.moving;
        m->state.move_count = m->movement.count;

        if (orientation_changed)
                ret->mask |= MOTION_EVENT_ORIENTATION;
        if (new_data || orientation_changed)
                update_tilt_event(m, orientation_changed, ret);
        if (shock.onset) {
                ret->mask |= MOTION_EVENT_SHOCK;
                ret->shock_magnitude = shock.magnitude;
                ret->shock_time_usec = s->time_usec;
                ret->shock_reason = shock.reason;
        }
        if (shock.active_changed)
                ret->mask |= MOTION_EVENT_SHOCK_ACTIVE;
        if (movement.onset) {
                ret->mask |= MOTION_EVENT_MOVED;
                ret->move_strength = movement.strength;
                ret->move_time_usec = s->time_usec;
        }
        if (movement.moving_changed)
                ret->mask |= MOTION_EVENT_MOVING;
        ret->moving = m->state.moving;

        ret->pitch = m->state.pitch;
        ret->roll = m->state.roll;
        ret->orientation = m->state.orientation;
        ret->shock_active = m->state.shock_active;
}

void motion_angles_of(const Motion *m, const MotionSample *s, double *ret_pitch, double *ret_roll,
                      MotionOrientation *ret_orientation)
{
        double pitch, roll;

        tilt_angles(&m->tilt, s->x - s->rest_x, s->y - s->rest_y, m->config.counts_per_g, &pitch, &roll);
        *ret_pitch = pitch;
        *ret_roll = roll;
        *ret_orientation = orientation_classify(m->state.orientation, pitch, roll);
}

void motion_reset(Motion *m)
{
        assert(m);

        tilt_reset(&m->tilt);
        orientation_reset(&m->orientation);
        shock_reset(&m->shock);
        movement_reset(&m->movement);
        m->state.drift_x = m->state.drift_y = 0;
        m->state.vibration_level = 0;
}

bool motion_stop_movement(Motion *m)
{
        assert(m);

        bool changed = movement_stop(&m->movement);
        m->state.moving = false;
        return changed;
}

int motion_set_tilt_step(Motion *m, double degrees)
{
        assert(m);

        if (!in_range(degrees, MOTION_TILT_STEP_MIN, MOTION_TILT_STEP_MAX))
                return -EINVAL;
        m->config.tilt_step = degrees;
        return 0;
}

int motion_set_shock_sensitivity(Motion *m, double sensitivity)
{
        assert(m);

        if (!in_range(sensitivity, MOTION_SENSITIVITY_MIN, MOTION_SENSITIVITY_MAX))
                return -EINVAL;
        m->config.shock_sensitivity = sensitivity;
        m->shock.sensitivity = sensitivity;
        return 0;
}

int motion_set_counts_per_g(Motion *m, double counts_per_g)
{
        assert(m);

        if (!in_range(counts_per_g, MOTION_COUNTS_PER_G_MIN, MOTION_COUNTS_PER_G_MAX))
                return -EINVAL;
        m->config.counts_per_g = counts_per_g;
        return 0;
}

int motion_set_shock_hold_ms(Motion *m, unsigned ms)
{
        assert(m);

        if (ms < MOTION_SHOCK_HOLD_MS_MIN || ms > MOTION_SHOCK_HOLD_MS_MAX)
                return -EINVAL;
        m->config.shock_hold_ms = ms;
        m->shock.hold_ms = ms;
        return 0;
}

const MotionState *motion_get_state(const Motion *m)
{
        assert(m);

        return &m->state;
}

const MotionConfig *motion_get_config(const Motion *m)
{
        assert(m);

        return &m->config;
}
