/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Disk protection, the daemon side (see protection.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "log.h"
#include "strv.h"
#include "strutil.h"

#define PAUSE_TIMER_ACCURACY_USEC (100 * USEC_PER_MSEC)

static bool paused(const Context *c)
{
        return c->protection.paused_until_usec > 0;
}

void protection_done(Protection *p)
{
        p->pause_timer = sd_event_source_disable_unref(p->pause_timer);
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
        const char *s = protection_state(c); /* a string literal: kept as is */

        if (!c->protection.last_state || !streq(c->protection.last_state, s)) {
                c->protection.last_state = s;
                context_changed(c, CHANGE_MASK(CHANGE_PROTECTION_STATE));
        }
        poller_set_demand(&c->poller, DEMAND_PROTECTION, protection_armed(c));
}

static void report_heads_parked(Context *c, bool parked)
{
        if (c->observer && c->observer->heads_parked)
                c->observer->heads_parked(c, (char *const *) disk_protect_get_disks(c->disk_protect), parked,
                                          c->observer_userdata);
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
        report_heads_parked(c, false);
        context_changed(c, CHANGE_MASK(CHANGE_PARKED));
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
        report_heads_parked(c, true);
        if (rearm)
                return; /* the same park, its timeout written again: nothing else changed */
        log_info("Disk heads parked (park %llu)",
                 (unsigned long long) disk_protect_park_count(c->disk_protect));
        context_changed(c, CHANGE_MASK(CHANGE_PARKED) | CHANGE_MASK(CHANGE_PARK_COUNT));
        protection_state_changed(c);
}

int protection_set_disks(Context *c, char *const *disks, char **ret_message)
{
        if (!c->disk_protect)
                return -EOPNOTSUPP;
        if (strv_length(disks) == 0)
                unpark(c);
        return disk_protect_set_disks(c->disk_protect, disks, ret_message);
}

static int on_pause_end(sd_event_source *s, uint64_t usec, void *userdata)
{
        Context *c = userdata;

        c->protection.pause_timer = sd_event_source_disable_unref(c->protection.pause_timer);
        c->protection.paused_until_usec = 0;
        log_info("Disk protection pause ended");
        context_changed(c, CHANGE_MASK(CHANGE_PAUSED_UNTIL));
        protection_state_changed(c);
        return 0;
}

int protection_pause(Context *c, unsigned seconds)
{
        Protection *p = &c->protection;
        int r;

        p->pause_timer = sd_event_source_disable_unref(p->pause_timer);
        if (seconds == 0)
                p->paused_until_usec = 0;
        else {
                uint64_t until = now_usec() + (uint64_t) seconds * USEC_PER_SEC;
                r = sd_event_add_time(c->event, &p->pause_timer, CLOCK_MONOTONIC, until,
                                      PAUSE_TIMER_ACCURACY_USEC, on_pause_end, c);
                if (r < 0)
                        return log_error_errno(r, "Failed to arm the pause timer: %m");
                p->paused_until_usec = until;
                unpark(c);
                log_info("Disk protection paused for %u s", seconds);
        }
        context_changed(c, CHANGE_MASK(CHANGE_PAUSED_UNTIL));
        protection_state_changed(c);
        return 0;
}
