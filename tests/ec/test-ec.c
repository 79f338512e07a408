/* SPDX-License-Identifier: GPL-2.0-or-later */
/* EC transport edge cases against a scripted port: the handshake as the 2006 patch series defines it. */
#include <errno.h>
#include <stdlib.h>

#include "ec.h"
#include "mock-port.h"
#include "test-helpers.h"

#define IDLE  0x00
#define MWMF  H8S_STR3_MWMF
#define SWMF  H8S_STR3_SWMF
#define BUSY  (H8S_STR3_IBF3B | H8S_STR3_MWMF)
#define READY (H8S_STR3_OBF3B | H8S_STR3_SWMF)

static Ec *new_ec(MockPort **ret_mock)
{
        MockPort *m = mock_port_new();
        Ec *ec;
        if (ec_new(&m->base, &ec) < 0)
                abort();
        *ret_mock = m;
        return ec;
}

static const EcRow row_0x11 = {.mask = EC_ROW_MASK_ARG0, .val = {[0] = 0x11}};

TEST(test_bad_mask_touches_nothing)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow args = {.mask = 0x0002, .val = {0x11, 0x22}}, data = {.mask = 0};

        CHECK_EQ(ec_read_row(ec, &args, &data), -EINVAL);
        CHECK_EQ(ec_prefetch_row(ec, &args), -EINVAL);
        CHECK_EQ(m->n_log, 0);
}

TEST(test_request_writes_masked_registers_and_default_twr15)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow args = {.mask = 0x000B, .val = {0x10, 0xFA, 0x00, 0x02, 0x77}};
        EcRow data = {.mask = 0x0002};
        /* idle, MWMF after TWR0, SWMF after TWR15, then data ready for the read. */
        mock_port_script(m, 5, (uint8_t[]) {IDLE, MWMF, SWMF, READY, IDLE});
        m->twr[1] = 0x42;
        m->twr[15] = 0x00;

        CHECK_EQ(ec_read_row(ec, &args, &data), 0);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0), 1);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0 + 1), 1);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0 + 2), 0); /* bit 2 clear */
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0 + 3), 1);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0 + 4), 0);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR15), 1);
        /* TWR15 defaults to 0x01 when mask bit 15 is clear. */
        for (unsigned i = 0; i < m->n_log; i++)
                if (m->log[i].write && m->log[i].port == EC_PORT_TWR15)
                        CHECK_EQ(m->log[i].value, EC_ROW_ARG15_DEFAULT);
        CHECK_EQ(data.val[1], 0x42);
        CHECK_EQ(data.val[15], 0x00);
        CHECK_EQ(m->outside_row, 0);
}

TEST(test_pending_reply_is_ended_and_retried)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        /* A stale reply pending (OBF3B): the transport reads TWR15 to end it, then retries. */
        mock_port_script(m, 6, (uint8_t[]) {READY, IDLE, MWMF, SWMF, READY, IDLE});

        CHECK_EQ(ec_read_row(ec, &row_0x11, &data), 0);
        CHECK_EQ(mock_port_count(m, false, EC_PORT_TWR15), 2); /* the stale ending + the real read */
        CHECK_EQ(ec_stats(ec)->busy_retries, 1);
}

TEST(test_arg0_rejected_is_eio)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        /* What Ivy Bridge and later report: STR3 does not go to MWMF after TWR0. */
        mock_port_script(m, 2, (uint8_t[]) {IDLE, IDLE});

        CHECK_EQ(ec_read_row(ec, &row_0x11, &data), -EIO);
        CHECK_EQ(ec_last_str3(ec), 0x00);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR15), 0); /* nothing more was sent */
}

TEST(test_silent_ec_gives_up_within_budget_and_leaves_it_alone)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        mock_port_script(m, 3, (uint8_t[]) {IDLE, MWMF, BUSY});
        uint64_t t0 = m->now_ns;

        CHECK_EQ(ec_read_row(ec, &row_0x11, &data), -EIO);
        CHECK_EQ(ec_last_str3(ec), BUSY);
        /* EC_REQUEST_RETRIES polls, and no TWR15 read: the 2006 patch series reads TWR15 only
         * with OBF3B set. */
        CHECK_EQ(mock_port_count(m, false, EC_PORT_STR3), 2 + EC_REQUEST_RETRIES);
        CHECK_EQ(mock_port_count(m, false, EC_PORT_TWR15), 0);
        CHECK(m->now_ns - t0 < 10 * NSEC_PER_MSEC);
}

TEST(test_bad_initial_status_is_eio_without_touching_the_ec)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        mock_port_script(m, 1, (uint8_t[]) {BUSY});

        CHECK_EQ(ec_read_row(ec, &row_0x11, &data), -EIO);
        /* One STR3 read, nothing else: no TWR0 write, no TWR15 read. */
        CHECK_EQ(m->n_log, 1);
        CHECK_EQ(mock_port_count(m, false, EC_PORT_STR3), 1);
}

