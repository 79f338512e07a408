/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sd-bus helper of bench-bus.py, in two roles:
 *
 *   sample-latency listen ADDRESS SECONDS
 *       Subscribes to org.thinkpad.Accelerometer.Sample, prints "ready", receives for SECONDS and prints
 *       one line with every readout-to-receipt latency in microseconds (the signal's time_usec against
 *       our CLOCK_MONOTONIC at receipt), space separated. One process per subscriber, as real clients.
 *
 *   sample-latency emit ADDRESS SECONDS RATE
 *       The reference sender: emits Sample signals at RATE Hz on the same path and interface, stamped
 *       with CLOCK_MONOTONIC right before sending. What listeners measure then is the floor of the bus
 *       and the clients alone (dbus-daemon's fan-out, scheduling); tpacceld's share is the difference. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define SAMPLE_PATH      "/org/thinkpad/Accelerometer"
#define SAMPLE_INTERFACE "org.thinkpad.Accelerometer"
#define USEC_PER_SEC     1000000ULL
#define NSEC_PER_USEC    1000ULL
#define MAX_SAMPLES      100000
#define EMIT_RATE_MAX    1000

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static void sleep_until_usec(uint64_t t)
{
        struct timespec ts = {.tv_sec = t / USEC_PER_SEC, .tv_nsec = (t % USEC_PER_SEC) * NSEC_PER_USEC};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
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

static int connect_bus(const char *address, sd_bus **ret)
{
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

static int listen_samples(const char *address, double seconds)
{
        sd_bus *bus = NULL;
        Latencies l = {};
        int r;

        l.v = calloc(MAX_SAMPLES, sizeof(uint64_t));
        if (!l.v)
                return -ENOMEM;
        r = connect_bus(address, &bus);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, SAMPLE_PATH, SAMPLE_INTERFACE, "Sample", on_sample,
                                        &l);
        if (r < 0) {
                free(l.v);
                sd_bus_unref(bus);
                return r;
        }
        printf("ready\n");
        fflush(stdout);

        uint64_t end = now_usec() + (uint64_t) (seconds * USEC_PER_SEC);
        for (uint64_t now = now_usec(); now < end; now = now_usec()) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r == 0)
                        (void) sd_bus_wait(bus, end - now);
        }

        for (size_t i = 0; i < l.n; i++)
                printf("%s%llu", i ? " " : "", (unsigned long long) l.v[i]);
        printf("\n");
        sd_bus_flush_close_unref(bus);
        free(l.v);
        return r < 0 ? r : 0;
}

static int emit_samples(const char *address, double seconds, unsigned rate)
{
        sd_bus *bus = NULL;
        int r;

        r = connect_bus(address, &bus);
        if (r < 0)
                return r;
        printf("ready\n");
        fflush(stdout);

        uint64_t period = USEC_PER_SEC / rate, next = now_usec() + period;
        uint64_t end = now_usec() + (uint64_t) (seconds * USEC_PER_SEC);
        for (; next < end; next += period) {
                sleep_until_usec(next);
                r = sd_bus_emit_signal(bus, SAMPLE_PATH, SAMPLE_INTERFACE, "Sample", "tii", now_usec(), 0,
                                       0);
                if (r < 0)
                        break;
                r = sd_bus_flush(bus);
                if (r < 0)
                        break;
        }
        sd_bus_flush_close_unref(bus);
        return r < 0 ? r : 0;
}

int main(int argc, char *argv[])
{
        double seconds;
        int r;

        if (argc < 4 || (strcmp(argv[1], "listen") == 0 && argc != 4) ||
            (strcmp(argv[1], "emit") == 0 && argc != 5) ||
            (strcmp(argv[1], "listen") != 0 && strcmp(argv[1], "emit") != 0)) {
                fprintf(stderr, "usage: %s listen ADDRESS SECONDS | emit ADDRESS SECONDS RATE\n", argv[0]);
                return 2;
        }
        seconds = atof(argv[3]);
        if (!(seconds > 0)) {
                fprintf(stderr, "sample-latency: SECONDS '%s' is not a positive number\n", argv[3]);
                return 2;
        }
        if (strcmp(argv[1], "listen") == 0)
                r = listen_samples(argv[2], seconds);
        else {
                long rate = strtol(argv[4], NULL, 10);
                if (rate < 1 || rate > EMIT_RATE_MAX) {
                        fprintf(stderr, "sample-latency: RATE '%s' is out of range 1..%d\n", argv[4],
                                EMIT_RATE_MAX);
                        return 2;
                }
                r = emit_samples(argv[2], seconds, (unsigned) rate);
        }
        if (r < 0) {
                fprintf(stderr, "sample-latency %s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        return 0;
}
