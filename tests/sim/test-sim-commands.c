/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulated firmware's commands: battery row, mode, check, power, configuration with its pending
 * window and limits, get-config, fake data, the readout queue and filter, activity flags. */
#include "test-sim-host.h"

#define MS NSEC_PER_MSEC

TEST(test_battery_status_row)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t args[ROW_LEN] = {[EC_IDX_RETVAL] = EC_BATTERY_SELFTEST_ARG15}, out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_BATTERY_STATUS, args, out), 0);
        CHECK_EQ(out[EC_IDX_RETVAL], EC_RETVAL_OK);
        CHECK(out[1] & 0x40); /* battery 0 present */
        CHECK(sim_status(p).idle);
}

TEST(test_mode_and_check)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_row(p, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 1);
        CHECK_EQ(out[EC_IDX_RETVAL], 0);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_CHECK, 0, out), 0);
        CHECK_EQ(out[1], 0x00);
        CHECK_EQ(out[2], 0x60);
        CHECK_EQ(out[3], 0x00);

        SimOptions o = {.mode = 5, .check_t61 = true};
        _cleanup_(port_freep) PortIO *t61 = sim_open_options(&o);
        CHECK_EQ(host_row(t61, EC_CMD_ACCEL_MODE, NULL, out), 0);
        CHECK_EQ(out[EC_MODE_IDX_LATCH], 5);
        CHECK_EQ(host_ext(t61, EC_SUB_ACCEL_CHECK, 0, out), 0);
        CHECK_EQ(out[1], 0x01);
        CHECK_EQ(out[2], 0x00);
        CHECK_EQ(out[3], 0x00);
}

TEST(test_unknown_commands)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_row(p, 0x42, NULL, out), 0); /* the handshake completes ... */
        CHECK(out[EC_IDX_RETVAL] != 0);            /* ... with a nonzero return code */
        CHECK(sim_status(p).idle);
        CHECK(host_ext(p, 0x99, 0, out) > 0);
        CHECK_EQ(host_power(p, 2), EC_RETVAL_OUT_OF_RANGE);
        CHECK(sim_status(p).powered);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_FAKE_DATA, 7, out), EC_RETVAL_OUT_OF_RANGE);
        CHECK(!sim_status(p).fake_data_mode);
}

TEST(test_boot_config_and_get_config)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_GET_CONFIG, 0, out), 0);
        CHECK_EQ(out[EC_GETCFG_IDX_STATUS], EC_GETCFG_POLLING);
        CHECK_EQ(out[EC_GETCFG_IDX_RATE_LO] | out[EC_GETCFG_IDX_RATE_HI] << 8, 250);
        CHECK_EQ(out[EC_GETCFG_IDX_ORDER], 2);
}

TEST(test_configure_pending_window)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        /* 1000 Hz x oversampling 5 with order 8 is accepted. */
        CHECK_EQ(host_configure(p, 5000, 8), EC_RETVAL_OK);
        CHECK(sim_status(p).change_pending);
        CHECK_EQ(sim_status(p).ec_rate, 250); /* not yet */
        CHECK_EQ(host_configure(p, 250, 2), EC_RETVAL_CHANGE_PENDING);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_GET_CONFIG, 0, out), 0);
        CHECK_EQ(out[EC_GETCFG_IDX_STATUS], EC_GETCFG_POLLING | EC_GETCFG_PENDING);

        ec_sim_advance_ns(p, 1 * MS);
        EcSimStatus st = sim_status(p);
        CHECK(!st.change_pending);
        CHECK_EQ(st.ec_rate, 5000);
        CHECK_EQ(st.filter_order, 8);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_GET_CONFIG, 0, out), 0);
        CHECK_EQ(out[EC_GETCFG_IDX_STATUS], EC_GETCFG_POLLING);
        CHECK_EQ(out[EC_GETCFG_IDX_RATE_LO] | out[EC_GETCFG_IDX_RATE_HI] << 8, 5000);
        CHECK_EQ(out[EC_GETCFG_IDX_ORDER], 8);
        /* The window is over: a new change is accepted. */
        CHECK_EQ(host_configure(p, 250, 2), EC_RETVAL_OK);
}

