/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Motion processing: from axis-corrected readouts to tilt (pitch, roll), a debounced screen
 * orientation, and shock detection. Pure computation: no I/O, no clock of its own (time comes with
 * each sample), no logging above debug. Deterministic: the same samples give the same events.
 * Parameters, units and sources are documented in docs/MOTION.md. Pointer arguments are never NULL
 * (assert()ed) unless a function says otherwise; motion_free() takes NULL. */

#include <stdbool.h>
#include <stdint.h>

#include "macros.h"

#define MOTION_TILT_STEP_DEFAULT     1.0 /* degrees */
#define MOTION_TILT_STEP_MIN         0.1
#define MOTION_TILT_STEP_MAX         45.0
#define MOTION_SENSITIVITY_DEFAULT   1.0
#define MOTION_SENSITIVITY_MIN       0.1
#define MOTION_SENSITIVITY_MAX       10.0
#define MOTION_SHOCK_HOLD_MS_DEFAULT 1000
#define MOTION_SHOCK_HOLD_MS_MIN     100   /* ms */
#define MOTION_SHOCK_HOLD_MS_MAX     60000 /* ms */
/* Shock detection runs only on readouts polled at this rate or faster (docs/MOTION.md, "Minimum
 * rate"): below it no Shock is raised and ShockActive stays false. */
#define MOTION_SHOCK_MIN_RATE_HZ 50

typedef enum MotionOrientation {
        MOTION_ORIENTATION_UNDEFINED,
        MOTION_ORIENTATION_NORMAL,
        MOTION_ORIENTATION_BOTTOM_UP,
        MOTION_ORIENTATION_LEFT_UP,
        MOTION_ORIENTATION_RIGHT_UP,
        _MOTION_ORIENTATION_MAX,
        _MOTION_ORIENTATION_INVALID = -EINVAL,
} MotionOrientation;

/* iio-sensor-proxy's names: "undefined", "normal", "bottom-up", "left-up", "right-up". */
const char *motion_orientation_to_string(MotionOrientation o);
/* The inverse; -EINVAL (_MOTION_ORIENTATION_INVALID) for an unknown name or NULL. */
MotionOrientation motion_orientation_from_string(const char *s);

typedef struct MotionConfig {
        double counts_per_g;      /* accelerometer scale; HDAPS_COUNTS_PER_G_DEFAULT unless the model says */
        double tilt_step;         /* degrees, MOTION_TILT_STEP_MIN..MAX */
        double shock_sensitivity; /* MOTION_SENSITIVITY_MIN..MAX */
        unsigned shock_hold_ms;
} MotionConfig;

typedef struct MotionSample {
        uint64_t time_usec;    /* CLOCK_MONOTONIC (or the emulator's clock) of the readout */
        int x, y;              /* axis-corrected raw counts */
        int rest_x, rest_y;    /* calibrated rest position */
        unsigned new_readouts; /* 0: nothing new (a repeat, not zero motion); 1; 2: one was missed */
        bool keyboard, mouse;  /* activity flags of this readout */
        unsigned rate_hz;      /* the rate polling runs at; below MOTION_SHOCK_MIN_RATE_HZ no shock
                                * detection (0: unknown, taken as fast enough) */
        bool watch_movement;   /* someone watches for movement (movement.h): detect it */
} MotionSample;

/* What one sample changed; flags in mask say which fields are meaningful. */
typedef enum MotionEventFlags {
        MOTION_EVENT_TILT = 1 << 0,         /* send Tilt(pitch, roll, orientation) */
        MOTION_EVENT_ORIENTATION = 1 << 1,  /* Orientation property changed */
        MOTION_EVENT_SHOCK = 1 << 2,        /* a shock onset: send Shock(magnitude, time, reason) */
        MOTION_EVENT_SHOCK_ACTIVE = 1 << 3, /* ShockActive property changed */
        MOTION_EVENT_MOVED = 1 << 4,        /* a movement started: send Moved(time, strength) */
        MOTION_EVENT_MOVING = 1 << 5,       /* Moving property changed */
} MotionEventFlags;

typedef struct MotionEvents {
        unsigned mask;
        double pitch, roll;
        MotionOrientation orientation;
        bool shock_active;
        double shock_magnitude; /* g */
        uint64_t shock_time_usec;
        const char *shock_reason; /* static string: "jolt", "drift", "freefall" */
        bool moving;
        double move_strength; /* g */
        uint64_t move_time_usec;
} MotionEvents;

typedef struct Motion Motion;

/* Checks every field against its range. On failure returns -EINVAL and, if ret_msg is not NULL, a static
 * message naming the field and its valid range. */
int motion_config_validate(const MotionConfig *c, const char **ret_msg);

/* Validates config (-EINVAL) and creates the processor. */
int motion_new(const MotionConfig *config, Motion **ret);
Motion *motion_free(Motion *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Motion *, motion_free);

/* Feeds one readout; fills *ret (mask 0 if nothing to report). At most one Tilt per call. */
void motion_feed(Motion *m, const MotionSample *s, MotionEvents *ret);

/* The pitch, roll and orientation of one readout on its own, for readers while nothing polls (the
 * history is left alone): the angles with the learnt rest-drift correction, the orientation from the
 * angles with the hysteresis of the last orientation but without debounce or stillness (one readout
 * has no time). Never UNDEFINED. */
void motion_angles_of(const Motion *m, const MotionSample *s, double *ret_pitch, double *ret_roll,
                      MotionOrientation *ret_orientation);

/* Forgets history (after a gap: resume, polling restarted, recalibration). Keeps counters. */
void motion_reset(Motion *m);
/* Nobody watches for movement any more: its history goes and Moving is false. Returns whether Moving
 * changed. */
bool motion_stop_movement(Motion *m);

/* Parameter changes; -EINVAL (and nothing changes) when out of range. */
int motion_set_tilt_step(Motion *m, double degrees);
int motion_set_shock_sensitivity(Motion *m, double sensitivity);
int motion_set_counts_per_g(Motion *m, double counts_per_g);
int motion_set_shock_hold_ms(Motion *m, unsigned ms);

typedef struct MotionState {
        double pitch, roll; /* degrees */
        MotionOrientation orientation;
        bool shock_active;
        uint64_t shock_count;
        uint64_t last_shock_usec;
        double last_shock_magnitude;
        double vibration_level;    /* g, the background the detector adapts to */
        double drift_x, drift_y;   /* rest-drift correction currently applied, counts */
        uint64_t last_sample_usec; /* the time of the last readout fed (motion_feed()); 0: none */
        bool moving;               /* a movement is in progress (only while watched) */
        uint64_t move_count;       /* movements detected since creation */
} MotionState;

const MotionState *motion_get_state(const Motion *m);
const MotionConfig *motion_get_config(const Motion *m);
