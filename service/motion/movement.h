/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Movement detection in g and seconds: "the machine was moved" (picked up, slid across the desk,
 * carried, put into a bag) apart from typing on it, knocks, a fan, a passing train or people walking
 * past. The per-axis median of the readouts of the last MOVEMENT_MEDIAN_MS (a knock or a keystroke's
 * ring is too short to move it) is compared with where the machine rested; a movement starts when it
 * is MOVEMENT_SHIFT_G away, a threshold raised by the background vibration (readouts around the median)
 * and during keyboard/mouse activity. The movement lasts until the median has stayed within
 * MOVEMENT_STILL_G for MOVEMENT_HOLD_MS; where it came to rest is the new resting position. Works at
 * any readout rate from 10 Hz up (docs/MOTION.md, "Movement"). */

#include <stdbool.h>
#include <stdint.h>

#define MOVEMENT_WINDOW_MAX 32 /* readouts kept for the median (decimated above 80 Hz) */

typedef struct MovementDetector {
        /* history, forgotten by movement_reset() */
        double win_gx[MOVEMENT_WINDOW_MAX], win_gy[MOVEMENT_WINDOW_MAX]; /* g, oldest first */
        uint64_t win_usec[MOVEMENT_WINDOW_MAX];
        unsigned n_win;
        uint64_t first_usec; /* the first readout since the history started */
        bool have_prev;
        uint64_t prev_usec;
        bool have_rest;          /* the resting position is known */
        double rest_gx, rest_gy; /* g */
        double vibration_ms2;    /* running mean square of the readouts around the median, g^2 */
        uint64_t activity_usec;  /* last keyboard/mouse activity */
        bool have_activity;

        /* state, kept across resets */
        bool moving;
        double ref_gx, ref_gy;     /* while moving: the median at its last motion, ... */
        uint64_t last_motion_usec; /* ... and when */
        uint64_t count;
        uint64_t last_onset_usec;
        double last_strength; /* g */
} MovementDetector;

/* What one readout did. */
typedef struct MovementResult {
        bool onset;          /* a movement started: strength is set */
        bool moving_changed; /* moving went true or false */
        double strength;     /* g: how far the median was from the resting position */
} MovementResult;

void movement_init(MovementDetector *d);
/* Forgets the history (a gap: polling restarted, resume); Moving and the counters stay. */
void movement_reset(MovementDetector *d);
/* One readout: gx, gy relative to the calibrated rest in g; new_data false = a repeated readout
 * (nothing is computed from it); activity: the EC flagged keyboard or mouse activity. */
void movement_feed(MovementDetector *d, uint64_t time_usec, double gx, double gy, bool new_data,
                   bool activity, MovementResult *ret);
/* Nobody watches any more: the history goes and Moving is false. Returns whether Moving changed. */
bool movement_stop(MovementDetector *d);
/* The threshold in force at time_usec, in g (for diagnostics and tests). */
double movement_threshold(const MovementDetector *d, uint64_t time_usec);
