/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <time.h>

#include <string.h>

#include "device.h"
#include "dump.h"
#include "log.h"
#include "time-util.h"

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

static int dump_loop(Backend *b, unsigned rate, unsigned n, FILE *out)
{
        uint64_t period = USEC_PER_SEC / rate, next = now_usec(), first_ns = 0;
        unsigned done = 0, stalled = 0, failed = 0;
        int r, last_error = 0;

        fprintf(out, "time_ms,x,y,temperature,keyboard,mouse\n");
        while (done < n) {
                HdapsReadout ro;

                sleep_until_usec(next);
                r = backend_poll(b, &ro);
                if (r < 0) {
                        /* A fault eats this readout; the next transaction starts from an idle EC. Give up
                         * only when readouts stop altogether. */
                        if (++stalled > DUMP_STALL_PERIODS * (period / DUMP_BUSY_RETRY_USEC + 1))
                                return log_error_errno(
                                        r, "tpacceld: the accelerometer delivers no readouts: %m");
                        if (r != -EBUSY) {
                                failed++;
                                if (r != last_error)
                                        log_warning_errno(r, "tpacceld: a readout failed, skipping it: %m");
                                last_error = r;
                        }
                        next = now_usec() + (r == -EBUSY ? DUMP_BUSY_RETRY_USEC : period);
                        continue;
                }
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
        if (failed > 0)
                log_info("tpacceld: %u readouts, %u failed transactions skipped", done, failed);
        return 0;
}

int dump_readouts(Backend *b, const char *reason, const char *state_path, unsigned n, FILE *out)
{
        StateConfig config;
        int r;

        state_config_init(&config);
        if (state_path)
                device_load_config(state_path, &config);
        r = device_setup(b, &config);
        if (r < 0) {
                log_error_errno(r,
                                "tpacceld: no accelerometer: %s, but initializing the accelerometer "
                                "failed: %s%s%m",
                                reason ?: "", b->init_failure ?: "", b->init_failure ? ": " : "");
                device_power_off(b, false);
                state_config_done(&config);
                return r;
        }
        if (b->init_note)
                log_warning("%s: %s", backend_name(b), b->init_note);
        log_info("Accelerometer ready: backend %s, %u Hz, oversampling %u, filter order %u", backend_name(b),
                 config.sampling_rate, config.oversampling_ratio, config.filter_order);
        r = dump_loop(b, config.sampling_rate, n, out);
        device_power_off(b, true); /* the daemon's one way out */
        state_config_done(&config);
        return r;
}
