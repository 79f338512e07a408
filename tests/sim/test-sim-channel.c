/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulator's LPC channel: the STR3 sequence of a request and a read, TWR register behaviour,
 * stale replies, refused TWR0 writes, ports outside the channel, real-time mode. */
#include "test-sim-host.h"

TEST(test_idle_and_unmapped_ports)
{
        _cleanup_(port_freep) PortIO *p = sim_open();

        CHECK(port_is_sim(p));
        CHECK_STREQ(port_backend_name(p), "sim");
        CHECK_EQ(str3(p), 0x00);
        CHECK(sim_status(p).idle);
        /* Ports of the channel that are neither STR3 nor a TWR read 0x00 and ignore writes. */
        for (uint16_t port = EC_PORT_BASE; port < EC_PORT_TWR0; port++) {
                if (port == EC_PORT_STR3)
                        continue;
                port_outb(p, port, 0x5A);
                CHECK_EQ(port_inb(p, port), 0x00);
        }
        CHECK_EQ(str3(p), 0x00);
        CHECK_EQ(sim_status(p).port_violations, 0);
}

TEST(test_outside_ports_are_violations)
{
        _cleanup_(port_freep) PortIO *p = sim_open();

        CHECK_EQ(port_inb(p, 0x60), 0xFF);
        CHECK_EQ(port_inb(p, EC_PORT_BASE - 1), 0xFF);
        CHECK_EQ(port_inb(p, EC_PORT_BASE + EC_PORT_COUNT), 0xFF);
        port_outb(p, 0x80, 1);
        port_outb(p, EC_PORT_BASE + EC_PORT_COUNT, EC_CMD_ACCEL_READOUT);
        EcSimStatus st = sim_status(p);
        CHECK_EQ(st.port_violations, 5);
        CHECK(st.idle);
        CHECK_EQ(st.transactions, 0);
}

TEST(test_request_and_read_sequence)
{
        SimOptions o = {.reply_latency_ns = 20 * NSEC_PER_USEC};
        _cleanup_(port_freep) PortIO *p = sim_open_options(&o);
        unsigned swmf_reads = 0;
        uint8_t s;

        CHECK_EQ(str3(p), 0x00);
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        CHECK_EQ(str3(p), STR3_MWMF);
        CHECK(!sim_status(p).idle);
        port_outb(p, EC_PORT_TWR0 + 1, 0x00); /* any subset of TWR1..14 */
        CHECK_EQ(str3(p), STR3_MWMF);
        port_outb(p, EC_PORT_TWR15, 0x01);
        /* Right at the write the EC is taking the request in. */
        CHECK_EQ(sim_status(p).str3, STR3_IBF3B | STR3_MWMF);
        CHECK_EQ(sim_status(p).transactions, 1);
        CHECK_EQ(sim_status(p).last_command, EC_CMD_ACCEL_MODE);
        /* One port access (1 us of virtual time) later it is replying: SWMF, well inside the host's
         * 1000 x 10 ns wait. */
        CHECK_EQ(str3(p), STR3_SWMF);
        while ((s = str3(p)) == STR3_SWMF)
                swmf_reads++;
        CHECK_EQ(s, STR3_OBF3B | STR3_SWMF);
        /* 20 us latency at 1 us per access: the first read was at +1 us, then 18 more SWMF reads. */
        CHECK_EQ(swmf_reads, 18);

        CHECK_EQ(port_inb(p, EC_PORT_TWR0), EC_CMD_ACCEL_MODE); /* starts the read */
        CHECK_EQ(str3(p), STR3_OBF3B | STR3_SWMF);
        CHECK_EQ(port_inb(p, EC_PORT_TWR0 + EC_MODE_IDX_LATCH), 0x01);
        CHECK_EQ(port_inb(p, EC_PORT_TWR15), EC_RETVAL_OK); /* ends it */
        CHECK_EQ(str3(p), 0x00);
        EcSimStatus st = sim_status(p);
        CHECK(st.idle);
        CHECK_EQ(st.replies_discarded, 0);
        /* The 2006 patch series' own sequence: not one protocol violation. */
        CHECK_EQ(st.protocol_violations, 0);
        CHECK_STREQ(st.last_violation, "");
}

