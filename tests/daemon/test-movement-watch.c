/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/daemon/movement-watch.c in-process (rig.h), in virtual time: nothing polls for movement while
 * nobody watches; watching polls at MOVEMENT_RATE_HZ and reports MovementWatched; the lift of
 * movement/picked-up.csv is one Moved, Moving true then false once it rests; watching off ends Moving
 * and stops the polling. */
#include "movement-watch.h"
#include "rig.h"
#include "test-helpers.h"

#define TRACE "movement/picked-up.csv" /* at rest, lifted at 6 s, put down at 9.5 s */

TEST(watching_polls_and_detects_the_lift)
{
        Rig *r = rig_new(&(RigOptions) {.trace = TRACE});
        Poller *p = &r->c->poller;

        CHECK(!movement_watched(r->c));
        rig_advance_ms(r, 1000);
        CHECK_EQ(r->ticks, 0u); /* nobody watches: no poll */

        rig_forget(r);
        movement_watch_set(r->c, true);
        CHECK(movement_watched(r->c));
        CHECK(p->polling);
        CHECK_EQ(p->poll_rate, MOVEMENT_RATE_HZ);
        CHECK_STREQ(p->poll_rate_reason_code, "movement");
        CHECK_EQ(rig_change_count(r, CHANGE_MOVEMENT_WATCHED), 1u);
        movement_watch_set(r->c, true); /* again: nothing to report */
        CHECK_EQ(rig_change_count(r, CHANGE_MOVEMENT_WATCHED), 1u);

        rig_advance_ms(r, 4000); /* at rest until 6 s */
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_MOVED), 0u);
        rig_advance_ms(r, 2000); /* lifted at 6 s: seen within a second */
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_MOVED), 1u);
        CHECK(motion_get_state(r->c->motion)->moving);
        CHECK_EQ(rig_change_count(r, CHANGE_MOVING), 1u);
        CHECK_EQ(rig_change_count(r, CHANGE_MOVE_COUNT), 1u);
        rig_advance_ms(r, 8000); /* put down at 9.5 s: at rest again 2 s after the last motion */
        CHECK(!motion_get_state(r->c->motion)->moving);
        CHECK_EQ(rig_change_count(r, CHANGE_MOVING), 2u);
        CHECK_EQ(motion_get_state(r->c->motion)->move_count, 1u);

        rig_forget(r);
        movement_watch_set(r->c, false);
        CHECK(!movement_watched(r->c));
        CHECK(!p->polling);
        CHECK(rig_changed_bit(r, CHANGE_MOVEMENT_WATCHED));
        CHECK(!rig_changed_bit(r, CHANGE_MOVING)); /* it was at rest */
        unsigned ticks = r->ticks;
        rig_advance_ms(r, 2000);
        CHECK_EQ(r->ticks, ticks);
        rig_free(r);
}

TEST(watching_off_while_moving_ends_moving)
{
        Rig *r = rig_new(&(RigOptions) {.trace = TRACE});

        movement_watch_set(r->c, true);
        rig_advance_ms(r, 7000);
        CHECK(motion_get_state(r->c->motion)->moving);
        rig_forget(r);
        movement_watch_set(r->c, false);
        CHECK(!motion_get_state(r->c->motion)->moving);
        CHECK(rig_changed_bit(r, CHANGE_MOVING));
        CHECK(rig_changed_bit(r, CHANGE_MOVEMENT_WATCHED));
        CHECK(!r->c->poller.polling);
        rig_free(r);
}

TEST(a_faster_claim_keeps_its_rate_and_detection_runs)
{
        Rig *r = rig_new(&(RigOptions) {.trace = TRACE});

        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        movement_watch_set(r->c, true);
        CHECK_EQ(r->c->poller.poll_rate, 50u);
        rig_advance_ms(r, 7000);
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_MOVED), 1u);
        movement_watch_set(r->c, false);
        CHECK(r->c->poller.polling); /* the claim still polls */
        rig_free(r);
}

int main(void)
{
        RUN(watching_polls_and_detects_the_lift);
        RUN(watching_off_while_moving_ends_moving);
        RUN(a_faster_claim_keeps_its_rate_and_detection_runs);
        return test_summary();
}
