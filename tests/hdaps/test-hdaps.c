/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hdaps device layer and the transport against the EC emulator, in virtual time: init sequence,
 * readouts (with a missed one), configuration and its EC return codes, fake data, deferred calibration,
 * axis codes, power off, and every fault kind: an error within the retry budget, recovery on the next
 * transaction, and never an EC left mid-transaction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ec-protocol.h"
#include "ec-sim.h"
#include "hdaps.h"
#include "log.h"
#include "test-helpers.h"

#define PERIOD_NS (NSEC_PER_SEC / HDAPS_DEFAULT_SAMPLING_RATE)

static char trace_path[] = "/tmp/tpaccel-test-hdaps-XXXXXX";

typedef struct Rig {
        Ec *ec;
        HdapsDevice *d;
        PortIO *port;
} Rig;

static void rig_open(Rig *rig, unsigned axis_code, const SimFault *faults, unsigned n_faults)
{
        SimOptions o = {.virtual_time = true, .seed = 7, .trace_path = trace_path, .n_faults = n_faults};
        for (unsigned i = 0; i < n_faults; i++)
                o.faults[i] = faults[i];
        _cleanup_free_ char *err = NULL;
        if (port_open_sim(&o, &rig->port, &err) < 0) {
                fprintf(stderr, "port_open_sim: %s\n", err ? err : "?");
                abort();
        }
        if (ec_new(rig->port, &rig->ec) < 0 || hdaps_new(rig->ec, axis_code, &rig->d) < 0)
                abort();
}

static void rig_close(Rig *rig)
{
        /* Strict emulator: the transport and the device layer never make an access the 2006 patch series'
         * driver would not make at that point. */
        EcSimStatus st;
        ec_sim_get_status(rig->port, &st);
        CHECK_EQ(st.protocol_violations, 0);
        if (st.protocol_violations)
                fprintf(stderr, "  last protocol violation: %s\n", st.last_violation);
        hdaps_free(rig->d);
        ec_free(rig->ec);
}

static EcSimStatus status(Rig *rig)
{
        EcSimStatus s;
        ec_sim_get_status(rig->port, &s);
        return s;
}

static int poll_next(Rig *rig, HdapsReadout *ro)
{
        ec_sim_advance_ns(rig->port, PERIOD_NS);
        return hdaps_poll(rig->d, ro);
}

/* The default configuration with the filter off (order 1): readouts are the trace's values. */
static HdapsConfig unfiltered_config(void)
{
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        c.filter_order = 1;
        return c;
}

/* Init, then the first tick: it reads the reply prefetched at init, which the EC prepared before it had
 * sampled anything (READOUTS 0: -EBUSY), and prefetches the first real one. */
static int rig_start(Rig *rig, const HdapsConfig *c)
{
        HdapsReadout ro;
        int r = hdaps_init(rig->d, c);
        if (r < 0)
                return r;
        r = poll_next(rig, &ro);
        return r == -EBUSY ? 0 : r;
}

TEST(test_init_sequence_configures_the_ec)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        EcSimStatus s = status(&rig);
        CHECK(s.powered);
        CHECK_EQ(s.ec_rate, HDAPS_DEFAULT_SAMPLING_RATE * HDAPS_DEFAULT_OVERSAMPLING_RATIO);
        CHECK_EQ(s.filter_order, HDAPS_DEFAULT_FILTER_ORDER);
        CHECK(!s.fake_data_mode);
        /* Init ends with a prefetch of the readout row, not a read. */
        CHECK_EQ(s.last_command, EC_CMD_ACCEL_READOUT);
        CHECK(!s.battery_row_0b_requested);
        CHECK(hdaps_get_state(rig.d)->calibration_pending);
        /* tp_smapi 0.38+: mode, check, power, config, prefetch; no 0x17/0x83 (fake data off). */
        CHECK_EQ(s.transactions, 5);
        rig_close(&rig);

        /* Fake data wanted: 0x17/0x83 on, one more transaction. */
        rig_open(&rig, 0, NULL, 0);
        c.fake_data_mode = true;
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        CHECK_EQ(status(&rig).transactions, 6);
        CHECK(status(&rig).fake_data_mode);
        CHECK(hdaps_get_config(rig.d)->fake_data_mode);
        rig_close(&rig);
}

