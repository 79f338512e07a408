/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <string.h>

#include "macros.h"
#include "motion-params.h"
#include "shock.h"

void shock_init(ShockDetector *s, double sensitivity, unsigned hold_ms)
{
        memset(s, 0, sizeof(*s));
        s->sensitivity = sensitivity;
        s->hold_ms = hold_ms;
}

void shock_reset(ShockDetector *s)
{
        s->have_prev = false;
        s->have_activity = false;
        s->vibration_ms2 = 0;
        s->prev_rate_gps = 0;
}

double shock_vibration_level(const ShockDetector *s)
{
        return sqrt(s->vibration_ms2);
}

static bool activity_recent(const ShockDetector *s, uint64_t time_usec)
{
        return s->have_activity && time_usec - s->activity_usec < SHOCK_ACTIVITY_WINDOW_MS * USEC_PER_MSEC;
}

/* A threshold t (g) raised during the activity window and divided by the sensitivity. */
static double adjust(const ShockDetector *s, uint64_t time_usec, double t)
{
        if (activity_recent(s, time_usec))
                t *= SHOCK_ACTIVITY_GAIN;
        return t / s->sensitivity;
}

/* The jolt threshold adds the background: a deviation must stand out of the vibration. */
double shock_jolt_threshold(const ShockDetector *s, uint64_t time_usec)
{
        return adjust(s, time_usec, SHOCK_JOLT_G + SHOCK_VIBRATION_GAIN * shock_vibration_level(s));
}

/* The fall threshold only grows once the vibration dominates: the collapse of the gravity vector is a
 * specific signature, which sensor noise and hand tremor do not imitate. */
static double freefall_threshold(const ShockDetector *s, uint64_t time_usec)
{
        return adjust(s, time_usec,
                      MAX(SHOCK_FREEFALL_DROP_G, SHOCK_FREEFALL_VIBRATION_GAIN * shock_vibration_level(s)));
}

static double lowpass_weight(double dt, double tau)
{
        return 1.0 - exp(-dt / tau);
}

static void start_history(ShockDetector *s, uint64_t time_usec, double gx, double gy)
{
        s->have_prev = true;
        s->prev_usec = time_usec;
        s->prev_gx = s->ref_gx = gx;
        s->prev_gy = s->ref_gy = gy;
        s->prev_rate_gps = 0;
}

static void expire_hold(ShockDetector *s, uint64_t time_usec, ShockResult *ret)
{
        if (s->active && time_usec - s->last_motion_usec >= (uint64_t) s->hold_ms * USEC_PER_MSEC) {
                s->active = false;
                ret->active_changed = true;
        }
}

void shock_feed(ShockDetector *s, uint64_t time_usec, double gx, double gy, bool new_data, bool activity,
                ShockResult *ret)
{
        *ret = (ShockResult){};

        if (activity) {
                s->activity_usec = time_usec;
                s->have_activity = true;
        }

        if (!new_data || (s->have_prev && time_usec <= s->prev_usec)) {
                expire_hold(s, time_usec, ret);
                return;
        }
        if (!s->have_prev || (double) (time_usec - s->prev_usec) / USEC_PER_SEC > SHOCK_GAP_RESET_S) {
                start_history(s, time_usec, gx, gy);
                expire_hold(s, time_usec, ret);
                return;
        }

        double dt = (double) (time_usec - s->prev_usec) / USEC_PER_SEC; /* covers missed readouts */
        double rate = hypot(gx - s->prev_gx, gy - s->prev_gy) / dt;     /* g/s */
        double deviation = hypot(gx - s->ref_gx, gy - s->ref_gy);       /* g */
        double ref_norm = hypot(s->ref_gx, s->ref_gy), norm = hypot(gx, gy);

        double jolt_t = shock_jolt_threshold(s, time_usec);
        double fall_t = freefall_threshold(s, time_usec);
        bool fast = MAX(rate, s->prev_rate_gps) >= SHOCK_FREEFALL_RATE_GPS;
        bool freefall = ref_norm >= SHOCK_FREEFALL_MIN_G && ref_norm - norm >= fall_t && fast;
        bool jolt = deviation >= jolt_t;

        if (jolt || freefall) {
                if (!s->active) {
                        s->active = true;
                        s->count++;
                        s->last_onset_usec = time_usec;
                        s->last_magnitude = deviation;
                        s->last_reason = freefall                       ? "freefall"
                                         : rate >= SHOCK_DRIFT_RATE_GPS ? "jolt"
                                                                        : "drift";
                        ret->onset = ret->active_changed = true;
                        ret->magnitude = s->last_magnitude;
                        ret->reason = s->last_reason;
                }
                s->last_motion_usec = time_usec;
        } else if (s->active && deviation >= SHOCK_QUIET_FACTOR * jolt_t)
                s->last_motion_usec = time_usec; /* not quiet yet: the hold restarts */

        /* The background: mean square of the deviation, each term clipped to the jolt threshold so a
         * shock moves it only by a bounded amount while sustained vibration raises it within seconds. */
        double clipped = MIN(deviation, jolt_t);
        s->vibration_ms2 +=
                lowpass_weight(dt, SHOCK_VIBRATION_TAU_S) * (clipped * clipped - s->vibration_ms2);

        double w = lowpass_weight(dt, SHOCK_BASELINE_TAU_S);
        s->ref_gx += w * (gx - s->ref_gx);
        s->ref_gy += w * (gy - s->ref_gy);
        s->prev_gx = gx;
        s->prev_gy = gy;
        s->prev_usec = time_usec;
        s->prev_rate_gps = rate;

        expire_hold(s, time_usec, ret);
}