TEST(test_configure_limits)
{
        _cleanup_(port_freep) PortIO *p = sim_open();

        CHECK_EQ(host_configure(p, 250, 0), EC_RETVAL_OUT_OF_RANGE);
        CHECK_EQ(host_configure(p, 250, 9), EC_RETVAL_OUT_OF_RANGE);
        CHECK_EQ(host_configure(p, 10001, 1), EC_RETVAL_OUT_OF_RANGE);
        CHECK_EQ(host_configure(p, 0, 2), EC_RETVAL_OUT_OF_RANGE);
        EcSimStatus st = sim_status(p);
        CHECK(!st.change_pending); /* refused changes change nothing */
        CHECK_EQ(st.ec_rate, 250);
        CHECK_EQ(st.filter_order, 2);
        CHECK_EQ(host_configure(p, 10000, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 1 * MS);
        CHECK_EQ(sim_status(p).ec_rate, 10000);
        CHECK_EQ(host_configure(p, 1, 1), EC_RETVAL_OK);
}

TEST(test_shutdown_config_stops_sampling)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_configure(p, 0, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 1 * MS);
        drain(p);
        uint64_t made = sim_status(p).readouts_made;
        ec_sim_advance_ns(p, 100 * MS);
        CHECK_EQ(sim_status(p).readouts_made, made);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_GET_CONFIG, 0, out), 0);
        CHECK_EQ(out[EC_GETCFG_IDX_STATUS] & EC_GETCFG_POLLING, 0);
}

TEST(test_power_off_stops_sampling)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        ec_sim_advance_ns(p, 20 * MS);
        CHECK(sim_status(p).queue_len > 0);
        CHECK_EQ(host_power(p, 0), EC_RETVAL_OK);
        EcSimStatus st = sim_status(p);
        CHECK(!st.powered);
        CHECK_EQ(st.queue_len, 0);
        ec_sim_advance_ns(p, 100 * MS);
        CHECK_EQ(sim_status(p).readouts_made, st.readouts_made);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0);
        CHECK_EQ(out[EC_READOUT_IDX_QUEUED], 0);
        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_GET_CONFIG, 0, out), 0);
        CHECK_EQ(out[EC_GETCFG_IDX_STATUS] & EC_GETCFG_POLLING, 0);

        CHECK_EQ(host_power(p, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 10 * MS); /* 250 Hz: a sample every 4 ms */
        CHECK_EQ(sim_status(p).readouts_made, st.readouts_made + 2);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
}

/* Oversampling 5 at 50 Hz: the host reads every 20 ms, the EC queues 5 readouts in between. */
TEST(test_fake_data_counter_and_queue)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];
        int last_x1 = 0;

        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_FAKE_DATA, 1, out), 0);
        CHECK(sim_status(p).fake_data_mode);
        drain(p);
        uint64_t t0 = port_now_ns(p), lost0 = sim_status(p).readouts_lost;
        uint64_t superseded0 = sim_status(p).readouts_superseded;

        for (unsigned k = 1; k <= 5; k++) {
                advance_to(p, t0 + k * 20 * MS);
                CHECK_EQ(host_readout(p, out), 0);
                int x1 = s16_at(out, EC_READOUT_IDX_X1);
                CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
                CHECK_EQ(s16_at(out, EC_READOUT_IDX_Y1), x1);
                CHECK_EQ(s16_at(out, EC_READOUT_IDX_X2), x1 - 1);
                CHECK_EQ(s16_at(out, EC_READOUT_IDX_Y2), x1 - 1);
                /* 5 queued per read, the newest 2 delivered, 3 older ones reported and superseded. */
                CHECK_EQ(out[EC_READOUT_IDX_QUEUED], 3);
                if (k > 1)
                        CHECK_EQ(x1 - last_x1, 5);
                last_x1 = x1;
        }
        EcSimStatus st = sim_status(p);
        CHECK_EQ(st.readouts_lost - lost0, 0);
        CHECK_EQ(st.readouts_superseded - superseded0, 5 * 3);
        CHECK_EQ(st.queue_len, 0);

        CHECK_EQ(host_ext(p, EC_SUB_ACCEL_FAKE_DATA, 0, out), 0);
        CHECK(!sim_status(p).fake_data_mode);
}