TEST(test_init_does_not_recalibrate)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = unfiltered_config();
        CHECK_EQ(rig_start(&rig, &c), 0);
        HdapsReadout ro;
        CHECK_EQ(poll_next(&rig, &ro), 0);
        const HdapsState *st = hdaps_get_state(rig.d);
        CHECK(!st->calibration_pending);
        CHECK_EQ(st->rest_x, 120);
        /* Suspend and resume: power off, init again later, when the trace has moved to x = 220. */
        CHECK_EQ(hdaps_power_off(rig.d, NULL), 0);
        ec_sim_advance_ns(rig.port, 3 * NSEC_PER_SEC);
        CHECK_EQ(rig_start(&rig, &c), 0);
        CHECK(!st->calibration_pending);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(ro.x, 220);
        CHECK_EQ(st->rest_x, 120); /* the 2006 patch series arms calibration at load and on request only */
        rig_close(&rig);
}

TEST(test_readouts_follow_the_trace_and_calibrate_once)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = unfiltered_config();
        CHECK_EQ(rig_start(&rig, &c), 0);

        HdapsReadout ro;
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(ro.x, 120);
        CHECK_EQ(ro.y, -40);
        CHECK_EQ(ro.temperature, 38);
        /* Oversampling 5: the EC queued several readouts since the last read; one was "missed". */
        CHECK(ro.readouts >= 2);
        CHECK_EQ(ro.missed_x, 120);
        const HdapsState *st = hdaps_get_state(rig.d);
        CHECK(st->valid);
        CHECK(!st->calibration_pending);
        CHECK_EQ(st->rest_x, 120);
        CHECK_EQ(st->rest_y, -40);

        /* The trace ramps x to 220 at 2 s: calibration stays at the first readout. */
        for (int i = 0; i < 150; i++)
                (void) poll_next(&rig, &ro);
        CHECK_EQ(ro.x, 220);
        CHECK_EQ(st->rest_x, 120);
        CHECK(st->keyboard_activity); /* the trace types from 2.5 s on */

        /* Steady state at oversampling 5: READOUTS 2 on every reply, so 21 port operations per poll (16
         * for the read with the older readout and QUEUED, 5 for the next request); with READOUTS 1 it
         * is 16 (test-golden.c, poll-one-readout). */
        uint64_t ops0 = rig.port->n_in + rig.port->n_out;
        for (int i = 0; i < 100; i++)
                CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(rig.port->n_in + rig.port->n_out - ops0, 100 * 21);

        hdaps_calibrate(rig.d);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(st->rest_x, 220);
        rig_close(&rig);
}

TEST(test_axis_code_swaps_and_inverts)
{
        Rig rig;
        rig_open(&rig, 5 /* -Y,-X */, NULL, 0);
        HdapsConfig c = unfiltered_config();
        CHECK_EQ(rig_start(&rig, &c), 0);
        HdapsReadout ro;
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(ro.x, 40);
        CHECK_EQ(ro.y, -120);
        CHECK_EQ(hdaps_set_axis_code(rig.d, 8), -EINVAL);
        CHECK_EQ(hdaps_set_axis_code(rig.d, 0), 0);
        CHECK(hdaps_get_state(rig.d)->calibration_pending);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(ro.x, 120);
        rig_close(&rig);
}

