/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Movement detection (see movement.h; parameters in motion-params.h, reasons in docs/MOTION.md). */
#include <math.h>
#include <string.h>

#include "macros.h"
#include "motion-params.h"
#include "movement.h"

/* Readouts closer together than this are not all kept: the window holds MOVEMENT_WINDOW_MAX. */
#define MOVEMENT_KEEP_MIN_USEC (MOVEMENT_MEDIAN_MS * USEC_PER_MSEC / (MOVEMENT_WINDOW_MAX - 1))

void movement_init(MovementDetector *d)
{
        memset(d, 0, sizeof(*d));
}

void movement_reset(MovementDetector *d)
{
        d->n_win = 0;
        d->have_prev = false;
        d->have_rest = false;
        d->vibration_ms2 = 0;
        d->have_activity = false;
}

bool movement_stop(MovementDetector *d)
{
        bool was = d->moving;

        movement_reset(d);
        d->moving = false;
        return was;
}

static double lowpass_weight(double dt, double tau)
{
        return 1.0 - exp(-dt / tau);
}

double movement_threshold(const MovementDetector *d, uint64_t time_usec)
{
        double t = MOVEMENT_SHIFT_G + MOVEMENT_VIBRATION_GAIN * sqrt(d->vibration_ms2);

        if (d->have_activity && time_usec - d->activity_usec < MOVEMENT_ACTIVITY_MS * USEC_PER_MSEC)
                t *= MOVEMENT_ACTIVITY_GAIN;
        return t;
}

static double median(const double *v, unsigned n)
{
        double s[MOVEMENT_WINDOW_MAX];

        memcpy(s, v, n * sizeof(double));
        for (unsigned i = 1; i < n; i++) /* insertion sort: n is small */
                for (unsigned j = i; j > 0 && s[j - 1] > s[j]; j--) {
                        double x = s[j];
                        s[j] = s[j - 1];
                        s[j - 1] = x;
                }
        return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Keeps the readout (unless one was kept very recently) and drops those older than the window. */
static void window_push(MovementDetector *d, uint64_t time_usec, double gx, double gy)
{
        unsigned drop = 0;

        if (d->n_win > 0 && time_usec - d->win_usec[d->n_win - 1] < MOVEMENT_KEEP_MIN_USEC)
                return;
        while (drop < d->n_win && time_usec - d->win_usec[drop] >= MOVEMENT_MEDIAN_MS * USEC_PER_MSEC)
                drop++;
        if (d->n_win - drop == MOVEMENT_WINDOW_MAX)
                drop++;
        memmove(d->win_gx, d->win_gx + drop, (d->n_win - drop) * sizeof(double));
        memmove(d->win_gy, d->win_gy + drop, (d->n_win - drop) * sizeof(double));
        memmove(d->win_usec, d->win_usec + drop, (d->n_win - drop) * sizeof(uint64_t));
        d->n_win -= drop;
        d->win_gx[d->n_win] = gx;
        d->win_gy[d->n_win] = gy;
        d->win_usec[d->n_win++] = time_usec;
}

void movement_feed(MovementDetector *d, uint64_t time_usec, double gx, double gy, bool new_data,
                   bool activity, MovementResult *ret)
{
        *ret = (MovementResult) {};

        if (activity) {
                d->activity_usec = time_usec;
                d->have_activity = true;
        }
        if (!new_data || (d->have_prev && time_usec <= d->prev_usec))
                return;
        if (!d->have_prev || (double) (time_usec - d->prev_usec) / USEC_PER_SEC > MOVEMENT_GAP_RESET_S) {
                bool had_activity = d->have_activity;
                movement_reset(d);
                d->have_activity = had_activity;
                d->first_usec = time_usec;
        }
        double dt = d->have_prev ? (double) (time_usec - d->prev_usec) / USEC_PER_SEC : 0;
        d->have_prev = true;
        d->prev_usec = time_usec;

        window_push(d, time_usec, gx, gy);
        /* The median means something once the window is (nearly) full. */
        if (time_usec - d->first_usec < MOVEMENT_MEDIAN_MS * USEC_PER_MSEC * 3 / 4 || d->n_win < 3)
                return;
        double mx = median(d->win_gx, d->n_win), my = median(d->win_gy, d->n_win);

        double threshold = movement_threshold(d, time_usec);
        /* The background: readouts around the median, each clipped so that the readouts of a movement's
         * start (the median lags them) raise it little; not while a movement may be starting or is
         * under way, so that it cannot raise the threshold out of its own way. */
        if (!d->have_rest || (!d->moving && hypot(mx - d->rest_gx, my - d->rest_gy) < threshold / 2)) {
                double around = MIN(hypot(gx - mx, gy - my), MOVEMENT_STILL_G);
                d->vibration_ms2 +=
                        lowpass_weight(dt, MOVEMENT_VIBRATION_TAU_S) * (around * around - d->vibration_ms2);
        }

        if (!d->have_rest) {
                d->have_rest = true;
                d->rest_gx = d->ref_gx = mx;
                d->rest_gy = d->ref_gy = my;
                d->last_motion_usec = time_usec;
                return;
        }

        if (!d->moving) {
                double shift = hypot(mx - d->rest_gx, my - d->rest_gy);
                if (shift >= threshold) {
                        d->moving = true;
                        d->count++;
                        d->last_onset_usec = time_usec;
                        d->last_strength = shift;
                        d->ref_gx = mx;
                        d->ref_gy = my;
                        d->last_motion_usec = time_usec;
                        ret->onset = ret->moving_changed = true;
                        ret->strength = shift;
                        return;
                }
                /* slow drift of the rest (temperature, the desk settling) */
                double w = lowpass_weight(dt, MOVEMENT_REST_TAU_S);
                d->rest_gx += w * (mx - d->rest_gx);
                d->rest_gy += w * (my - d->rest_gy);
                return;
        }

        if (hypot(mx - d->ref_gx, my - d->ref_gy) > MOVEMENT_STILL_G) {
                d->ref_gx = mx;
                d->ref_gy = my;
                d->last_motion_usec = time_usec;
        } else if (time_usec - d->last_motion_usec >= MOVEMENT_HOLD_MS * USEC_PER_MSEC) {
                d->moving = false;
                d->rest_gx = mx;
                d->rest_gy = my;
                ret->moving_changed = true;
        }
}
