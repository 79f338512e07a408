/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/daemon/protection.c in-process (rig.h), on a fake sysfs disk: arming demands polling, the
 * emulator's 30 cm drop parks the heads on the readout that sees the shock, the park is re-armed while
 * the shock lasts and released after it; Pause() unparks, stops protection's polling and ends by itself;
 * every change reported with its mask (ProtectedDisks, ProtectionState, Parked, ParkCount,
 * PausedUntil) and the HeadsParked events. Virtual time: the drop at 5 s costs no real seconds. */
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "test-helpers.h"

#define DROP_AT_MS 5000 /* drop-30cm.csv: '# expect: shock at_ms=5000' */

static char *const SDA[] = {(char *) "sda", NULL};

static bool heads_parked(Rig *r)
{
        return rig_heads_parked_count(r, true) > 0;
}

static bool heads_unparked(Rig *r)
{
        return rig_heads_parked_count(r, false) > 0;
}

static void states(const Rig *r, const char *want[], size_t n)
{
        size_t got = rig_change_count(r, CHANGE_PROTECTION_STATE);
        CHECK_EQ(got, n);
        for (size_t i = 0; i < got && i < n; i++)
                CHECK_STREQ(rig_change_nth(r, CHANGE_PROTECTION_STATE, i)->protection_state, want[i]);
}

TEST(arming_polls_without_a_claim_and_off_stops_it)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true});
        Context *c = r->c;
        char buf[32];

        CHECK_STREQ(protection_state(c), "off");
        CHECK(!c->poller.polling);
        rig_forget(r);
        CHECK_EQ(rig_protect(r, SDA), 0);
        CHECK_STREQ(protection_state(c), "armed");
        CHECK(rig_changed_bit(r, CHANGE_PROTECTED_DISKS));
        CHECK(rig_changed_bit(r, CHANGE_PROTECTION_STATE));
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(c->poller.polling);
        CHECK(c->poller.demand == DEMAND_PROTECTION);
        rig_advance_ms(r, 1000);
        CHECK(r->ticks >= 48);
        CHECK_STREQ(rig_unload_heads(r, buf), "0"); /* arming parks nothing */
        CHECK(!rig_changed_bit(r, CHANGE_PARKED));

        rig_forget(r);
        CHECK_EQ(rig_protect(r, NULL), 0);
        CHECK_STREQ(protection_state(c), "off");
        CHECK(!c->poller.polling);
        CHECK(c->poller.poll_timer == NULL);
        CHECK(rig_changed_bit(r, CHANGE_PROTECTION_STATE));
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        rig_advance_ms(r, 1000);
        CHECK_EQ(r->ticks, 0);

        /* A disk that cannot be protected changes nothing. */
        rig_forget(r);
        CHECK(rig_protect(r, (char *[]) {(char *) "sdz", NULL}) < 0);
        CHECK_STREQ(protection_state(c), "off");
        CHECK_EQ(rig_changed(r), 0);
        rig_free(r);
}

TEST(a_state_file_arms_at_start)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true, .state = "protected_disks=sda\n"});

        CHECK_STREQ(protection_state(r->c), "armed");
        CHECK(r->c->poller.polling);
        CHECK_EQ(r->c->poller.poll_rate, 50);
        rig_free(r);
}

