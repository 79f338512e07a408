/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Screen orientation of the machine as a whole from the base's pitch and roll, with hysteresis
 * (enter beyond ORIENTATION_ENTER_DEG, hold until below ORIENTATION_LEAVE_DEG), a time debounce and a
 * stillness condition. Mapping and reasons: docs/MOTION.md, "Orientation". */

#include <stdbool.h>
#include <stdint.h>

#include "motion.h"

typedef struct OrientationTracker {
        MotionOrientation current;   /* UNDEFINED until the first readout */
        MotionOrientation candidate; /* what the angles propose now */
        uint64_t candidate_since_usec;
        double prev_gx, prev_gy, rate_gps; /* the gravity vector and how fast it moves */
        uint64_t prev_usec;
        bool have_prev;
} OrientationTracker;

/* What the angles propose given the current orientation (hysteresis only, no time). */
MotionOrientation orientation_classify(MotionOrientation current, double pitch, double roll);

void orientation_reset(OrientationTracker *o);

/* Takes the angles of one readout (new_data false: a repeated readout, only time moved). The first
 * readout after a reset sets the orientation at once. Returns true if the orientation changed. */
bool orientation_update(OrientationTracker *o, uint64_t time_usec, double pitch, double roll, bool new_data);
