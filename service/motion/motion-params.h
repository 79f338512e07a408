/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Every tuning constant of the motion processing, with its unit. The reasons behind each value are in
 * docs/MOTION.md ("Parameters"); change both together. */

/* Tilt: rest-drift correction (tilt.c). */
#define TILT_STILL_WINDOW_S  2.0  /* s, time constant of the running mean/variance used for stillness */
#define TILT_STILL_SD_COUNTS 2.5  /* counts, per-axis standard deviation below which the machine is still */
#define TILT_STILL_MIN_S     2.0  /* s, stillness must have lasted this long before drift is learnt */
#define TILT_DRIFT_TAU_S     30.0 /* s, time constant of the drift low-pass */
#define TILT_DRIFT_CAPTURE_COUNTS                                                                           \
        6.0                       /* counts, only residuals this small are taken for drift (~2.2 deg)       \
                                   */
#define TILT_DRIFT_MAX_COUNTS 8.0 /* counts, bound of the correction per axis (~2.9 deg at 157/g) */

/* Tilt events (motion.c): a step must also exceed what readout noise alone can move the angle between
 * two readouts. Each readout lies within +-2 counts of the true position, so two readouts of a still
 * machine differ by up to 4 counts; the band is half a count above that (counts are integers). Near
 * +-90 degrees asin() turns a count of noise into several degrees; at level 4.5 counts are ~1.6 deg. */
#define TILT_EVENT_NOISE_BAND_COUNTS 4.5 /* counts, peak-to-peak readout noise (2 x 2) + 0.5 */

/* Orientation (orientation.c). */
#define ORIENTATION_ENTER_DEG   35.0 /* deg, an angle beyond this proposes a rotated orientation */
#define ORIENTATION_LEAVE_DEG   25.0 /* deg, a rotated orientation holds until its angle falls below */
#define ORIENTATION_DEBOUNCE_MS 250  /* ms, a candidate must persist this long before it is taken */
#define ORIENTATION_RATE_TAU_S  0.1  /* s, time constant of the motion rate estimate */
#define ORIENTATION_MAX_RATE_GPS                                                                            \
        2.5 /* g/s, no flip is committed while the gravity vector moves faster                              \
             * (about 150 deg/s near level) */

/* Shock (shock.c). Thresholds are divided by the sensitivity. */
#define SHOCK_BASELINE_TAU_S  0.25 /* s, low-pass giving the reference the deviation is measured from */
#define SHOCK_JOLT_G          0.06 /* g, deviation from the reference that is a jolt on a quiet desk */
#define SHOCK_FREEFALL_DROP_G 0.04 /* g, shrink of the gravity vector toward 0 g that is a fall onset */
#define SHOCK_FREEFALL_MIN_G  0.05 /* g, the freefall test needs at least this much tilt to look at */
#define SHOCK_FREEFALL_COLLAPSE_MS                                                                          \
        50 /* ms, ... collapsing within this time (2 readouts at 50 Hz, with jitter) */
#define SHOCK_FREEFALL_RESIDUAL  0.35 /* ... to at most this fraction of the length it had */
#define SHOCK_FREEFALL_FAST_G    0.12 /* g, a collapse this deep is a fall at once (a tilted machine) */
#define SHOCK_FREEFALL_STEADY_MS 60   /* ms, ... if the vector was steady this long before, ... */
#define SHOCK_FREEFALL_STEADY_G  0.03 /* g, ... within this of where the collapse started, ... */
#define SHOCK_FREEFALL_HOLD_MS   40   /* ms, a shallower collapse must hold this long, ... */
#define SHOCK_FREEFALL_STILL_G   0.02 /* g, ... its readouts within this of their mean (noise only) */
#define SHOCK_DRIFT_RATE_GPS     1.0  /* g/s, onsets slower than this per readout are reported as "drift" */
#define SHOCK_VIBRATION_TAU_S    2.0  /* s, time constant of the background (vibration) RMS */
#define SHOCK_FREEFALL_VIBRATION_GAIN                                                                       \
        2.0                          /* the fall threshold is at least this many times the vibration RMS */
#define SHOCK_VIBRATION_GAIN     3.0 /* thresholds grow by this many times the vibration RMS */
#define SHOCK_ACTIVITY_WINDOW_MS 300 /* ms, after keyboard or mouse activity thresholds stay raised */
#define SHOCK_ACTIVITY_GAIN      2.0 /* factor on the thresholds during that window */
#define SHOCK_QUIET_FACTOR       0.5 /* quiet = deviation below this fraction of the jolt threshold */
#define SHOCK_GAP_RESET_S        1.0 /* s, a gap longer than this between readouts restarts the history */

/* Movement (movement.c): "the machine was moved" (picked up, slid, carried, put into a bag) apart from
 * typing, knocks and vibration. Thresholds in g from where the machine rested; reasons in
 * docs/MOTION.md ("Movement").
 *   MOVEMENT_MEDIAN_MS       the per-axis median over this window ignores knocks and keystrokes' rings
 *   MOVEMENT_SHIFT_G         the median this far from the resting position is a movement (~3 deg)
 *   MOVEMENT_VIBRATION_GAIN  the threshold grows by this many times the vibration RMS, ...
 *   MOVEMENT_VIBRATION_TAU_S ... the RMS of the readouts around the median (each clipped to
 *                            MOVEMENT_STILL_G), over this time constant, while no movement starts
 *   MOVEMENT_ACTIVITY_MS     after keyboard or mouse activity the threshold is raised for this long ...
 *   MOVEMENT_ACTIVITY_GAIN   ... by this factor (typing the password moves the machine a little)
 *   MOVEMENT_STILL_G         the median moving less than this for MOVEMENT_HOLD_MS is the machine at
 *   MOVEMENT_HOLD_MS         rest again: Moving ends, and where it is is the new resting position
 *   MOVEMENT_REST_TAU_S      the resting position follows slow drift with this time constant
 *   MOVEMENT_GAP_RESET_S     a gap longer than this between readouts restarts the history */
#define MOVEMENT_MEDIAN_MS       400   /* ms */
#define MOVEMENT_SHIFT_G         0.05  /* g */
#define MOVEMENT_VIBRATION_GAIN  3.0   /* factor */
#define MOVEMENT_VIBRATION_TAU_S 5.0   /* s */
#define MOVEMENT_ACTIVITY_MS     1000  /* ms */
#define MOVEMENT_ACTIVITY_GAIN   2.0   /* factor */
#define MOVEMENT_STILL_G         0.025 /* g */
#define MOVEMENT_HOLD_MS         2000  /* ms */
#define MOVEMENT_REST_TAU_S      10.0  /* s */
#define MOVEMENT_GAP_RESET_S     1.0   /* s */