TEST(a_drop_parks_rearms_and_unparks)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true, .trace = "drop-30cm.csv"});
        Context *c = r->c;
        char buf[32];

        CHECK_EQ(rig_protect(r, SDA), 0);
        rig_forget(r);
        CHECK(rig_advance_until(r, heads_parked, DROP_AT_MS + 2000) >= 0);
        CHECK_STREQ(protection_state(c), "parked");
        CHECK(disk_protect_parked(c->disk_protect));
        CHECK_STREQ(rig_unload_heads(r, buf), "2000"); /* DISK_PARK_TIMEOUT_MS */
        CHECK(rig_changed_bit(r, CHANGE_PARKED));
        CHECK(rig_changed_bit(r, CHANGE_PARK_COUNT));
        CHECK(rig_changed_bit(r, CHANGE_SHOCK_COUNT));
        /* Parked on the readout that saw the shock: the shock event, then the park, at the same time. */
        const RigEvent *shock = NULL, *park = NULL;
        for (size_t i = 0; i < r->n_events; i++) {
                if (!shock && r->events[i].kind == RIG_MOTION &&
                    (r->events[i].motion.mask & MOTION_EVENT_SHOCK))
                        shock = &r->events[i];
                if (!park && r->events[i].kind == RIG_HEADS_PARKED)
                        park = &r->events[i];
        }
        CHECK(shock && park && shock < park && shock->usec == park->usec);

        /* Re-armed while the shock lasts: the timeout written again within a re-arm period. */
        {
                char p[256];
                snprintf(p, sizeof(p), "%s/block/sda/device/unload_heads", r->sysfs_root);
                FILE *f = fopen(p, "we");
                CHECK(f != NULL);
                if (f) {
                        fputs("7\n", f);
                        fclose(f);
                }
        }
        rig_advance_ms(r, 100 + 20 + 1); /* DISK_PARK_REARM_MS and a tick */
        CHECK_STREQ(rig_unload_heads(r, buf), "2000");

        /* Unparked once after the shock's hold. */
        CHECK(rig_advance_until(r, heads_unparked, 5000) >= 0);
        const RigEvent *unpark = NULL;
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_HEADS_PARKED && !r->events[i].parked)
                        unpark = &r->events[i];
        CHECK(unpark && unpark->usec - park->usec >= 900 * USEC_PER_MSEC); /* the hold, 1 s */
        CHECK_STREQ(rig_unload_heads(r, buf), "0");
        CHECK_STREQ(protection_state(c), "armed");
        rig_advance_ms(r, 5000); /* the rest of the trace */
        CHECK_EQ(rig_heads_parked_count(r, false), 1);
        size_t rearms = rig_heads_parked_count(r, true);
        CHECK(rearms >= 5); /* a park of over a second is re-armed repeatedly ... */
        CHECK(rearms <=
              (unpark->usec - park->usec) / (100 * USEC_PER_MSEC) + 1); /* ... at most every 100 ms */
        CHECK_EQ(rig_change_count(r, CHANGE_PARK_COUNT), 1);            /* re-arms are not new parks */
        CHECK_EQ(rig_change_count(r, CHANGE_PARKED), 2);
        CHECK_EQ(disk_protect_park_count(c->disk_protect), 1);
        states(r, (const char *[]) {"parked", "armed"}, 2);
        rig_free(r);
}

TEST(pause_stops_polling_and_ends_by_itself)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true});
        Context *c = r->c;

        CHECK_EQ(rig_protect(r, SDA), 0);
        rig_forget(r);
        uint64_t t0 = rig_now_usec();
        CHECK_EQ(protection_pause(c, 30), 0);
        CHECK_STREQ(protection_state(c), "paused");
        CHECK_EQ(c->protection.paused_until_usec, t0 + 30 * USEC_PER_SEC);
        CHECK(rig_changed_bit(r, CHANGE_PAUSED_UNTIL));
        CHECK(rig_changed_bit(r, CHANGE_PROTECTION_STATE));
        CHECK(!c->poller.polling); /* paused protection does not poll by itself */
        CHECK_STREQ(c->poller.poll_rate_reason, "not polling: nothing claims the accelerometer");

        rig_advance_ms(r, 29 * 1000);
        CHECK_STREQ(protection_state(c), "paused");
        CHECK_EQ(r->ticks, 0);
        rig_advance_ms(r, 1000 + 100); /* the timer's accuracy is 100 ms */
        CHECK_STREQ(protection_state(c), "armed");
        CHECK_EQ(c->protection.paused_until_usec, 0);
        CHECK(c->poller.polling);
        CHECK_EQ(rig_change_count(r, CHANGE_PAUSED_UNTIL), 2);
        const RigEvent *end = rig_change_nth(r, CHANGE_PAUSED_UNTIL, 1);
        CHECK(end && end->usec >= t0 + 30 * USEC_PER_SEC &&
              end->usec <= t0 + 30 * USEC_PER_SEC + 100 * USEC_PER_MSEC);
        states(r, (const char *[]) {"paused", "armed"}, 2);

        /* Pause(0) resumes at once. */
        rig_forget(r);
        CHECK_EQ(protection_pause(c, 60), 0);
        CHECK_EQ(protection_pause(c, 0), 0);
        CHECK_STREQ(protection_state(c), "armed");
        CHECK(c->poller.polling);
        states(r, (const char *[]) {"paused", "armed"}, 2);
        rig_advance_ms(r, 61 * 1000);
        CHECK_EQ(rig_change_count(r, CHANGE_PAUSED_UNTIL), 2); /* the old timer is gone */
        rig_free(r);
}

