/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shock detector and the Motion API around it: repeats, sensitivity, vibration, activity, hold. */
#include <math.h>

#include "motion-params.h"
#include "motion.h"
#include "shock.h"
#include "test-helpers.h"

#define CPG       157.0
#define PERIOD_US 20000ULL

static const MotionConfig config = {
        .counts_per_g = CPG,
        .tilt_step = MOTION_TILT_STEP_DEFAULT,
        .shock_sensitivity = MOTION_SENSITIVITY_DEFAULT,
        .shock_hold_ms = MOTION_SHOCK_HOLD_MS_DEFAULT,
};

TEST(test_validation)
{
        _cleanup_(motion_freep) Motion *m = NULL;
        const char *msg = NULL;
        MotionConfig bad = config;

        bad.shock_sensitivity = 0;
        CHECK_EQ(motion_config_validate(&bad, &msg), -EINVAL);
        CHECK_STREQ(msg, "shock sensitivity must be between 0.1 and 10");
        CHECK_EQ(motion_new(&bad, &m), -EINVAL);
        CHECK(m == NULL);

        bad = config;
        bad.tilt_step = NAN;
        CHECK_EQ(motion_config_validate(&bad, &msg), -EINVAL);
        CHECK_STREQ(msg, "tilt step must be between 0.1 and 45 degrees");

        CHECK_EQ(motion_new(&config, &m), 0);
        CHECK_EQ(motion_set_shock_sensitivity(m, 10.5), -EINVAL);
        CHECK_EQ(motion_set_shock_sensitivity(m, NAN), -EINVAL);
        CHECK_EQ(motion_set_shock_sensitivity(m, -1), -EINVAL);
        CHECK(motion_get_config(m)->shock_sensitivity == MOTION_SENSITIVITY_DEFAULT); /* unchanged */
        CHECK_EQ(motion_set_shock_sensitivity(m, 2.5), 0);
        CHECK(motion_get_config(m)->shock_sensitivity == 2.5);
        CHECK_EQ(motion_set_tilt_step(m, 0.05), -EINVAL);
        CHECK_EQ(motion_set_tilt_step(m, INFINITY), -EINVAL);
        CHECK(motion_get_config(m)->tilt_step == MOTION_TILT_STEP_DEFAULT);
        CHECK_EQ(motion_set_counts_per_g(m, 0), -EINVAL);
        CHECK_EQ(motion_set_shock_hold_ms(m, 50), -EINVAL);
        CHECK_EQ(motion_set_shock_hold_ms(m, 2000), 0);
}

/* Feeds y counts (relative to rest 0,0) to a Motion; returns the event mask. */
static unsigned feed(Motion *m, uint64_t *now, int y, unsigned new_readouts, bool keyboard)
{
        MotionSample s = {.time_usec = *now, .y = y, .new_readouts = new_readouts, .keyboard = keyboard};
        MotionEvents ev;
        motion_feed(m, &s, &ev);
        *now += PERIOD_US;
        return ev.mask;
}

TEST(test_step_is_a_shock_and_hold)
{
        _cleanup_(motion_freep) Motion *m = NULL;
        uint64_t now = 0;
        unsigned mask = 0;

        CHECK_EQ(motion_new(&config, &m), 0);
        for (unsigned i = 0; i < 100; i++)
                CHECK_EQ(feed(m, &now, 0, 1, false) & MOTION_EVENT_SHOCK, 0);
        /* a 0.2 g jump: a jolt at this very readout */
        mask = feed(m, &now, 31, 1, false);
        CHECK(mask & MOTION_EVENT_SHOCK);
        CHECK(mask & MOTION_EVENT_SHOCK_ACTIVE);
        const MotionState *st = motion_get_state(m);
        CHECK(st->shock_active);
        CHECK_EQ(st->shock_count, 1);
        CHECK(st->last_shock_magnitude > 0.15);
        CHECK_EQ(st->last_shock_usec, now - PERIOD_US);

        /* quiet afterwards: active for the hold time, then cleared once */
        uint64_t onset = now - PERIOD_US, cleared = 0;
        for (unsigned i = 0; i < 150; i++) {
                mask = feed(m, &now, 31, 1, false);
                CHECK_EQ(mask & MOTION_EVENT_SHOCK, 0);
                if ((mask & MOTION_EVENT_SHOCK_ACTIVE) && !cleared)
                        cleared = now - PERIOD_US;
        }
        CHECK(!st->shock_active);
        CHECK(cleared - onset >= MOTION_SHOCK_HOLD_MS_DEFAULT * 1000ULL);
        CHECK(cleared - onset <= MOTION_SHOCK_HOLD_MS_DEFAULT * 1000ULL + 300000ULL);
        CHECK_EQ(st->shock_count, 1);
}

