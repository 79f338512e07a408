/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/daemon/suspend.c in-process (rig.h): before sleep polling stops, the heads are unparked and
 * the accelerometer powered off; after resume it is initialized again and polling resumes for the
 * demands that were kept; Suspended reported each way, both idempotent. */
#include "rig.h"
#include "test-helpers.h"

static bool heads_parked(Rig *r)
{
        return rig_heads_parked_count(r, true) > 0;
}

TEST(sleep_stops_polling_and_resume_starts_it_again)
{
        Rig *r = rig_new(&(RigOptions) {});
        Context *c = r->c;

        rig_claim(r, 10, ":1.5");
        rig_advance_ms(r, 500);
        CHECK(rig_sim_status(r).powered);

        rig_forget(r);
        suspend_enter(c);
        CHECK(c->suspend.active);
        CHECK_EQ(rig_change_count(r, CHANGE_SUSPENDED), 1);
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE));
        CHECK(!c->poller.polling);
        CHECK(c->poller.poll_timer == NULL);
        CHECK_STREQ(c->poller.poll_rate_reason, "not polling: suspended");
        CHECK(!rig_sim_status(r).powered);
        CHECK(c->poller.demand & DEMAND_CLAIM); /* the claim is kept */

        suspend_enter(c); /* idempotent */
        CHECK_EQ(rig_change_count(r, CHANGE_SUSPENDED), 1);
        rig_advance_ms(r, 10 * 1000);
        CHECK_EQ(r->ticks, 0);

        rig_forget(r);
        suspend_leave(c);
        CHECK(!c->suspend.active);
        CHECK_EQ(rig_change_count(r, CHANGE_SUSPENDED), 1);
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(c->poller.polling);
        CHECK_EQ(c->poller.poll_rate, 10);
        CHECK_STREQ(c->poller.poll_rate_reason, "a claim by :1.5 at 10 Hz");
        CHECK(rig_sim_status(r).powered);
        rig_advance_ms(r, 1000);
        CHECK(r->ticks >= 9 && r->ticks <= 11);
        CHECK(r->new_readouts >= 5);
        CHECK_EQ(rig_sim_status(r).ec_rate, 10 * 5); /* the rate in force again after the init */
        suspend_leave(c);                            /* idempotent */
        CHECK_EQ(rig_change_count(r, CHANGE_SUSPENDED), 1);
        rig_free(r);
}

TEST(sleep_unparks_and_resume_rearms_protection)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true, .trace = "drop-30cm.csv"});
        Context *c = r->c;
        char buf[32];

        CHECK_EQ(rig_protect(r, (char *[]) {(char *) "sda", NULL}), 0);
        CHECK(rig_advance_until(r, heads_parked, 7000) >= 0);
        rig_forget(r);
        suspend_enter(c);
        CHECK_EQ(rig_heads_parked_count(r, false), 1);
        CHECK_STREQ(rig_unload_heads(r, buf), "0");
        CHECK(!c->poller.polling);
        suspend_leave(c);
        CHECK_STREQ(protection_state(c), "armed");
        CHECK(c->poller.polling);
        CHECK_EQ(c->poller.poll_rate, 50);
        rig_free(r);
}

TEST(resume_without_demand_does_not_poll)
{
        Rig *r = rig_new(&(RigOptions) {});
        Context *c = r->c;

        suspend_enter(c);
        rig_forget(r);
        suspend_leave(c);
        CHECK(!c->poller.polling);
        CHECK(!rig_changed_bit(r, CHANGE_POLLING));
        CHECK_STREQ(c->poller.poll_rate_reason, "not polling: nothing claims the accelerometer");
        rig_advance_ms(r, 1000);
        CHECK_EQ(r->ticks, 0);
        rig_free(r);
}

TEST(stopped_hardware_works_again_after_resume)
{
        Rig *r = rig_new(&(RigOptions) {});
        Context *c = r->c;

        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_sim_fault(r, SIM_FAULT_SILENT, true);
        rig_advance_ms(r, 300);
        CHECK_EQ(c->poller.hardware_state, HARDWARE_STOPPED);
        suspend_enter(c);
        rig_sim_fault(r, SIM_FAULT_SILENT, false);
        rig_advance_ms(r, 100); /* the EC ends the silent transaction it was in */
        CHECK_EQ(c->poller.hardware_state, HARDWARE_STOPPED);
        rig_forget(r);
        suspend_leave(c); /* the resume's initialization works: ok, polling again */
        CHECK_EQ(c->poller.hardware_state, HARDWARE_OK);
        CHECK(rig_changed_bit(r, CHANGE_HARDWARE_STATE));
        CHECK(c->poller.polling);
        CHECK(c->poller.reinit_timer == NULL);
        rig_advance_ms(r, 1000);
        CHECK(r->ticks >= 48);
        rig_free(r);
}

int main(void)
{
        RUN(sleep_stops_polling_and_resume_starts_it_again);
        RUN(sleep_unparks_and_resume_rearms_protection);
        RUN(resume_without_demand_does_not_poll);
        RUN(stopped_hardware_works_again_after_resume);
        return test_summary();
}
