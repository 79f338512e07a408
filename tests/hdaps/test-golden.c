/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Golden sequences: each transaction kind's exact port accesses against the hand-written sequences in
 * docs/PROTOCOL.md ("Golden sequences"), which are read from that file. A replaying port answers every
 * read with the block's next "in" value; the accesses the transport makes (and the delays it asks for)
 * must equal the block line by line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec.h"
#include "hdaps.h"
#include "log.h"
#include "mock-port.h"
#include "test-helpers.h"

#define GOLDEN_MAX 256

typedef struct Golden {
        MockAccess access[GOLDEN_MAX];
        bool is_read[GOLDEN_MAX];
        unsigned n;
        uint8_t in_values[GOLDEN_MAX];
        unsigned n_in;
} Golden;

static char *protocol_text;

static void load_protocol(void)
{
        const char *srcdir = getenv("TOP_SRCDIR");
        char path[4096];
        FILE *f;
        long size;

        if (!srcdir) {
                fprintf(stderr, "TOP_SRCDIR is not set (run through meson test)\n");
                exit(EXIT_FAILURE);
        }
        snprintf(path, sizeof(path), "%s/docs/PROTOCOL.md", srcdir);
        f = fopen(path, "re");
        if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
                perror(path);
                exit(EXIT_FAILURE);
        }
        protocol_text = calloc(1, (size_t) size + 1);
        if (!protocol_text || fread(protocol_text, 1, (size_t) size, f) != (size_t) size) {
                perror(path);
                exit(EXIT_FAILURE);
        }
        fclose(f);
}

/* Parses the block "```golden NAME" of PROTOCOL.md. Exits on a malformed block: the file is the
 * reference and must say exactly one thing. */
static void golden_load(const char *name, Golden *g)
{
        char header[64];
        const char *p, *end;

        *g = (Golden) {};
        snprintf(header, sizeof(header), "```golden %s\n", name);
        p = strstr(protocol_text, header);
        if (!p) {
                fprintf(stderr, "docs/PROTOCOL.md has no golden block '%s'\n", name);
                exit(EXIT_FAILURE);
        }
        p += strlen(header);
        end = strstr(p, "```");
        while (p && p < end) {
                const char *eol = strchr(p, '\n');
                char line[128] = "", dir[8] = "";
                unsigned port = 0, value = 0;
                unsigned long long ns = 0;
                size_t len = (size_t) (eol - p);

                memcpy(line, p, MIN(len, sizeof(line) - 1));
                char *hash = strchr(line, '#');
                if (hash)
                        *hash = 0;
                p = eol + 1;
                if (sscanf(line, "%7s", dir) != 1)
                        continue;
                if (g->n >= GOLDEN_MAX)
                        abort();
                if (strcmp(dir, "delay") == 0 && sscanf(line, "%*s %llu", &ns) == 1)
                        g->access[g->n++] = (MockAccess) {.delay_ns = ns};
                else if ((strcmp(dir, "in") == 0 || strcmp(dir, "out") == 0) &&
                         sscanf(line, "%*s %x %x", &port, &value) == 2) {
                        bool in = strcmp(dir, "in") == 0;
                        g->is_read[g->n] = in;
                        g->access[g->n++] = (MockAccess) {.write = !in, .port = port, .value = value};
                        if (in)
                                g->in_values[g->n_in++] = value;
                } else {
                        fprintf(stderr, "golden block '%s': bad line '%s'\n", name, line);
                        exit(EXIT_FAILURE);
                }
        }
}

static void format_access(const MockAccess *a, char *buf, size_t size)
{
        if (a->delay_ns)
                snprintf(buf, size, "delay %llu", (unsigned long long) a->delay_ns);
        else
                snprintf(buf, size, "%-3s 0x%04x 0x%02x", a->write ? "out" : "in", a->port, a->value);
}

