/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The steady poll path on the emulator: port operations and CPU time per sample at 50, 200 and
 * 1000 Hz, port operations per readout with one and with two readouts per reply next to tp_smapi
 * 0.43's figure, and whether 1000 Hz is sustained in real time with no readout lost. Prints one figure a
 * line as "name: value unit". Not a test: it asserts nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec-sim.h"
#include "ec.h"
#include "hdaps.h"
#include "log.h"

#define WARMUP_TICKS 3

static uint64_t cpu_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

typedef struct Device {
        Ec *ec;
        HdapsDevice *hdaps;
} Device;

static int device_open(bool virtual_time, unsigned rate, Device *ret)
{
        SimOptions o = {.virtual_time = virtual_time, .seed = 1};
        PortIO *port;
        _cleanup_free_ char *err = NULL;
        int r = port_open_sim(&o, &port, &err);
        if (r < 0) {
                fprintf(stderr, "emulator: %s\n", err ? err : "failed");
                return r;
        }
        r = ec_new(port, &ret->ec);
        if (r < 0)
                return r;
        r = hdaps_new(ret->ec, 0, &ret->hdaps);
        if (r < 0)
                return r;
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        c.sampling_rate = rate;
        return hdaps_init(ret->hdaps, &c);
}

static void device_close(Device *d)
{
        hdaps_free(d->hdaps);
        ec_free(d->ec);
}

/* Virtual time: the emulator's clock moves only by the poll period, so the figures are the poll path's
 * own cost, with nothing else on the machine counted. */
static int bench_virtual(unsigned rate, unsigned seconds)
{
        Device d;
        int r = device_open(true, rate, &d);
        if (r < 0)
                return r;
        PortIO *port = ec_port(d.ec);
        uint64_t period = NSEC_PER_SEC / rate, n = (uint64_t) rate * seconds, failed = 0, missed = 0;

        /* Warm up: the first ticks read replies requested before the EC applied its configuration. */
        HdapsReadout ro;
        for (int i = 0; i < WARMUP_TICKS; i++) {
                ec_sim_advance_ns(port, period);
                (void) hdaps_poll(d.hdaps, &ro);
        }

        uint64_t ops0 = port->n_in + port->n_out, cpu0 = cpu_ns();
        for (uint64_t i = 0; i < n; i++) {
                ec_sim_advance_ns(port, period);
                r = hdaps_poll(d.hdaps, &ro);
                if (r < 0)
                        failed++;
                else if (ro.readouts == 0)
                        missed++;
        }
        uint64_t cpu = cpu_ns() - cpu0, ops = port->n_in + port->n_out - ops0;

        printf("poll_port_ops_per_sample_%uhz: %.2f ops\n", rate, (double) ops / (double) n);
        printf("poll_cpu_per_sample_%uhz: %.2f us\n", rate, (double) cpu / (double) n / 1000.0);
        printf("poll_failed_ticks_%uhz: %llu ticks\n", rate, (unsigned long long) failed);
        printf("poll_ticks_without_new_readout_%uhz: %llu ticks\n", rate, (unsigned long long) missed);
        device_close(&d);
        return 0;
}

/* tp_smapi 0.43's steady timer tick, measured by tests/reference/ (reference-driver, which requires
 * tpaccel's READOUTS-1 tick to cost the same, tick for tick): thinkpad_ec_try_read_row() of the bytes
 * __hdaps_update() reads, then thinkpad_ec_prefetch_row(). It never reads the older readout. */
#define REFERENCE_ACCESSES_PER_READOUT 16

/* Port accesses per tick that brought a readout, at 50 Hz, with oversampling ratio 1 (one EC sample per
 * tick: READOUTS 1) and 5 (the default: READOUTS 2, the older readout and QUEUED read too). */
