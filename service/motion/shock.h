/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shock detection in g and seconds: the deviation of the measured gravity vector from a short
 * low-pass reference, against thresholds that grow with the background vibration (a robust running
 * RMS) and during keyboard/mouse activity, plus a more sensitive test for the vector collapsing toward
 * 0 g (a fall): at once when the collapse is deep (or a jolt's readout catches a deep one mid-way),
 * after it has held still for a moment when it is shallow (a passing swing through 0 g is not a fall).
 * Algorithm and parameters: docs/MOTION.md, "Shock". */

#include <stdbool.h>
#include <stdint.h>

typedef struct ShockDetector {
        double sensitivity;
        unsigned hold_ms;

        /* history, forgotten by shock_reset() */
        bool have_prev;
        uint64_t prev_usec;
        double prev_gx, prev_gy;
        double ref_gx, ref_gy;             /* low-pass reference, g */
        double vibration_ms2;              /* running mean square of the deviation, g^2 */
        double recent_gx[8], recent_gy[8]; /* g, the last readouts, newest first */
        uint64_t recent_usec[8];
        unsigned n_recent;
        bool collapsed;         /* the vector is collapsed toward 0 g (a fall candidate) since ... */
        uint64_t collapse_usec; /* ... this readout, ... */
        double collapse_level;  /* ... from this length (g, the level before it), ... */
        bool collapse_steady;   /* ... the vector was steady before it, ... */
        bool collapse_fired;    /* ... and it was taken as a fall */
        double settle_gx[8], settle_gy[8]; /* g, the readouts since (the last 8) */
        unsigned n_settle;
        uint64_t activity_usec; /* last keyboard/mouse activity */
        bool have_activity;

        /* state, kept across resets */
        bool active;
        uint64_t last_motion_usec; /* last readout that was not quiet while active */
        uint64_t count;
        uint64_t last_onset_usec;
        double last_magnitude;
        const char *last_reason;
} ShockDetector;

/* What one readout did. */
typedef struct ShockResult {
        bool onset; /* a new shock: magnitude, reason are set */
        bool active_changed;
        double magnitude;   /* g above the current threshold's base (deviation from the reference) */
        const char *reason; /* "jolt", "drift" or "freefall" */
} ShockResult;

void shock_init(ShockDetector *s, double sensitivity, unsigned hold_ms);
void shock_reset(ShockDetector *s);

/* One readout: gx, gy relative to rest in g. new_data false = a repeated readout: nothing is
 * computed from it (a repeat is not zero motion), only the hold time may expire. */
void shock_feed(ShockDetector *s, uint64_t time_usec, double gx, double gy, bool new_data, bool activity,
                ShockResult *ret);

/* The background vibration level the thresholds adapt to, g RMS. */
double shock_vibration_level(const ShockDetector *s);
/* The current jolt threshold in g (for diagnostics and tests). */
double shock_jolt_threshold(const ShockDetector *s, uint64_t time_usec);
