/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The movement detector (movement.c) and the Motion API around it: a shift of the resting position is a
 * movement, a knock or vibration is not, activity raises the threshold, Moving ends after the hold,
 * repeats are not motion, watching off ends Moving and forgets the rest. */
#include <math.h>

#include "motion-params.h"
#include "motion.h"
#include "movement.h"
#include "test-helpers.h"

#define CPG       157.0
#define PERIOD_US 100000ULL /* 10 Hz: MOVEMENT_RATE_HZ */

static const MotionConfig config = {
        .counts_per_g = CPG,
        .tilt_step = MOTION_TILT_STEP_DEFAULT,
        .shock_sensitivity = MOTION_SENSITIVITY_DEFAULT,
        .shock_hold_ms = MOTION_SHOCK_HOLD_MS_DEFAULT,
};

typedef struct Run {
        MovementDetector d;
        uint64_t now;
        unsigned onsets, ends;
        uint64_t first_onset_usec;
        double strength;
} Run;

/* Feeds the readout (g from rest) n times, one period apart. */
static void feed(Run *r, double gx, double gy, unsigned n, bool activity)
{
        for (unsigned i = 0; i < n; i++) {
                MovementResult res;
                movement_feed(&r->d, r->now, gx, gy, true, activity, &res);
                if (res.onset) {
                        if (r->onsets++ == 0)
                                r->first_onset_usec = r->now;
                        r->strength = res.strength;
                }
                if (res.moving_changed && !r->d.moving)
                        r->ends++;
                r->now += PERIOD_US;
        }
}

static void start(Run *r)
{
        *r = (Run) {.now = 1000000};
        movement_init(&r->d);
        feed(r, 0, 0, 20, false); /* 2 s at rest */
}

TEST(test_shift_is_a_movement_and_the_hold_ends_it)
{
        Run r;

        start(&r);
        CHECK_EQ(r.onsets, 0u);
        uint64_t shifted = r.now;
        feed(&r, 0, 0.1, 10, false); /* tilted by ~6 degrees and held there */
        CHECK_EQ(r.onsets, 1u);
        CHECK(r.d.moving);
        /* the median of the 400 ms window crosses within half of it plus a readout */
        CHECK(r.first_onset_usec - shifted <= MOVEMENT_MEDIAN_MS * USEC_PER_MSEC / 2 + PERIOD_US);
        CHECK(r.strength >= MOVEMENT_SHIFT_G && r.strength <= 0.11);
        CHECK_EQ(r.d.count, 1u);
        /* still at the new place: Moving ends MOVEMENT_HOLD_MS after the last motion, not before */
        feed(&r, 0, 0.1, MOVEMENT_HOLD_MS / 100 - 8, false);
        CHECK(r.d.moving);
        feed(&r, 0, 0.1, 10, false);
        CHECK(!r.d.moving);
        CHECK_EQ(r.ends, 1u);
        /* the new place is the rest: staying there is no movement */
        feed(&r, 0, 0.1, 50, false);
        CHECK_EQ(r.onsets, 1u);
        /* put back: a second movement */
        feed(&r, 0, 0, 10, false);
        CHECK_EQ(r.onsets, 2u);
        CHECK_EQ(r.d.count, 2u);
}

TEST(test_below_threshold_is_no_movement)
{
        Run r;

        start(&r);
        feed(&r, 0.02, 0.03, 50, false); /* 0.036 g: about 2 degrees */
        CHECK_EQ(r.onsets, 0u);
}

TEST(test_knock_is_no_movement)
{
        Run r;

        start(&r);
        for (int k = 0; k < 5; k++) { /* one readout of 1 g in every 400 ms window: the median ignores it */
                feed(&r, 0.6, 0.8, 1, false);
                feed(&r, 0, 0, 9, false);
        }
        CHECK_EQ(r.onsets, 0u);
        /* two readouts in a row at 10 Hz are half the window: still not enough to move the median */
        feed(&r, 0.6, 0.8, 1, false);
        feed(&r, -0.6, -0.8, 1, false);
        feed(&r, 0, 0, 20, false);
        CHECK_EQ(r.onsets, 0u);
}

TEST(test_activity_raises_the_threshold)
{
        Run r;

        start(&r);
        feed(&r, 0, 0.07, 20, true); /* 4 degrees while typing: below twice the threshold */
        CHECK_EQ(r.onsets, 0u);
        CHECK(movement_threshold(&r.d, r.now - PERIOD_US) >= MOVEMENT_SHIFT_G * MOVEMENT_ACTIVITY_GAIN);

        start(&r);
        feed(&r, 0, 0.07, 20, false); /* the same without activity is a movement */
        CHECK_EQ(r.onsets, 1u);

        start(&r);
        feed(&r, 0, 0, 1, true); /* the activity's window ends MOVEMENT_ACTIVITY_MS after the last flag */
        feed(&r, 0, 0, MOVEMENT_ACTIVITY_MS / 100, false);
        CHECK(movement_threshold(&r.d, r.now) < MOVEMENT_SHIFT_G * MOVEMENT_ACTIVITY_GAIN);
        feed(&r, 0, 0.07, 20, false);
        CHECK_EQ(r.onsets, 1u);
}

