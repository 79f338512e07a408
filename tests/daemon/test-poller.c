/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/daemon/poller.c in-process (rig.h): which demand polls at which rate and why (EffectiveRate,
 * EffectiveRateReason, Polling, the EC's own rate), and the poll path's health: hard errors, polling
 * stopped, re-initialization with its back-off (1 s doubling to 60 s), all in virtual time. */
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "test-helpers.h"

#define RATE_DEFAULT  50 /* HDAPS_DEFAULT_SAMPLING_RATE */
#define RATIO_DEFAULT 5

static unsigned ticks_in(Rig *r, uint64_t ms)
{
        unsigned before = r->ticks;
        rig_advance_ms(r, ms);
        return r->ticks - before;
}

static bool contains(const char *s, const char *what)
{
        return s && strstr(s, what);
}

TEST(nothing_demanded_nothing_polls)
{
        Rig *r = rig_new(&(RigOptions) {});
        Poller *p = &r->c->poller;

        CHECK(r->c->has_accelerometer);
        CHECK(!p->polling);
        CHECK_EQ(p->poll_rate, 0);
        CHECK_STREQ(p->poll_rate_reason, "not polling: nothing claims the accelerometer");
        CHECK(p->poll_timer == NULL);
        CHECK_EQ(ticks_in(r, 2000), 0);
        CHECK_EQ(rig_sim_status(r).ec_rate, RATE_DEFAULT * RATIO_DEFAULT);
        rig_free(r);
}

TEST(a_claim_polls_at_its_rate)
{
        Rig *r = rig_new(&(RigOptions) {});
        Poller *p = &r->c->poller;

        rig_forget(r);
        rig_claim(r, 10, ":1.5");
        CHECK(p->polling);
        CHECK_EQ(p->poll_rate, 10);
        CHECK_STREQ(p->poll_rate_reason, "a claim by :1.5 at 10 Hz");
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE));
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE_REASON));
        CHECK(!rig_changed_bit(r, CHANGE_SAMPLING_RATE)); /* the configured rate stays */
        unsigned n = ticks_in(r, 2000);
        CHECK_EQ(rig_sim_status(r).ec_rate, 10 * RATIO_DEFAULT); /* the EC samples at the rate in force */
        CHECK(n >= 19 && n <= 21);
        CHECK(r->new_readouts >= 15);

        /* The same claim again reports nothing. */
        rig_forget(r);
        rig_claim(r, 10, ":1.5");
        CHECK_EQ(rig_changed(r), 0);

        /* A claim at the full rate: the configured SamplingRate, said so. */
        rig_claim(r, POLLER_RATE_FULL, ":1.6");
        CHECK_EQ(p->poll_rate, RATE_DEFAULT);
        CHECK_STREQ(p->poll_rate_reason, "a claim by :1.6 at 50 Hz (the full SamplingRate)");
        n = ticks_in(r, 1000);
        CHECK(n >= 48 && n <= 51);
        CHECK_EQ(rig_sim_status(r).ec_rate, RATE_DEFAULT * RATIO_DEFAULT);

        /* A claim above the configured rate polls at the configured rate. */
        rig_claim(r, 400, ":1.7");
        CHECK_EQ(p->poll_rate, RATE_DEFAULT);

        /* Released: polling stops, the timer is gone, the EC is back at the configured rate. */
        rig_claim(r, 10, ":1.5");
        rig_forget(r);
        rig_claim(r, 0, NULL);
        CHECK(!p->polling);
        CHECK(p->poll_timer == NULL);
        CHECK_EQ(p->poll_rate, 0);
        CHECK_STREQ(p->poll_rate_reason, "not polling: nothing claims the accelerometer");
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE));
        CHECK_EQ(ticks_in(r, 1000), 0);
        CHECK_EQ(rig_sim_status(r).ec_rate, RATE_DEFAULT * RATIO_DEFAULT);
        rig_free(r);
}