static int bench_per_readout(unsigned ratio, unsigned seconds)
{
        SimOptions o = {.virtual_time = true, .seed = 1};
        _cleanup_free_ char *err = NULL;
        PortIO *port;
        Ec *ec;
        HdapsDevice *hd;
        int r = port_open_sim(&o, &port, &err);
        if (r < 0) {
                fprintf(stderr, "emulator: %s\n", err ? err : "failed");
                return r;
        }
        if ((r = ec_new(port, &ec)) < 0 || (r = hdaps_new(ec, 0, &hd)) < 0)
                return r;
        HdapsConfig c = HDAPS_CONFIG_DEFAULT;
        c.oversampling_ratio = ratio;
        if ((r = hdaps_init(hd, &c)) < 0)
                return r;
        uint64_t period = NSEC_PER_SEC / c.sampling_rate, n = (uint64_t) c.sampling_rate * seconds;
        uint64_t ops = 0, readouts = 0, one = 0, two = 0;
        HdapsReadout ro;
        for (int i = 0; i < WARMUP_TICKS; i++) {
                ec_sim_advance_ns(port, period);
                (void) hdaps_poll(hd, &ro);
        }
        for (uint64_t i = 0; i < n; i++) {
                ec_sim_advance_ns(port, period);
                uint64_t ops0 = port->n_in + port->n_out;
                if (hdaps_poll(hd, &ro) < 0)
                        continue;
                ops += port->n_in + port->n_out - ops0;
                readouts++;
                one += ro.readouts == 1;
                two += ro.readouts >= 2;
        }
        printf("poll_port_ops_per_readout_ratio%u: %.2f ops\n", ratio,
               readouts ? (double) ops / (double) readouts : 0.0);
        printf("poll_ticks_readouts1_ratio%u: %llu ticks\n", ratio, (unsigned long long) one);
        printf("poll_ticks_readouts2_ratio%u: %llu ticks\n", ratio, (unsigned long long) two);
        hdaps_free(hd);
        ec_free(ec);
        return 0;
}

/* Real time at 1000 Hz: absolute deadlines on CLOCK_MONOTONIC, as the daemon's timer would fire. */
static int bench_realtime(unsigned rate, unsigned seconds)
{
        Device d;
        int r = device_open(false, rate, &d);
        if (r < 0)
                return r;
        uint64_t period = NSEC_PER_SEC / rate, n = (uint64_t) rate * seconds, failed = 0, late = 0,
                 empty = 0;
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        for (int i = 0; i < WARMUP_TICKS; i++) {
                HdapsReadout ro;
                port_clock_delay_ns(period);
                (void) hdaps_poll(d.hdaps, &ro);
        }
        uint64_t readouts0 = hdaps_get_state(d.hdaps)->n_readouts;
        clock_gettime(CLOCK_MONOTONIC, &next);
        uint64_t start = port_clock_now_ns(), cpu0 = cpu_ns();

        for (uint64_t i = 0; i < n; i++) {
                next.tv_nsec += (long) period;
                while (next.tv_nsec >= (long) NSEC_PER_SEC) {
                        next.tv_nsec -= (long) NSEC_PER_SEC;
                        next.tv_sec++;
                }
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
                uint64_t deadline = (uint64_t) next.tv_sec * NSEC_PER_SEC + (uint64_t) next.tv_nsec;
                HdapsReadout ro;
                r = hdaps_poll(d.hdaps, &ro);
                if (r == -EBUSY)
                        empty++; /* nothing new since the previous tick: a late tick's catch-up came right
                                    after it */
                else if (r < 0)
                        failed++;
                if (port_clock_now_ns() > deadline + period)
                        late++;
        }
        double elapsed = (double) (port_clock_now_ns() - start) / 1e9;
        uint64_t cpu = cpu_ns() - cpu0;

        printf("realtime_rate_%uhz: %.1f samples/s\n", rate, (double) n / elapsed);
        printf("realtime_failed_ticks_%uhz: %llu ticks\n", rate, (unsigned long long) failed);
        printf("realtime_ticks_without_new_readout_%uhz: %llu ticks\n", rate, (unsigned long long) empty);
        printf("realtime_late_ticks_%uhz: %llu ticks\n", rate, (unsigned long long) late);
        printf("realtime_cpu_per_sample_%uhz: %.2f us\n", rate, (double) cpu / (double) n / 1000.0);
        printf("realtime_ec_readouts_per_tick_%uhz: %.2f readouts\n", rate,
               (double) (hdaps_get_state(d.hdaps)->n_readouts - readouts0) / (double) n);
        device_close(&d);
        return 0;
}

int main(int argc, char **argv)
{
        unsigned seconds = argc > 1 ? (unsigned) atoi(argv[1]) : 10;
        if (seconds < 1 || seconds > 600) {
                fprintf(stderr, "usage: %s [SECONDS 1..600]\n", argv[0]);
                return 2;
        }
        log_set_max_level(LOG_WARNING);
        static const unsigned rates[] = {50, 200, 1000};
        for (size_t i = 0; i < ELEMENTSOF(rates); i++)
                if (bench_virtual(rates[i], seconds) < 0)
                        return 1;
        if (bench_per_readout(1, seconds) < 0 || bench_per_readout(5, seconds) < 0)
                return 1;
        printf("poll_port_ops_per_readout_tp_smapi_0_43: %d ops\n", REFERENCE_ACCESSES_PER_READOUT);
        if (bench_realtime(1000, seconds < 5 ? seconds : 5) < 0)
                return 1;
        return 0;
}
