/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The load half of the soak run (soak.py drives it): one process, N bus connections, one sd-event loop.
 *   - every connection matches Sample (connection 0 calls SubscribeSamples, for all: it is a broadcast)
 *     and counts what it receives (count and a checksum of the
 *     readout times, so that the connections can be compared with each other);
 *   - connection 0 holds a claim for the whole run, so polling never stops and ticks are well defined;
 *   - READS property Gets per second, spread over the connections, asynchronously, at most
 *     READS_IN_FLIGHT_MAX unanswered (the rest are skipped and counted);
 *   - claim/release churn: every CHURN_PERIOD one connection claims and another releases;
 *   - a configuration change every CONFIG_PERIOD (filter order, oversampling ratio, invert, tilt step,
 *     shock sensitivity), on a session bus so our own uid needs no polkit.
 * Every call is counted as answered (a reply or an error from the daemon) or not (no reply within the
 * call timeout, or the connection broke), errors by name. Prints `name: value unit` lines and the
 * per-connection Sample counts; soak.py judges them.
 *   soak-client ADDRESS SECONDS CONNECTIONS READS_PER_SECOND SAMPLING_RATE */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#define NAME  "org.thinkpad.Accelerometer"
#define PATH  "/org/thinkpad/Accelerometer"
#define IFACE "org.thinkpad.Accelerometer"

#define CONNECTIONS_MAX    1000
#define ERROR_NAMES_MAX    32
#define READ_TICK_USEC     (10 * 1000ULL) /* property reads are issued in batches every 10 ms */
#define CHURN_PERIOD_USEC  (50 * 1000ULL)
#define CONFIG_PERIOD_USEC (250 * 1000ULL)
#define COUNT_MARGIN_USEC  (200 * 1000ULL)
#define DRAIN_USEC         (500 * 1000ULL)
#define DRAIN_MAX_USEC     (60 * 1000 * 1000ULL)
#define CALL_TIMEOUT_USEC  (10 * 1000 * 1000ULL)
/* Property reads in flight at most: a machine too busy to answer them at the asked rate gets fewer
 * (counted as skipped) rather than a backlog that grows until calls time out. */
#define READS_IN_FLIGHT_MAX 100
#define USEC_PER_SEC        1000000ULL
#define GAP_FACTOR_PERCENT  150 /* a gap longer than 1.5 periods between Samples means missed ticks */
#define FILTER_ORDER_MAX    8
/* Ratios 2..5: the EC makes at least two readouts per host tick, so a tick rarely finds nothing new
 * (with ratio 1 the EC and host clocks run at the same rate and beat). */
#define OVERSAMPLING_MIN   2
#define OVERSAMPLING_COUNT 4

static const char *const read_properties[] = {
        "Position", "Temperature", "SamplingRate", "Polling",    "Orientation",
        "Pitch",    "Roll",        "FilterOrder",  "ShockCount",
};

typedef struct Soak Soak;

typedef struct Conn {
        Soak *soak;
        sd_bus *bus;
        uint64_t samples, time_sum, last_time, stale;
        bool past_window; /* has seen a Sample after the counting window: its count is complete */
        unsigned claims;  /* claims we hold (churn) */
} Conn;

typedef struct ErrorCount {
        char name[128];
        uint64_t n;
} ErrorCount;

struct Soak {
        sd_event *event;
        Conn conns[CONNECTIONS_MAX];
        unsigned n_conns;
        unsigned reads_per_second, rate;
        uint64_t start_usec;
        uint64_t read_index, churn_index, config_index;
        uint64_t calls_sent, calls_answered, calls_ok, calls_unanswered, calls_in_flight, reads_skipped;
        ErrorCount errors[ERROR_NAMES_MAX];
        unsigned n_errors;
        /* connection 0's Sample times, to find missed ticks */
        uint64_t first_time, gaps_missed_ticks, max_gap_usec;
        uint64_t end_usec;
        /* Samples are counted only with readout times in this window, so that every subscriber counts
         * the same readouts although the last ones reach them at slightly different moments. */
        uint64_t count_from, count_until;
        bool ended;
};

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000u;
}