TEST(the_highest_demand_wins)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true});
        Poller *p = &r->c->poller;

        rig_claim(r, 5, ":1.5");
        CHECK_EQ(p->poll_rate, 5);

        /* A SensorProxy claim needs SENSOR_PROXY_RATE_HZ: above a slower claim it wins. */
        poller_set_demand(p, DEMAND_SENSOR_PROXY, true);
        CHECK_EQ(p->poll_rate, SENSOR_PROXY_RATE_HZ);
        CHECK(contains(p->poll_rate_reason, "net.hadess.SensorProxy"));
        unsigned n = ticks_in(r, 1000);
        CHECK(n >= 19 && n <= 21);

        /* ... and a faster claim wins over it. */
        rig_claim(r, 40, ":1.5");
        CHECK_EQ(p->poll_rate, 40);
        CHECK_STREQ(p->poll_rate_reason, "a claim by :1.5 at 40 Hz");

        /* Armed disk protection polls at the full rate, whatever the claims. */
        rig_forget(r);
        CHECK_EQ(rig_protect(r, (char *[]) {(char *) "sda", NULL}), 0);
        CHECK(p->demand & DEMAND_PROTECTION);
        CHECK_EQ(p->poll_rate, RATE_DEFAULT);
        CHECK(contains(p->poll_rate_reason, "disk protection is armed"));
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE));
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE_REASON));
        CHECK(!rig_changed_bit(r, CHANGE_POLLING)); /* it polled already */

        /* Each demand going away falls back to the next one. */
        CHECK_EQ(rig_protect(r, NULL), 0);
        CHECK_EQ(p->poll_rate, 40);
        rig_claim(r, 0, NULL);
        CHECK_EQ(p->poll_rate, SENSOR_PROXY_RATE_HZ);
        poller_set_demand(p, DEMAND_SENSOR_PROXY, false);
        CHECK(!p->polling);
        CHECK_EQ(p->poll_rate, 0);
        rig_free(r);
}

static bool hardware_stopped(Rig *r)
{
        return r->c->poller.hardware_state == HARDWARE_STOPPED;
}

static bool hardware_ok(Rig *r)
{
        return r->c->poller.hardware_state == HARDWARE_OK;
}

