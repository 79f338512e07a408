/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel hdaps driver appearing or disappearing at run time (see backend-watch.h). */

#include <errno.h>
#include <stdlib.h>

#include "backend-follow.h"
#include "backend-watch.h"
#include "context.h"
#include "log.h"

#define WATCH_ACCURACY_USEC (USEC_PER_SEC / 4)

struct BackendWatch {
        Context *context;
        BackendOptions options;
        uint64_t interval_usec;
        KernelDriverFlavour seen;
        sd_event_source *timer;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        BackendWatch *w = userdata;
        Context *c = w->context;
        KernelDriverFlavour now = backend_follow_probe(w->options.sysroot);

        if (now != w->seen) {
                Backend *b = NULL;
                char *reason = NULL;

                if (backend_follow_kernel_driver(&w->options, c->backend, c->has_accelerometer, w->seen, now,
                                                 &b, &reason) > 0)
                        context_switch_backend(c, b, reason);
                w->seen = now;
        }

        (void) sd_event_source_set_time(s, usec + w->interval_usec);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

int backend_watch_start(Context *c, const BackendOptions *o, uint64_t interval_usec, BackendWatch **ret)
{
        BackendWatch *w;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return log_error_errno(-ENOMEM, "Failed to watch for the kernel hdaps driver: %m");
        *w = (BackendWatch) {
                .context = c,
                .options = *o,
                .interval_usec = interval_usec,
                .seen = backend_follow_probe(o->sysroot),
        };
        /* Only what a re-choice needs; the emulator's options are never used here. */
        w->options.trace_path = NULL;
        w->options.sim_faults = NULL;

        r = sd_event_add_time_relative(c->event, &w->timer, CLOCK_MONOTONIC, interval_usec,
                                       WATCH_ACCURACY_USEC, on_timer, w);
        if (r < 0) {
                free(w);
                return log_error_errno(r, "Failed to watch for the kernel hdaps driver: %m");
        }
        (void) sd_event_source_set_description(w->timer, "backend-watch");
        *ret = w;
        return 0;
}

BackendWatch *backend_watch_free(BackendWatch *w)
{
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->timer);
        free(w);
        return NULL;
}