/* The recorded accesses equal the golden block, line by line. */
static void check_sequence(const char *name, const MockPort *m, const Golden *g)
{
        unsigned n = MAX(m->n_log, g->n);
        bool same = m->n_log == g->n;

        for (unsigned i = 0; i < m->n_log && i < g->n; i++) {
                const MockAccess *a = &m->log[i], *b = &g->access[i];
                if (a->write != b->write || a->port != b->port || a->value != b->value ||
                    a->delay_ns != b->delay_ns)
                        same = false;
        }
        CHECK(same);
        if (same)
                return;
        fprintf(stderr, "  %s: recorded vs docs/PROTOCOL.md:\n", name);
        for (unsigned i = 0; i < n; i++) {
                char got[40] = "(none)", want[40] = "(none)";
                if (i < m->n_log)
                        format_access(&m->log[i], got, sizeof(got));
                if (i < g->n)
                        format_access(&g->access[i], want, sizeof(want));
                fprintf(stderr, "  %3u %-24s %-24s%s\n", i, got, want, strcmp(got, want) ? " <--" : "");
        }
}

static Ec *new_ec(MockPort **ret)
{
        MockPort *m = mock_port_new();
        Ec *ec;

        if (ec_new(&m->base, &ec) < 0)
                abort();
        *ret = m;
        return ec;
}

static void replay(MockPort *m, const Golden *g)
{
        mock_port_clear_log(m);
        mock_port_replay(m, g->n_in, g->in_values);
}

static const EcRow row_0x11 = {.mask = EC_ROW_MASK_ARG0, .val = {[0] = EC_CMD_ACCEL_READOUT}};

TEST(test_golden_request)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        Golden g;

        golden_load("request", &g);
        replay(m, &g);
        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);
        check_sequence("request", m, &g);

        golden_load("request-stale", &g);
        replay(m, &g);
        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), -EBUSY);
        check_sequence("request-stale", m, &g);
}

TEST(test_golden_read)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        const EcRow self_test = {.mask = EC_ROW_MASK_ARG0 | EC_ROW_MASK_ARG15,
                                 .val = {[0] = EC_CMD_BATTERY_STATUS, [0xF] = EC_BATTERY_SELFTEST_ARG15}};
        EcRow data = {.mask = 0};
        Golden g;

        golden_load("read", &g);
        replay(m, &g);
        CHECK_EQ(ec_read_row(ec, &self_test, &data), 0);
        check_sequence("read", m, &g);
}

TEST(test_golden_try_read)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        EcRow data = {.mask = 0x0002};
        Golden g;

        /* Not prefetched: no access at all. */
        mock_port_replay(m, 0, NULL);
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -ENODATA);
        CHECK_EQ(m->n_log, 0);

        golden_load("request", &g);
        replay(m, &g);
        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);

        golden_load("try-read-miss", &g);
        replay(m, &g);
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), -EBUSY);
        check_sequence("try-read-miss", m, &g);

        golden_load("try-read-hit", &g);
        replay(m, &g);
        CHECK_EQ(ec_try_read_row(ec, &row_0x11, &data), 0);
        check_sequence("try-read-hit", m, &g);
        CHECK_EQ(data.val[1], 0x02);
}

/* A poll tick reads only what READOUTS says is there: 16 accesses with one readout. */
TEST(test_golden_poll)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        _cleanup_(hdaps_freep) HdapsDevice *d = NULL;
        HdapsReadout ro;
        Golden g;

        CHECK_EQ(hdaps_new(ec, 0, &d), 0);

        golden_load("request", &g);
        replay(m, &g);
        CHECK_EQ(ec_prefetch_row(ec, &row_0x11), 0);
        golden_load("poll-one-readout", &g);
        replay(m, &g);
        CHECK_EQ(hdaps_poll(d, &ro), 0);
        check_sequence("poll-one-readout", m, &g);
        CHECK_EQ(m->n_log, 16u);
        CHECK_EQ(ro.readouts, 1u);
        CHECK_EQ(ro.x, 120);
        CHECK_EQ(ro.y, -40);
        CHECK_EQ(ro.temperature, 38);
        CHECK_EQ(ro.queued, 0u);

        /* The tick's prefetch is the next tick's reply. */
        golden_load("poll-two-readouts", &g);
        replay(m, &g);
        CHECK_EQ(hdaps_poll(d, &ro), 0);
        check_sequence("poll-two-readouts", m, &g);
        CHECK_EQ(m->n_log, 21u);
        CHECK_EQ(ro.readouts, 2u);
        CHECK_EQ(ro.missed_x, 119);
        CHECK_EQ(ro.missed_y, -41);
        CHECK_EQ(ro.queued, 3u);
        CHECK(ro.keyboard);
        CHECK_EQ(hdaps_get_state(d)->n_readouts, 3u);
}

