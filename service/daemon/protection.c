/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Disk protection, the daemon side: arming (protected disks set and not paused) keeps polling on,
 * a shock parks the heads (re-armed while it lasts, see disk-protect.h), quiet unparks them, and
 * Pause() suspends all of it for a while. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "context.h"
#include "log.h"
#include "strv.h"

#define PAUSE_TIMER_ACCURACY_USEC (100 * USEC_PER_MSEC)

static bool paused(const Context *c)
{
        return c->paused_until_usec > 0;
}

bool protection_armed(const Context *c)
{
        return c->disk_protect && disk_protect_enabled(c->disk_protect) && !paused(c);
}

const char *protection_state(const Context *c)
{
        if (!c->disk_protect || !disk_protect_enabled(c->disk_protect))
                return "off";
        if (paused(c))
                return "paused";
        if (disk_protect_parked(c->disk_protect))
                return "parked";
        return "armed";
}

void protection_state_changed(Context *c)
{
        const char *s = protection_state(c);

        if (c->protection_state && strcmp(c->protection_state, s) == 0)
                return;
        free(c->protection_state);
        c->protection_state = strdup(s);
        bus_emit_changed(c, "ProtectionState");
}

/* "as" cannot go through sd_bus_emit_signal()'s varargs as a string list (it wants a count and the
 * strings one by one), so the message is built with sd_bus_message_append_strv(). */
static void emit_heads_parked(Context *c, bool parked)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        if (!c->bus)
                return;
        r = sd_bus_message_new_signal(c->bus, &m, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "HeadsParked");
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char **) disk_protect_get_disks(c->disk_protect));
        if (r >= 0)
                r = sd_bus_message_append(m, "b", parked);
        if (r >= 0)
                r = sd_bus_send(c->bus, m, NULL);
        if (r < 0)
                log_warning_errno(r, "Failed to send HeadsParked(%s): %m", parked ? "true" : "false");
}

static void unpark(Context *c)
{
        int r;

        if (!c->disk_protect || !disk_protect_parked(c->disk_protect))
                return;
        r = disk_protect_unpark(c->disk_protect);
        if (r < 0)
                log_warning_errno(r, "Failed to unpark the disk heads (the kernel unparks after %d ms): %m",
                                  DISK_PARK_TIMEOUT_MS);
        else
                log_info("Disk heads unparked");
        emit_heads_parked(c, false);
        bus_emit_changed(c, "Parked");
        protection_state_changed(c);
}

void protection_release(Context *c)
{
        unpark(c);
}

void protection_tick(Context *c, bool shock_active, uint64_t now)
{
        int r;

        if (!protection_armed(c) || !shock_active) {
                unpark(c);
                return;
        }

        bool rearm = disk_protect_parked(c->disk_protect);
        r = disk_protect_park(c->disk_protect, now);
        if (r < 0) {
                log_warning_errno(r, "Failed to park the disk heads: %m");
                return;
        }
        if (r == 0)
                return;
        emit_heads_parked(c, true);
        if (rearm)
                return; /* the same park, its timeout written again: nothing else changed */
        log_info("Disk heads parked (park %llu)",
                 (unsigned long long) disk_protect_park_count(c->disk_protect));
        bus_emit_changed(c, "Parked", "ParkCount");
        protection_state_changed(c);
}

int protection_set_disks(Context *c, char *const *disks, sd_bus_error *error)
{
        _cleanup_free_ char *message = NULL;
        int r;

        if (!c->disk_protect)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED,
                                         "Disk protection is not available");
        if (strv_length(disks) == 0)
                unpark(c);
        r = disk_protect_set_disks(c->disk_protect, disks, &message);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s",
                                         message ? message : strerror(-r));
        return 0;
}

static int on_pause_end(sd_event_source *s, uint64_t usec, void *userdata)
{
        Context *c = userdata;

        c->pause_timer = sd_event_source_disable_unref(c->pause_timer);
        c->paused_until_usec = 0;
        log_info("Disk protection pause ended");
        bus_emit_changed(c, "PausedUntil");
        protection_state_changed(c);
        poller_update(c);
        return 0;
}

int protection_pause(Context *c, unsigned seconds)
{
        int r;

        c->pause_timer = sd_event_source_disable_unref(c->pause_timer);
        if (seconds == 0)
                c->paused_until_usec = 0;
        else {
                uint64_t until = now_usec() + (uint64_t) seconds * USEC_PER_SEC;
                r = sd_event_add_time(c->event, &c->pause_timer, CLOCK_MONOTONIC, until,
                                      PAUSE_TIMER_ACCURACY_USEC, on_pause_end, c);
                if (r < 0)
                        return log_error_errno(r, "Failed to arm the pause timer: %m");
                c->paused_until_usec = until;
                unpark(c);
                log_info("Disk protection paused for %u s", seconds);
        }
        bus_emit_changed(c, "PausedUntil");
        protection_state_changed(c);
        poller_update(c);
        return 0;
}
