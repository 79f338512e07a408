/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Orientation mapping, hysteresis, debounce and the start state. */
#include "motion-params.h"
#include "orientation.h"
#include "test-helpers.h"

#define PERIOD_US 20000ULL /* 50 Hz */
#define N         MOTION_ORIENTATION_NORMAL
#define BU        MOTION_ORIENTATION_BOTTOM_UP
#define LU        MOTION_ORIENTATION_LEFT_UP
#define RU        MOTION_ORIENTATION_RIGHT_UP

TEST(test_mapping)
{
        CHECK_EQ(orientation_classify(N, 0, 0), N);
        CHECK_EQ(orientation_classify(N, 0, 60), RU);  /* right side up */
        CHECK_EQ(orientation_classify(N, 0, -60), LU); /* left side up */
        CHECK_EQ(orientation_classify(N, 60, 0), BU);  /* front edge up: standing on the hinge */
        CHECK_EQ(orientation_classify(N, -60, 0), N);  /* standing on the front edge: upright, normal */
        CHECK_EQ(orientation_classify(N, 50, 70), RU); /* the larger angle wins */
        CHECK_STREQ(motion_orientation_to_string(LU), "left-up");
        CHECK_STREQ(motion_orientation_to_string(MOTION_ORIENTATION_UNDEFINED), "undefined");
        CHECK_EQ(motion_orientation_from_string("bottom-up"), BU);
        CHECK_EQ(motion_orientation_from_string("sideways"), -EINVAL);
}

TEST(test_hysteresis)
{
        /* between the leave and the entry angle the current orientation holds, both ways */
        double between = (ORIENTATION_ENTER_DEG + ORIENTATION_LEAVE_DEG) / 2;
        CHECK_EQ(orientation_classify(N, 0, between), N);
        CHECK_EQ(orientation_classify(RU, 0, between), RU);
        CHECK_EQ(orientation_classify(RU, 0, ORIENTATION_LEAVE_DEG - 1), N);
        CHECK_EQ(orientation_classify(N, 0, ORIENTATION_ENTER_DEG + 1), RU);
        CHECK_EQ(orientation_classify(LU, 0, -between), LU);
        CHECK_EQ(orientation_classify(BU, between, 0), BU);
}

/* Feeds constant angles for ms; returns the time the orientation changed (0 if it did not). */
static uint64_t hold(OrientationTracker *o, uint64_t *now, double pitch, double roll, unsigned ms)
{
        uint64_t changed = 0;
        for (unsigned t = 0; t < ms; t += PERIOD_US / 1000) {
                if (orientation_update(o, *now, pitch, roll, true) && !changed)
                        changed = *now;
                *now += PERIOD_US;
        }
        return changed;
}

TEST(test_start_state_from_first_readout)
{
        OrientationTracker o = {};
        uint64_t now = 1000000;

        CHECK_EQ(o.current, MOTION_ORIENTATION_UNDEFINED);
        CHECK(orientation_update(&o, now, 0, 2, true)); /* flat on a desk: normal at once */
        CHECK_EQ(o.current, N);

        OrientationTracker o2 = {};
        CHECK(orientation_update(&o2, now, 0, -80, true)); /* started lying on its left side */
        CHECK_EQ(o2.current, LU);

        /* a repeat before any data gives nothing */
        OrientationTracker o3 = {};
        CHECK(!orientation_update(&o3, now, 0, 0, false));
        CHECK_EQ(o3.current, MOTION_ORIENTATION_UNDEFINED);
}

TEST(test_debounce)
{
        OrientationTracker o = {};
        uint64_t now = 0;

        hold(&o, &now, 0, 0, 1000);
        CHECK_EQ(o.current, N);

        /* a wobble shorter than the debounce never flips */
        CHECK(hold(&o, &now, 0, -60, ORIENTATION_DEBOUNCE_MS - 60) == 0);
        CHECK(hold(&o, &now, 0, 0, 1000) == 0);
        CHECK_EQ(o.current, N);

        /* a held turn flips after the debounce, not before */
        uint64_t start = now;
        uint64_t flipped = hold(&o, &now, 0, -60, 1000);
        CHECK_EQ(o.current, LU);
        CHECK(flipped - start >= ORIENTATION_DEBOUNCE_MS * 1000ULL);
        CHECK(flipped - start <= 500 * 1000ULL);

        /* repeated readouts carry time: a candidate held across them still flips */
        start = now;
        bool changed = false;
        for (unsigned i = 0; i < 50 && !changed; i++) {
                changed = orientation_update(&o, now, 0, 0, i % 2 == 0);
                now += PERIOD_US;
        }
        CHECK(changed);
        CHECK_EQ(o.current, N);
}

TEST(test_no_flip_while_shaken)
{
        OrientationTracker o = {};
        uint64_t now = 0;

        hold(&o, &now, 0, 0, 1000);
        /* roll oscillating 40..80 deg at 10 Hz: always beyond the entry angle but never still */
        for (unsigned i = 0; i < 100; i++) {
                orientation_update(&o, now, 0, (i % 5) < 2 ? 40 : 80, true);
                now += PERIOD_US;
        }
        CHECK_EQ(o.current, N);
        /* once it settles it flips */
        CHECK(hold(&o, &now, 0, 60, 1000) != 0);
        CHECK_EQ(o.current, RU);
}

int main(void)
{
        RUN(test_mapping);
        RUN(test_hysteresis);
        RUN(test_start_state_from_first_readout);
        RUN(test_debounce);
        RUN(test_no_flip_while_shaken);
        return test_summary();
}
