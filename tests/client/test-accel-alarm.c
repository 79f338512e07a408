/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The motion alarm's state machine (client/common/accel-alarm.c) in virtual time: a clock that the test
 * moves, ticks delivered when the deadline is due, as the tray's and tpaccelctl's timers do. */
#include <glib.h>

#include "accel-alarm.h"
#include "test-helpers.h"

#define S 1000000LL /* one second in microseconds */

/* A run: the alarm, the virtual clock, every effect asked for so far (ORed), and the sounds counted. */
typedef struct Run {
        Alarm alarm;
        gint64 now;
        AlarmEffects seen;
        guint warnings, sounds, summaries;
        gboolean claimed, lid_blocked;
} Run;

static void apply(Run *r, AlarmEffects e)
{
        r->seen |= e;
        if (e & ALARM_EFFECT_CLAIM) {
                CHECK(!r->claimed); /* never claims twice */
                r->claimed = TRUE;
        }
        if (e & ALARM_EFFECT_RELEASE) {
                CHECK(r->claimed);
                r->claimed = FALSE;
        }
        if (e & ALARM_EFFECT_BLOCK_LID)
                r->lid_blocked = TRUE;
        if (e & ALARM_EFFECT_UNBLOCK_LID)
                r->lid_blocked = FALSE;
        r->warnings += !!(e & ALARM_EFFECT_WARN);
        r->sounds += !!(e & ALARM_EFFECT_SOUND);
        r->summaries += !!(e & ALARM_EFFECT_SUMMARY);
}

/* Advances the clock to t, firing every deadline due on the way at its own time. */
static void run_until(Run *r, gint64 t)
{
        while (r->alarm.deadline_usec && r->alarm.deadline_usec <= t) {
                r->now = r->alarm.deadline_usec;
                apply(r, alarm_tick(&r->alarm, r->now));
        }
        r->now = t;
}

static void start(Run *r)
{
        AlarmTimes times = {.arming_ms = 10000, .grace_ms = 8000, .repeat_ms = 500};

        *r = (Run) {0};
        alarm_init(&r->alarm, &times);
        r->now = 1000 * S;
}

/* A new run, locked, then moved after_lock later (at wall time T0): warned when it was armed by then. */
#define T0 (1700000000LL * S)
static void locked_then_moved(Run *r, gint64 after_lock)
{
        start(r);
        apply(r, alarm_lock(&r->alarm, r->now));
        run_until(r, r->now + after_lock);
        apply(r, alarm_moved(&r->alarm, r->now, T0));
}

TEST(test_lock_arms_after_the_delay_and_claims_only_while_locked)
{
        Run r;

        start(&r);
        CHECK_EQ(r.alarm.state, ALARM_DISARMED);
        CHECK_EQ(r.alarm.deadline_usec, 0);
        /* Moved while disarmed: nothing (no claim is held then anyway). */
        CHECK_EQ(alarm_moved(&r.alarm, r.now, 1), ALARM_EFFECT_NONE);

        apply(&r, alarm_lock(&r.alarm, r.now));
        CHECK_EQ(r.alarm.state, ALARM_ARMING);
        CHECK(r.claimed);
        /* Moving while arming (the owner puts it down, walks away): ignored, not counted. */
        run_until(&r, r.now + 9 * S);
        CHECK_EQ(alarm_moved(&r.alarm, r.now, 1), ALARM_EFFECT_NONE);
        CHECK_EQ(r.alarm.state, ALARM_ARMING);
        run_until(&r, r.now + 1 * S);
        CHECK_EQ(r.alarm.state, ALARM_ARMED);
        CHECK_EQ(r.alarm.deadline_usec, 0);
        /* Locked again while armed: nothing changes. */
        CHECK_EQ(alarm_lock(&r.alarm, r.now), ALARM_EFFECT_NONE);

        /* Hours armed and still: no sound, no timer. */
        run_until(&r, r.now + 3600 * S);
        CHECK_EQ(r.warnings + r.sounds, 0);

        apply(&r, alarm_unlock(&r.alarm, r.now));
        CHECK_EQ(r.alarm.state, ALARM_DISARMED);
        CHECK(!r.claimed);
        CHECK_EQ(r.summaries, 0); /* nothing moved: nothing to tell */
        CHECK(alarm_summary(&r.alarm) == NULL);
        CHECK_EQ(alarm_unlock(&r.alarm, r.now), ALARM_EFFECT_NONE);
}