TEST(hard_errors_stop_polling_and_reinit_backs_off)
{
        Rig *r = rig_new(&(RigOptions) {});
        Poller *p = &r->c->poller;

        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        CHECK(ticks_in(r, 500) >= 24);
        CHECK_EQ(p->hardware_state, HARDWARE_OK);
        CHECK(p->last_error == NULL);

        /* The EC stops answering: a few failed ticks (FAILING), then polling stops (STOPPED). */
        rig_forget(r);
        rig_sim_fault(r, SIM_FAULT_SILENT, true);
        uint64_t t_fault = rig_now_usec();
        CHECK(rig_advance_until(r, hardware_stopped, 1000) >= 0);
        CHECK_EQ(rig_change_count(r, CHANGE_HARDWARE_STATE), 2);
        const RigEvent *failing = rig_change_nth(r, CHANGE_HARDWARE_STATE, 0);
        const RigEvent *stopped = rig_change_nth(r, CHANGE_HARDWARE_STATE, 1);
        CHECK(failing && failing->hardware_state == HARDWARE_FAILING);
        CHECK(stopped && stopped->hardware_state == HARDWARE_STOPPED);
        if (!failing || !stopped) {
                rig_free(r);
                return;
        }
        /* The next tick, or the one after (the next tick's readout may have been prefetched). */
        CHECK(failing->usec - t_fault <= 2 * 20 * USEC_PER_MSEC + 2 * USEC_PER_MSEC);
        /* Five hard errors in a row: the fifth tick after the first failing one stops. */
        CHECK(stopped->usec - failing->usec >= 4 * 20 * USEC_PER_MSEC - 2 * USEC_PER_MSEC);
        CHECK(stopped->usec - failing->usec <= 4 * 20 * USEC_PER_MSEC + 4 * USEC_PER_MSEC);
        CHECK(!p->polling);
        CHECK(p->poll_timer == NULL);
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(rig_changed_bit(r, CHANGE_LAST_ERROR));
        CHECK(contains(p->last_error, "reading the accelerometer failed"));
        CHECK_STREQ(p->poll_rate_reason, "not polling: the hardware failed (HardwareState stopped)");
        CHECK_EQ(p->poll_rate, 0);
        CHECK(p->demand & DEMAND_CLAIM); /* the claim keeps waiting */

        /* Re-initialization: 1 s after the stop, then 2, 4, 8, 16, 32 s, then every 60 s. Each failed
         * try reports LastError once. */
        uint64_t t_stop = stopped->usec;
        rig_forget(r);
        rig_advance_ms(r, 183 * 1000 + 500);
        CHECK_EQ(r->ticks, 0); /* no tick while stopped */
        static const unsigned expected_s[] = {1, 3, 7, 15, 31, 63, 123, 183};
        CHECK_EQ(rig_change_count(r, CHANGE_LAST_ERROR), ELEMENTSOF(expected_s));
        for (size_t i = 0; i < ELEMENTSOF(expected_s); i++) {
                const RigEvent *e = rig_change_nth(r, CHANGE_LAST_ERROR, i);
                CHECK(e != NULL);
                if (!e)
                        continue;
                uint64_t at = e->usec - t_stop, want = expected_s[i] * USEC_PER_SEC;
                CHECK(at >= want && at <= want + 5 * USEC_PER_MSEC);
                if (!(at >= want && at <= want + 5 * USEC_PER_MSEC))
                        fprintf(stderr, "  try %zu at %llu ms, expected %llu ms\n", i,
                                (unsigned long long) (at / USEC_PER_MSEC),
                                (unsigned long long) (want / USEC_PER_MSEC));
                CHECK_EQ(e->hardware_state, HARDWARE_STOPPED);
        }
        CHECK(contains(p->last_error, "re-initializing the accelerometer failed"));
        CHECK_EQ(rig_change_count(r, CHANGE_HARDWARE_STATE), 0);

        /* The EC answers again: the next try (60 s later) works, polling resumes for the claim. */
        rig_sim_fault(r, SIM_FAULT_SILENT, false);
        rig_forget(r);
        long ms = rig_advance_until(r, hardware_ok, 61 * 1000);
        CHECK(ms >= 59 * 1000 - 500 && ms <= 60 * 1000);
        CHECK(p->polling);
        CHECK_EQ(p->poll_rate, RATE_DEFAULT);
        CHECK(rig_changed_bit(r, CHANGE_HARDWARE_STATE));
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(ticks_in(r, 1000) >= 48);
        CHECK(r->new_readouts > 40);
        CHECK_EQ(p->hardware_state, HARDWARE_OK);
        rig_free(r);
}

TEST(a_single_hard_error_does_not_stop_polling)
{
        Rig *r = rig_new(&(RigOptions) {});
        Poller *p = &r->c->poller;

        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_advance_ms(r, 300);
        rig_forget(r);
        rig_sim_fault(r, SIM_FAULT_SILENT, true);
        rig_advance_ms(r, 50); /* two or three ticks */
        rig_sim_fault(r, SIM_FAULT_SILENT, false);
        CHECK_EQ(p->hardware_state, HARDWARE_FAILING);
        rig_advance_ms(r, 100);
        CHECK_EQ(p->hardware_state, HARDWARE_OK);
        CHECK(p->polling);
        CHECK_EQ(rig_change_count(r, CHANGE_HARDWARE_STATE), 2); /* failing, ok */
        CHECK(!rig_changed_bit(r, CHANGE_POLLING));
        CHECK(contains(p->last_error, "reading the accelerometer failed")); /* kept as the last one */
        rig_free(r);
}

