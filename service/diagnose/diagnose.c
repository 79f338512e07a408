/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diagnosis run (diagnose.h): its readouts, through the poller's hook or taken by itself (tpacceld
 * --diagnose), and their statistics. The report is made by diagnose-report.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "diagnose-private.h"
#include "log.h"
#include "port-log.h"

#define DIAGNOSE_BUSY_RETRY_USEC 1000 /* standalone: -EBUSY (no new readout yet) is retried this often */
#define DIAGNOSE_SLACK_USEC      (2 * USEC_PER_SEC) /* a run may take this much longer than its readouts */

static void diagnosis_before_poll(Diagnosis *d);
static void diagnosis_after_poll(Diagnosis *d, int r, const HdapsReadout *ro);

static void on_before_poll(void *userdata)
{
        diagnosis_before_poll(userdata);
}

static void on_after_poll(int r, const HdapsReadout *ro, void *userdata)
{
        diagnosis_after_poll(userdata, r, ro);
}

/* The poller's ticks are the run's readouts. */
static const PollHook diagnosis_poll_hook = {
        .before = on_before_poll,
        .after = on_after_poll,
};

void diagnosis_free_problems(Diagnosis *d)
{
        for (unsigned i = 0; i < d->n_problems; i++) {
                free(d->problems[i].what);
                free(d->problems[i].next);
        }
        d->n_problems = 0;
}

int diagnosis_new(Context *c, Diagnosis **ret)
{
        Diagnosis *d = calloc(1, sizeof(*d));
        unsigned rate = context_full_rate(c);

        if (!d)
                return -ENOMEM;
        d->c = c;
        d->wanted = MIN(DIAGNOSE_READOUTS, rate * DIAGNOSE_MAX_SECONDS);
        d->started_usec = now_usec();
        d->deadline_usec =
                d->started_usec + (uint64_t) d->wanted * USEC_PER_SEC / rate + DIAGNOSE_SLACK_USEC;
        poller_set_hook(&c->poller, &diagnosis_poll_hook, d);
        *ret = d;
        return 0;
}

Diagnosis *diagnosis_free(Diagnosis *d)
{
        if (!d)
                return NULL;
        poller_set_hook(&d->c->poller, NULL, NULL);
        if (d->capturing && d->c->port_capture) {
                _cleanup_free_ char *unused = NULL;
                (void) port_log_capture_stop(d->c->port_capture, &unused);
        }
        diagnosis_free_problems(d);
        free(d->port_log);
        free(d);
        return NULL;
}

uint64_t diagnosis_deadline_usec(const Diagnosis *d)
{
        return d->deadline_usec;
}

static void moments_add(Moments *m, int v)
{
        if (m->n == 0 || v < m->min)
                m->min = v;
        if (m->n == 0 || v > m->max)
                m->max = v;
        m->n++;
        m->sum += v;
        m->sum2 += (double) v * v;
}

double moments_mean(const Moments *m)
{
        return m->n ? m->sum / m->n : 0.0;
}

double moments_sd(const Moments *m)
{
        if (m->n < 2)
                return 0.0;
        double mean = moments_mean(m), var = (m->sum2 - m->n * mean * mean) / (m->n - 1);
        return var > 0 ? sqrt(var) : 0.0;
}

static void count_error(Diagnosis *d, int r)
{
        for (unsigned i = 0; i < DIAGNOSE_ERROR_KINDS; i++) {
                if (d->errors[i].error == r || d->errors[i].error == 0) {
                        d->errors[i].error = r;
                        d->errors[i].count++;
                        return;
                }
        }
}

static void diagnosis_before_poll(Diagnosis *d)
{
        if (d->captured_ok || !d->c->port_capture || !d->c->backend || !backend_has_ports(d->c->backend))
                return;
        d->capturing = port_log_capture_start(d->c->port_capture) >= 0;
}

static void diagnosis_after_poll(Diagnosis *d, int r, const HdapsReadout *ro)
{
        d->polls++;
        if (d->capturing) {
                char *text = NULL;
                d->capturing = false;
                /* Keep the first good readout's log; until there is one, the last failed attempt's. */
                if (port_log_capture_stop(d->c->port_capture, &text) >= 0 && (r != -EBUSY || !d->port_log)) {
                        free(d->port_log);
                        d->port_log = text;
                        d->captured_ok = r >= 0;
                } else
                        free(text);
        }
        if (r == -EBUSY) {
                d->busy++;
                return;
        }
        if (r < 0) {
                count_error(d, r);
                return;
        }
        if (d->replies == 0)
                d->first_ns = ro->time_ns;
        d->last_ns = ro->time_ns;
        d->replies++;
        d->readouts += MAX(ro->readouts, 1u);
        if (ro->readouts >= 2)
                d->missed += ro->readouts - 1;
        d->queued_sum += ro->queued;
        d->queued_max = MAX(d->queued_max, ro->queued);
        moments_add(&d->x, ro->x);
        moments_add(&d->y, ro->y);
        moments_add(&d->temperature, ro->temperature);
}

bool diagnosis_complete(const Diagnosis *d)
{
        return d->replies >= d->wanted;
}

/* ---- tpacceld --diagnose ---- */

static void sleep_until_usec(uint64_t t)
{
        struct timespec ts = {.tv_sec = t / USEC_PER_SEC, .tv_nsec = (t % USEC_PER_SEC) * NSEC_PER_USEC};

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

int diagnose_standalone(Context *c, const char *format, FILE *out)
{
        _cleanup_(diagnosis_freep) Diagnosis *d = NULL;
        _cleanup_free_ char *text = NULL;
        int r;

        r = diagnosis_new(c, &d);
        if (r < 0)
                return r;
        if (c->has_accelerometer) {
                uint64_t period = USEC_PER_SEC / context_full_rate(c);
                uint64_t next = now_usec();

                while (!diagnosis_complete(d) && now_usec() < d->deadline_usec) {
                        HdapsReadout ro;

                        sleep_until_usec(next);
                        diagnosis_before_poll(d);
                        r = backend_poll(c->backend, &ro);
                        diagnosis_after_poll(d, r, &ro);
                        next = r == -EBUSY ? now_usec() + DIAGNOSE_BUSY_RETRY_USEC
                                           : MAX(next + period, now_usec());
                }
        }
        r = diagnosis_report(d, format, &text);
        if (r < 0)
                return r;
        fputs(text, out);
        fflush(out);
        if (c->has_accelerometer) {
                bool off;
                int k = backend_power_off(c->backend, &off);
                if (k < 0 && off)
                        log_warning_errno(k,
                                          "Accelerometer powered off, but stopping EC sampling (0x10 0 1) "
                                          "failed: %m");
                else if (k < 0)
                        log_warning_errno(k, "Failed to power the accelerometer off: %m");
        }
        return r;
}