TEST(test_missed_readout_and_overflow)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_configure(p, 10, 1), EC_RETVAL_OK); /* a sample every 100 ms */
        ec_sim_advance_ns(p, 1 * MS);
        drain(p);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 0); /* empty: the host retries later */

        EcSimStatus st0 = sim_status(p);
        ec_sim_advance_ns(p, 150 * MS);
        CHECK_EQ(sim_status(p).queue_len, 1);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 1);
        CHECK_EQ(out[EC_READOUT_IDX_QUEUED], 0);
        CHECK_EQ(out[EC_READOUT_IDX_TEMP1], 38);

        ec_sim_advance_ns(p, 200 * MS); /* one missed */
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
        CHECK_EQ(out[EC_READOUT_IDX_QUEUED], 0);
        CHECK_EQ(out[EC_READOUT_IDX_TEMP2], 38);

        ec_sim_advance_ns(p, 400 * MS);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
        CHECK_EQ(out[EC_READOUT_IDX_QUEUED], 2);
        EcSimStatus st = sim_status(p);
        CHECK_EQ(st.readouts_made - st0.readouts_made, 1 + 2 + 4);
        CHECK_EQ(st.readouts_lost, st0.readouts_lost);

        CHECK_EQ(st.queue_len, 0); /* the 2 older ones were superseded by the newer pair */
        CHECK_EQ(st.readouts_superseded - st0.readouts_superseded, 2);

        ec_sim_advance_ns(p, 1000 * MS); /* 10 more: the oldest 2 dropped */
        st = sim_status(p);
        CHECK_EQ(st.queue_len, 8);
        CHECK_EQ(st.readouts_lost - st0.readouts_lost, 2);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_QUEUED], 6);
        CHECK_EQ(sim_status(p).readouts_delivered, st0.readouts_delivered + 1 + 2 + 2 + 2);
}

/* A long idle period at a high rate: counted exactly, but only the last samples are computed. */
TEST(test_long_idle_catch_up)
{
        _cleanup_(port_freep) PortIO *p = sim_open();
        uint8_t out[ROW_LEN];

        CHECK_EQ(host_configure(p, 10000, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 1 * MS);
        drain(p);
        EcSimStatus st0 = sim_status(p);
        ec_sim_advance_ns(p, 3600 * NSEC_PER_SEC);
        EcSimStatus st = sim_status(p);
        uint64_t made = st.readouts_made - st0.readouts_made;
        CHECK(made >= 36000000 - 1 && made <= 36000000 + 1);
        CHECK_EQ(st.readouts_lost - st0.readouts_lost, made - 8);
        CHECK_EQ(st.queue_len, 8);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
        /* Demo motion: somewhere near the rest position. */
        CHECK(abs(s16_at(out, EC_READOUT_IDX_X1) + 498) < 60);
        CHECK(abs(s16_at(out, EC_READOUT_IDX_Y1) + 439) < 60);
}

/* Reads every 5 ms at a 100 Hz EC rate, so every sample shows up once as X1, in order. */
static unsigned collect_x(PortIO *p, uint64_t t0, unsigned until_ms, int *xs, unsigned max)
{
        uint8_t out[ROW_LEN];
        unsigned n = 0;

        for (uint64_t t = 5; t <= until_ms; t += 5) {
                advance_to(p, t0 + t * MS);
                if (host_readout(p, out) != 0)
                        return 0;
                if (out[EC_READOUT_IDX_READOUTS] > 1)
                        return 0;
                if (out[EC_READOUT_IDX_READOUTS] == 1 && n < max)
                        xs[n++] = s16_at(out, EC_READOUT_IDX_X1);
        }
        return n;
}

static bool contains_run(const int *xs, unsigned n, const int *run, unsigned len)
{
        for (unsigned i = 0; i + len <= n; i++)
                if (memcmp(xs + i, run, len * sizeof(int)) == 0)
                        return true;
        return false;
}

/* A step from 0 to 800 at 500 ms: order 1 shows it at once, order 4 as a ramp over 4 samples. */
#define STEP_TRACE "time_ms,x,y,keyboard,mouse\n0,0,0,0,0\n500,0,0,0,0\n500.001,800,0,0,0\n"

TEST(test_filter_order)
{
        static const int direct[] = {0, 800, 800}, ramp[] = {0, 200, 400, 600, 800, 800};
        int xs[256];
        unsigned n;

        for (unsigned order = 1; order <= 4; order += 3) {
                _cleanup_(port_freep) PortIO *p = sim_open_trace(STEP_TRACE, false);
                uint64_t t0 = port_now_ns(p);
                CHECK_EQ(host_configure(p, 100, order), EC_RETVAL_OK);
                ec_sim_advance_ns(p, 1 * MS);
                drain(p);
                n = collect_x(p, t0, 800, xs, ELEMENTSOF(xs));
                CHECK(n >= 70);
                if (order == 1) {
                        CHECK(contains_run(xs, n, direct, ELEMENTSOF(direct)));
                        CHECK(!contains_run(xs, n, ramp + 1, 2));
                } else {
                        CHECK(contains_run(xs, n, ramp, ELEMENTSOF(ramp)));
                }
                CHECK_EQ(xs[n - 1], 800);
        }
}

TEST(test_activity_flags)
{
        _cleanup_(port_freep) PortIO *p = sim_open_trace("time_ms,x,y,keyboard,mouse\n"
                                                         "0,0,0,0,0\n"
                                                         "100,0,0,1,0\n"
                                                         "200,0,0,0,0\n"
                                                         "300,0,0,0,1\n"
                                                         "301,0,0,0,0\n",
                                                         false);
        uint64_t t0 = port_now_ns(p);
        uint8_t out[ROW_LEN];

        advance_to(p, t0 + 50 * MS);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_KMACT], 0);
        advance_to(p, t0 + 150 * MS);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_KMACT], EC_KMACT_KEYBOARD);
        advance_to(p, t0 + 250 * MS); /* typing ended at 200, after the last read */
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_KMACT], EC_KMACT_KEYBOARD);
        advance_to(p, t0 + 280 * MS); /* cleared by the read */
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_KMACT], 0);
        advance_to(p, t0 + 400 * MS); /* a 1 ms click between two reads is not lost */
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_KMACT], EC_KMACT_MOUSE);
        advance_to(p, t0 + 500 * MS);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_KMACT], 0);
}