TEST(test_configuration_and_return_codes)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        CHECK_EQ(hdaps_init(rig.d, &c), 0);

        CHECK_EQ(hdaps_set_filter_order(rig.d, 9), -EINVAL);
        CHECK_EQ(hdaps_set_filter_order(rig.d, 0), -EINVAL);
        CHECK_EQ(hdaps_set_sampling_rate(rig.d, 0), -EINVAL);
        CHECK_EQ(hdaps_set_sampling_rate(rig.d, 1001), -EINVAL);
        CHECK_EQ(hdaps_set_oversampling_ratio(rig.d, 0), -EINVAL);
        CHECK_EQ(hdaps_get_config(rig.d)->filter_order, HDAPS_DEFAULT_FILTER_ORDER);

        /* The EC applies a change after a short delay; a second change meanwhile is retried. */
        CHECK_EQ(hdaps_set_filter_order(rig.d, 4), 0);
        ec_sim_advance_ns(rig.port, 10 * NSEC_PER_MSEC);
        CHECK_EQ(status(&rig).filter_order, 4);
        CHECK_EQ(hdaps_set_sampling_rate(rig.d, 100), 0);
        CHECK_EQ(hdaps_set_oversampling_ratio(rig.d, 2), 0);
        ec_sim_advance_ns(rig.port, 10 * NSEC_PER_MSEC);
        CHECK_EQ(status(&rig).ec_rate, 200);
        CHECK_EQ(hdaps_get_config(rig.d)->sampling_rate, 100);

        unsigned rate = 0, order = 0;
        ec_sim_advance_ns(rig.port, 10 * NSEC_PER_MSEC);
        CHECK_EQ(hdaps_get_ec_config(rig.d, &rate, &order), 0);
        CHECK_EQ(rate, 200);
        CHECK_EQ(order, 4);

        /* "Change pending" (0x06) from the EC: -EBUSY after the retry budget, nothing changes. */
        const SimFault pending = {SIM_FAULT_PENDING, 1.0};
        ec_sim_set_faults(rig.port, &pending, 1);
        CHECK_EQ(hdaps_set_filter_order(rig.d, 6), -EBUSY);
        CHECK_EQ(hdaps_get_config(rig.d)->filter_order, 4);
        CHECK_EQ(status(&rig).filter_order, 4);
        ec_sim_set_faults(rig.port, NULL, 0);
        CHECK_EQ(hdaps_set_filter_order(rig.d, 6), 0);
        ec_sim_advance_ns(rig.port, 10 * NSEC_PER_MSEC);
        CHECK_EQ(status(&rig).filter_order, 6);
        rig_close(&rig);
}

TEST(test_fake_data_mode_counts)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        c.fake_data_mode = true;
        CHECK_EQ(rig_start(&rig, &c), 0);
        CHECK(status(&rig).fake_data_mode);
        HdapsReadout a, b;
        CHECK_EQ(poll_next(&rig, &a), 0);
        CHECK_EQ(poll_next(&rig, &b), 0);
        /* One counter step per EC sample: oversampling 5 means 5 per poll period. */
        CHECK_EQ(b.x - a.x, HDAPS_DEFAULT_OVERSAMPLING_RATIO);
        CHECK_EQ(hdaps_set_fake_data_mode(rig.d, false), 0);
        CHECK(!status(&rig).fake_data_mode);
        rig_close(&rig);
}

TEST(test_power_off_stops_sampling)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        CHECK_EQ(hdaps_power_off(rig.d, NULL), 0);
        ec_sim_advance_ns(rig.port, 10 * NSEC_PER_MSEC);
        EcSimStatus s = status(&rig);
        CHECK(!s.powered);
        CHECK_EQ(s.ec_rate, 0);
        CHECK(s.idle);
        uint64_t made = s.readouts_made;
        ec_sim_advance_ns(rig.port, NSEC_PER_SEC);
        CHECK_EQ(status(&rig).readouts_made, made);
        rig_close(&rig);
}

TEST(test_absent_accelerometer_is_enodev)
{
        Rig rig;
        const SimFault absent = {SIM_FAULT_ABSENT, 1.0};
        rig_open(&rig, 0, &absent, 1);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        CHECK_EQ(hdaps_init(rig.d, &c), -ENODEV);
        CHECK(status(&rig).idle);
        rig_close(&rig);
}

