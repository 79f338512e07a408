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
        s->collapsed = false;
        s->n_recent = 0;
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
        s->collapsed = false;
        s->n_recent = 0;
}

/* The free-fall decision. In free fall both axes read 0 g until the impact, so the gravity vector of a
 * tilted machine collapses (within a readout or two: the sensor settles in ~25 ms) and then stays near 0 g
 * with nothing but noise. A bump swings a nearly flat machine's vector through 0 g too, but passes
 * through: it keeps moving and leaves again within tens of milliseconds, and the vector was already
 * moving before it. So a collapse to at most a fraction of the vector's length within
 * SHOCK_FREEFALL_COLLAPSE_MS starts a candidate; a deep one (a tilted machine) is a fall at once, a
 * shallow one only if the vector was steady before it (steady_before()), it has lasted
 * SHOCK_FREEFALL_HOLD_MS / sensitivity and the readouts since its first one (which may still be settling)
 * all lie within SHOCK_FREEFALL_STILL_G of their mean (settled()). A jolt on the first readout of a
 * collapse that would be deep, caught mid-way, is a fall too (freefall_test()'s *ret_starting). */
static bool settled(const ShockDetector *s)
{
        double mx = 0, my = 0;

        if (s->n_settle == 0)
                return false;
        for (unsigned i = 0; i < s->n_settle; i++) {
                mx += s->settle_gx[i] / s->n_settle;
                my += s->settle_gy[i] / s->n_settle;
        }
        for (unsigned i = 0; i < s->n_settle; i++)
                if (hypot(s->settle_gx[i] - mx, s->settle_gy[i] - my) > SHOCK_FREEFALL_STILL_G)
                        return false;
        return true;
}

/* Before the collapse, the vector was steady: every readout of the SHOCK_FREEFALL_STEADY_MS before
 * the collapse window lies within SHOCK_FREEFALL_STEADY_G of the level vector (a machine held, not
 * already swinging toward 0 g). */
static bool steady_before(const ShockDetector *s, uint64_t time_usec, double lx, double ly)
{
        uint64_t window = SHOCK_FREEFALL_COLLAPSE_MS * USEC_PER_MSEC,
                 steady = SHOCK_FREEFALL_STEADY_MS * USEC_PER_MSEC;
        unsigned n = 0;

        for (unsigned i = 0; i < s->n_recent; i++) {
                uint64_t age = time_usec - s->recent_usec[i];
                if (age <= window || age > window + steady)
                        continue;
                if (hypot(s->recent_gx[i] - lx, s->recent_gy[i] - ly) > SHOCK_FREEFALL_STEADY_G)
                        return false;
                n++;
        }
        return n > 0;
}

/* Returns whether this readout is a fall. *ret_starting: whether it is the first readout of a collapse
 * that is deep once complete, caught mid-way by the sensor's settling (the collapse is spread over two
 * readouts): the last readout still had the steady vector, long enough that a collapse to the noise
 * (SHOCK_FREEFALL_STILL_G) is a deep one, and this one is shorter by the fall threshold, along it
 * (within SHOCK_FREEFALL_STEADY_G of the line from 0 g to it: shrinking, not turning). */
static bool freefall_test(ShockDetector *s, uint64_t time_usec, double gx, double gy, bool *ret_starting)
{
        double norm = hypot(gx, gy), fall_t = freefall_threshold(s, time_usec);
        uint64_t window = SHOCK_FREEFALL_COLLAPSE_MS * USEC_PER_MSEC;

        /* the vector just before: the longest in the collapse window */
        double level = 0, lx = 0, ly = 0;
        for (unsigned i = 0; i < s->n_recent; i++)
                if (time_usec - s->recent_usec[i] <= window &&
                    hypot(s->recent_gx[i], s->recent_gy[i]) > level) {
                        lx = s->recent_gx[i];
                        ly = s->recent_gy[i];
                        level = hypot(lx, ly);
                }

        double fast_t =
                adjust(s, time_usec,
                       MAX(SHOCK_FREEFALL_FAST_G, SHOCK_FREEFALL_VIBRATION_GAIN * shock_vibration_level(s)));
        double start = MIN(level, hypot(s->ref_gx, s->ref_gy));
        *ret_starting = start - SHOCK_FREEFALL_STILL_G >= fast_t && start - norm >= fall_t &&
                        s->n_recent > 0 && hypot(s->recent_gx[0], s->recent_gy[0]) > start - fall_t &&
                        gx * lx + gy * ly >= 0 &&
                        fabs(gx * ly - gy * lx) / level <= SHOCK_FREEFALL_STEADY_G &&
                        steady_before(s, time_usec, lx, ly);

        if (s->collapsed && s->collapse_level - norm >= fall_t &&
            norm <= SHOCK_FREEFALL_RESIDUAL * s->collapse_level) {
                /* still collapsed: remember the readout (the last ones, if the hold is long) */
                if (s->n_settle == ELEMENTSOF(s->settle_gx)) {
                        memmove(s->settle_gx, s->settle_gx + 1, sizeof(s->settle_gx) - sizeof(double));
                        memmove(s->settle_gy, s->settle_gy + 1, sizeof(s->settle_gy) - sizeof(double));
                        s->n_settle--;
                }
                s->settle_gx[s->n_settle] = gx;
                s->settle_gy[s->n_settle++] = gy;
        } else if ((level = start) >= SHOCK_FREEFALL_MIN_G && level - norm >= fall_t &&
                   norm <= SHOCK_FREEFALL_RESIDUAL * level) {
                /* a new collapse: from a tilted vector (just before, and on average) to a small fraction
                 * of it within the window */
                s->collapsed = true;
                s->collapse_fired = false;
                s->collapse_steady = steady_before(s, time_usec, lx, ly);
                s->collapse_usec = time_usec;
                s->collapse_level = level;
                s->n_settle = 0;
        } else
                s->collapsed = false;

        memmove(s->recent_gx + 1, s->recent_gx, sizeof(s->recent_gx) - sizeof(double));
        memmove(s->recent_gy + 1, s->recent_gy, sizeof(s->recent_gy) - sizeof(double));
        memmove(s->recent_usec + 1, s->recent_usec, sizeof(s->recent_usec) - sizeof(uint64_t));
        s->recent_gx[0] = gx;
        s->recent_gy[0] = gy;
        s->recent_usec[0] = time_usec;
        s->n_recent = MIN(s->n_recent + 1, (unsigned) ELEMENTSOF(s->recent_gx));

        if (!s->collapsed || s->collapse_fired)
                return false; /* one decision per collapse: the hold of the shock does the rest */

        double hold_usec = SHOCK_FREEFALL_HOLD_MS * USEC_PER_MSEC / s->sensitivity;
        s->collapse_fired =
                s->collapse_level - norm >= fast_t ||
                (s->collapse_steady && (double) (time_usec - s->collapse_usec) >= hold_usec && settled(s));
        return s->collapse_fired;
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
        *ret = (ShockResult) {};

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

        double jolt_t = shock_jolt_threshold(s, time_usec);
        bool starting;
        bool freefall = freefall_test(s, time_usec, gx, gy, &starting);
        bool jolt = deviation >= jolt_t;

        /* A jolt on the first readout of a deep collapse, caught mid-way, is the fall's onset: the next
         * readout would take it as a fall, but the shock is raised now. */
        if (jolt && starting && !s->active)
                freefall = true;

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

        expire_hold(s, time_usec, ret);
}
