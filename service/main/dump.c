/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <time.h>

#include "dump.h"
#include "log.h"

/* -EBUSY (no new readout yet) is retried this often within a period. */
#define DUMP_BUSY_RETRY_USEC 1000
/* Give up when this many periods pass without a readout. */
#define DUMP_STALL_PERIODS 100

static void sleep_until_usec(uint64_t t)
{
        struct timespec ts = {.tv_sec = t / USEC_PER_SEC, .tv_nsec = (t % USEC_PER_SEC) * NSEC_PER_USEC};

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static int dump_loop(Context *c, unsigned n, FILE *out)
{
        uint64_t period = USEC_PER_SEC / c->config.sampling_rate, next = now_usec(), first_ns = 0;
        unsigned done = 0, stalled = 0;
        int r;

        fprintf(out, "time_ms,x,y,temperature,keyboard,mouse\n");
        while (done < n) {
                HdapsReadout ro;

                sleep_until_usec(next);
                r = backend_poll(c->backend, &ro);
                if (r == -EBUSY) {
                        if (++stalled > DUMP_STALL_PERIODS * (period / DUMP_BUSY_RETRY_USEC + 1))
                                return log_error_errno(
                                        r, "tpacceld: the accelerometer delivers no readouts: %m");
                        next = now_usec() + DUMP_BUSY_RETRY_USEC;
                        continue;
                }
                if (r < 0)
                        return log_error_errno(r, "tpacceld: reading the accelerometer failed: %m");
                stalled = 0;
                if (done == 0)
                        first_ns = ro.time_ns;
                fprintf(out, "%.3f,%d,%d,%d,%d,%d\n", (double) (ro.time_ns - first_ns) / NSEC_PER_MSEC, ro.x,
                        ro.y, ro.temperature, ro.keyboard, ro.mouse);
                done++;
                next += period;
                if (next < now_usec())
                        next = now_usec();
        }
        fflush(out);
        return 0;
}

int dump_readouts(Context *c, unsigned n, FILE *out)
{
        int r, k;

        r = dump_loop(c, n, out);
        k = backend_power_off(c->backend);
        if (k < 0)
                log_warning_errno(k, "Failed to power the accelerometer off: %m");
        else
                log_debug("accelerometer powered off");
        return r;
}