TEST(test_every_fault_fails_within_budget_and_recovers)
{
        static const struct {
                SimFaultKind kind;
                bool poll_fails; /* a busy EC answers late, but well before the next tick: no failure */
        } faults[] = {{SIM_FAULT_BUSY, false},
                      {SIM_FAULT_SILENT, true},
                      {SIM_FAULT_BAD_STATUS, true},
                      {SIM_FAULT_RETVAL, true}};
        for (size_t k = 0; k < ELEMENTSOF(faults); k++) {
                Rig rig;
                rig_open(&rig, 0, NULL, 0);
                HdapsConfig c = HDAPS_CONFIG_DEFAULT;
                CHECK_EQ(rig_start(&rig, &c), 0);
                HdapsReadout ro;
                CHECK_EQ(poll_next(&rig, &ro), 0);
                unsigned hard = 0;

                const SimFault f = {faults[k].kind, 1.0};
                ec_sim_set_faults(rig.port, &f, 1);
                /* The reply prefetched before the fault was switched on is still good. */
                CHECK_EQ(poll_next(&rig, &ro), 0);
                for (int i = 0; i < 3; i++) {
                        ec_sim_advance_ns(rig.port, PERIOD_NS);
                        uint64_t t0 = port_now_ns(rig.port);
                        int r = hdaps_poll(rig.d, &ro);
                        uint64_t took = port_now_ns(rig.port) - t0;
                        fprintf(stderr, "  fault %s: poll -> %d in %llu us\n",
                                sim_fault_kind_to_string(faults[k].kind), r,
                                (unsigned long long) (took / 1000));
                        /* A bad status leaves a late reply, which the next request ends as stale
                         * (-EBUSY): hard errors and busy ticks alternate. */
                        if (faults[k].poll_fails)
                                CHECK(r < 0);
                        else
                                CHECK_EQ(r, 0);
                        hard += r < 0 && r != -EBUSY;
                        /* Within the transport's retry budget: well under one poll period per call. */
                        CHECK(took < PERIOD_NS / 4);
                }
                CHECK(faults[k].poll_fails ? hard >= 1 : hard == 0);
                ec_sim_set_faults(rig.port, NULL, 0);
                int ok = 0;
                for (int i = 0; i < 3; i++)
                        ok += poll_next(&rig, &ro) == 0;
                CHECK(ok >= 2);
                CHECK(status(&rig).faults_injected > 0);
                CHECK(!status(&rig).battery_row_0b_requested);
                rig_close(&rig);
        }
}

/* Start, then five ticks, each bringing a readout, with the fault on every transaction; how often it was
 * injected. */
static uint64_t five_ticks_with_fault(SimFaultKind kind)
{
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        HdapsReadout ro;
        uint64_t injected;
        Rig rig;

        rig_open(&rig, 0, (const SimFault[]) {{kind, 1}}, 1);
        CHECK_EQ(rig_start(&rig, &c), 0);
        for (int i = 0; i < 5; i++)
                CHECK_EQ(poll_next(&rig, &ro), 0);
        injected = status(&rig).faults_injected;
        rig_close(&rig);
        return injected;
}

/* Behaviour the 2006 patch series describes, each survived without a hard error and without a protocol
 * violation (rig_close() checks that). */
TEST(test_seeds_behaviour_is_survived)
{
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        HdapsReadout ro;
        Rig rig;

        /* The 0x00 step between IBF3B|MWMF and SWMF, on every transaction: "normal progress". */
        CHECK(five_ticks_with_fault(SIM_FAULT_ZERO_STEP) > 5);

        /* STR3 0x80, then 0x20, after every TWR15 write (real ECs, tp_smapi 0.31 CHANGES): the transport
         * accepts what 0.43 accepts, any subset of IBF3B|MWMF, as normal progress. */
        CHECK(five_ticks_with_fault(SIM_FAULT_END_STATUS) > 5);

        /* SWMF still showing after every read: the prefetch right after it is told "busy", and the next
         * tick requests and reads (bounded) instead: every tick still brings a readout. */
        five_ticks_with_fault(SIM_FAULT_SWMF_AFTER_READ);

        /* READOUTS 0 ("not in ready status", common): no new readout, not an error; the on-demand read
         * retries for its 100 ms and says busy. */
        rig_open(&rig, 0, NULL, 0);
        CHECK_EQ(rig_start(&rig, &c), 0);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        ec_sim_set_faults(rig.port, (const SimFault[]) {{SIM_FAULT_NO_READOUT, 1}}, 1);
        CHECK_EQ(poll_next(&rig, &ro), 0); /* prefetched before the fault */
        for (int i = 0; i < 3; i++)
                CHECK_EQ(poll_next(&rig, &ro), -EBUSY);
        hdaps_invalidate_cache(rig.d);
        uint64_t t0 = port_now_ns(rig.port);
        CHECK_EQ(hdaps_update(rig.d), -EBUSY);
        CHECK(port_now_ns(rig.port) - t0 >= HDAPS_READ_TIMEOUT_MS * NSEC_PER_MSEC);
        ec_sim_set_faults(rig.port, NULL, 0);
        CHECK_EQ(poll_next(&rig, &ro), -EBUSY); /* prefetched under the fault */
        CHECK_EQ(poll_next(&rig, &ro), 0);
        rig_close(&rig);

        /* About 1 s without readouts after power-on ("~1sec delay on load"): init does not wait for it
         * (it only prefetches), the ticks say busy, then readouts come. */
        rig_open(&rig, 0, (const SimFault[]) {{SIM_FAULT_WARM_UP, 1}}, 1);
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        unsigned busy = 0, ok = 0;
        for (int i = 0; i < 75; i++) {
                int r = poll_next(&rig, &ro);
                CHECK(r == 0 || r == -EBUSY);
                busy += r == -EBUSY;
                ok += r == 0;
        }
        fprintf(stderr, "  warm-up: %u busy ticks, then %u readouts\n", busy, ok);
        CHECK(busy >= 45 && busy <= 52); /* 1 s at 50 Hz */
        CHECK(ok >= 20);
        rig_close(&rig);

        /* The mode latch changes after init (Lenovo kept adding values): a re-init (resume) accepts it. */
        rig_open(&rig, 0, NULL, 0);
        CHECK_EQ(rig_start(&rig, &c), 0);
        CHECK_EQ(hdaps_get_state(rig.d)->mode, 1);
        ec_sim_set_faults(rig.port, (const SimFault[]) {{SIM_FAULT_MODE_CHANGE, 1}}, 1);
        CHECK_EQ(hdaps_power_off(rig.d, NULL), 0);
        CHECK_EQ(rig_start(&rig, &c), 0);
        CHECK_EQ(hdaps_get_state(rig.d)->mode, 5);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        rig_close(&rig);
}

