/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Tilt: pitch and roll in degrees from counts, with a bounded rest-drift correction learnt while the
 * machine is still (docs/MOTION.md, "Tilt"). */

#include <stdbool.h>
#include <stdint.h>

typedef struct TiltTracker {
        double mean_x, mean_y;   /* running mean of the position, counts */
        double var_x, var_y;     /* running variance, counts^2 */
        double drift_x, drift_y; /* correction applied on top of the rest position, counts */
        uint64_t last_usec;
        uint64_t still_since_usec; /* valid when still */
        bool still;
        bool have_stats;
} TiltTracker;

/* The angle in degrees whose sine is counts / counts_per_g (clamped to +-1 g). */
double tilt_angle_deg(double counts, double counts_per_g);

/* Forgets the statistics and the drift. */
void tilt_reset(TiltTracker *t);

/* Takes one new readout (x, y relative to the rest position, counts). quiet says there was no
 * keyboard/mouse activity and no shock; only then may the drift correction learn. */
void tilt_update(TiltTracker *t, uint64_t time_usec, double x, double y, bool quiet);

/* Pitch (from y) and roll (from x) in degrees of a readout relative to rest, after drift correction. */
void tilt_angles(const TiltTracker *t, double x, double y, double counts_per_g, double *ret_pitch,
                 double *ret_roll);

/* True once the machine has been still for TILT_STILL_MIN_S. */
bool tilt_is_still(const TiltTracker *t, uint64_t time_usec);