/* A slow ramp (the reference follows) with repeated readouts in between: identical results to the
 * same ramp without them, and nothing is detected; hdapsd's zero-velocity reading of a repeat would
 * double the next step. */
TEST(test_repeats_are_not_zero_motion)
{
        _cleanup_(motion_freep) Motion *a = NULL, *b = NULL;
        uint64_t ta = 0, tb = 0;

        CHECK_EQ(motion_new(&config, &a), 0);
        CHECK_EQ(motion_new(&config, &b), 0);
        for (int i = 0; i < 400; i++) {
                int y = i < 100 ? 0 : (i - 100) / 4; /* 0.08 g/s */
                unsigned ma = feed(a, &ta, y, 1, false);
                ta += PERIOD_US; /* a's readouts are 40 ms apart ... */
                unsigned mb = feed(b, &tb, y, 1, false);
                mb |= feed(b, &tb, y, 0, false); /* ... b sees the same with a repeat in between */
                CHECK_EQ(ma & MOTION_EVENT_SHOCK, 0);
                CHECK_EQ(mb & MOTION_EVENT_SHOCK, 0);
        }
        const MotionState *sa = motion_get_state(a), *sb = motion_get_state(b);
        CHECK(sa->vibration_level == sb->vibration_level);
        CHECK(sa->pitch == sb->pitch);
}

TEST(test_sensitivity_scales)
{
        /* a 0.05 g step: below the default threshold, above it at sensitivity 2 */
        for (unsigned k = 0; k < 2; k++) {
                _cleanup_(motion_freep) Motion *m = NULL;
                uint64_t now = 0;
                CHECK_EQ(motion_new(&config, &m), 0);
                CHECK_EQ(motion_set_shock_sensitivity(m, k ? 2.0 : 1.0), 0);
                for (unsigned i = 0; i < 100; i++)
                        feed(m, &now, 0, 1, false);
                feed(m, &now, 8, 1, false);
                CHECK_EQ(motion_get_state(m)->shock_count, k ? 1 : 0);
        }
}

TEST(test_activity_raises_threshold)
{
        _cleanup_(motion_freep) Motion *m = NULL;
        uint64_t now = 0;

        CHECK_EQ(motion_new(&config, &m), 0);
        for (unsigned i = 0; i < 100; i++)
                feed(m, &now, 0, 1, false);
        /* 0.08 g keystroke jolts with the keyboard flag: not a shock */
        for (unsigned i = 0; i < 100; i++)
                feed(m, &now, i % 10 == 0 ? 13 : 0, 1, i % 10 == 0);
        CHECK_EQ(motion_get_state(m)->shock_count, 0);
        /* the same jolt once typing has stopped (and its jolts have left the background) is one */
        for (unsigned i = 0; i < 250; i++)
                feed(m, &now, 0, 1, false);
        feed(m, &now, 13, 1, false);
        CHECK_EQ(motion_get_state(m)->shock_count, 1);
}

TEST(test_vibration_adapts)
{
        ShockDetector s;
        ShockResult r;
        uint64_t now = 0;
        unsigned onsets = 0;

        shock_init(&s, 1.0, 1000);
        /* 10 Hz vibration building up to 0.12 g over 5 s, then sustained */
        for (unsigned i = 0; i < 1500; i++) {
                double t = i * 0.02, amp = 0.12 * fmin(1.0, t / 5.0);
                shock_feed(&s, now, 0, amp * sin(2 * M_PI * 10.3 * t), true, false, &r);
                onsets += r.onset;
                now += PERIOD_US;
        }
        CHECK_EQ(onsets, 0);
        CHECK(shock_vibration_level(&s) > 0.04);
        CHECK(shock_jolt_threshold(&s, now) > 0.15);

        /* the background decays again once the vibration stops */
        for (unsigned i = 0; i < 1000; i++) {
                shock_feed(&s, now, 0, 0, true, false, &r);
                now += PERIOD_US;
        }
        CHECK(shock_vibration_level(&s) < 0.01);
}

/* Sensor noise of about a count (1/157 g), deterministic. */
static double noise(unsigned i)
{
        static const int counts[] = {0, 1, -1, 1, 0, -1, 2, 0, -1, 1, -2, 0, 1};
        return counts[i % ELEMENTSOF(counts)] / CPG;
}