TEST(test_vibration_raises_the_threshold)
{
        Run r;
        double quiet;

        start(&r);
        quiet = movement_threshold(&r.d, r.now);
        for (int i = 0; i < 100; i++) /* 10 s of +-0.04 g around the rest: no movement, a higher threshold */
                feed(&r, 0, i % 2 ? 0.04 : -0.04, 1, false);
        CHECK_EQ(r.onsets, 0u);
        CHECK(movement_threshold(&r.d, r.now) > quiet * 2);
}

TEST(test_repeats_and_gaps)
{
        Run r;
        MovementResult res;

        start(&r);
        for (int i = 0; i < 30; i++) { /* repeats of a shifted readout are no data */
                movement_feed(&r.d, r.now, 0, 0.2, false, false, &res);
                CHECK(!res.onset);
                r.now += PERIOD_US;
        }
        CHECK_EQ(r.d.count, 0u);
        /* a gap of more than MOVEMENT_GAP_RESET_S: the history starts over, the rest is taken again
         * where the machine is now (nothing to compare with across the gap) */
        r.now += 5 * USEC_PER_SEC;
        feed(&r, 0, 0.2, 30, false);
        CHECK_EQ(r.onsets, 0u);
}

TEST(test_stop_ends_moving_and_forgets)
{
        Run r;

        start(&r);
        feed(&r, 0, 0.2, 10, false);
        CHECK(r.d.moving);
        CHECK(movement_stop(&r.d));
        CHECK(!r.d.moving);
        CHECK(!movement_stop(&r.d)); /* already stopped: no change */
        CHECK_EQ(r.d.count, 1u);     /* kept */
}

/* Through the Motion API: only while watched, the events and the state. */
TEST(test_motion_watches_only_when_asked)
{
        _cleanup_(motion_freep) Motion *m = NULL;
        MotionEvents ev;
        uint64_t now = 1000000;
        unsigned moved = 0, moving_changes = 0;

        CHECK_EQ(motion_new(&config, &m), 0);
        /* not watched: a lift is no movement */
        for (int i = 0; i < 40; i++) {
                MotionSample s = {.time_usec = now, .y = i < 20 ? 0 : 30, .new_readouts = 1, .rate_hz = 10};
                motion_feed(m, &s, &ev);
                CHECK(!(ev.mask & (MOTION_EVENT_MOVED | MOTION_EVENT_MOVING)));
                now += PERIOD_US;
        }
        CHECK_EQ(motion_get_state(m)->move_count, 0u);
        /* watched: the same lift (30 counts, 0.19 g) from a rest is one */
        for (int i = 0; i < 40; i++) {
                MotionSample s = {.time_usec = now,
                                  .y = i < 20 ? 30 : 0,
                                  .new_readouts = 1,
                                  .rate_hz = 10,
                                  .watch_movement = true};
                motion_feed(m, &s, &ev);
                if (ev.mask & MOTION_EVENT_MOVED) {
                        moved++;
                        CHECK(ev.move_time_usec == now);
                        /* the median's distance when it crossed: above the threshold, at most the lift */
                        CHECK(ev.move_strength >= MOVEMENT_SHIFT_G && ev.move_strength <= 30 / CPG);
                        CHECK(ev.moving);
                }
                moving_changes += !!(ev.mask & MOTION_EVENT_MOVING);
                now += PERIOD_US;
        }
        CHECK_EQ(moved, 1u);
        CHECK_EQ(moving_changes, 1u);
        CHECK(motion_get_state(m)->moving);
        CHECK_EQ(motion_get_state(m)->move_count, 1u);
        /* watching stops: Moving goes with the next readout, and motion_stop_movement() says so once */
        MotionSample s = {.time_usec = now, .new_readouts = 1, .rate_hz = 10};
        motion_feed(m, &s, &ev);
        CHECK(ev.mask & MOTION_EVENT_MOVING);
        CHECK(!ev.moving);
        CHECK(!motion_get_state(m)->moving);
        CHECK(!motion_stop_movement(m));
        CHECK_EQ(motion_get_state(m)->move_count, 1u);
}

int main(void)
{
        RUN(test_shift_is_a_movement_and_the_hold_ends_it);
        RUN(test_below_threshold_is_no_movement);
        RUN(test_knock_is_no_movement);
        RUN(test_activity_raises_the_threshold);
        RUN(test_vibration_raises_the_threshold);
        RUN(test_repeats_and_gaps);
        RUN(test_stop_ends_moving_and_forgets);
        RUN(test_motion_watches_only_when_asked);
        return test_summary();
}
