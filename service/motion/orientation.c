/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <string.h>

#include "macros.h"
#include "motion-params.h"
#include "orientation.h"

/* The signed angle that puts the machine in orientation o (positive = further into o), or -INFINITY
 * for orientations that are not reached by one angle. Pitch > 0: front edge up; roll > 0: right side
 * up (data/org.thinkpad.Accelerometer.xml). */
static double angle_into(MotionOrientation o, double pitch, double roll)
{
        switch (o) {
        case MOTION_ORIENTATION_BOTTOM_UP:
                return pitch; /* standing on the hinge: the screen's bottom edge (front) is up */
        case MOTION_ORIENTATION_LEFT_UP:
                return -roll;
        case MOTION_ORIENTATION_RIGHT_UP:
                return roll;
        default:
                return -INFINITY;
        }
}

static const MotionOrientation rotated[] = {
        MOTION_ORIENTATION_BOTTOM_UP,
        MOTION_ORIENTATION_LEFT_UP,
        MOTION_ORIENTATION_RIGHT_UP,
};

MotionOrientation orientation_classify(MotionOrientation current, double pitch, double roll)
{
        /* The strongest rotated orientation beyond the entry angle. */
        MotionOrientation best = MOTION_ORIENTATION_NORMAL;
        double best_angle = ORIENTATION_ENTER_DEG;
        for (size_t i = 0; i < ELEMENTSOF(rotated); i++) {
                double a = angle_into(rotated[i], pitch, roll);
                if (a >= best_angle) {
                        best = rotated[i];
                        best_angle = a;
                }
        }

        /* A rotated orientation holds while its angle stays above the leave angle, unless another one
         * beats it by the whole hysteresis band (a turn from one side straight to another). */
        double held = angle_into(current, pitch, roll);
        if (held >= ORIENTATION_LEAVE_DEG &&
            (best == current || best == MOTION_ORIENTATION_NORMAL ||
             best_angle < held + (ORIENTATION_ENTER_DEG - ORIENTATION_LEAVE_DEG)))
                return current;
        return best;
}

void orientation_reset(OrientationTracker *o)
{
        MotionOrientation keep = o->current;
        memset(o, 0, sizeof(*o));
        o->current = keep; /* the last known orientation stays visible until the next readout */
}

/* The rate is measured on the gravity vector (g/s), not on the angles: near 90 degrees asin() turns a
 * count of noise into degrees, and the machine would never look still there. */
static void update_rate(OrientationTracker *o, uint64_t time_usec, double pitch, double roll)
{
        double gx = sin(roll * M_PI / 180.0), gy = sin(pitch * M_PI / 180.0);

        if (o->have_prev && time_usec > o->prev_usec) {
                double dt = (double) (time_usec - o->prev_usec) / USEC_PER_SEC;
                double rate = hypot(gx - o->prev_gx, gy - o->prev_gy) / dt;
                double w = 1.0 - exp(-dt / ORIENTATION_RATE_TAU_S);
                o->rate_gps += w * (rate - o->rate_gps);
        }
        o->prev_gx = gx;
        o->prev_gy = gy;
        o->prev_usec = time_usec;
}

bool orientation_update(OrientationTracker *o, uint64_t time_usec, double pitch, double roll, bool new_data)
{
        if (!o->have_prev) {
                if (!new_data)
                        return false;
                update_rate(o, time_usec, pitch, roll);
                o->have_prev = true;
                MotionOrientation first = orientation_classify(MOTION_ORIENTATION_NORMAL, pitch, roll);
                o->candidate = first;
                o->candidate_since_usec = time_usec;
                bool changed = first != o->current;
                o->current = first;
                return changed;
        }

        if (new_data)
                update_rate(o, time_usec, pitch, roll);

        MotionOrientation c = orientation_classify(o->current, pitch, roll);
        if (c != o->candidate) {
                o->candidate = c;
                o->candidate_since_usec = time_usec;
        }
        if (c == o->current)
                return false;
        if (time_usec - o->candidate_since_usec < ORIENTATION_DEBOUNCE_MS * USEC_PER_MSEC)
                return false;
        if (o->rate_gps > ORIENTATION_MAX_RATE_GPS)
                return false; /* still turning or being shaken: wait until it settles */

        o->current = c;
        return true;
}