/* Holds the machine still at (gx, gy) g for 4 s, then feeds the readouts of a fall (0 g plus noise)
 * until an onset or n readouts; returns the readout of the onset (1 = the first at 0 g), 0 if none. */
static unsigned fall_from(double sensitivity, double gx, double gy, unsigned n, const char **reason)
{
        ShockDetector s;
        ShockResult r;
        uint64_t now = 0;

        shock_init(&s, sensitivity, 1000);
        for (unsigned i = 0; i < 200; i++, now += PERIOD_US) {
                shock_feed(&s, now, gx + noise(i), gy + noise(i + 5), true, false, &r);
                CHECK(!r.onset);
        }
        for (unsigned k = 1; k <= n; k++, now += PERIOD_US) {
                shock_feed(&s, now, noise(k), noise(k + 3), true, false, &r);
                if (r.onset) {
                        *reason = r.reason;
                        return k;
                }
        }
        return 0;
}

TEST(test_freefall_tilted_at_once)
{
        const char *reason = NULL;

        /* held at 12 deg (0.2 g) and at 10 deg: the deep collapse is a fall on its first readout */
        CHECK_EQ(fall_from(1.0, 0.06, 0.2, 10, &reason), 1);
        CHECK_STREQ(reason, "freefall");
        CHECK_EQ(fall_from(1.0, 0.1, 0.14, 10, &reason), 1);
        CHECK_STREQ(reason, "freefall");
}

/* Held still at 12 deg (0.21 g) for 4 s; then one readout at 40 % of the vector, moved by `across` g
 * at right angles to it (a deviation of 0.13 g or more: a jolt), then the vector at the fraction `then`
 * of it. Returns the readout of the onset (1 = that first one), 0 if none, and the reason. */
static unsigned mid_collapse(double across, double then, const char **reason)
{
        const double lx = 0.06, ly = 0.2, len = hypot(lx, ly);
        ShockDetector s;
        ShockResult r;
        uint64_t now = 0;

        shock_init(&s, 1.0, 1000);
        for (unsigned i = 0; i < 200; i++, now += PERIOD_US) {
                shock_feed(&s, now, lx + noise(i), ly + noise(i + 5), true, false, &r);
                CHECK(!r.onset);
        }
        for (unsigned k = 1; k <= 10; k++, now += PERIOD_US) {
                double f = k == 1 ? 0.4 : then, a = k == 1 ? across : 0;
                shock_feed(&s, now, f * lx + a * ly / len + noise(k), f * ly - a * lx / len + noise(k + 3),
                           true, false, &r);
                if (r.onset) {
                        *reason = r.reason;
                        return k;
                }
        }
        return 0;
}

TEST(test_freefall_caught_mid_collapse)
{
        const char *reason = NULL;

        /* The first readout of a fall from a tilted machine, caught mid-collapse (sensor settling), is
         * already a jolt: it is the fall's onset (it was reported as a jolt: the tick phase decided) ... */
        CHECK_EQ(mid_collapse(0.0, 0.0, &reason), 1);
        CHECK_STREQ(reason, "freefall");
        /* ... but a knock that turns the vector while shortening it is a jolt. */
        CHECK_EQ(mid_collapse(0.06, 1.0, &reason), 1);
        CHECK_STREQ(reason, "jolt");
}

TEST(test_freefall_flat_after_the_hold)
{
        const char *reason = NULL;
        unsigned hold = SHOCK_FREEFALL_HOLD_MS * 1000 / PERIOD_US;

        /* held at 4 deg (0.07 g, less than a jolt): a shallow collapse must hold still first, then it
         * is a fall; 10 readouts (200 ms) is about the fall time from 20 cm */
        CHECK_EQ(fall_from(1.0, 0.0, 0.07, 10, &reason), 1 + hold);
        CHECK_STREQ(reason, "freefall");
        /* the sensitivity moves it: at 0.75 the hold is longer (53 ms: one more readout); at 0.5 the
         * fall threshold (0.08 g) exceeds the vector and only the impact would show; at 2 the halved
         * deep-collapse threshold (0.06 g) takes it as a fall at once */
        CHECK_EQ(fall_from(0.75, 0.0, 0.07, 10, &reason), 2 + hold);
        CHECK_STREQ(reason, "freefall");
        CHECK_EQ(fall_from(0.5, 0.0, 0.07, 10, &reason), 0);
        CHECK_EQ(fall_from(2.0, 0.0, 0.07, 10, &reason), 1);
        CHECK_STREQ(reason, "freefall");
        /* below the minimum tilt there is no vector to collapse: a level machine's fall shows only at
         * its impact (the jolt test) */
        CHECK_EQ(fall_from(1.0, 0.0, 0.03, 10, &reason), 0);
}

