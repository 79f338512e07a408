/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the trace parser (service/sim/trace.c) and the fault specification parser on
 * arbitrary bytes. Whatever the input: no crash, no leak, and either a trace that keeps the format's
 * promises (rows >= 1, time strictly increasing, values in range, sampling within the rows' bounds)
 * or -EINVAL with a "fuzz:LINE: reason" message and no trace. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ec-sim.h"
#include "trace.h"

#define S16_MIN (-32768)
#define S16_MAX 32767

static void check_trace(const Trace *t)
{
        int min_x = S16_MAX, max_x = S16_MIN, min_y = S16_MAX, max_y = S16_MIN;

        if (!t || t->n_rows == 0 || !t->rows)
                abort();
        for (size_t i = 0; i < t->n_rows; i++) {
                const TraceRow *r = &t->rows[i];
                if (!(r->time_ms >= 0) || r->x < S16_MIN || r->x > S16_MAX || r->y < S16_MIN ||
                    r->y > S16_MAX)
                        abort();
                if (i > 0 && !(r->time_ms > t->rows[i - 1].time_ms))
                        abort();
                min_x = MIN(min_x, r->x);
                max_x = MAX(max_x, r->x);
                min_y = MIN(min_y, r->y);
                max_y = MAX(max_y, r->y);
        }
        double d = trace_duration_ms(t);
        const double probes[] = {-1, 0, d / 3, d / 2, d, d + 1, 1e12, NAN, INFINITY};
        for (size_t i = 0; i < ELEMENTSOF(probes); i++) {
                double x, y;
                bool kb, mouse;
                trace_sample(t, probes[i], &x, &y, &kb, &mouse);
                /* Interpolation never leaves the rows' range. */
                if (!(x >= min_x && x <= max_x && y >= min_y && y <= max_y))
                        abort();
        }
}

static void check_error(int r, const Trace *t, const char *error)
{
        if (r != -EINVAL || t || !error)
                abort();
        if (strncmp(error, "fuzz:", 5) != 0 || !strstr(error + 5, ": "))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_(trace_freep) Trace *t = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        r = trace_parse((const char *) data, size, "fuzz", &t, &error);
        if (r == -ENOMEM)
                return 0;
        if (r == 0) {
                if (error)
                        abort();
                check_trace(t);
        } else
                check_error(r, t, error);

        /* The same bytes as a fault specification (up to the first NUL). */
        if (size < 256) {
                char spec[256];
                SimFault f;
                _cleanup_free_ char *fault_error = NULL;

                memcpy(spec, data, size);
                spec[size] = 0;
                r = sim_fault_parse(spec, &f, &fault_error);
                if (r == 0 &&
                    ((unsigned) f.kind >= _SIM_FAULT_MAX || !(f.probability >= 0 && f.probability <= 1)))
                        abort();
                if (r < 0 && (r != -EINVAL || !fault_error))
                        abort();
        }
        return 0;
}
