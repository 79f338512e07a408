/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bus connections driven under a budget of CPU time (see bus-pump.h). */

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "bus-pump.h"
#include "log.h"
#include "time-util.h"

void bus_budget_init(BusBudget *b, bool enabled, uint64_t now_usec)
{
        *b = (BusBudget) {
                .enabled = enabled,
                .tokens = BUS_BUDGET_BURST_USEC,
                .refilled = now_usec,
        };
}

static void refill(BusBudget *b, uint64_t now_usec)
{
        uint64_t gained;

        if (now_usec <= b->refilled)
                return;
        gained = (now_usec - b->refilled) * BUS_BUDGET_SHARE_PERCENT / 100;
        b->refilled = now_usec;
        if (gained >= BUS_BUDGET_BURST_USEC ||
            b->tokens + (int64_t) gained >= (int64_t) BUS_BUDGET_BURST_USEC)
                b->tokens = BUS_BUDGET_BURST_USEC;
        else
                b->tokens += (int64_t) gained;
}

void bus_budget_spend(BusBudget *b, uint64_t now_usec, uint64_t cpu_usec)
{
        if (!b->enabled)
                return;
        refill(b, now_usec);
        b->tokens -= (int64_t) cpu_usec;
}

uint64_t bus_budget_next(BusBudget *b, uint64_t now_usec)
{
        if (!b->enabled)
                return now_usec;
        refill(b, now_usec);
        if (b->tokens > 0)
                return now_usec;
        /* Refilled back to one microsecond above zero: the overdraft over the share. */
        return now_usec + ((uint64_t) (-b->tokens) + 1) * 100 / BUS_BUDGET_SHARE_PERCENT;
}

struct BusPump {
        sd_bus *bus;
        sd_event *event;
        BusBudget *budget;
        sd_event_source *io, *timer;
};

static uint64_t thread_cpu_usec(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
                return 0;
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

/* The connection is closed for good: the loop ends with status 1 (main.c says what is lost). */
static void pump_closed(BusPump *p)
{
        (void) sd_event_source_set_enabled(p->io, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
        (void) sd_event_exit(p->event, EXIT_FAILURE);
}

/* One step of sd-bus (a timeout, a write, or one message read and dispatched), its CPU time spent. */
static void pump_process(BusPump *p)
{
        uint64_t cpu = p->budget->enabled ? thread_cpu_usec() : 0;
        int r = sd_bus_process(p->bus, NULL);

        if (p->budget->enabled)
                bus_budget_spend(p->budget, now_usec(), thread_cpu_usec() - cpu);
        if (r < 0 && r != -ENOTCONN) {
                /* What sd-bus' own event source does: a connection that failed is closed. */
                log_debug_errno(r, "Processing the bus failed, closing it: %m");
                sd_bus_close(p->bus);
        }
}

/* Before each wait of the loop: what to wait for, from the state of sd-bus and of the budget. */
static int on_prepare(sd_event_source *s, void *userdata)
{
        BusPump *p = userdata;
        uint64_t until, now, next;
        uint64_t queued = 0;
        int events, r;

        events = sd_bus_get_events(p->bus);
        if (events < 0) {
                pump_closed(p);
                return 0;
        }
        r = sd_bus_get_timeout(p->bus, &until);
        if (r <= 0)
                until = UINT64_MAX;

        now = now_usec();
        next = bus_budget_next(p->budget, now);
        if (next > now) {
                /* Only what is already read may leave: no read, no dispatch (a timeout's included) until
                 * the budget refilled, when the timer wakes the loop to read again. */
                events &= POLLOUT;
                until = next;
        } else if (sd_bus_get_n_queued_write(p->bus, &queued) >= 0 && queued > BUS_PUMP_WQUEUE_MAX)
                events &= POLLOUT; /* the replies so far leave first */

        r = sd_event_source_set_io_events(p->io, (uint32_t) events);
        if (r < 0)
                return r;
        if (until == UINT64_MAX)
                return sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
        r = sd_event_source_set_time(p->timer, until);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        pump_process(userdata);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        pump_process(userdata);
        return 0;
}

int bus_pump_new(sd_bus *bus, sd_event *e, int64_t priority, BusBudget *budget, BusPump **ret)
{
        _cleanup_(bus_pump_freep) BusPump *p = NULL;
        int fd, r;

        fd = sd_bus_get_fd(bus);
        if (fd < 0)
                return fd;
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->bus = sd_bus_ref(bus);
        p->event = sd_event_ref(e);
        p->budget = budget;

        r = sd_event_add_io(e, &p->io, fd, 0, on_io, p);
        if (r < 0)
                return r;
        r = sd_event_source_set_priority(p->io, priority);
        if (r >= 0)
                r = sd_event_source_set_prepare(p->io, on_prepare);
        if (r >= 0)
                r = sd_event_add_time(e, &p->timer, CLOCK_MONOTONIC, 0, 0, on_timer, p);
        if (r >= 0)
                r = sd_event_source_set_priority(p->timer, priority);
        if (r >= 0)
                r = sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(p->io, "bus-pump-io");
        (void) sd_event_source_set_description(p->timer, "bus-pump-timer");
        *ret = TAKE_PTR(p);
        return 0;
}

BusPump *bus_pump_free(BusPump *p)
{
        if (!p)
                return NULL;
        sd_event_source_disable_unref(p->io);
        sd_event_source_disable_unref(p->timer);
        sd_bus_unref(p->bus);
        sd_event_unref(p->event);
        free(p);
        return NULL;
}