/* Timer sources are one-shot: move and re-enable. */
static int rearm(sd_event_source *es, uint64_t usec)
{
        int r = sd_event_source_set_time(es, usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(es, SD_EVENT_ONESHOT);
}

static void count_error(Soak *s, const char *name)
{
        for (unsigned i = 0; i < s->n_errors; i++)
                if (strcmp(s->errors[i].name, name) == 0) {
                        s->errors[i].n++;
                        return;
                }
        if (s->n_errors < ERROR_NAMES_MAX) {
                snprintf(s->errors[s->n_errors].name, sizeof(s->errors[0].name), "%s", name);
                s->errors[s->n_errors++].n = 1;
        }
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        Soak *s = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        (void) ret_error;
        s->calls_in_flight--;
        if (!e) {
                s->calls_answered++;
                s->calls_ok++;
                return 0;
        }
        /* sd-bus synthesizes these locally: the daemon did not answer. */
        if (sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_DISCONNECTED) ||
            sd_bus_error_has_name(e, SD_BUS_ERROR_TIMEOUT))
                s->calls_unanswered++;
        else
                s->calls_answered++;
        count_error(s, e->name);
        return 0;
}

static int call(Soak *s, Conn *c, const char *iface, const char *method, const char *types, ...)
{
        sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(c->bus, &m, NAME, PATH, iface, method);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r >= 0)
                r = sd_bus_call_async(c->bus, NULL, m, on_reply, s, CALL_TIMEOUT_USEC);
        sd_bus_message_unref(m);
        if (r < 0) {
                count_error(s, "(send failed)");
                s->calls_unanswered++;
                s->calls_sent++;
                return r;
        }
        s->calls_sent++;
        s->calls_in_flight++;
        return 0;
}

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        Conn *c = userdata;
        uint64_t t;
        int32_t x, y;

        (void) ret_error;
        if (sd_bus_message_read(m, "tii", &t, &x, &y) < 0)
                return 0;
        if (t > c->soak->count_until)
                c->past_window = true;
        if (t < c->soak->count_from || t > c->soak->count_until)
                return 0;
        if (c->samples > 0 && t <= c->last_time)
                c->stale++;
        c->samples++;
        c->time_sum += t;
        c->last_time = t;
        return 0;
}

/* Connection 0 also looks at the gaps between readouts to count ticks without a Sample. */
static int on_sample_reference(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        Soak *s = userdata;
        Conn *c = &s->conns[0];
        uint64_t prev = c->last_time, had = c->samples;
        uint64_t period = USEC_PER_SEC / s->rate;

        on_sample(m, c, ret_error);
        if (c->samples == had)
                return 0;
        if (had == 0) {
                s->first_time = c->last_time;
                return 0;
        }
        if (c->last_time > prev) {
                uint64_t gap = c->last_time - prev;
                if (gap > s->max_gap_usec)
                        s->max_gap_usec = gap;
                if (gap * 100 > period * GAP_FACTOR_PERCENT)
                        s->gaps_missed_ticks += (gap + period / 2) / period - 1;
        }
        return 0;
}

static int on_read_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
        Soak *s = userdata;
        /* Keep the asked rate on average: a late tick issues the reads it owes. */
        uint64_t due = (now_usec() - s->start_usec) * s->reads_per_second / USEC_PER_SEC;

        for (; s->read_index < due; s->read_index++) {
                if (s->calls_in_flight >= READS_IN_FLIGHT_MAX) {
                        s->reads_skipped += due - s->read_index;
                        s->read_index = due;
                        break;
                }
                Conn *c = &s->conns[s->read_index % s->n_conns];
                const char *prop = read_properties[s->read_index %
                                                   (sizeof(read_properties) / sizeof(read_properties[0]))];
                (void) call(s, c, "org.freedesktop.DBus.Properties", "Get", "ss", IFACE, prop);
        }
        return rearm(es, usec + READ_TICK_USEC);
}

/* Connections 1..n-1 take turns: one claims, the one claimed longest ago releases. */
static int on_churn_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
        Soak *s = userdata;
        unsigned n = s->n_conns - 1, half = n / 2;

        if (n >= 2) {
                Conn *claimer = &s->conns[1 + s->churn_index % n];
                Conn *releaser = &s->conns[1 + (s->churn_index + n - half) % n];
                (void) call(s, claimer, IFACE, "Claim", NULL);
                claimer->claims++;
                if (releaser->claims > 0) {
                        (void) call(s, releaser, IFACE, "Release", NULL);
                        releaser->claims--;
                }
                s->churn_index++;
        }
        return rearm(es, usec + CHURN_PERIOD_USEC);
}