/* Strict mode: each access the 2006 patch series' driver never makes at that point is counted and named. */
static void check_violation(PortIO *p, uint64_t *n, const char *expected)
{
        EcSimStatus st = sim_status(p);
        CHECK_EQ(st.protocol_violations, *n + 1);
        CHECK_STREQ(st.last_violation, expected);
        *n = st.protocol_violations;
}

TEST(test_strict_mode_counts_violations)
{
        SimOptions o = {.reply_latency_ns = 20 * NSEC_PER_USEC};
        _cleanup_(port_freep) PortIO *p = sim_open_options(&o);
        uint64_t n = 0;

        (void) port_inb(p, EC_PORT_TWR0 + 3);
        check_violation(p, &n, "read of TWR3 (0x1613) idle");
        (void) port_inb(p, EC_PORT_TWR15);
        check_violation(p, &n, "read of TWR15 (0x161f) idle");
        port_outb(p, EC_PORT_TWR0 + 2, 0x11);
        check_violation(p, &n, "write of 0x11 to TWR2 (0x1612) idle");
        (void) port_inb(p, EC_PORT_BASE + 5);
        check_violation(p, &n, "read of port (0x1605) (not a port of the protocol)");
        port_outb(p, EC_PORT_STR3, 0);
        check_violation(p, &n, "write of 0x00 to STR3 (0x1604) (not a port the host writes)");

        /* A request: TWR0 again while writing is a restart the 2006 patch series never makes. */
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        CHECK_EQ(sim_status(p).protocol_violations, n);
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        check_violation(p, &n, "write of 0x13 to TWR0 (0x1610) while the host writes a request");
        port_outb(p, EC_PORT_TWR15, 0x01);
        /* A TWR15 read mid-request (before the reply is ready), and TWR reads before the reply. */
        (void) port_inb(p, EC_PORT_TWR0 + 1);
        check_violation(p, &n, "read of TWR1 (0x1611) while the EC prepares a reply");
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        check_violation(p, &n, "write of 0x13 to TWR0 (0x1610) while the EC prepares a reply");
        while (str3(p) != (STR3_OBF3B | STR3_SWMF))
                ;
        /* A reply is pending: TWR0 written, TWR1 read before TWR0 started the read. */
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        check_violation(p, &n, "write of 0x13 to TWR0 (0x1610) while a reply is pending");
        (void) port_inb(p, EC_PORT_TWR0 + 1);
        check_violation(p, &n, "read of TWR1 (0x1611) before TWR0 started the read");
        (void) port_inb(p, EC_PORT_TWR0);
        CHECK_EQ(sim_status(p).protocol_violations, n);
        (void) port_inb(p, EC_PORT_TWR0);
        check_violation(p, &n, "read of TWR0 (0x1610) a second time in one read");
        (void) port_inb(p, EC_PORT_TWR0 + 1);
        (void) port_inb(p, EC_PORT_TWR15);
        CHECK_EQ(sim_status(p).protocol_violations, n);
        CHECK_EQ(ec_sim_protocol_violations(p), n);

        /* A pending reply the host did not read: ending it with TWR15 is what the 2006 patch series does. */
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE);
        port_outb(p, EC_PORT_TWR15, 0x01);
        ec_sim_advance_ns(p, NSEC_PER_MSEC);
        (void) port_inb(p, EC_PORT_TWR15);
        CHECK_EQ(sim_status(p).protocol_violations, n);
}

TEST(test_default_latency)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE};
        uint64_t t0;

        CHECK_EQ(host_request(p, args), 0);
        t0 = port_now_ns(p);
        while (str3(p) != (STR3_OBF3B | STR3_SWMF))
                ;
        /* Default reply latency 5 us (from the TWR15 write, one access before t0). */
        CHECK(port_now_ns(p) - t0 <= 5 * NSEC_PER_USEC);
        CHECK(port_now_ns(p) - t0 >= 3 * NSEC_PER_USEC);
}

