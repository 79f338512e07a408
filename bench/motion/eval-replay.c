/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval-labels.h"
#include "eval-replay.h"

#if HAVE_SIM
#include "ec-protocol.h"
#include "ec-sim.h"
#include "ec.h"
#include "hdaps.h"
#include "trace.h"
#endif

typedef struct Row {
        double ms, x, y;
        bool keyboard, mouse;
} Row;

struct Replay {
        bool direct;
        uint64_t t0_usec; /* sample time of trace time 0 */
        uint64_t phase_usec;
        uint64_t period_usec; /* the poll period */
        double duration_ms;
        uint64_t tick;
        double data_ms;
        uint64_t last_poll_end_usec;

        /* direct */
        Row *rows;
        size_t n_rows, pos;

#if HAVE_SIM
        Ec *ec;
        HdapsDevice *dev;
        PortIO *port; /* owned by ec */
#endif
};

Replay *replay_free(Replay *r)
{
        if (!r)
                return NULL;
        free(r->rows);
#if HAVE_SIM
        hdaps_free(r->dev);
        ec_free(r->ec);
#endif
        free(r);
        return NULL;
}

double replay_last_data_ms(const Replay *r)
{
        return r->data_ms;
}

double replay_trace_ms(const Replay *r, uint64_t time_usec)
{
        return (double) (time_usec - r->t0_usec) / USEC_PER_MSEC;
}

