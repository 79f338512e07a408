/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel hdaps driver appearing or disappearing at run time (see backend-watch.h). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-kernel.h"
#include "backend-watch.h"
#include "context.h"
#include "kernel-sysfs.h"
#include "log.h"
#include "strutil.h"

#define WATCH_ACCURACY_USEC (USEC_PER_SEC / 4)

struct BackendWatch {
        Context *context;
        BackendOptions options;
        uint64_t interval_usec;
        KernelDriverFlavour seen;
        sd_event_source *timer;
};

void backend_watch_switch(Context *c, Backend *backend, char *reason)
{
        /* Stop polling first: the old backend goes away below. */
        c->has_accelerometer = false;
        poller_update(c);

        backend_free(c->backend);
        c->backend = backend;
        free(c->backend_reason);
        c->backend_reason = reason ?: strdup("");

        if (c->backend)
                context_setup_device(c);
        if (c->motion)
                motion_reset(c->motion);
        if (c->has_accelerometer)
                log_info("Backend %s: %s", backend_name(c->backend), c->backend_reason);
        else
                log_warning("No accelerometer: %s", c->backend_reason);

        poller_update(c);
        bus_emit_changed(c, "HasAccelerometer", "Backend", "BackendReason", "AxisCode");
}

static void driver_appeared(BackendWatch *w, KernelDriverFlavour flavour)
{
        Context *c = w->context;
        const char *name = kernel_driver_flavour_to_string(flavour);
        Backend *b = NULL;
        int r;

        if (backend_kernel_flavour(c->backend) == flavour && c->has_accelerometer)
                return;

        r = backend_kernel_new(w->options.sysroot, &b);
        if (r < 0) {
                log_warning_errno(
                        r, "The kernel's %s hdaps driver appeared, but its device cannot be opened: %m",
                        name);
                return;
        }
        if (c->backend && backend_kernel_flavour(c->backend) == KERNEL_DRIVER_NONE && c->has_accelerometer)
                log_warning("The kernel's %s hdaps driver was loaded while tpacceld drove the EC (%s): "
                            "it owns the ports now, switching to it",
                            name, backend_name(c->backend));
        backend_watch_switch(c, b,
                             strprintf("the kernel's %s hdaps driver appeared while tpacceld ran, so the "
                                       "accelerometer is read through its sysfs device",
                                       name));
}

static void driver_went_away(BackendWatch *w)
{
        Context *c = w->context;
        _cleanup_free_ char *why = NULL;
        Backend *b = NULL;
        int r;

        if (backend_kernel_flavour(c->backend) == KERNEL_DRIVER_NONE)
                return; /* not ours: nothing changes */

        if (w->options.kind == BACKEND_KERNEL) {
                backend_watch_switch(c, NULL,
                                     strdup("the kernel hdaps driver went away (module unloaded); "
                                            "--backend=kernel waits for it to come back"));
                return;
        }

        r = backend_open(&w->options, &b, &why);
        if (r < 0) {
                backend_watch_switch(c, NULL,
                                     strprintf("the kernel hdaps driver went away (module unloaded); %s; "
                                               "restart tpacceld to try the EC directly (it gives up its "
                                               "port privileges after starting)",
                                               why ?: strerror(-r)));
                return;
        }
        backend_watch_switch(c, b,
                             strprintf("the kernel hdaps driver went away (module unloaded); %s", why));
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        BackendWatch *w = userdata;
        KernelDriverFlavour now = kernel_hdaps_detect(w->options.sysroot);

        if (now != w->seen) {
                log_debug("hdaps sysfs device: %s -> %s", kernel_driver_flavour_to_string(w->seen),
                          kernel_driver_flavour_to_string(now));
                w->seen = now;
                if (w->options.kind != BACKEND_AUTO && w->options.kind != BACKEND_KERNEL)
                        log_notice(
                                "The kernel hdaps driver %s; not switching because --backend=%s was given",
                                now == KERNEL_DRIVER_NONE ? "went away" : "appeared",
                                backend_kind_to_string(w->options.kind));
                else if (now == KERNEL_DRIVER_NONE)
                        driver_went_away(w);
                else
                        driver_appeared(w, now);
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
        *w = (BackendWatch){
                .context = c,
                .options = *o,
                .interval_usec = interval_usec,
                .seen = kernel_hdaps_detect(o->sysroot),
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