TEST(test_golden_init)
{
        MockPort *m;
        _cleanup_(ec_freep) Ec *ec = new_ec(&m);
        _cleanup_(hdaps_freep) HdapsDevice *d = NULL;
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        Golden g;

        CHECK_EQ(hdaps_new(ec, 0, &d), 0);
        golden_load("init", &g);
        replay(m, &g);
        CHECK_EQ(hdaps_init(d, &c), 0);
        check_sequence("init", m, &g);
        CHECK_EQ(hdaps_get_state(d)->mode, 1);
}

/* Departures from the init block, on the same replay: the in values are the block's, changed. */
TEST(test_init_departures)
{
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        Golden g;

        golden_load("init", &g);

        /* The initial prefetch fails (arg0 rejected: STR3 stays 0x00 after TWR0): init fails (the 2006 patch
         * series ABORT_INIT("initial prefetch failed"), tp_smapi 0.43 FAILED_INIT). */
        {
                MockPort *m;
                _cleanup_(ec_freep) Ec *ec = new_ec(&m);
                _cleanup_(hdaps_freep) HdapsDevice *d = NULL;
                uint8_t in[GOLDEN_MAX];

                /* ... and since init had sent 0x14 1, it sends 0x14 0 before it returns (tp_smapi
                 * 0.43 leaves the accelerometer on until module unload): idle, MWMF, SWMF, ready, TWR0,
                 * RETVAL 0, idle. */
                static const uint8_t power_off[] = {0x00, 0x20, 0x10, 0x50, 0x14, 0x00, 0x00};
                unsigned n = g.n_in - 1;

                memcpy(in, g.in_values, g.n_in);
                in[g.n_in - 2] = 0x00; /* the prefetch's MWMF */
                memcpy(in + n, power_off, sizeof(power_off));
                CHECK_EQ(hdaps_new(ec, 0, &d), 0);
                mock_port_replay(m, n + sizeof(power_off), in);
                CHECK_EQ(hdaps_init(d, &c), -EIO);
                CHECK_EQ(m->in_pos, m->in_len);                      /* the whole power-off was read */
                CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0), 6); /* 13 17 14 10 11, then 14 */
                bool off = false;
                for (unsigned i = 1; i < m->n_log; i++)
                        if (m->log[i - 1].write && m->log[i - 1].port == EC_PORT_TWR0 &&
                            m->log[i - 1].value == 0x14 && i + 1 < m->n_log && m->log[i + 1].write &&
                            m->log[i + 1].port == EC_PORT_TWR0 + 1 && m->log[i + 1].value == 0x00)
                                off = true;
                CHECK(off);
        }

        /* Fake data wanted and refused (RETVAL 0x01 to 0x17/0x83): init goes on with real data. */
        {
                MockPort *m;
                _cleanup_(ec_freep) Ec *ec = new_ec(&m);
                _cleanup_(hdaps_freep) HdapsDevice *d = NULL;
                static const uint8_t fake_refused[] = {0x00, 0x20, 0x10, 0x50, 0x17, 0x01, 0x00};
                uint8_t in[GOLDEN_MAX];
                unsigned n = g.n_in - 3; /* everything before the prefetch */

                memcpy(in, g.in_values, n);
                memcpy(in + n, fake_refused, sizeof(fake_refused));
                memcpy(in + n + sizeof(fake_refused), g.in_values + n, 3);
                CHECK_EQ(hdaps_new(ec, 0, &d), 0);
                mock_port_replay(m, g.n_in + sizeof(fake_refused), in);
                c.fake_data_mode = true;
                CHECK_EQ(hdaps_init(d, &c), 0);
                CHECK(!hdaps_get_config(d)->fake_data_mode);
                CHECK_EQ(m->in_pos, m->in_len); /* the whole script was used: the prefetch came after */
                CHECK_EQ(mock_port_count(m, true, EC_PORT_TWR0 + 1), 4); /* 0x81, 0x01 (power), 0xfa, 0x83 */
        }
}

int main(void)
{
        log_set_max_level(LOG_DEBUG);
        load_protocol();
        RUN(test_golden_request);
        RUN(test_golden_read);
        RUN(test_golden_try_read);
        RUN(test_golden_poll);
        RUN(test_golden_init);
        RUN(test_init_departures);
        free(protocol_text);
        return test_summary();
}
