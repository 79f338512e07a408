/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The screen orientation of net.hadess.SensorProxy from the base's angles and the tablet-mode switch:
 * the mapping of docs/ROTATION.md, laptop mode, switching, the first readout, repeats, the tilt. */

#include <math.h>

#include "motion-params.h"
#include "screen-orientation.h"
#include "test-helpers.h"

#define STEP_USEC (20 * USEC_PER_MSEC)
#define HOLD_USEC (2 * ORIENTATION_DEBOUNCE_MS * USEC_PER_MSEC)

static uint64_t now;

/* Holds the base still at (pitch, roll) long enough for the debounce to commit. */
static void hold(ScreenOrientation *s, double pitch, double roll)
{
        for (uint64_t end = now + HOLD_USEC; now < end; now += STEP_USEC)
                (void) screen_orientation_feed(s, now, pitch, roll, true);
}

static const char *after_hold(bool tablet, double pitch, double roll)
{
        static ScreenOrientation s;

        screen_orientation_init(&s);
        (void) screen_orientation_set_tablet_mode(&s, tablet);
        hold(&s, 0, 0);
        hold(&s, pitch, roll);
        return screen_orientation_string(&s);
}

TEST(test_undefined_until_first_readout)
{
        ScreenOrientation s;

        screen_orientation_init(&s);
        CHECK_STREQ(screen_orientation_string(&s), "undefined");
        CHECK(!screen_orientation_feed(&s, now, 0, 0, false)); /* a repeat is no readout */
        CHECK_STREQ(screen_orientation_string(&s), "undefined");
        CHECK(screen_orientation_feed(&s, now, 0, 0, true));
        CHECK_STREQ(screen_orientation_string(&s), "normal");
        CHECK_STREQ(screen_tilt_to_string(s.tilt), "undefined");
}

TEST(test_tablet_mapping)
{
        /* The screen is swivelled by 180 degrees over the base: its edges are the base's, mirrored. */
        CHECK_STREQ(after_hold(true, 0, 90), "left-up");    /* base right side up: screen left edge up */
        CHECK_STREQ(after_hold(true, 0, -90), "right-up");  /* base left side up */
        CHECK_STREQ(after_hold(true, -90, 0), "bottom-up"); /* hinge (back edge) up */
        CHECK_STREQ(after_hold(true, 90, 0), "normal");     /* front edge up: the screen's top is up */
        CHECK_STREQ(after_hold(true, 0, 0), "normal");      /* flat */
        CHECK_STREQ(after_hold(true, 0, 30), "normal");     /* below the entry angle */
}

TEST(test_laptop_mode_stays_normal)
{
        CHECK_STREQ(after_hold(false, 0, 90), "normal");
        CHECK_STREQ(after_hold(false, 0, -90), "normal");
        CHECK_STREQ(after_hold(false, -90, 0), "normal");
        CHECK_STREQ(after_hold(false, 90, 0), "normal");
}

TEST(test_switching)
{
        ScreenOrientation s;

        screen_orientation_init(&s);
        hold(&s, 0, 90);
        CHECK_STREQ(screen_orientation_string(&s), "normal");
        /* Folding: the next readout sets the orientation at once (a fresh tracker). */
        CHECK(!screen_orientation_set_tablet_mode(&s, true));
        CHECK(screen_orientation_feed(&s, now, 0, 90, true));
        CHECK_STREQ(screen_orientation_string(&s), "left-up");
        /* Unfolding: "normal" at once, no readout needed. */
        CHECK(screen_orientation_set_tablet_mode(&s, false));
        CHECK_STREQ(screen_orientation_string(&s), "normal");
        CHECK(!screen_orientation_set_tablet_mode(&s, false));
        /* A repeat right after folding again keeps the last value rather than "undefined". */
        CHECK(!screen_orientation_set_tablet_mode(&s, true));
        (void) screen_orientation_feed(&s, now, 0, 90, false);
        CHECK_STREQ(screen_orientation_string(&s), "normal");
        CHECK(screen_orientation_feed(&s, now, 0, 90, true));
        CHECK_STREQ(screen_orientation_string(&s), "left-up");
}

TEST(test_debounce_in_tablet_mode)
{
        ScreenOrientation s;

        screen_orientation_init(&s);
        (void) screen_orientation_set_tablet_mode(&s, true);
        hold(&s, 0, 0);
        /* A 100 ms wobble to 60 degrees does not flip. */
        for (uint64_t end = now + 100 * USEC_PER_MSEC; now < end; now += STEP_USEC)
                (void) screen_orientation_feed(&s, now, 0, 60, true);
        hold(&s, 0, 0);
        CHECK_STREQ(screen_orientation_string(&s), "normal");
}

TEST(test_tilt)
{
        ScreenOrientation s;

        screen_orientation_init(&s);
        (void) screen_orientation_set_tablet_mode(&s, true);
        hold(&s, 0, 0);
        CHECK_STREQ(screen_tilt_to_string(s.tilt), "undefined"); /* flat: face up or down, unknowable */
        hold(&s, -80, 0);
        CHECK_STREQ(screen_tilt_to_string(s.tilt), "vertical"); /* the screen's normal 10 deg from level */
        hold(&s, -69, 0);                                       /* 21 deg: inside the hysteresis band */
        CHECK_STREQ(screen_tilt_to_string(s.tilt), "vertical");
        hold(&s, -60, 0);
        CHECK_STREQ(screen_tilt_to_string(s.tilt), "undefined");
        (void) screen_orientation_set_tablet_mode(&s, false);
        CHECK_STREQ(screen_tilt_to_string(s.tilt), "undefined");
}

int main(void)
{
        RUN(test_undefined_until_first_readout);
        RUN(test_tablet_mapping);
        RUN(test_laptop_mode_stays_normal);
        RUN(test_switching);
        RUN(test_debounce_in_tablet_mode);
        RUN(test_tilt);
        return test_summary();
}
