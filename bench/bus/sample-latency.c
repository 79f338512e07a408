/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A minimal sd-bus subscriber for bench-bus.py: receives Sample signals for SECONDS and prints the
 * readout-to-receipt latency (the signal's time_usec against our CLOCK_MONOTONIC at receipt).
 *   sample-latency ADDRESS SECONDS */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define MAX_SAMPLES 1000000

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

typedef struct Latencies {
        uint64_t *v;
        size_t n;
} Latencies;

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Latencies *l = userdata;
        uint64_t now = now_usec(), t;
        int32_t x, y;

        if (sd_bus_message_read(m, "tii", &t, &x, &y) < 0 || l->n >= MAX_SAMPLES)
                return 0;
        l->v[l->n++] = now >= t ? now - t : 0;
        return 0;
}

static int cmp(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char *argv[])
{
        sd_bus *bus = NULL;
        Latencies l = {};
        double seconds;
        int r;

        if (argc != 3) {
                fprintf(stderr, "usage: %s ADDRESS SECONDS\n", argv[0]);
                return 2;
        }
        seconds = atof(argv[2]);
        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return 1;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, argv[1]);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, "/org/thinkpad/Accelerometer",
                                        "org.thinkpad.Accelerometer", "Sample", on_sample, &l);
        if (r < 0) {
                fprintf(stderr, "sample-latency: %s\n", strerror(-r));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);

        uint64_t end = now_usec() + (uint64_t) (seconds * 1e6);
        while (now_usec() < end) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r == 0)
                        (void) sd_bus_wait(bus, end - now_usec());
        }

        if (l.n == 0) {
                fprintf(stderr, "sample-latency: no samples\n");
                return 1;
        }
        qsort(l.v, l.n, sizeof(uint64_t), cmp);
        printf("%zu %llu %llu\n", l.n, (unsigned long long) l.v[l.n / 2],
               (unsigned long long) l.v[(l.n * 99) / 100]);
        sd_bus_flush_close_unref(bus);
        free(l.v);
        return 0;
}