static int on_config_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
        Soak *s = userdata;
        Conn *c = &s->conns[s->n_conns > 1 ? 1 : 0];
        uint64_t i = s->config_index++;

        switch (i % 5) {
        case 0:
                (void) call(s, c, IFACE, "SetFilterOrder", "u", (uint32_t) (1 + (i / 5) % FILTER_ORDER_MAX));
                break;
        case 1:
                (void) call(s, c, IFACE, "SetOversamplingRatio", "u",
                            (uint32_t) (OVERSAMPLING_MIN + (i / 5) % OVERSAMPLING_COUNT));
                break;
        case 2:
                (void) call(s, c, IFACE, "SetInvert", "b", (int) ((i / 5) % 2));
                break;
        case 3:
                (void) call(s, c, IFACE, "SetTiltStep", "d", 1.0 + (double) ((i / 5) % 4));
                break;
        default:
                (void) call(s, c, IFACE, "SetShockSensitivity", "d", 0.5 + 0.5 * (double) ((i / 5) % 4));
                break;
        }
        return rearm(es, usec + CONFIG_PERIOD_USEC);
}

static bool all_past_window(const Soak *s)
{
        for (unsigned i = 0; i < s->n_conns; i++)
                if (!s->conns[i].past_window)
                        return false;
        return true;
}

static int on_end(sd_event_source *es, uint64_t usec, void *userdata)
{
        Soak *s = userdata;
        (void) es;
        (void) usec;
        s->ended = true;
        return 0;
}

