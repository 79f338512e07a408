/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <string.h>

#include "macros.h"
#include "motion-params.h"
#include "tilt.h"

#define DEG_PER_RAD (180.0 / M_PI)

double tilt_angle_deg(double counts, double counts_per_g)
{
        double g = CLAMP(counts / counts_per_g, -1.0, 1.0);
        return asin(g) * DEG_PER_RAD;
}

void tilt_reset(TiltTracker *t)
{
        memset(t, 0, sizeof(*t));
}

/* Exponential weight of a step of dt seconds for a low-pass of time constant tau seconds. */
static double lowpass_weight(double dt, double tau)
{
        return 1.0 - exp(-dt / tau);
}

static void learn_drift(double *drift, double residual, double w)
{
        if (fabs(residual) > TILT_DRIFT_CAPTURE_COUNTS)
                return; /* a real tilt, not drift: leave it alone */
        *drift = CLAMP(*drift + w * residual, -TILT_DRIFT_MAX_COUNTS, TILT_DRIFT_MAX_COUNTS);
}

void tilt_update(TiltTracker *t, uint64_t time_usec, double x, double y, bool quiet)
{
        if (!t->have_stats) {
                t->mean_x = x;
                t->mean_y = y;
                t->var_x = t->var_y = 0;
                t->last_usec = time_usec;
                t->still = false;
                t->have_stats = true;
                return;
        }

        double dt = time_usec > t->last_usec ? (double) (time_usec - t->last_usec) / USEC_PER_SEC : 0;
        t->last_usec = time_usec;

        double w = lowpass_weight(dt, TILT_STILL_WINDOW_S);
        double dx = x - t->mean_x, dy = y - t->mean_y;
        t->mean_x += w * dx;
        t->mean_y += w * dy;
        t->var_x = (1 - w) * (t->var_x + w * dx * dx);
        t->var_y = (1 - w) * (t->var_y + w * dy * dy);

        bool still = quiet && sqrt(t->var_x) < TILT_STILL_SD_COUNTS && sqrt(t->var_y) < TILT_STILL_SD_COUNTS;
        if (!still) {
                t->still = false;
                return;
        }
        if (!t->still) {
                t->still = true;
                t->still_since_usec = time_usec;
        }
        if (!tilt_is_still(t, time_usec))
                return;

        double wd = lowpass_weight(dt, TILT_DRIFT_TAU_S);
        learn_drift(&t->drift_x, t->mean_x - t->drift_x, wd);
        learn_drift(&t->drift_y, t->mean_y - t->drift_y, wd);
}

void tilt_angles(const TiltTracker *t, double x, double y, double counts_per_g, double *ret_pitch,
                 double *ret_roll)
{
        *ret_pitch = tilt_angle_deg(y - t->drift_y, counts_per_g);
        *ret_roll = tilt_angle_deg(x - t->drift_x, counts_per_g);
}

bool tilt_is_still(const TiltTracker *t, uint64_t time_usec)
{
        return t->still && time_usec >= t->still_since_usec &&
               (double) (time_usec - t->still_since_usec) / USEC_PER_SEC >= TILT_STILL_MIN_S;
}
