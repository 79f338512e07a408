/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fault injection: parsing fault specifications, each fault kind as a host sees it on the ports, and
 * how the host recovers; the forbidden battery row 0x0B; probabilities are per transaction and
 * reproducible from the seed. */
#include "test-sim-host.h"

static void check_parse_error(const char *spec, const char *expected)
{
        SimFault f = {.kind = SIM_FAULT_ABSENT, .probability = 0.5};
        char *error = NULL;

        CHECK_EQ(sim_fault_parse(spec, &f, &error), -EINVAL);
        CHECK_STREQ(error, expected);
        CHECK_EQ(f.kind, SIM_FAULT_ABSENT); /* untouched */
        free(error);
}

#define EMPTY_SPEC_ERROR "empty fault specification (expected KIND[:PROBABILITY][@FROM-TO], KIND one of %s)"

/* check_parse_error() with expected_format's %s the fault kinds, joined here from
 * sim_fault_kind_to_string(): every kind, in the table's order. */
static void check_parse_error_listing(const char *spec, const char *expected_format)
{
        char kinds[512] = "", expected[1024];

        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++) {
                strcat(kinds, k > 0 ? ", " : "");
                strcat(kinds, sim_fault_kind_to_string(k));
        }
        CHECK(strlen(kinds) < sizeof(kinds) / 2);
        snprintf(expected, sizeof(expected), expected_format, kinds);
        check_parse_error(spec, expected);
}

/* sim_fault_kind_table is the one list of fault names (parse, --help, --sim-fault=help): a kind without
 * its row would be a NULL in it. */
TEST(test_every_kind_has_a_name)
{
        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++) {
                if (!sim_fault_kind_to_string(k))
                        fprintf(stderr, "fault kind %u (after %s) has no name in sim_fault_kind_table\n", k,
                                k > 0 ? sim_fault_kind_to_string(k - 1) : "none");
                CHECK(sim_fault_kind_to_string(k) != NULL);
        }
}

TEST(test_fault_parse)
{
        SimFault f;
        char *error = NULL;

        CHECK_EQ(sim_fault_parse("busy", &f, &error), 0);
        CHECK(error == NULL);
        CHECK_EQ(f.kind, SIM_FAULT_BUSY);
        CHECK(f.probability == 1.0);
        CHECK_EQ(sim_fault_parse("silent:0.25", &f, NULL), 0);
        CHECK_EQ(f.kind, SIM_FAULT_SILENT);
        CHECK(f.probability == 0.25);
        CHECK_EQ(sim_fault_parse("bad-status:0", &f, NULL), 0);
        CHECK_EQ(f.kind, SIM_FAULT_BAD_STATUS);
        CHECK(f.probability == 0.0);
        CHECK_EQ(sim_fault_parse("retval:1", &f, NULL), 0);
        CHECK_EQ(sim_fault_parse("pending:1e-1", &f, NULL), 0);
        CHECK(f.probability == 0.1);
        CHECK_EQ(sim_fault_parse("absent:.5", &f, NULL), 0);
        CHECK(f.probability == 0.5);

        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++) {
                CHECK_EQ(sim_fault_parse(sim_fault_kind_to_string(k), &f, NULL), 0);
                CHECK_EQ(f.kind, k);
        }
        CHECK(sim_fault_kind_to_string(_SIM_FAULT_MAX) == NULL);

        check_parse_error_listing("x", "unknown fault kind 'x' (expected %s)");
        check_parse_error_listing("Busy:1", "unknown fault kind 'Busy' (expected %s)");
        check_parse_error_listing(":0.5", "unknown fault kind '' (expected %s)");
        check_parse_error("busy:2", "probability '2' is not between 0 and 1");
        check_parse_error("busy:-0.5", "probability '-0.5' is not between 0 and 1");
        check_parse_error("busy:abc", "probability 'abc' is not a number");
        check_parse_error("busy:", "probability '' is not a number");
        check_parse_error("busy:nan", "probability 'nan' is not a number");
        check_parse_error("busy:0.5x", "probability '0.5x' is not a number");
        check_parse_error("busy:0.5:1", "probability '0.5:1' is not a number");
        check_parse_error_listing("", EMPTY_SPEC_ERROR);
        check_parse_error_listing(NULL, EMPTY_SPEC_ERROR);
        check_parse_error("busy@2", "time window '2' is not FROM-TO in seconds (like 2-5.5)");
        check_parse_error("busy:0.5@-1-2", "time window '-1-2' is not FROM-TO in seconds (like 2-5.5)");
        check_parse_error("busy@3-2", "time window '3-2' ends before it starts");
        check_parse_error("busy@1-x", "time window '1-x' is not FROM-TO in seconds (like 2-5.5)");
        CHECK_EQ(sim_fault_parse("silent:0.5@2-5.5", &f, NULL), 0);
        CHECK_EQ(f.kind, SIM_FAULT_SILENT);
        CHECK(f.probability == 0.5 && f.from_s == 2 && f.to_s == 5.5);
        CHECK_EQ(sim_fault_parse("absent@1-2", &f, NULL), 0);
        CHECK(f.probability == 1 && f.from_s == 1 && f.to_s == 2);
}