TEST(test_read_busy_set_is_exactly_the_seeds)
{
        /* Before a read, STR3 0xA0, 0x00 and 0x10 mean "not ready" (-EBUSY, retried); 0x20 and 0x80 are
         * not in the 2006 patch series' list (tp_smapi 0.43 keeps it) and are errors. */
        static const struct {
                uint8_t str3;
                int expect;
        } cases[] = {{BUSY, -EBUSY}, {IDLE, -EBUSY}, {SWMF, -EBUSY}, {MWMF, -EIO}, {H8S_STR3_IBF3B, -EIO}};
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                MockPort *m;
                _cleanup_(ec_freep) Ec *ec = new_ec(&m);
                EcRow data = {.mask = 0};
                mock_port_script(m, 4, (uint8_t[]) {IDLE, MWMF, SWMF, cases[i].str3});
                CHECK_EQ(ec_read_row(ec, &row_0x11, &data), cases[i].expect);
                /* A read that never started leaves the EC alone: no TWR0 or TWR15 read. */
                CHECK_EQ(mock_port_count(m, false, EC_PORT_TWR0), 0);
                CHECK_EQ(mock_port_count(m, false, EC_PORT_TWR15), 0);
                if (cases[i].expect == -EBUSY)
                        CHECK_EQ(ec_stats(ec)->busy_retries, EC_READ_RETRIES);
        }
}

TEST(test_bad_end_status_is_eio)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        mock_port_script(m, 3, (uint8_t[]) {IDLE, MWMF, 0x40 /* OBF3B without SWMF */});

        CHECK_EQ(ec_read_row(ec, &row_0x11, &data), -EIO);
        CHECK_EQ(ec_last_str3(ec), 0x40);
}

TEST(test_busy_ec_returns_ebusy_and_is_left_alone)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        /* Request accepted (SWMF), but the reply never becomes ready. */
        mock_port_script(m, 3, (uint8_t[]) {IDLE, MWMF, SWMF});

        CHECK_EQ(ec_read_row(ec, &row_0x11, &data), -EBUSY);
        CHECK_EQ(mock_port_count(m, false, EC_PORT_TWR15), 0); /* no abort: the 2006 patch series has none */
        CHECK_EQ(ec_stats(ec)->busy_retries, EC_READ_RETRIES);
}

TEST(test_prefetch_then_try_read)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0x0002};

        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -ENODATA);

        mock_port_script(m, 5, (uint8_t[]) {IDLE, MWMF, SWMF, READY, IDLE});
        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);
        /* A different row is not the prefetched one. */
        EcRow other = {.mask = EC_ROW_MASK_ARG0, .val = {0x13}};
        CHECK_EQ(ec_try_read_row(ec, &other, &data), -ENODATA);

        mock_port_clear_log(m);
        m->twr[1] = 7;
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), 0);
        CHECK_EQ(data.val[1], 7);
        /* try_read is the steady poll path: no request, just STR3 + TWR0 + masked bytes + TWR15 + STR3
         * (the 2006 patch series checks OBF3B after every read). */
        CHECK_EQ(m->n_log, 5);
        CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0), 0);

        /* Eaten: a second try_read has nothing prefetched. */
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -ENODATA);
}

TEST(test_try_read_not_ready_keeps_prefetch)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        mock_port_script(m, 6, (uint8_t[]) {IDLE, MWMF, SWMF, SWMF, READY, IDLE});

        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -EBUSY);
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), 0);
}

TEST(test_prefetch_expires_after_100ms)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        mock_port_script(m, 3, (uint8_t[]) {IDLE, MWMF, SWMF});

        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);
        m->now_ns += EC_PREFETCH_VALID_NS;
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -ENODATA);
}

TEST(test_invalidate_forgets_prefetch)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0};
        mock_port_script(m, 3, (uint8_t[]) {IDLE, MWMF, SWMF});

        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);
        ec_invalidate(ec);
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -ENODATA);
}

TEST(test_describe)
{
        char buf[16];
        EcRow a = {.mask = EC_ROW_MASK_ARG0, .val = {0x11}};
        CHECK_STREQ(ec_row_describe(&a, buf), "(0x11:0x01)");
        EcRow b = {.mask = EC_ROW_MASK_ARG0 | EC_ROW_MASK_ARG15, .val = {[0] = 0x01, [15] = 0x00}};
        CHECK_STREQ(ec_row_describe(&b, buf), "(0x01:0x00)");
}

int main(void)
{
        RUN(test_bad_mask_touches_nothing);
        RUN(test_request_writes_masked_registers_and_default_twr15);
        RUN(test_pending_reply_is_ended_and_retried);
        RUN(test_arg0_rejected_is_eio);
        RUN(test_silent_ec_gives_up_within_budget_and_leaves_it_alone);
        RUN(test_bad_initial_status_is_eio_without_touching_the_ec);
        RUN(test_read_busy_set_is_exactly_the_seeds);
        RUN(test_bad_end_status_is_eio);
        RUN(test_busy_ec_returns_ebusy_and_is_left_alone);
        RUN(test_prefetch_then_try_read);
        RUN(test_try_read_not_ready_keeps_prefetch);
        RUN(test_prefetch_expires_after_100ms);
        RUN(test_invalidate_forgets_prefetch);
        RUN(test_describe);
        return test_summary();
}