/* A configuration the EC keeps pending at init (0x10 answered 0x06): BackendReason says so and
 * OversamplingRatio/FilterOrder show the EC's own. Once the EC takes the wanted one at a poll tick's retry
 * (hdaps_poll(), HDAPS_CONFIG_RETRY_INTERVAL_MS after init), both follow at once and are reported. */
TEST(a_pending_configuration_taken_at_a_retry_is_reported)
{
        Rig *r = rig_new(&(RigOptions) {.state = "oversampling_ratio=2\n", .pending_at_start = true});
        Context *c = r->c;

        CHECK(c->has_accelerometer);
        CHECK(strstr(c->backend_reason, "0x10 answers 0x06"));
        CHECK(c->ec_config_valid);
        CHECK_EQ(c->ec_oversampling_ratio, RATIO_DEFAULT); /* the EC's boot configuration, not 2 */
        rig_claim(r, RATE_DEFAULT, ":1.5");
        rig_advance_ms(r, 2000);
        CHECK(strstr(c->backend_reason, "0x10 answers 0x06"));
        CHECK_EQ(c->ec_oversampling_ratio, RATIO_DEFAULT);

        rig_forget(r);
        rig_sim_fault(r, SIM_FAULT_PENDING, false);
        rig_advance_ms(r, HDAPS_CONFIG_RETRY_INTERVAL_MS);
        CHECK_EQ(rig_sim_status(r).ec_rate, RATE_DEFAULT * 2);
        CHECK_STREQ(c->backend_reason, "the EC emulator was asked for");
        CHECK(c->ec_config_valid);
        CHECK_EQ(c->ec_oversampling_ratio, 2);
        CHECK_EQ(c->ec_filter_order, c->config.filter_order);
        CHECK_EQ(rig_change_count(r, CHANGE_BACKEND_REASON), 1);
        CHECK(rig_changed_bit(r, CHANGE_OVERSAMPLING_RATIO));
        CHECK(rig_changed_bit(r, CHANGE_FILTER_ORDER));
        CHECK(r->new_readouts > HDAPS_CONFIG_RETRY_INTERVAL_MS / 1000 * RATE_DEFAULT * 9 / 10);
        rig_free(r);
}

/* The EC refuses the wanted configuration at every retry: once the retries are over, BackendReason
 * says so instead of "retrying", reported once. */
TEST(a_pending_configuration_refused_at_every_retry_is_reported)
{
        Rig *r = rig_new(&(RigOptions) {.state = "oversampling_ratio=2\n", .pending_at_start = true});
        Context *c = r->c;

        rig_claim(r, RATE_DEFAULT, ":1.5");
        CHECK(strstr(c->backend_reason, "retrying the one asked for"));
        rig_forget(r);
        rig_advance_ms(r, (HDAPS_CONFIG_RETRIES + 1) * HDAPS_CONFIG_RETRY_INTERVAL_MS);
        CHECK(strstr(c->backend_reason, "0x10 answers 0x06"));
        CHECK(strstr(c->backend_reason, "it refused the one asked for at every retry"));
        CHECK(!strstr(c->backend_reason, "retrying"));
        CHECK(strstr(c->backend_reason, "the EC emulator was asked for; ") == c->backend_reason);
        CHECK_EQ(rig_change_count(r, CHANGE_BACKEND_REASON), 1);
        CHECK_EQ(c->ec_oversampling_ratio, RATIO_DEFAULT);
        CHECK_EQ(rig_sim_status(r).ec_rate, RATE_DEFAULT * RATIO_DEFAULT);
        rig_free(r);
}

int main(void)
{
        RUN(nothing_demanded_nothing_polls);
        RUN(a_claim_polls_at_its_rate);
        RUN(the_highest_demand_wins);
        RUN(hard_errors_stop_polling_and_reinit_backs_off);
        RUN(a_single_hard_error_does_not_stop_polling);
        RUN(a_pending_configuration_taken_at_a_retry_is_reported);
        RUN(a_pending_configuration_refused_at_every_retry_is_reported);
        return test_summary();
}