static PortIO *open_with_fault(SimFaultKind kind, double probability)
{
        SimOptions o = {.n_faults = 1, .faults = {{kind, probability}}};
        return sim_open_options(&o);
}

TEST(test_busy)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_BUSY, 1);
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];

        /* The EC takes the request and starts replying (SWMF) ... */
        CHECK_EQ(host_request(p, args), 0);
        /* ... but the reply takes longer than the host's whole read budget: the read gives up. */
        CHECK_EQ(host_read(p, out), -EBUSY);
        CHECK_EQ(str3(p), STR3_SWMF);
        EcSimStatus st = sim_status(p);
        CHECK(!st.idle);
        CHECK_EQ(st.faults_injected, 1);
        /* A new request meanwhile is told "busy" (STR3 SWMF), and a TWR0 write is ignored. */
        CHECK_EQ(host_request(p, args), -EBUSY);
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        CHECK_EQ(str3(p), STR3_SWMF);
        CHECK_EQ(sim_status(p).requests_ignored, 1);
        /* The EC recovers on its own: 10 ms after TWR15 the reply is ready, and it is a good one. */
        ec_sim_advance_ns(p, 10 * NSEC_PER_MSEC);
        CHECK_EQ(str3(p), STR3_OBF3B | STR3_SWMF);
        CHECK_EQ(host_read(p, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK(sim_status(p).idle);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK(sim_status(p).idle);
}

TEST(test_silent)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_SILENT, 1);
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];

        /* STR3 stays IBF3B|MWMF through the host's whole 1000 x 10 ns wait: "mysteriously silent". */
        CHECK_EQ(host_request(p, args), -EIO);
        CHECK_EQ(str3(p), STR3_IBF3B | STR3_MWMF);
        CHECK(!sim_status(p).idle);
        /* Meanwhile a new request finds a bad initial STR3 (the 2006 patch series' host gives up), and a
         * TWR0 write is ignored. */
        CHECK_EQ(host_request(p, args), -EIO);
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        CHECK_EQ(sim_status(p).requests_ignored, 1);
        /* 10 ms after TWR15 the EC drops the request by itself: idle, no reply. */
        ec_sim_advance_ns(p, 10 * NSEC_PER_MSEC);
        CHECK(sim_status(p).idle);
        CHECK_EQ(str3(p), 0x00);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK(sim_status(p).idle);
        CHECK_EQ(sim_status(p).faults_injected, 1); /* the second request never reached TWR15 */

        /* A TWR15 read also ends a silent transaction at once. */
        ec_sim_set_faults(p, (const SimFault[]) {{SIM_FAULT_SILENT, 1}}, 1);
        CHECK_EQ(host_request(p, args), -EIO);
        (void) port_inb(p, EC_PORT_TWR15);
        CHECK(sim_status(p).idle);
}

TEST(test_bad_status)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_BAD_STATUS, 1);
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];
        uint8_t s;

        /* After TWR15 STR3 reads a value no legal phase shows: "bad end STR3". */
        CHECK_EQ(host_request(p, args), -EIO);
        s = sim_status(p).str3;
        CHECK(s != 0x00 && s != STR3_SWMF && s != (STR3_IBF3B | STR3_MWMF) && s != (STR3_OBF3B | STR3_SWMF));
        CHECK((s & STR3_SWMF) == 0); /* would pass for "EC started replying" */
        /* Recovery 1: a TWR15 read ends it. */
        (void) port_inb(p, EC_PORT_TWR15);
        CHECK(sim_status(p).idle);

        /* Recovery 2: left alone, the reply still comes; the next request ends it as stale. */
        CHECK_EQ(host_request(p, args), -EIO);
        ec_sim_advance_ns(p, NSEC_PER_MSEC);
        CHECK_EQ(str3(p), STR3_OBF3B | STR3_SWMF);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_request(p, args), -EBUSY);
        CHECK(sim_status(p).idle);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_IDX_RETVAL], 0);
}

TEST(test_retval)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_RETVAL, 1);
        uint8_t out[ROW_LEN];

        ec_sim_advance_ns(p, 20 * NSEC_PER_MSEC);
        unsigned queued = sim_status(p).queue_len;
        CHECK(queued > 0);
        CHECK(host_readout(p, out) > 0);
        CHECK_EQ(sim_status(p).queue_len, queued); /* nothing taken */
        CHECK(sim_status(p).idle);
        /* Only 0x11 is affected. */
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_IDX_RETVAL], 0);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
        CHECK_EQ(sim_status(p).faults_injected, 1);
}

