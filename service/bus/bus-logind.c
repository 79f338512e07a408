/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Suspend, the D-Bus side: logind's PrepareForSleep with a "delay" inhibitor. Before sleep the core
 * does its part (suspend.h), then the lock is let go; after resume the core re-initializes and a new
 * lock is taken. Without logind (any error, auto-start off) one warning and no suspend handling. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "bus-face.h"
#include "bus-logind.h"
#include "log.h"
#include "suspend.h"

#define LOGIND_BUS_NAME  "org.freedesktop.login1"
#define LOGIND_PATH      "/org/freedesktop/login1"
#define LOGIND_INTERFACE "org.freedesktop.login1.Manager"

struct BusLogind {
        int sleep_lock_fd; /* the delay inhibitor; -1: none */
        bool missing_warned;
};

static void warn_no_logind(BusFace *f, const char *why)
{
        if (f->logind->missing_warned)
                return;
        f->logind->missing_warned = true;
        log_warning("logind is not available (%s); the accelerometer will not be powered off on suspend",
                    why);
}

static int on_inhibit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        BusFace *f = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int fd, r;

        if (e) {
                warn_no_logind(f, e->message ?: e->name);
                return 0;
        }
        r = sd_bus_message_read(reply, "h", &fd);
        if (r < 0) {
                warn_no_logind(f, "Inhibit() answered off protocol");
                return 0;
        }
        /* The fd belongs to the message: keep our own copy. */
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return log_warning_errno(-errno, "Failed to keep the sleep inhibitor: %m");
        if (f->logind->sleep_lock_fd >= 0)
                close(f->logind->sleep_lock_fd);
        f->logind->sleep_lock_fd = fd;
        log_debug("Holding a sleep delay inhibitor");
        return 0;
}

static int take_inhibitor(BusFace *f)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        if (f->logind->sleep_lock_fd >= 0)
                return 0;
        r = sd_bus_message_new_method_call(f->bus, &m, LOGIND_BUS_NAME, LOGIND_PATH, LOGIND_INTERFACE,
                                           "Inhibit");
        if (r < 0)
                return r;
        /* Without logind, auto-starting it on Debian gives a slow Spawn.ChildExited: don't try. */
        r = sd_bus_message_set_auto_start(m, 0);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ssss", "sleep", "tpacceld", "Power off the accelerometer", "delay");
        if (r < 0)
                return r;
        return sd_bus_call_async(f->bus, NULL, m, on_inhibit_reply, f, 0);
}

static void release_inhibitor(BusFace *f)
{
        if (f->logind->sleep_lock_fd < 0)
                return;
        close(f->logind->sleep_lock_fd);
        f->logind->sleep_lock_fd = -1;
}

static int on_prepare_for_sleep(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        BusFace *f = userdata;
        Context *c = f->context;
        int start, r;

        r = sd_bus_message_read(m, "b", &start);
        if (r < 0) {
                log_warning_errno(r, "PrepareForSleep signal off protocol, ignoring: %m");
                return 0;
        }

        if (start) {
                if (c->suspend.active)
                        return 0;
                suspend_enter(c);
                release_inhibitor(f);
                return 0;
        }

        if (!c->suspend.active)
                return 0;
        suspend_leave(c);
        r = take_inhibitor(f);
        if (r < 0)
                log_warning_errno(r, "Failed to take a new sleep inhibitor: %m");
        return 0;
}

int bus_logind_start(BusFace *f)
{
        int r;

        f->logind = calloc(1, sizeof(BusLogind));
        if (!f->logind)
                return log_error_errno(-ENOMEM, "Failed to watch logind: %m");
        f->logind->sleep_lock_fd = -1;

        r = sd_bus_match_signal_async(f->bus, NULL, LOGIND_BUS_NAME, LOGIND_PATH, LOGIND_INTERFACE,
                                      "PrepareForSleep", on_prepare_for_sleep, NULL, f);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to PrepareForSleep: %m");
        r = take_inhibitor(f);
        if (r < 0)
                warn_no_logind(f, "cannot ask for an inhibitor");
        return 0;
}

BusLogind *bus_logind_free(BusLogind *l)
{
        if (!l)
                return NULL;
        if (l->sleep_lock_fd >= 0)
                close(l->sleep_lock_fd);
        free(l);
        return NULL;
}