/* Polling stopped for a while and started again: the last tick's prefetch has expired. Read at the first
 * tick and prefetched right after, before the EC sampled again, the second tick would find READOUTS 0
 * (shown first); hdaps_start_polling() requests afresh at the start, so every tick has its readout. */
TEST(test_restarted_polling_reads_at_every_tick)
{
        Rig rig;
        HdapsReadout ro;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        CHECK_EQ(rig_start(&rig, &c), 0);
        for (unsigned i = 0; i < 5; i++)
                CHECK_EQ(poll_next(&rig, &ro), 0);

        ec_sim_advance_ns(rig.port, NSEC_PER_SEC); /* polling off */
        CHECK_EQ(poll_next(&rig, &ro), 0);         /* synchronous read, then a prefetch with nothing new */
        CHECK_EQ(poll_next(&rig, &ro), -EBUSY);

        ec_sim_advance_ns(rig.port, NSEC_PER_SEC);
        CHECK_EQ(hdaps_start_polling(rig.d), 0);
        uint64_t transactions = status(&rig).transactions;
        for (unsigned i = 0; i < 5; i++)
                CHECK_EQ(poll_next(&rig, &ro), 0);
        /* One transaction per tick (the prefetch's reply read, the next prefetch): no synchronous read. */
        CHECK_EQ(status(&rig).transactions - transactions, 5u);
        rig_close(&rig);
}

/* Polling starts right after init, as the daemon does (hdaps_start_polling() in the same breath): the
 * EC is still making the reply to init's own prefetch (SWMF). That prefetch is fresh and holds what the
 * EC queued until init (a configuration change keeps the queue), so the start keeps it instead of requesting
 * afresh (which the EC would refuse busy, leaving nothing prefetched: the first tick would read
 * synchronously, the prefetch right after it would find nothing new, and the second tick would have no
 * readout). Both first ticks have a readout, one transaction each. */
TEST(test_first_two_ticks_after_init_read)
{
        Rig rig;
        HdapsReadout ro;
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;

        rig_open(&rig, 0, NULL, 0);
        ec_sim_advance_ns(rig.port, 50 * NSEC_PER_MSEC); /* the EC samples from boot on, before any driver */
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        uint64_t transactions = status(&rig).transactions;
        CHECK_EQ(hdaps_start_polling(rig.d), 0);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(poll_next(&rig, &ro), 0);
        CHECK_EQ(status(&rig).transactions - transactions, 2u); /* the ticks' prefetches, no read */
        for (unsigned i = 0; i < 5; i++)
                CHECK_EQ(poll_next(&rig, &ro), 0);
        rig_close(&rig);
}

/* Transactions between two ticks (a raw row read, a configuration change) end the poll path's prefetch.
 * Without hdaps_keep_prefetch() the tick after the next has no readout (shown first); with it, called
 * once after the burst, every tick has its readout. It makes no EC access when nothing ended the
 * prefetch, and none after power-off. */