TEST(no_park_while_paused_and_pause_unparks)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true, .trace = "drop-30cm.csv"});
        Context *c = r->c;
        char buf[32];

        /* Paused, with a claim: the shock is seen, nothing is parked. */
        CHECK_EQ(rig_protect(r, SDA), 0);
        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        CHECK_EQ(protection_pause(c, 3600), 0);
        rig_forget(r);
        rig_advance_ms(r, DROP_AT_MS + 2000);
        CHECK(rig_changed_bit(r, CHANGE_SHOCK_COUNT));
        CHECK_EQ(rig_heads_parked_count(r, true), 0);
        CHECK_STREQ(rig_unload_heads(r, buf), "0");
        CHECK_EQ(disk_protect_park_count(c->disk_protect), 0);
        rig_free(r);

        /* Pause() during a park unparks at once, and nothing re-arms it. */
        r = rig_new(&(RigOptions) {.disks = true, .trace = "drop-30cm.csv"});
        c = r->c;
        CHECK_EQ(rig_protect(r, SDA), 0);
        CHECK(rig_advance_until(r, heads_parked, DROP_AT_MS + 2000) >= 0);
        rig_forget(r);
        CHECK_EQ(protection_pause(c, 10), 0);
        CHECK_STREQ(rig_unload_heads(r, buf), "0");
        CHECK_EQ(rig_heads_parked_count(r, false), 1);
        CHECK(rig_changed_bit(r, CHANGE_PARKED));
        CHECK_STREQ(protection_state(c), "paused");
        rig_advance_ms(r, 300);
        CHECK_STREQ(rig_unload_heads(r, buf), "0");
        CHECK_EQ(rig_heads_parked_count(r, true), 0);
        rig_free(r);
}

TEST(shutdown_unparks)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true, .trace = "drop-30cm.csv"});
        char buf[32];

        CHECK_EQ(rig_protect(r, SDA), 0);
        CHECK(rig_advance_until(r, heads_parked, DROP_AT_MS + 2000) >= 0);
        rig_forget(r);
        context_shutdown(r->c);
        CHECK_STREQ(rig_unload_heads(r, buf), "0");
        CHECK_EQ(rig_heads_parked_count(r, false), 1);
        CHECK(!r->c->poller.polling || r->c->poller.poll_timer == NULL);
        CHECK(!rig_sim_status(r).powered);
        CHECK_EQ(r->events[r->n_events - 1].kind, RIG_SHUTDOWN);
        rig_free(r);
}

int main(void)
{
        RUN(arming_polls_without_a_claim_and_off_stops_it);
        RUN(a_state_file_arms_at_start);
        RUN(a_drop_parks_rearms_and_unparks);
        RUN(pause_stops_polling_and_ends_by_itself);
        RUN(no_park_while_paused_and_pause_unparks);
        RUN(shutdown_unparks);
        return test_summary();
}
