/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/daemon/idle-exit.c in-process (rig.h): without an accelerometer the event loop exits once
 * no call came for --exit-idle-time; a call starts the idle time again; a claim or an accelerometer
 * keeps the daemon running. Virtual time: minutes cost nothing. */
#include "rig.h"
#include "test-helpers.h"

static bool exited(Rig *r)
{
        return r->exited;
}

TEST(exits_when_idle_without_accelerometer)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true, .exit_idle_sec = 30});
        uint64_t t0 = rig_now_usec() - USEC_PER_MSEC; /* rig_new() ran a millisecond */

        CHECK(!r->c->has_accelerometer);
        rig_advance_ms(r, 29 * 1000);
        CHECK(!r->exited);
        CHECK(rig_advance_until(r, exited, 2 * 1000) >= 0);
        /* The timer's accuracy is a second. */
        uint64_t at = rig_now_usec() - t0;
        CHECK(at >= 30 * USEC_PER_SEC && at <= 31 * USEC_PER_SEC + USEC_PER_MSEC);
        int code = -1;
        CHECK(sd_event_get_exit_code(r->c->event, &code) >= 0 && code == IDLE_EXIT_EVENT_CODE);
        rig_free(r);
}

TEST(a_call_starts_the_idle_time_again)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true, .exit_idle_sec = 30});
        uint64_t t_call;

        rig_advance_ms(r, 20 * 1000);
        idle_exit_note_call(r->c->idle_exit);
        t_call = rig_now_usec();
        rig_advance_ms(r, 25 * 1000); /* 45 s after start, 25 s after the call */
        CHECK(!r->exited);
        CHECK(rig_advance_until(r, exited, 10 * 1000) >= 0);
        uint64_t at = rig_now_usec() - t_call;
        CHECK(at >= 30 * USEC_PER_SEC && at <= 31 * USEC_PER_SEC + USEC_PER_MSEC);
        rig_free(r);
}

TEST(a_claim_keeps_it_running)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true, .exit_idle_sec = 30});

        rig_claim(r, 10, ":1.5"); /* a claim waiting for an accelerometer */
        rig_advance_ms(r, 120 * 1000);
        CHECK(!r->exited);
        CHECK(!r->c->poller.polling);
        CHECK_STREQ(r->c->poller.poll_rate_reason, "not polling: there is no accelerometer");
        rig_claim(r, 0, NULL);
        rig_advance_ms(r, 29 * 1000);
        CHECK(!r->exited); /* the idle time counts from the last busy check */
        CHECK(rig_advance_until(r, exited, 3 * 1000) >= 0);
        rig_free(r);
}

TEST(never_with_an_accelerometer)
{
        Rig *r = rig_new(&(RigOptions) {.exit_idle_sec = 30});

        rig_advance_ms(r, 300 * 1000);
        CHECK(!r->exited);
        rig_free(r);
}

TEST(never_when_disabled)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true});

        CHECK(r->c->idle_exit == NULL);
        rig_advance_ms(r, 300 * 1000);
        CHECK(!r->exited);
        rig_free(r);
}

int main(void)
{
        RUN(exits_when_idle_without_accelerometer);
        RUN(a_call_starts_the_idle_time_again);
        RUN(a_claim_keeps_it_running);
        RUN(never_with_an_accelerometer);
        RUN(never_when_disabled);
        return test_summary();
}