/* A minimal reader of the trace CSV for --direct (the emulator has its own, service/sim/trace.c). */
static int read_rows(const char *path, Row **ret, size_t *ret_n, char **ret_error)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        _cleanup_free_ Row *rows = NULL;
        size_t n = 0, cap = 0;
        char line[256];
        unsigned lineno = 0;

        if (!f) {
                int r = -errno;
                if (asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        while (fgets(line, sizeof(line), f)) {
                Row row;
                int kbd, mouse;

                lineno++;
                if (line[0] == '#' || line[0] == '\n' || strncmp(line, "time_ms", 7) == 0)
                        continue;
                if (sscanf(line, "%lf,%lf,%lf,%d,%d", &row.ms, &row.x, &row.y, &kbd, &mouse) != 5 ||
                    (n > 0 && row.ms <= rows[n - 1].ms)) {
                        if (asprintf(ret_error, "%s:%u: malformed row", path, lineno) < 0)
                                *ret_error = NULL;
                        return -EINVAL;
                }
                row.keyboard = kbd;
                row.mouse = mouse;
                if (n == cap) {
                        cap = cap ? 2 * cap : 1024;
                        Row *nr = realloc(rows, cap * sizeof(Row));
                        if (!nr)
                                return -ENOMEM;
                        rows = nr;
                }
                rows[n++] = row;
        }
        if (n == 0) {
                if (asprintf(ret_error, "%s: no rows", path) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        *ret = TAKE_PTR(rows);
        *ret_n = n;
        return 0;
}

int replay_open_direct(const char *trace_path, Replay **ret, char **ret_error)
{
        _cleanup_(replay_freep) Replay *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        int k = read_rows(trace_path, &r->rows, &r->n_rows, ret_error);
        if (k < 0)
                return k;
        r->direct = true;
        r->period_usec = (uint64_t) (EVAL_PERIOD_MS * USEC_PER_MSEC);
        r->duration_ms = r->rows[r->n_rows - 1].ms;
        *ret = TAKE_PTR(r);
        return 0;
}

static int next_direct(Replay *r, MotionSample *s)
{
        double period_ms = (double) r->period_usec / USEC_PER_MSEC;
        double ms = r->tick * period_ms, prev_ms = ms - period_ms;
        if (ms > r->duration_ms)
                return 0;

        bool kbd = false, mouse = false;
        while (r->pos + 1 < r->n_rows && r->rows[r->pos + 1].ms <= ms) {
                r->pos++;
                if (r->rows[r->pos].ms > prev_ms) {
                        kbd |= r->rows[r->pos].keyboard;
                        mouse |= r->rows[r->pos].mouse;
                }
        }
        const Row *a = &r->rows[r->pos], *b = r->pos + 1 < r->n_rows ? a + 1 : a;
        double u = b->ms > a->ms ? (ms - a->ms) / (b->ms - a->ms) : 0;
        *s = (MotionSample) {
                .time_usec = r->tick * r->period_usec,
                .x = (int) lround(a->x + u * (b->x - a->x)),
                .y = (int) lround(a->y + u * (b->y - a->y)),
                .rest_x = (int) lround(r->rows[0].x),
                .rest_y = (int) lround(r->rows[0].y),
                .new_readouts = 1,
                .keyboard = kbd || a->keyboard,
                .mouse = mouse || a->mouse,
        };
        r->tick++;
        r->data_ms = ms;
        return 1;
}

#if HAVE_SIM
int replay_open_pipeline(const char *trace_path, unsigned phase_ms, Replay **ret, char **ret_error)
{
        return replay_open_pipeline_at(trace_path, 1000 / (unsigned) EVAL_PERIOD_MS, phase_ms, ret,
                                       ret_error);
}

int replay_open_pipeline_at(const char *trace_path, unsigned rate_hz, unsigned phase_ms, Replay **ret,
                            char **ret_error)
{
        _cleanup_(replay_freep) Replay *r = calloc(1, sizeof(*r));
        _cleanup_(trace_freep) Trace *trace = NULL;
        _cleanup_(port_freep) PortIO *port = NULL;
        SimOptions o = {.trace_path = trace_path, .virtual_time = true};
        int k;

        if (!r)
                return -ENOMEM;
        k = trace_load(trace_path, &trace, ret_error);
        if (k < 0)
                return k;
        r->duration_ms = trace_duration_ms(trace);

        k = port_open_sim(&o, &port, ret_error);
        if (k < 0)
                return k;
        r->port = port;
        r->t0_usec = port_now_ns(port) / NSEC_PER_USEC;
        assert(rate_hz > 0 && phase_ms < 1000 / rate_hz);
        r->period_usec = USEC_PER_SEC / rate_hz;
        r->phase_usec = phase_ms * USEC_PER_MSEC;
        k = ec_new(TAKE_PTR(port), &r->ec);
        if (k < 0)
                return k;
        k = hdaps_new(r->ec, 0, &r->dev);
        if (k < 0)
                return k;
        HdapsConfig config = HDAPS_CONFIG_DEFAULT;
        config.sampling_rate = rate_hz; /* as the poller sets the EC's rate to the poll rate */
        k = hdaps_init(r->dev, &config);
        if (k < 0) {
                if (asprintf(ret_error, "hdaps_init on the emulator: %s", strerror(-k)) < 0)
                        *ret_error = NULL;
                return k;
        }
        *ret = TAKE_PTR(r);
        return 0;
}

static int next_pipeline(Replay *r, MotionSample *s, char **ret_error)
{
        uint64_t next = r->t0_usec + r->phase_usec + (r->tick + 1) * r->period_usec;
        uint64_t now = port_now_ns(r->port) / NSEC_PER_USEC;

        if (replay_trace_ms(r, next) > r->duration_ms)
                return 0;
        if (next > now)
                ec_sim_advance_ns(r->port, (next - now) * NSEC_PER_USEC);
        r->tick++;

        HdapsReadout ro;
        uint64_t hits = ec_stats(r->ec)->prefetch_hits;
        int k = hdaps_poll(r->dev, &ro);
        bool prefetched = ec_stats(r->ec)->prefetch_hits > hits;
        uint64_t requested_usec = r->last_poll_end_usec;
        r->last_poll_end_usec = port_now_ns(r->port) / NSEC_PER_USEC;
        if (k < 0 && k != -EBUSY) {
                if (asprintf(ret_error, "hdaps_poll at %.0f ms: %s", replay_trace_ms(r, next),
                             strerror(-k)) < 0)
                        *ret_error = NULL;
                return k;
        }
        const HdapsState *st = hdaps_get_state(r->dev);
        if (k == 0)
                r->data_ms = replay_trace_ms(r, prefetched ? requested_usec : ro.time_ns / NSEC_PER_USEC);
        if (!st->valid)
                return next_pipeline(r, s, ret_error); /* nothing read yet: no sample to give */
        *s = (MotionSample) {
                .time_usec = k == 0 ? ro.time_ns / NSEC_PER_USEC : port_now_ns(r->port) / NSEC_PER_USEC,
                .x = st->x,
                .y = st->y,
                .rest_x = st->rest_x,
                .rest_y = st->rest_y,
                .new_readouts = k == 0 ? ro.readouts : 0, /* -EBUSY: a repeat of the cached readout */
                .keyboard = k == 0 && ro.keyboard,
                .mouse = k == 0 && ro.mouse,
        };
        return 1;
}
#else
int replay_open_pipeline(const char *trace_path, unsigned phase_ms, Replay **ret, char **ret_error)
{
        return replay_open_pipeline_at(trace_path, 1000 / (unsigned) EVAL_PERIOD_MS, phase_ms, ret,
                                       ret_error);
}

int replay_open_pipeline_at(const char *trace_path, unsigned rate_hz, unsigned phase_ms, Replay **ret,
                            char **ret_error)
{
        if (asprintf(ret_error, "this build has no EC emulator (service/sim); use --direct") < 0)
                *ret_error = NULL;
        return -EOPNOTSUPP;
}
#endif

int replay_next(Replay *r, MotionSample *ret, char **ret_error)
{
#if HAVE_SIM
        if (!r->direct)
                return next_pipeline(r, ret, ret_error);
#endif
        return next_direct(r, ret);
}
