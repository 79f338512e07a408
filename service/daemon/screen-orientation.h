/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The screen's orientation and tilt as net.hadess.SensorProxy reports them, from the base sensor's
 * pitch and roll and the tablet-mode switch. Pure computation, no I/O. The HDAPS sensor sits in the
 * base: in laptop mode it cannot know where the lid points, so the orientation stays "normal"; in tablet
 * mode (screen swivelled by 180 degrees and folded face up over the keyboard) the screen's top edge lies
 * at the base's front edge and its right edge at the base's left edge, so the screen sees the base's
 * pitch and roll negated. Mapping, per model, and reasons: docs/ROTATION.md. */

#include <stdbool.h>
#include <stdint.h>

#include "orientation.h"

/* AccelerometerTilt "vertical" (iio-sensor-proxy: the screen's normal within 20 degrees of
 * horizontal), entered at 20 degrees and left at 22 so that noise at the border does not flap. */
#define SCREEN_TILT_VERTICAL_ENTER_DEG 20.0
#define SCREEN_TILT_VERTICAL_LEAVE_DEG 22.0

typedef enum ScreenTilt {
        SCREEN_TILT_UNDEFINED, /* laptop mode, no readout yet, or not knowable from two axes */
        SCREEN_TILT_VERTICAL,
        _SCREEN_TILT_MAX,
} ScreenTilt;

typedef struct ScreenOrientation {
        bool tablet_mode;
        bool have_readout;         /* a readout came since the last reset */
        MotionOrientation current; /* what is reported: UNDEFINED until the first readout */
        ScreenTilt tilt;
        OrientationTracker tracker; /* on the screen's angles, used in tablet mode */
} ScreenOrientation;

/* Starts in laptop mode with nothing known ("undefined"). */
void screen_orientation_init(ScreenOrientation *s);
/* Forgets the readout history (polling restarted); the values stay visible until the next readout, which
 * sets them at once. */
void screen_orientation_reset(ScreenOrientation *s);

/* One readout of the base: pitch and roll in degrees as motion.h defines them; new_data false for a
 * repeated readout. Returns true if the orientation or the tilt changed. */
bool screen_orientation_feed(ScreenOrientation *s, uint64_t time_usec, double base_pitch, double base_roll,
                             bool new_data);

/* The tablet-mode switch moved. Entering tablet mode restarts the tracker so the next readout sets the
 * screen's orientation at once; leaving it reports "normal" at once (if a readout was seen). Returns true
 * if the orientation or the tilt changed. */
bool screen_orientation_set_tablet_mode(ScreenOrientation *s, bool tablet_mode);

/* iio-sensor-proxy's strings: "undefined", "normal", "bottom-up", "left-up", "right-up". */
const char *screen_orientation_string(const ScreenOrientation *s);
/* "undefined" or "vertical" (the other iio-sensor-proxy values need the sign of the third axis). */
const char *screen_tilt_to_string(ScreenTilt t);
