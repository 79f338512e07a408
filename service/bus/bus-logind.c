/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Suspend: logind's PrepareForSleep with a "delay" inhibitor. Before sleep: stop polling, power the
 * accelerometer off, then let go of the lock; after resume: re-initialize, poll again if wanted, and
 * take a new lock. Without logind (any error, auto-start off) one warning and no suspend handling. */

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "context.h"
#include "log.h"

#define LOGIND_BUS_NAME  "org.freedesktop.login1"
#define LOGIND_PATH      "/org/freedesktop/login1"
#define LOGIND_INTERFACE "org.freedesktop.login1.Manager"

static void warn_no_logind(Context *c, const char *why)
{
        if (c->logind_missing_warned)
                return;
        c->logind_missing_warned = true;
        log_warning("logind is not available (%s); the accelerometer will not be powered off on suspend",
                    why);
}

static int on_inhibit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        Context *c = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int fd, r;

        if (e) {
                warn_no_logind(c, e->message ?: e->name);
                return 0;
        }
        r = sd_bus_message_read(reply, "h", &fd);
        if (r < 0) {
                warn_no_logind(c, "Inhibit() answered off protocol");
                return 0;
        }
        /* The fd belongs to the message: keep our own copy. */
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return log_warning_errno(-errno, "Failed to keep the sleep inhibitor: %m");
        if (c->sleep_lock_fd >= 0)
                close(c->sleep_lock_fd);
        c->sleep_lock_fd = fd;
        log_debug("Holding a sleep delay inhibitor");
        return 0;
}

static int take_inhibitor(Context *c)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        if (c->sleep_lock_fd >= 0)
                return 0;
        r = sd_bus_message_new_method_call(c->bus, &m, LOGIND_BUS_NAME, LOGIND_PATH, LOGIND_INTERFACE,
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
        return sd_bus_call_async(c->bus, NULL, m, on_inhibit_reply, c, 0);
}

static void release_inhibitor(Context *c)
{
        if (c->sleep_lock_fd < 0)
                return;
        close(c->sleep_lock_fd);
        c->sleep_lock_fd = -1;
}

static int on_prepare_for_sleep(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        Context *c = userdata;
        int start, r;

        r = sd_bus_message_read(m, "b", &start);
        if (r < 0) {
                log_warning_errno(r, "PrepareForSleep signal off protocol, ignoring: %m");
                return 0;
        }

        if (start) {
                if (c->suspended)
                        return 0;
                log_info("Going to sleep: powering the accelerometer off");
                c->suspended = true;
                poller_update(c);
                protection_release(c);
                if (c->has_accelerometer) {
                        r = backend_power_off(c->backend);
                        if (r < 0)
                                log_warning_errno(r, "Failed to power the accelerometer off: %m");
                }
                bus_emit_changed(c, "Suspended");
                release_inhibitor(c);
                return 0;
        }

        if (!c->suspended)
                return 0;
        log_info("Resumed: re-initializing the accelerometer");
        c->suspended = false;
        if (c->has_accelerometer) {
                r = context_init_device(c);
                if (r < 0)
                        log_warning_errno(r, "Re-initializing the accelerometer after resume failed: %m");
                else
                        poller_hardware_reinitialized(c);
        }
        bus_emit_changed(c, "Suspended");
        poller_update(c);
        r = take_inhibitor(c);
        if (r < 0)
                log_warning_errno(r, "Failed to take a new sleep inhibitor: %m");
        return 0;
}

int sleep_setup(Context *c)
{
        int r;

        r = sd_bus_match_signal_async(c->bus, NULL, LOGIND_BUS_NAME, LOGIND_PATH, LOGIND_INTERFACE,
                                      "PrepareForSleep", on_prepare_for_sleep, NULL, c);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to PrepareForSleep: %m");
        r = take_inhibitor(c);
        if (r < 0)
                warn_no_logind(c, "cannot ask for an inhibitor");
        return 0;
}