TEST(test_keep_prefetch_after_transactions_between_ticks)
{
        const EcRow mode_args = {.mask = EC_ROW_MASK_ARG0, .val = {[0] = EC_CMD_ACCEL_MODE}};
        Rig rig;
        HdapsReadout ro;
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        rig_open(&rig, 0, NULL, 0);
        CHECK_EQ(rig_start(&rig, &c), 0);
        for (unsigned i = 0; i < 3; i++)
                CHECK_EQ(poll_next(&rig, &ro), 0);

        for (unsigned keep = 0; keep < 2; keep++) {
                EcRow data = {.mask = EC_ROW_MASK_ARG0};
                ec_sim_advance_ns(rig.port, PERIOD_NS / 2);
                CHECK_EQ(ec_read_row(rig.ec, &mode_args, &data), 0);
                CHECK_EQ(hdaps_set_filter_order(rig.d, keep ? 2 : 3), 0);
                if (keep)
                        CHECK_EQ(hdaps_keep_prefetch(rig.d), 0);
                ec_sim_advance_ns(rig.port, PERIOD_NS - PERIOD_NS / 2);
                CHECK_EQ(hdaps_poll(rig.d, &ro), 0);
                CHECK_EQ(poll_next(&rig, &ro), keep ? 0 : -EBUSY);
                for (unsigned i = 0; i < 3; i++)
                        CHECK_EQ(poll_next(&rig, &ro), 0);
        }

        uint64_t transactions = status(&rig).transactions;
        CHECK_EQ(hdaps_keep_prefetch(rig.d), 0); /* the last tick's prefetch is out: nothing to do */
        CHECK_EQ(status(&rig).transactions, transactions);
        CHECK_EQ(hdaps_power_off(rig.d, NULL), 0);
        CHECK_EQ(hdaps_keep_prefetch(rig.d), 0);
        CHECK(status(&rig).idle);
        rig_close(&rig);
}

TEST(test_on_demand_update_is_rate_limited)
{
        Rig rig;
        rig_open(&rig, 0, NULL, 0);
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        ec_sim_advance_ns(rig.port, PERIOD_NS);
        CHECK_EQ(hdaps_update(rig.d), 0);
        uint64_t n = status(&rig).transactions;
        CHECK_EQ(hdaps_update(rig.d), 0); /* young cache: no EC traffic */
        CHECK_EQ(status(&rig).transactions, n);
        ec_sim_advance_ns(rig.port, PERIOD_NS);
        CHECK_EQ(hdaps_update(rig.d), 0);
        CHECK(status(&rig).transactions > n);
        rig_close(&rig);
}

static void write_trace(void)
{
        int fd = mkstemp(trace_path);
        if (fd < 0)
                abort();
        static const char text[] =
                "# test trace: still at (120,-40), then x ramps to 220 by 2 s; typing from 2.5 s\n"
                "time_ms,x,y,keyboard,mouse\n"
                "0,120,-40,0,0\n"
                "1000,120,-40,0,0\n"
                "2000,220,-40,0,0\n"
                "2500,220,-40,1,0\n"
                "60000,220,-40,1,0\n";
        if (write(fd, text, sizeof(text) - 1) != (ssize_t) (sizeof(text) - 1))
                abort();
        close(fd);
}

/* Ticks for this many seconds of virtual time; returns the readouts they brought. */
static unsigned poll_for(Rig *rig, unsigned seconds)
{
        HdapsReadout ro;
        unsigned n = 0;
        for (unsigned i = 0; i < seconds * HDAPS_DEFAULT_SAMPLING_RATE; i++)
                n += poll_next(rig, &ro) == 0;
        return n;
}

/* A configuration the EC keeps "pending" (0x06 to every 0x10): init polls with the configuration the EC
 * reports instead of failing (tp_smapi 0.43 gives up on it and polls anyway), and retries the wanted one
 * from the poll ticks, bounded. */
