/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replay: a trace played through the emulator (filter order 1, host reads at 50 Hz through the port
 * protocol) comes back as the trace's values at the EC's sample times: each readout lies within the
 * trace's range over the last EC period before the read (plus rounding). Looping restarts the trace;
 * without looping the last row holds. */
#include <math.h>

#include "test-sim-host.h"

#define MS         NSEC_PER_MSEC
#define EC_RATE    250 /* 50 Hz x oversampling 5 */
#define READ_EVERY (20 * MS)

/* Range of the trace's x and y (as the emulator maps time: looping or not) over [from, to] ns. */
static void trace_range(const Trace *t, bool loop, uint64_t from, uint64_t to, double *min_x, double *max_x,
                        double *min_y, double *max_y)
{
        *min_x = *min_y = INFINITY;
        *max_x = *max_y = -INFINITY;
        for (uint64_t ns = from; ns <= to; ns += 50 * NSEC_PER_USEC) {
                double ms = (double) ns / 1e6, x, y;
                if (loop)
                        ms = fmod(ms, trace_duration_ms(t));
                trace_sample(t, ms, &x, &y, NULL, NULL);
                *min_x = fmin(*min_x, x);
                *max_x = fmax(*max_x, x);
                *min_y = fmin(*min_y, y);
                *max_y = fmax(*max_y, y);
        }
}

/* Plays text through the emulator for duration_ms; returns the number of readouts checked. */
static unsigned replay(const char *text, bool loop, unsigned duration_ms, double *ret_max_dev)
{
        _cleanup_(trace_freep) Trace *t = NULL;
        char *error = NULL;
        unsigned checked = 0;
        double max_dev = 0;
        uint8_t out[ROW_LEN];

        CHECK_EQ(trace_parse(text, strlen(text), "replay", &t, &error), 0);
        free(error);
        if (!t) {
                *ret_max_dev = INFINITY; /* nothing measured: no bound holds */
                return 0;
        }

        _cleanup_(port_freep) PortIO *p = sim_open_trace(text, loop);
        uint64_t t0 = port_now_ns(p);
        CHECK_EQ(host_configure(p, EC_RATE, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 2 * MS);
        drain(p);

        for (uint64_t at = READ_EVERY; at <= (uint64_t) duration_ms * MS; at += READ_EVERY) {
                advance_to(p, t0 + at);
                uint64_t before = port_now_ns(p) - t0;
                CHECK_EQ(host_readout(p, out), 0);
                uint64_t after = port_now_ns(p) - t0;
                CHECK(out[EC_READOUT_IDX_READOUTS] >= 1);
                if (out[EC_READOUT_IDX_READOUTS] < 1)
                        continue;
                /* The newest sample was taken within one EC period before the reply was made. */
                uint64_t from = before > NSEC_PER_SEC / EC_RATE ? before - NSEC_PER_SEC / EC_RATE : 0;
                double min_x, max_x, min_y, max_y;
                trace_range(t, loop, from, after, &min_x, &max_x, &min_y, &max_y);
                int x = s16_at(out, EC_READOUT_IDX_X1), y = s16_at(out, EC_READOUT_IDX_Y1);
                bool ok = x >= min_x - 0.5 && x <= max_x + 0.5 && y >= min_y - 0.5 && y <= max_y + 0.5;
                CHECK(ok);
                if (!ok)
                        fprintf(stderr, "  at %.3f ms: (%d, %d) not in x %.2f..%.2f, y %.2f..%.2f\n",
                                (double) before / 1e6, x, y, min_x, max_x, min_y, max_y);
                max_dev = fmax(max_dev, fmax(max_x - min_x, max_y - min_y));
                checked++;
        }
        *ret_max_dev = max_dev;
        return checked;
}

static char *sine_trace(unsigned rows, double step_ms, double amplitude)
{
        size_t size = 64 + rows * 48, n = 0;
        char *text = malloc(size);
        n += (size_t) snprintf(text + n, size - n, "time_ms,x,y,keyboard,mouse\n");
        for (unsigned i = 0; i < rows; i++) {
                double ms = i * step_ms;
                n += (size_t) snprintf(text + n, size - n, "%g,%d,%d,0,0\n", ms,
                                       (int) lround(-498 + amplitude * sin(2 * M_PI * ms / 700)),
                                       (int) lround(-439 + amplitude * cos(2 * M_PI * ms / 1100)));
        }
        return text;
}

TEST(test_replay_sine)
{
        _cleanup_free_ char *text = sine_trace(301, 10, 40); /* 3 s */
        double dev;

        unsigned n = replay(text, false, 2900, &dev);
        CHECK(n >= 140);
        /* The window is tight: within one EC period the trace moves a few counts at most. */
        CHECK(dev < 3);
}

TEST(test_replay_loop_and_hold)
{
        _cleanup_free_ char *text = sine_trace(101, 10, 40); /* 1 s */
        double dev;

        /* Looping: three passes, each readout still matches the (wrapped) trace. */
        CHECK(replay(text, true, 3000, &dev) >= 140);

        /* Holding: after the last row the value stays. */
        _cleanup_(port_freep) PortIO *p = sim_open_trace(text, false);
        uint8_t out[ROW_LEN];
        CHECK_EQ(host_configure(p, EC_RATE, 1), EC_RETVAL_OK);
        ec_sim_advance_ns(p, 5 * NSEC_PER_SEC);
        CHECK_EQ(host_readout(p, out), 0);
        CHECK_EQ(s16_at(out, EC_READOUT_IDX_X1), (int) lround(-498 + 40 * sin(2 * M_PI * 1000 / 700)));
        CHECK_EQ(s16_at(out, EC_READOUT_IDX_Y1), (int) lround(-439 + 40 * cos(2 * M_PI * 1000 / 1100)));
        CHECK_EQ(s16_at(out, EC_READOUT_IDX_X2), s16_at(out, EC_READOUT_IDX_X1));
        /* The raw layout, written from the sources rather than the protocol table: Y1 at 2, X1 at 4,
         * the older readout Y2 at 7 and X2 at 9 (mainline: YVAR 0x1617, XVAR 0x1619). */
        CHECK_EQ(s16_at(out, 0x2), (int) lround(-439 + 40 * cos(2 * M_PI * 1000 / 1100)));
        CHECK_EQ(s16_at(out, 0x4), (int) lround(-498 + 40 * sin(2 * M_PI * 1000 / 700)));
        CHECK_EQ(s16_at(out, 0x7), s16_at(out, 0x2));
        CHECK_EQ(s16_at(out, 0x9), s16_at(out, 0x4));
}

/* A shipped scenario trace, if present, replays too. */
TEST(test_replay_shipped_trace)
{
        const char *srcdir = getenv("TOP_SRCDIR");
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ char *text = NULL;
        double dev;

        CHECK(srcdir != NULL);
        if (!srcdir || asprintf(&path, "%s/tests/traces/slow-tilt.csv", srcdir) < 0)
                return;
        FILE *f = fopen(path, "re");
        if (!f) {
                fprintf(stderr, "  %s missing: only the synthetic replays ran\n", path);
                return;
        }
        text = calloc(1, 4 << 20);
        size_t n = fread(text, 1, (4 << 20) - 1, f);
        fclose(f);
        CHECK(n > 0);
        CHECK(replay(text, false, 5000, &dev) >= 240);
}

int main(void)
{
        RUN(test_replay_sine);
        RUN(test_replay_loop_and_hold);
        RUN(test_replay_shipped_trace);
        return test_summary();
}