TEST(test_twr0_restart_while_writing)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        port_outb(p, EC_PORT_TWR0, 0x55);
        CHECK_EQ(str3(p), STR3_MWMF);
        port_outb(p, EC_PORT_TWR0, EC_CMD_ACCEL_MODE); /* the host starts over */
        CHECK_EQ(str3(p), STR3_MWMF);
        port_outb(p, EC_PORT_TWR15, 0x01);
        CHECK_EQ(host_read(p, out), 0);
        CHECK_EQ(out[0], EC_CMD_ACCEL_MODE);
        CHECK_EQ(out[EC_IDX_RETVAL], EC_RETVAL_OK);
}

TEST(test_twr_writes_outside_a_request_ignored)
{
        _cleanup_(port_freep) PortIO *p = sim_open();

        port_outb(p, EC_PORT_TWR0 + 3, 0x77);
        port_outb(p, EC_PORT_TWR15, 0x01); /* no TWR0 first: not a request */
        EcSimStatus st = sim_status(p);
        CHECK(st.idle);
        CHECK_EQ(st.transactions, 0);
        CHECK_EQ(str3(p), 0x00);
        CHECK_EQ(port_inb(p, EC_PORT_TWR0 + 3), 0x00); /* the latch did not take it */
}

TEST(test_twr0_refused_while_reply_pending)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];

        CHECK_EQ(host_request(p, args), 0);
        /* SWMF: a new TWR0 is ignored, STR3 does not become MWMF ("arg0 rejected"). */
        CHECK_EQ(str3(p), STR3_SWMF);
        port_outb(p, EC_PORT_TWR0, EC_CMD_BATTERY_STATUS);
        CHECK(str3(p) != STR3_MWMF);
        ec_sim_advance_ns(p, 100 * NSEC_PER_USEC);
        CHECK_EQ(str3(p), STR3_OBF3B | STR3_SWMF);
        /* OBF3B: the same. */
        port_outb(p, EC_PORT_TWR0, EC_CMD_BATTERY_STATUS);
        CHECK_EQ(str3(p), STR3_OBF3B | STR3_SWMF);
        CHECK_EQ(sim_status(p).requests_ignored, 2);
        /* The reply is still the first request's. */
        CHECK_EQ(host_read(p, out), 0);
        CHECK_EQ(out[0], EC_CMD_ACCEL_MODE);
        CHECK_EQ(sim_status(p).transactions, 1);
}

TEST(test_stale_reply_ended_by_twr15_read)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];

        CHECK_EQ(host_request(p, args), 0);
        ec_sim_advance_ns(p, NSEC_PER_MSEC);
        CHECK_EQ(str3(p), STR3_OBF3B | STR3_SWMF);
        /* The host's next request sees OBF3B, reads TWR15 and gets -EBUSY; the EC is idle after it. */
        CHECK_EQ(host_request(p, args), -EBUSY);
        EcSimStatus st = sim_status(p);
        CHECK(st.idle);
        CHECK_EQ(st.replies_discarded, 1);
        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
}

TEST(test_twr15_read_aborts_preparing)
{
        SimOptions o = {.reply_latency_ns = NSEC_PER_MSEC};
        _cleanup_(port_freep) PortIO *p = sim_open_options(&o);
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE};

        CHECK_EQ(host_request(p, args), 0);
        CHECK_EQ(str3(p), STR3_SWMF);
        (void) port_inb(p, EC_PORT_TWR15);
        CHECK_EQ(str3(p), 0x00);
        CHECK(sim_status(p).idle);
        ec_sim_advance_ns(p, 2 * NSEC_PER_MSEC);
        CHECK_EQ(str3(p), 0x00); /* the aborted reply never shows up */
}

TEST(test_reads_between_requests_see_latches)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        /* After the read the registers keep the reply, and reading them changes nothing. */
        CHECK_EQ(port_inb(p, EC_PORT_TWR0), EC_CMD_ACCEL_MODE);
        CHECK_EQ(port_inb(p, EC_PORT_TWR0 + EC_MODE_IDX_LATCH), 1);
        CHECK_EQ(port_inb(p, EC_PORT_TWR15), 0);
        CHECK_EQ(str3(p), 0x00);
        CHECK_EQ(sim_status(p).transactions, 1);
}