TEST(test_temperature_option)
{
        SimOptions o = {.temperature = 45};
        _cleanup_(port_freep) PortIO *p = sim_open_options(&o);
        uint8_t out[ROW_LEN];

        ec_sim_advance_ns(p, 20 * MS);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(out[EC_READOUT_IDX_READOUTS], 2);
        CHECK_EQ(out[EC_READOUT_IDX_TEMP1], 45);
        CHECK_EQ(out[EC_READOUT_IDX_TEMP2], 45);
}

TEST(test_demo_is_deterministic)
{
        SimOptions a = {.seed = 7}, b = {.seed = 7}, c = {.seed = 8};
        _cleanup_(port_freep) PortIO *pa = sim_open_options(&a);
        _cleanup_(port_freep) PortIO *pb = sim_open_options(&b);
        _cleanup_(port_freep) PortIO *pc = sim_open_options(&c);
        uint8_t oa[ROW_LEN], ob[ROW_LEN], oc[ROW_LEN];
        bool all_same_as_c = true;

        for (unsigned i = 0; i < 50; i++) {
                /* Different access patterns in between: the motion depends on time only. */
                ec_sim_advance_ns(pa, 100 * MS);
                ec_sim_advance_ns(pb, 60 * MS);
                (void) sim_status(pb);
                ec_sim_advance_ns(pb, 40 * MS);
                ec_sim_advance_ns(pc, 100 * MS);
                CHECK_EQ(host_readout(pa, oa), 0);
                CHECK_EQ(host_readout(pb, ob), 0);
                CHECK_EQ(host_readout(pc, oc), 0);
                CHECK(memcmp(oa, ob, ROW_LEN) == 0);
                if (memcmp(oa, oc, ROW_LEN) != 0)
                        all_same_as_c = false;
        }
        CHECK(!all_same_as_c);
}

int main(void)
{
        RUN(test_battery_status_row);
        RUN(test_mode_and_check);
        RUN(test_unknown_commands);
        RUN(test_boot_config_and_get_config);
        RUN(test_configure_pending_window);
        RUN(test_configure_limits);
        RUN(test_shutdown_config_stops_sampling);
        RUN(test_power_off_stops_sampling);
        RUN(test_fake_data_counter_and_queue);
        RUN(test_missed_readout_and_overflow);
        RUN(test_long_idle_catch_up);
        RUN(test_filter_order);
        RUN(test_activity_flags);
        RUN(test_temperature_option);
        RUN(test_demo_is_deterministic);
        return test_summary();
}