TEST(test_pending)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_PENDING, 1);

        CHECK_EQ(host_configure(p, 500, 4), EC_RETVAL_CHANGE_PENDING);
        ec_sim_advance_ns(p, 10 * NSEC_PER_MSEC);
        EcSimStatus st = sim_status(p);
        CHECK_EQ(st.ec_rate, 250);
        CHECK_EQ(st.filter_order, 2);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_configure(p, 500, 4), EC_RETVAL_OK);
}

TEST(test_absent)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_ABSENT, 1);
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], EC_MODE_NONE);
        CHECK_EQ(out[EC_IDX_RETVAL], 0);

        /* No accelerometer, no readout: 0x11 answers READOUTS 0 ("not ready", RETVAL 0) however long the
         * host waits, and even after a power-on (the reference driver's timer polls 0x11 after its probe
         * failed; docs/EMULATOR.md, fault absent); 0x17/0x82 says the EC is not polling. */
        CHECK_EQ(host_power(p, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 20 * NSEC_PER_MSEC);
        CHECK_EQ(host_readout(p, out), EC_RETVAL_OK);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_GET_CONFIG, 0, out), EC_RETVAL_OK);
        CHECK_EQ(out[EC_GETCFG_IDX_STATUS] & EC_GETCFG_POLLING, 0);

        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK_EQ(host_readout(p, out), EC_RETVAL_OK);
        CHECK(out[EC_READOUT_IDX_READOUTS] > 0);
}

TEST(test_zero_step)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_ZERO_STEP, 1);
        uint8_t out[ROW_LEN];

        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        port_outb(p, EC_PORT_TWR15, 0x01);
        /* IBF3B|MWMF, then 0x00 (indistinguishable from idle, the 2006 patch series), then SWMF,
         * then the reply. */
        CHECK_EQ(sim_status(p).str3, STR3_IBF3B | STR3_MWMF);
        CHECK_EQ(str3(p), 0x00);
        CHECK(!sim_status(p).idle);
        uint8_t s;
        while ((s = str3(p)) == 0x00)
                ;
        CHECK_EQ(s, STR3_SWMF);
        CHECK_EQ(host_read(p, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        /* The 2006 patch series' host waits it out as "normal progress". */
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(sim_status(p).protocol_violations, 0);
}

/* What real ECs answered after TWR15 (tp_smapi 0.31 CHANGES): IBF3B alone, then MWMF alone, then SWMF. */
TEST(test_end_status)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_END_STATUS, 1);
        uint8_t out[ROW_LEN];
        bool saw_ibf3b = false, saw_mwmf = false;
        uint8_t s;

        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        CHECK_EQ(str3(p), STR3_MWMF);
        port_outb(p, EC_PORT_TWR15, 0x01);
        while (!((s = str3(p)) & STR3_SWMF)) {
                CHECK(s == STR3_IBF3B || s == STR3_MWMF);
                CHECK(!saw_mwmf || s == STR3_MWMF); /* 0x80 first, then 0x20 */
                saw_ibf3b |= s == STR3_IBF3B;
                saw_mwmf |= s == STR3_MWMF;
                port_delay_ns(p, HOST_REQ_DELAY);
        }
        CHECK(saw_ibf3b);
        CHECK(saw_mwmf);
        CHECK_EQ(host_read(p, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK_EQ(sim_status(p).protocol_violations, 0);
        CHECK(sim_status(p).faults_injected >= 1);
}

TEST(test_swmf_after_read)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_SWMF_AFTER_READ, 1);
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        /* Right after the read's TWR15 STR3 still shows SWMF: a request now is told "busy". */
        CHECK_EQ(str3(p), STR3_SWMF);
        CHECK(!sim_status(p).idle);
        CHECK_EQ(host_request(p, args), -EBUSY);
        ec_sim_advance_ns(p, 3 * NSEC_PER_USEC);
        CHECK(sim_status(p).idle);
        CHECK_EQ(host_request(p, args), 0);
        CHECK_EQ(host_read(p, out), 0);
        CHECK_EQ(sim_status(p).protocol_violations, 0);
}

TEST(test_no_readout_and_warm_up)
{
        _cleanup_(port_freep) PortIO *p = open_with_fault(SIM_FAULT_NO_READOUT, 1);
        uint8_t out[ROW_LEN];

        ec_sim_advance_ns(p, 20 * NSEC_PER_MSEC);
        unsigned queued = sim_status(p).queue_len;
        CHECK(queued > 0);
        CHECK_EQ(host_readout(p, out), 0);         /* RETVAL 0 ... */
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0); /* ... but no readout: "not in ready status" */
        CHECK_EQ(sim_status(p).queue_len, queued);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);

        /* warm-up: for 1 s after power-on, READOUTS 0, then readouts again. */
        ec_sim_set_faults(p, (const SimFault[]) {{SIM_FAULT_WARM_UP, 1}}, 1);
        CHECK_EQ(host_power(p, 0), 0);
        CHECK_EQ(host_power(p, 1), 0);
        ec_sim_advance_ns(p, 500 * NSEC_PER_MSEC);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0);
        ec_sim_advance_ns(p, 500 * NSEC_PER_MSEC);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
        /* Also when it was on already: every 0x14 on command starts it. */
        CHECK_EQ(host_power(p, 1), 0);
        ec_sim_advance_ns(p, 20 * NSEC_PER_MSEC);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0);
}

