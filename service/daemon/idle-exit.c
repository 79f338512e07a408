/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exit when idle without an accelerometer (see idle-exit.h). */

#include <errno.h>
#include <stdlib.h>

#include "context.h"
#include "idle-exit.h"
#include "log.h"

struct IdleExit {
        Context *context;
        uint64_t timeout_usec;
        uint64_t last_call_usec;
        sd_event_source *timer;
};

void idle_exit_note_call(IdleExit *e)
{
        if (e)
                e->last_call_usec = now_usec();
}

static bool busy(const Context *c)
{
        return c->has_accelerometer || (c->poller.demand & DEMAND_CLAIM) || c->poller.polling;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        IdleExit *e = userdata;
        Context *c = e->context;
        uint64_t now = now_usec();

        if (busy(c))
                e->last_call_usec = now;
        else if (now - e->last_call_usec >= e->timeout_usec) {
                log_info("No accelerometer and no calls for %llu s: exiting (D-Bus activation starts "
                         "tpacceld again when a client asks)",
                         (unsigned long long) (e->timeout_usec / USEC_PER_SEC));
                return sd_event_exit(c->event, IDLE_EXIT_EVENT_CODE);
        }
        (void) sd_event_source_set_time(s, e->last_call_usec + e->timeout_usec);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

int idle_exit_start(Context *c, unsigned seconds, IdleExit **ret)
{
        _cleanup_(idle_exit_freep) IdleExit *e = NULL;
        int r;

        *ret = NULL;
        if (seconds == 0)
                return 0;

        e = calloc(1, sizeof(*e));
        if (!e)
                return log_error_errno(-ENOMEM, "Failed to set up the idle exit: %m");
        e->context = c;
        e->timeout_usec = (uint64_t) seconds * USEC_PER_SEC;
        e->last_call_usec = now_usec();

        r = sd_event_add_time(c->event, &e->timer, CLOCK_MONOTONIC, e->last_call_usec + e->timeout_usec,
                              USEC_PER_SEC, on_timer, e);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the idle timer: %m");
        (void) sd_event_source_set_description(e->timer, "idle-exit");
        log_debug("Exiting after %u s without calls while there is no accelerometer", seconds);
        *ret = TAKE_PTR(e);
        return 0;
}

IdleExit *idle_exit_free(IdleExit *e)
{
        if (!e)
                return NULL;
        sd_event_source_disable_unref(e->timer);
        free(e);
        return NULL;
}