static int connect_one(Soak *s, Conn *c, bool reference, const char *address)
{
        int r;

        r = sd_bus_new(&c->bus);
        if (r >= 0)
                r = sd_bus_set_address(c->bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(c->bus, 1);
        if (r >= 0)
                r = sd_bus_start(c->bus);
        if (r >= 0)
                r = sd_bus_attach_event(c->bus, s->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_match_signal(c->bus, NULL, NULL, PATH, IFACE, "Sample",
                                        reference ? on_sample_reference : on_sample,
                                        reference ? (void *) s : (void *) c);
        /* tpacceld sends Sample only while someone subscribed; it is a broadcast, so one subscription
         * (the reference connection's, held for its lifetime) makes every connection receive it. */
        if (r >= 0 && reference)
                r = sd_bus_call_method(c->bus, NAME, PATH, IFACE, "SubscribeSamples", NULL, NULL, NULL);
        return r;
}

int main(int argc, char *argv[])
{
        static Soak soak;
        Soak *s = &soak;
        double seconds;
        unsigned reads;
        uint64_t t0, claimed_usec;
        sd_event_source *load[3] = {};
        int r;

        if (argc != 6) {
                fprintf(stderr, "usage: %s ADDRESS SECONDS CONNECTIONS READS_PER_SECOND SAMPLING_RATE\n",
                        argv[0]);
                return 2;
        }
        seconds = atof(argv[2]);
        s->n_conns = (unsigned) atoi(argv[3]);
        reads = (unsigned) atoi(argv[4]);
        s->rate = (unsigned) atoi(argv[5]);
        if (seconds <= 0 || s->n_conns < 1 || s->n_conns > CONNECTIONS_MAX || s->rate < 1) {
                fprintf(stderr, "soak-client: bad arguments (seconds > 0, 1..%d connections, rate >= 1)\n",
                        CONNECTIONS_MAX);
                return 2;
        }
        s->reads_per_second = reads;

        r = sd_event_new(&s->event);
        for (unsigned i = 0; i < s->n_conns; i++)
                s->conns[i].soak = s;
        s->count_from = UINT64_MAX; /* nothing counts before the clock starts */
        for (unsigned i = 0; r >= 0 && i < s->n_conns; i++)
                r = connect_one(s, &s->conns[i], i == 0, argv[1]);
        if (r < 0) {
                fprintf(stderr, "soak-client: cannot connect: %s\n", strerror(-r));
                return 1;
        }

        /* The permanent claim, synchronously, before the clock starts. */
        r = sd_bus_call_method(s->conns[0].bus, NAME, PATH, IFACE, "Claim", NULL, NULL, NULL);
        if (r < 0) {
                fprintf(stderr, "soak-client: Claim failed: %s\n", strerror(-r));
                return 1;
        }
        t0 = now_usec();
        s->start_usec = t0;
        s->end_usec = t0 + (uint64_t) (seconds * USEC_PER_SEC);
        s->count_from = t0 + COUNT_MARGIN_USEC;
        s->count_until = s->end_usec - COUNT_MARGIN_USEC;
        printf("ready\n");
        fflush(stdout);

        r = sd_event_add_time(s->event, &load[0], CLOCK_MONOTONIC, t0 + READ_TICK_USEC, 0, on_read_timer, s);
        if (r >= 0)
                r = sd_event_add_time(s->event, &load[1], CLOCK_MONOTONIC, t0 + CHURN_PERIOD_USEC, 0,
                                      on_churn_timer, s);
        if (r >= 0)
                r = sd_event_add_time(s->event, &load[2], CLOCK_MONOTONIC, t0 + CONFIG_PERIOD_USEC, 0,
                                      on_config_timer, s);
        if (r >= 0)
                r = sd_event_add_time(s->event, NULL, CLOCK_MONOTONIC, s->end_usec, 0, on_end, s);
        if (r < 0) {
                fprintf(stderr, "soak-client: timers: %s\n", strerror(-r));
                return 1;
        }
        while (!s->ended) {
                r = sd_event_run(s->event, UINT64_MAX);
                if (r < 0) {
                        fprintf(stderr, "soak-client: event loop: %s\n", strerror(-r));
                        return 1;
                }
        }
        claimed_usec = now_usec() - t0;
        for (unsigned i = 0; i < sizeof(load) / sizeof(load[0]); i++)
                (void) sd_event_source_set_enabled(load[i], SD_EVENT_OFF);

        /* Let the calls still in flight finish (bounded by the call timeout), and every subscriber read
         * the Samples of the counting window: until each has seen one after it (connection 0's claim
         * keeps them coming), however far behind a busy machine left them, within DRAIN_MAX_USEC. */
        uint64_t drain_min = now_usec() + DRAIN_USEC, drain_end = now_usec() + DRAIN_MAX_USEC;
        while ((s->calls_in_flight > 0 || !all_past_window(s) || now_usec() < drain_min) &&
               now_usec() < drain_end)
                (void) sd_event_run(s->event, 100 * 1000);

        uint64_t min = UINT64_MAX, max = 0, stale = 0;
        unsigned differing = 0;
        for (unsigned i = 0; i < s->n_conns; i++) {
                Conn *c = &s->conns[i];
                min = c->samples < min ? c->samples : min;
                max = c->samples > max ? c->samples : max;
                stale += c->stale;
        }
        /* Subscribers that saw a different set of Samples in the window from connection 0 (count or times).
         */
        for (unsigned i = 1; i < s->n_conns; i++)
                if (s->conns[i].samples != s->conns[0].samples ||
                    s->conns[i].time_sum != s->conns[0].time_sum)
                        differing++;

        printf("seconds: %.1f s\n", (double) claimed_usec / USEC_PER_SEC);
        printf("counting_window: %.1f s\n", (double) (s->count_until - s->count_from) / USEC_PER_SEC);
        printf("connections: %u count\n", s->n_conns);
        printf("calls_sent: %" PRIu64 " calls\n", s->calls_sent);
        printf("reads_skipped: %" PRIu64 " calls\n", s->reads_skipped);
        printf("calls_answered: %" PRIu64 " calls\n", s->calls_answered);
        printf("calls_ok: %" PRIu64 " calls\n", s->calls_ok);
        printf("calls_unanswered: %" PRIu64 " calls\n", s->calls_unanswered);
        printf("calls_still_pending: %" PRIu64 " calls\n", s->calls_in_flight);
        printf("property_reads_per_second: %.0f reads/s\n",
               (double) s->read_index * USEC_PER_SEC / (double) claimed_usec);
        for (unsigned i = 0; i < s->n_errors; i++)
                printf("calls_failed[%s]: %" PRIu64 " calls\n", s->errors[i].name, s->errors[i].n);
        printf("samples_per_subscriber_min: %" PRIu64 " samples\n", min);
        printf("samples_per_subscriber_max: %" PRIu64 " samples\n", max);
        printf("subscribers_differing_from_reference: %u count\n", differing);
        printf("samples_out_of_order: %" PRIu64 " samples\n", stale);
        printf("reference_samples: %" PRIu64 " samples\n", s->conns[0].samples);
        printf("reference_span_usec: %" PRIu64 " us\n",
               s->conns[0].samples > 1 ? s->conns[0].last_time - s->first_time : 0);
        printf("reference_missed_ticks: %" PRIu64 " ticks\n", s->gaps_missed_ticks);
        printf("reference_max_gap: %.1f ms\n", (double) s->max_gap_usec / 1000.0);
        fflush(stdout);

        for (unsigned i = 0; i < s->n_conns; i++)
                sd_bus_flush_close_unref(s->conns[i].bus);
        sd_event_unref(s->event);
        return 0;
}