TEST(test_pending_configuration_degrades)
{
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        Rig rig;

        c.oversampling_ratio = 2; /* EC rate 100: not what the EC runs after boot */
        rig_open(&rig, 0, (const SimFault[]) {{SIM_FAULT_PENDING, 1}}, 1);
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        CHECK(hdaps_config_degraded(rig.d));
        CHECK(hdaps_config_refused(rig.d));
        EcSimStatus s = status(&rig);
        CHECK(s.powered);
        CHECK(s.ec_rate != 100);
        CHECK_EQ(hdaps_get_config(rig.d)->sampling_rate, c.sampling_rate);
        CHECK_EQ(hdaps_get_config(rig.d)->oversampling_ratio, s.ec_rate / c.sampling_rate);
        CHECK_EQ(hdaps_get_config(rig.d)->filter_order, s.filter_order);
        CHECK(poll_for(&rig, 2) > 90); /* it polls: about one readout a tick */

        /* Retries, bounded: after HDAPS_CONFIG_RETRIES of them the EC's configuration stays, and no
         * further 0x10 goes out even once the EC would take it. */
        uint64_t t0 = status(&rig).transactions;
        unsigned ticks = (HDAPS_CONFIG_RETRIES + 1) * HDAPS_CONFIG_RETRY_INTERVAL_MS / 1000;
        CHECK(poll_for(&rig, ticks) > 0);
        /* one read-less prefetch a tick, plus the retries */
        CHECK_EQ(status(&rig).transactions - t0, ticks * HDAPS_DEFAULT_SAMPLING_RATE + HDAPS_CONFIG_RETRIES);
        CHECK(hdaps_config_degraded(rig.d));
        ec_sim_set_faults(rig.port, NULL, 0);
        (void) poll_for(&rig, 2 * HDAPS_CONFIG_RETRY_INTERVAL_MS / 1000);
        CHECK(status(&rig).ec_rate != 100);
        CHECK(hdaps_config_degraded(rig.d));
        rig_close(&rig);

        /* Shutdown while the EC keeps the change pending: the power-off (0x14 0) works, only stopping EC
         * sampling (0x10 0 1) is refused, and the caller learns which. */
        bool off = false;
        rig_open(&rig, 0, (const SimFault[]) {{SIM_FAULT_PENDING, 1}}, 1);
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        CHECK_EQ(hdaps_power_off(rig.d, &off), -EBUSY);
        CHECK(off);
        CHECK(!status(&rig).powered);
        rig_close(&rig);

        /* The EC takes it at a retry: the device then runs the configuration asked for. */
        rig_open(&rig, 0, (const SimFault[]) {{SIM_FAULT_PENDING, 1}}, 1);
        CHECK_EQ(hdaps_init(rig.d, &c), 0);
        CHECK(hdaps_config_degraded(rig.d));
        ec_sim_set_faults(rig.port, NULL, 0);
        (void) poll_for(&rig, HDAPS_CONFIG_RETRY_INTERVAL_MS / 1000 + 1);
        CHECK(!hdaps_config_degraded(rig.d));
        CHECK_EQ(status(&rig).ec_rate, 100);
        CHECK_EQ(hdaps_get_config(rig.d)->oversampling_ratio, 2);
        CHECK(poll_for(&rig, 1) > 40);
        rig_close(&rig);

        /* The EC already runs what was asked: nothing to degrade. */
        c = HDAPS_CONFIG_DEFAULT;
        rig_open(&rig, 0, (const SimFault[]) {{SIM_FAULT_PENDING, 1}}, 1);
        if (status(&rig).ec_rate == c.sampling_rate * c.oversampling_ratio) {
                CHECK_EQ(hdaps_init(rig.d, &c), 0);
                CHECK(!hdaps_config_degraded(rig.d));
                CHECK(hdaps_config_refused(rig.d));
        } else
                CHECK(false); /* the emulator's boot configuration is the default one */
        rig_close(&rig);
}

int main(void)
{
        log_set_max_level(LOG_DEBUG);
        write_trace();
        RUN(test_init_sequence_configures_the_ec);
        RUN(test_init_does_not_recalibrate);
        RUN(test_readouts_follow_the_trace_and_calibrate_once);
        RUN(test_axis_code_swaps_and_inverts);
        RUN(test_configuration_and_return_codes);
        RUN(test_fake_data_mode_counts);
        RUN(test_power_off_stops_sampling);
        RUN(test_first_two_ticks_after_init_read);
        RUN(test_absent_accelerometer_is_enodev);
        RUN(test_every_fault_fails_within_budget_and_recovers);
        RUN(test_seeds_behaviour_is_survived);
        RUN(test_restarted_polling_reads_at_every_tick);
        RUN(test_keep_prefetch_after_transactions_between_ticks);
        RUN(test_on_demand_update_is_rate_limited);
        RUN(test_pending_configuration_degrades);
        unlink(trace_path);
        return test_summary();
}