TEST(test_mode_change)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        ec_sim_set_faults(p, (const SimFault[]) {{SIM_FAULT_MODE_CHANGE, 1}}, 1);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 5);
        CHECK_EQ(out[EC_IDX_RETVAL], 0);
}

TEST(test_battery_row_0b)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t args[ROW_LEN] = {EC_CMD_BATTERY_FORBIDDEN}, out[ROW_LEN];

        CHECK(!sim_status(p).battery_row_0b_requested);
        CHECK_EQ(host_request(p, args), -EIO); /* never answers */
        EcSimStatus st = sim_status(p);
        CHECK(st.battery_row_0b_requested);
        CHECK_EQ(st.last_command, EC_CMD_BATTERY_FORBIDDEN);
        (void) port_inb(p, EC_PORT_TWR15);
        CHECK(sim_status(p).idle);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
}

/* Per-transaction probability, reproducible from the seed. */
static uint64_t count_busy(uint32_t seed, double probability, unsigned n)
{
        SimOptions o = {.seed = seed, .n_faults = 1, .faults = {{SIM_FAULT_BUSY, probability}}};
        _cleanup_(port_freep) PortIO *p = sim_open_options(&o);
        uint8_t out[ROW_LEN];
        uint64_t failed = 0;

        for (unsigned i = 0; i < n; i++) {
                if (host_row(p, EC_CMD_ACCEL_MODE, NULL, out) < 0) {
                        failed++;
                        (void) port_inb(p, EC_PORT_TWR15);
                }
        }
        CHECK_EQ(sim_status(p).faults_injected, failed);
        CHECK_EQ(sim_status(p).transactions, n);
        return failed;
}

TEST(test_time_window)
{
        /* absent between 1 s and 2 s after creation only. */
        SimOptions o = {.n_faults = 1, .faults = {{SIM_FAULT_ABSENT, 1, 1, 2}}};
        _cleanup_(port_freep) PortIO *p = sim_open_options(&o);
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        ec_sim_advance_ns(p, NSEC_PER_SEC);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 0);
        ec_sim_advance_ns(p, NSEC_PER_SEC);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK_EQ(sim_status(p).faults_injected, 1);

        char *error = NULL;
        PortIO *q = NULL;
        o.faults[0] = (SimFault) {SIM_FAULT_BUSY, 1, 3, 2};
        CHECK_EQ(port_open_sim(&o, &q, &error), -EINVAL);
        CHECK_STREQ(error, "fault 0 (busy): time window 3-2 s is not a window");
        free(error);
}

TEST(test_probability)
{
        uint64_t a = count_busy(1, 0.3, 400), b = count_busy(1, 0.3, 400);

        CHECK_EQ(a, b);
        CHECK(a > 80 && a < 160); /* 120 expected; about 9 standard deviations wide */
        CHECK_EQ(count_busy(2, 0, 100), 0);
        CHECK_EQ(count_busy(2, 1, 100), 100);
}

TEST(test_set_faults_at_run_time)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        SimFault faults[] = {{SIM_FAULT_ABSENT, 1}, {_SIM_FAULT_MAX, 1}, {SIM_FAULT_RETVAL, 7}};
        uint8_t out[ROW_LEN];

        ec_sim_set_faults(p, faults, ELEMENTSOF(faults)); /* the bad kind is dropped, 7 clamps to 1 */
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 0);
        CHECK(host_readout(p, out) > 0);
        ec_sim_set_faults(p, NULL, 0);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
}

int main(void)
{
        RUN(test_every_kind_has_a_name);
        if (test_failed)
                return test_summary(); /* the rest would crash on the missing name */
        RUN(test_fault_parse);
        RUN(test_busy);
        RUN(test_silent);
        RUN(test_bad_status);
        RUN(test_retval);
        RUN(test_pending);
        RUN(test_absent);
        RUN(test_zero_step);
        RUN(test_end_status);
        RUN(test_swmf_after_read);
        RUN(test_no_readout_and_warm_up);
        RUN(test_mode_change);
        RUN(test_battery_row_0b);
        RUN(test_time_window);
        RUN(test_probability);
        RUN(test_set_faults_at_run_time);
        return test_summary();
}