/* A car: a nearly flat machine (4 deg), road bumps of 0.08 g at 1.7-2.9 Hz along its tilt, swinging its
 * in-plane reading through 0 g again and again, and engine hum. Steady driving for 20 s after the ride
 * builds up over 3 s. The shallow collapses pass through, none holds: no shock. */
static unsigned car_ride_onsets(double sensitivity)
{
        ShockDetector s;
        ShockResult r;
        uint64_t now = 0;
        unsigned onsets = 0;

        shock_init(&s, sensitivity, 1000);
        for (unsigned i = 0; i < 1150; i++, now += PERIOD_US) {
                double t = i * 0.02, ramp = fmin(1.0, t / 3.0);
                double bump = 0.05 * sin(2 * M_PI * 1.7 * t) + 0.03 * sin(2 * M_PI * 2.9 * t + 1.0);
                double hum = 0.008 * sin(2 * M_PI * 47.0 * t);
                shock_feed(&s, now, 0.01 + 0.3 * ramp * bump + hum + noise(i),
                           0.07 + ramp * bump + noise(i + 4), true, false, &r);
                onsets += r.onset;
        }
        return onsets;
}

TEST(test_swing_through_zero_is_not_a_fall)
{
        CHECK_EQ(car_ride_onsets(1.0), 0);
        /* ... while at the most sensitive setting the same ride does raise shocks: the balance moves */
        CHECK(car_ride_onsets(MOTION_SENSITIVITY_MAX) > 0);
}

/* A slow rotation to level (a leg shift on a lap, 4 deg in 0.4 s) collapses the vector too, but not
 * within the collapse window: not a fall. */
TEST(test_slow_rotation_to_level_is_not_a_fall)
{
        ShockDetector s;
        ShockResult r;
        uint64_t now = 0;
        unsigned onsets = 0;

        shock_init(&s, 1.0, 1000);
        for (unsigned i = 0; i < 400; i++, now += PERIOD_US) {
                double u = fmin(fmax((i - 200) / 20.0, 0), 1), k = 0.5 + 0.5 * cos(M_PI * u);
                shock_feed(&s, now, noise(i), 0.07 * k + noise(i + 2), true, false, &r);
                onsets += r.onset;
        }
        CHECK_EQ(onsets, 0);
}

/* Tilt events: a still machine whose readouts swing across the whole noise band (+-2 counts, so two
 * readouts differ by up to 4) sends its first Tilt and no other; a real movement of one count more does. */
TEST(test_tilt_events_ignore_readout_noise)
{
        static const int swing[] = {2, -2, 0, -2, 2, 1, -1, 2, -2};
        _cleanup_(motion_freep) Motion *m = NULL;
        uint64_t now = 0;
        unsigned tilts = 0;
        MotionEvents ev;

        CHECK_EQ(motion_new(&config, &m), 0);
        for (unsigned i = 0; i < 3000; i++) {
                int n = swing[i % ELEMENTSOF(swing)];
                MotionSample s = {.time_usec = now, .x = n, .y = -n, .new_readouts = 1};
                motion_feed(m, &s, &ev);
                tilts += !!(ev.mask & MOTION_EVENT_TILT);
                now += PERIOD_US;
        }
        CHECK_EQ(tilts, 1);

        /* from the reference at +2, a readout at -3 is 5 counts away: more than noise, a Tilt */
        MotionSample ref = {.time_usec = now, .x = 2, .y = 0, .new_readouts = 1};
        motion_feed(m, &ref, &ev);
        now += PERIOD_US;
        MotionSample moved = {.time_usec = now, .x = -3, .y = 0, .new_readouts = 1};
        motion_feed(m, &moved, &ev);
        CHECK(ev.mask & MOTION_EVENT_TILT);
}

int main(void)
{
        RUN(test_validation);
        RUN(test_step_is_a_shock_and_hold);
        RUN(test_repeats_are_not_zero_motion);
        RUN(test_sensitivity_scales);
        RUN(test_activity_raises_threshold);
        RUN(test_vibration_adapts);
        RUN(test_freefall_tilted_at_once);
        RUN(test_freefall_caught_mid_collapse);
        RUN(test_freefall_flat_after_the_hold);
        RUN(test_swing_through_zero_is_not_a_fall);
        RUN(test_slow_rotation_to_level_is_not_a_fall);
        RUN(test_tilt_events_ignore_readout_noise);
        return test_summary();
}
