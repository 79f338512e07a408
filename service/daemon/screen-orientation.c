/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <string.h>

#include "macros.h"
#include "screen-orientation.h"

void screen_orientation_init(ScreenOrientation *s)
{
        memset(s, 0, sizeof(*s));
        s->current = MOTION_ORIENTATION_UNDEFINED;
        s->tracker.current = MOTION_ORIENTATION_UNDEFINED;
}

void screen_orientation_reset(ScreenOrientation *s)
{
        s->have_readout = false;
        orientation_reset(&s->tracker);
}

/* The angle between the screen's normal and the horizontal plane, from the in-plane part of gravity
 * (g, from the base's angles): the screen lies over the base, so both planes are the same. The sign
 * (face up or down) is what a 2-axis sensor cannot tell. */
static double screen_normal_tilt_deg(double base_pitch, double base_roll)
{
        double gx = sin(base_roll * M_PI / 180.0), gy = sin(base_pitch * M_PI / 180.0);
        double in_plane = MIN(hypot(gx, gy), 1.0);

        return acos(in_plane) * 180.0 / M_PI;
}

static ScreenTilt classify_tilt(ScreenTilt current, double base_pitch, double base_roll)
{
        double t = screen_normal_tilt_deg(base_pitch, base_roll);
        double limit = current == SCREEN_TILT_VERTICAL ? SCREEN_TILT_VERTICAL_LEAVE_DEG
                                                       : SCREEN_TILT_VERTICAL_ENTER_DEG;

        return t <= limit ? SCREEN_TILT_VERTICAL : SCREEN_TILT_UNDEFINED;
}

bool screen_orientation_feed(ScreenOrientation *s, uint64_t time_usec, double base_pitch, double base_roll,
                             bool new_data)
{
        MotionOrientation before = s->current;
        ScreenTilt tilt_before = s->tilt;

        if (!new_data && !s->have_readout)
                return false;
        s->have_readout = true;

        if (s->tablet_mode) {
                /* Swivelled by 180 degrees: the screen's pitch and roll are the base's, negated. */
                (void) orientation_update(&s->tracker, time_usec, -base_pitch, -base_roll, new_data);
                if (s->tracker.current != MOTION_ORIENTATION_UNDEFINED)
                        s->current = s->tracker.current; /* else: a repeat before the first readout */
                s->tilt = classify_tilt(s->tilt, base_pitch, base_roll);
        } else {
                s->current = MOTION_ORIENTATION_NORMAL;
                s->tilt = SCREEN_TILT_UNDEFINED;
        }
        return s->current != before || s->tilt != tilt_before;
}

bool screen_orientation_set_tablet_mode(ScreenOrientation *s, bool tablet_mode)
{
        MotionOrientation before = s->current;
        ScreenTilt tilt_before = s->tilt;

        if (s->tablet_mode == tablet_mode)
                return false;
        s->tablet_mode = tablet_mode;
        /* A fresh tracker: its first readout sets the orientation at once, without debounce. */
        memset(&s->tracker, 0, sizeof(s->tracker));
        s->tracker.current = MOTION_ORIENTATION_UNDEFINED;
        if (!tablet_mode && s->have_readout) {
                s->current = MOTION_ORIENTATION_NORMAL;
                s->tilt = SCREEN_TILT_UNDEFINED;
        }
        return s->current != before || s->tilt != tilt_before;
}

const char *screen_orientation_string(const ScreenOrientation *s)
{
        return motion_orientation_to_string(s->current);
}

const char *screen_tilt_to_string(ScreenTilt t)
{
        static const char *const names[_SCREEN_TILT_MAX] = {
                [SCREEN_TILT_UNDEFINED] = "undefined",
                [SCREEN_TILT_VERTICAL] = "vertical",
        };

        return t >= 0 && t < _SCREEN_TILT_MAX ? names[t] : "undefined";
}
