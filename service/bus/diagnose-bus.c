/* SPDX-License-Identifier: GPL-2.0-or-later */
/* org.thinkpad.Accelerometer.Diagnose(s format) -> s report, open to everyone. A call starts a run (or
 * joins the one in progress): polling runs while it lasts, and the poller's own ticks are its readouts
 * (so port access stays serialized with the poller, and motion processing and disk protection go on).
 * When the readouts are in, or at the run's deadline, every waiting caller gets the report in its
 * format. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-face.h"
#include "diagnose-bus.h"
#include "diagnose.h"
#include "log.h"
#include "strutil.h"

#define DIAGNOSE_WAITING_MAX 16 /* callers joining one run */

/* The callers waiting for the run in progress (f->diagnosis), and its deadline. */
struct DiagnoseCalls {
        sd_bus_message **messages;
        char **formats; /* each caller's format */
        size_t n;
        sd_event_source *timeout;
};

DiagnoseCalls *diagnose_calls_free(DiagnoseCalls *w)
{
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n; i++) {
                sd_bus_message_unref(w->messages[i]);
                free(w->formats[i]);
        }
        free(w->messages);
        free(w->formats);
        sd_event_source_disable_unref(w->timeout);
        free(w);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(DiagnoseCalls *, diagnose_calls_free);

static void finish(BusFace *f)
{
        Context *c = f->context;
        _cleanup_(diagnosis_freep) Diagnosis *d = TAKE_PTR(f->diagnosis);
        _cleanup_(diagnose_calls_freep) DiagnoseCalls *w = TAKE_PTR(f->diagnose_calls);

        for (size_t i = 0; w && i < w->n; i++) {
                _cleanup_free_ char *text = NULL;
                int r = diagnosis_report(d, w->formats[i], &text);
                if (r < 0)
                        r = sd_bus_reply_method_errorf(w->messages[i], SD_BUS_ERROR_NO_MEMORY,
                                                       "Cannot make the report: %s", strerror(-r));
                else
                        r = sd_bus_reply_method_return(w->messages[i], "s", text);
                if (r < 0)
                        log_debug_errno(r, "Failed to reply to Diagnose(): %m");
        }
        poller_set_demand(&c->poller, DEMAND_DIAGNOSIS, false);
}

void diagnose_bus_tick(BusFace *f)
{
        if (f->diagnosis && diagnosis_complete(f->diagnosis))
                finish(f);
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
        BusFace *f = userdata;

        log_debug("Diagnose(): the deadline passed before all readouts arrived; reporting what there is");
        finish(f);
        return 0;
}

static int waiters_add(DiagnoseCalls *w, sd_bus_message *m, const char *format)
{
        sd_bus_message **messages;
        char **formats;
        char *f;

        if (w->n >= DIAGNOSE_WAITING_MAX)
                return -EBUSY;
        messages = reallocarray(w->messages, w->n + 1, sizeof(*messages));
        if (!messages)
                return -ENOMEM;
        w->messages = messages;
        formats = reallocarray(w->formats, w->n + 1, sizeof(*formats));
        if (!formats)
                return -ENOMEM;
        w->formats = formats;
        f = strdup(format);
        if (!f)
                return -ENOMEM;
        w->formats[w->n] = f;
        w->messages[w->n++] = sd_bus_message_ref(m);
        return 0;
}

int method_diagnose(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        const char *format;
        int r;

        r = sd_bus_message_read(m, "s", &format);
        if (r < 0)
                return r;
        if (!streq(format, DIAGNOSE_FORMAT_TEXT) && !streq(format, DIAGNOSE_FORMAT_JSON)) {
                char excerpt[STR_EXCERPT_SIZE]; /* 16 characters, as every method quotes its arguments */
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Unknown report format \"%s\" (expected \"text\" or \"json\")",
                                         str_excerpt(format, excerpt));
        }

        if (!f->diagnosis) {
                f->diagnose_calls = calloc(1, sizeof(DiagnoseCalls));
                if (!f->diagnose_calls)
                        return -ENOMEM;
                r = diagnosis_new(c, &f->diagnosis);
                if (r < 0) {
                        f->diagnose_calls = diagnose_calls_free(f->diagnose_calls);
                        return r;
                }
                if (c->has_accelerometer && !c->suspend.active) {
                        r = sd_event_add_time(c->event, &f->diagnose_calls->timeout, CLOCK_MONOTONIC,
                                              diagnosis_deadline_usec(f->diagnosis), 0, on_deadline, f);
                        if (r < 0) {
                                f->diagnosis = diagnosis_free(f->diagnosis);
                                f->diagnose_calls = diagnose_calls_free(f->diagnose_calls);
                                return r;
                        }
                }
        }
        r = waiters_add(f->diagnose_calls, m, format);
        if (r == -EBUSY)
                return sd_bus_error_setf(
                        error, ACCEL_ERROR_BUSY,
                        "Too many callers are waiting for the diagnosis; try again in a moment");
        if (r < 0)
                return r;

        /* Without readouts to take, the report is ready now. */
        if (!c->has_accelerometer || c->suspend.active)
                finish(f);
        else
                poller_set_demand(&c->poller, DEMAND_DIAGNOSIS, true);
        return 1;
}