TEST(test_owner_unlocks_within_the_grace)
{
        Run r;
        g_autofree char *summary = NULL;

        locked_then_moved(&r, 60 * S);
        CHECK_EQ(r.alarm.state, ALARM_WARNED);
        CHECK_EQ(r.warnings, 1);
        CHECK(r.lid_blocked);
        /* Moving on while warned: counted, no second warning, the grace not extended. */
        run_until(&r, r.now + 5 * S);
        apply(&r, alarm_moved(&r.alarm, r.now, T0 + 5 * S));
        CHECK_EQ(r.warnings, 1);
        run_until(&r, r.now + 2 * S); /* 7 s of the 8 s grace */
        CHECK_EQ(r.sounds, 0);
        apply(&r, alarm_unlock(&r.alarm, r.now));
        CHECK_EQ(r.alarm.state, ALARM_DISARMED);
        CHECK(r.seen & ALARM_EFFECT_SILENCE);
        CHECK(!r.lid_blocked);
        CHECK(!r.claimed);
        CHECK_EQ(r.summaries, 1);
        CHECK_EQ(r.sounds, 0);
        summary = alarm_summary(&r.alarm);
        CHECK(summary && strstr(summary, "Moved 2 times while locked"));
        CHECK(summary && strstr(summary, "unlocked within the grace"));
        /* Nothing after the unlock. */
        run_until(&r, r.now + 60 * S);
        CHECK_EQ(r.sounds, 0);
}

TEST(test_thief_gets_the_alarm_until_unlock)
{
        Run r;
        g_autofree char *summary = NULL;

        locked_then_moved(&r, 10 * S);
        run_until(&r, r.now + 8 * S - 1);
        CHECK_EQ(r.sounds, 0);
        run_until(&r, r.now + 1);
        CHECK_EQ(r.alarm.state, ALARM_SOUNDING);
        CHECK_EQ(r.sounds, 1);
        CHECK(r.lid_blocked);
        /* It repeats every 500 ms, for as long as it takes: 10 minutes. */
        run_until(&r, r.now + 600 * S);
        CHECK_EQ(r.sounds, 1 + 1200);
        apply(&r, alarm_moved(&r.alarm, r.now, T0 + 600 * S));
        CHECK_EQ(r.alarm.state, ALARM_SOUNDING);
        apply(&r, alarm_unlock(&r.alarm, r.now));
        CHECK(r.seen & ALARM_EFFECT_SILENCE);
        CHECK(!r.lid_blocked);
        CHECK(!r.claimed);
        CHECK_EQ(r.alarm.deadline_usec, 0);
        summary = alarm_summary(&r.alarm);
        CHECK(summary && strstr(summary, "Moved 2 times"));
        CHECK(summary && strstr(summary, "the alarm sounded"));
        run_until(&r, r.now + 60 * S);
        CHECK_EQ(r.sounds, 1 + 1200);

        /* The next lock starts a new count. */
        apply(&r, alarm_lock(&r.alarm, r.now));
        CHECK_EQ(r.alarm.moves, 0);
        CHECK(alarm_summary(&r.alarm) == NULL);
}

TEST(test_unlock_while_arming_and_a_service_restart)
{
        Run r;

        start(&r);
        apply(&r, alarm_lock(&r.alarm, r.now));
        CHECK_EQ(alarm_reclaim(&r.alarm), ALARM_EFFECT_CLAIM);
        apply(&r, alarm_unlock(&r.alarm, r.now + 3 * S));
        CHECK(!r.claimed);
        CHECK_EQ(r.alarm.deadline_usec, 0);
        CHECK_EQ(alarm_reclaim(&r.alarm), ALARM_EFFECT_NONE);
        /* A late tick (a timer that was already queued) does nothing. */
        CHECK_EQ(alarm_tick(&r.alarm, r.now + 20 * S), ALARM_EFFECT_NONE);
        CHECK_EQ(r.alarm.state, ALARM_DISARMED);
        /* An early one neither. */
        apply(&r, alarm_lock(&r.alarm, r.now));
        CHECK_EQ(alarm_tick(&r.alarm, r.now + 1 * S), ALARM_EFFECT_NONE);
        CHECK_EQ(r.alarm.state, ALARM_ARMING);
}

TEST(test_summary_of_one_move_and_state_names)
{
        Alarm a;
        g_autofree char *summary = NULL;

        alarm_init(&a, NULL);
        CHECK_EQ(a.times.arming_ms, ALARM_ARMING_MS_DEFAULT);
        CHECK_EQ(a.times.grace_ms, ALARM_GRACE_MS_DEFAULT);
        alarm_lock(&a, 0);
        alarm_tick(&a, a.deadline_usec);
        alarm_moved(&a, 20 * S, 1700000000LL * S);
        summary = alarm_summary(&a);
        CHECK(summary && strstr(summary, "Moved once while locked, at "));
        CHECK_STREQ(alarm_state_name(ALARM_DISARMED), "disarmed");
        CHECK_STREQ(alarm_state_name(ALARM_SOUNDING), "sounding");
}

int main(void)
{
        RUN(test_lock_arms_after_the_delay_and_claims_only_while_locked);
        RUN(test_owner_unlocks_within_the_grace);
        RUN(test_thief_gets_the_alarm_until_unlock);
        RUN(test_unlock_while_arming_and_a_service_restart);
        RUN(test_summary_of_one_move_and_state_names);
        return test_summary();
}
