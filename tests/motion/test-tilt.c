/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tilt math and the bounded rest-drift correction. */
#include <math.h>

#include "motion-params.h"
#include "test-helpers.h"
#include "tilt.h"

#define CPG             157.0
#define PERIOD_US       20000ULL /* 50 Hz */
#define NEAR(a, b, eps) CHECK(fabs((a) - (b)) <= (eps))

TEST(test_angle_math)
{
        NEAR(tilt_angle_deg(0, CPG), 0.0, 1e-9);
        NEAR(tilt_angle_deg(CPG / 2, CPG), 30.0, 1e-9);
        NEAR(tilt_angle_deg(-CPG / 2, CPG), -30.0, 1e-9);
        NEAR(tilt_angle_deg(CPG, CPG), 90.0, 1e-9);
        /* beyond 1 g (a jolt): clamped, never NaN */
        NEAR(tilt_angle_deg(3 * CPG, CPG), 90.0, 1e-9);
        NEAR(tilt_angle_deg(-3 * CPG, CPG), -90.0, 1e-9);
        CHECK(!isnan(tilt_angle_deg(1e9, CPG)));
}

/* Feeds a constant offset (counts, relative to rest) for seconds of still, quiet readouts. */
static void feed_still(TiltTracker *t, uint64_t *now, double x, double y, double seconds, bool quiet)
{
        for (double s = 0; s < seconds; s += PERIOD_US / 1e6) {
                tilt_update(t, *now, x, y, quiet);
                *now += PERIOD_US;
        }
}

TEST(test_drift_learnt_when_small_and_still)
{
        TiltTracker t;
        uint64_t now = 0;
        double pitch, roll;

        tilt_reset(&t);
        /* the rest point drifted by 4 counts in y and -3 in x (~1.5 deg): learnt away over minutes */
        feed_still(&t, &now, -3, 4, 300, true);
        tilt_angles(&t, -3, 4, CPG, &pitch, &roll);
        NEAR(t.drift_x, -3, 0.1);
        NEAR(t.drift_y, 4, 0.1);
        NEAR(pitch, 0, 0.1);
        NEAR(roll, 0, 0.1);
}

TEST(test_drift_bounded)
{
        TiltTracker t;
        uint64_t now = 0;
        double pitch, roll;

        /* a real tilt of 11 deg (30 counts) is never taken for drift */
        tilt_reset(&t);
        feed_still(&t, &now, 0, 30, 600, true);
        CHECK(t.drift_y == 0);
        tilt_angles(&t, 0, 30, CPG, &pitch, &roll);
        NEAR(pitch, tilt_angle_deg(30, CPG), 1e-9);

        /* a drift that creeps up slowly is followed only up to TILT_DRIFT_MAX_COUNTS */
        tilt_reset(&t);
        now = 0;
        for (double off = 0; off <= 20; off += 0.5)
                feed_still(&t, &now, off, 0, 60, true);
        CHECK(t.drift_x <= TILT_DRIFT_MAX_COUNTS);
        NEAR(t.drift_x, TILT_DRIFT_MAX_COUNTS, 1e-9);
}

TEST(test_drift_needs_quiet_and_still)
{
        TiltTracker t;
        uint64_t now = 0;

        /* keyboard activity (quiet false): nothing learnt */
        tilt_reset(&t);
        feed_still(&t, &now, 4, 4, 300, false);
        CHECK(t.drift_x == 0 && t.drift_y == 0);

        /* moving (+-6 counts at 5 Hz): not still, nothing learnt */
        tilt_reset(&t);
        now = 0;
        for (unsigned i = 0; i < 15000; i++) {
                tilt_update(&t, now, 4 + ((i / 5) % 2 ? 6 : -6), 4, true);
                now += PERIOD_US;
        }
        CHECK(!tilt_is_still(&t, now));
        CHECK(t.drift_x == 0 && t.drift_y == 0);
}

int main(void)
{
        RUN(test_angle_math);
        RUN(test_drift_learnt_when_small_and_still);
        RUN(test_drift_bounded);
        RUN(test_drift_needs_quiet_and_still);
        return test_summary();
}