TEST(test_virtual_clock)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint64_t t0 = port_now_ns(p);

        (void) str3(p);
        CHECK_EQ(port_now_ns(p) - t0, 1000); /* one access = 1 us */
        port_delay_ns(p, 500);
        CHECK_EQ(port_now_ns(p) - t0, 1500);
        ec_sim_advance_ns(p, NSEC_PER_SEC);
        CHECK_EQ(port_now_ns(p) - t0, NSEC_PER_SEC + 1500);
}

TEST(test_real_time_mode)
{
        SimOptions o = {};
        _cleanup_(port_freep) PortIO *p = NULL;
        char *error = NULL;
        uint8_t args[ROW_LEN] = {EC_CMD_ACCEL_MODE}, out[ROW_LEN];
        int r;

        CHECK_EQ(port_open_sim(&o, &p, &error), 0);
        CHECK(error == NULL);
        uint64_t t0 = port_now_ns(p);
        ec_sim_advance_ns(p, NSEC_PER_SEC); /* ignored on the real clock */
        CHECK(port_now_ns(p) - t0 < NSEC_PER_SEC / 2);
        /* A host polling the real clock gets SWMF within its 1000 x 10 ns budget and the reply after
         * the default 5 us. */
        r = host_request(p, args);
        CHECK_EQ(r, 0);
        r = host_read(p, out);
        CHECK_EQ(r, 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK(sim_status(p).idle);
}

TEST(test_bad_options)
{
        PortIO *p = NULL;
        char *error = NULL;
        SimOptions o = {.virtual_time = true, .temperature = 300};

        CHECK_EQ(port_open_sim(&o, &p, &error), -EINVAL);
        CHECK_STREQ(error, "temperature 300 C is out of range (-40..125, 0 for the default 38)");
        CHECK(p == NULL);
        free(error);

        o = (SimOptions) {.n_faults = 1, .faults = {{SIM_FAULT_BUSY, 1.5}}};
        CHECK_EQ(port_open_sim(&o, &p, &error), -EINVAL);
        CHECK_STREQ(error, "fault 0 (busy): probability 1.5 is not between 0 and 1");
        free(error);

        o = (SimOptions) {.n_faults = SIM_FAULTS_MAX + 1};
        CHECK_EQ(port_open_sim(&o, &p, &error), -EINVAL);
        CHECK_STREQ(error, "too many faults: 17 (at most 16)");
        free(error);

        o = (SimOptions) {.reply_latency_ns = 2 * NSEC_PER_SEC};
        CHECK_EQ(port_open_sim(&o, &p, &error), -EINVAL);
        CHECK_STREQ(error, "reply latency 2000000000 ns is too long (at most 1000000000 ns)");
        free(error);

        o = (SimOptions) {.trace_path = "/nonexistent/trace.csv"};
        CHECK_EQ(port_open_sim(&o, &p, &error), -ENOENT);
        CHECK_STREQ(error, "/nonexistent/trace.csv: No such file or directory");
        free(error);

        o = (SimOptions) {.trace_loop = true};
        CHECK_EQ(port_open_sim(&o, &p, &error), -EINVAL);
        CHECK_STREQ(error, "trace_loop is set but there is no trace file");
        free(error);
        CHECK(p == NULL);

        /* NULL options: the defaults. */
        CHECK_EQ(port_open_sim(NULL, &p, &error), 0);
        CHECK(p && port_is_sim(p));
        port_free(p);
}

int main(void)
{
        RUN(test_idle_and_unmapped_ports);
        RUN(test_outside_ports_are_violations);
        RUN(test_request_and_read_sequence);
        RUN(test_strict_mode_counts_violations);
        RUN(test_default_latency);
        RUN(test_twr0_restart_while_writing);
        RUN(test_twr_writes_outside_a_request_ignored);
        RUN(test_twr0_refused_while_reply_pending);
        RUN(test_stale_reply_ended_by_twr15_read);
        RUN(test_twr15_read_aborts_preparing);
        RUN(test_reads_between_requests_see_latches);
        RUN(test_virtual_clock);
        RUN(test_real_time_mode);
        RUN(test_bad_options);
        return test_summary();
}
