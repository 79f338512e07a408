/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The bus connections driven from the event loop under a budget of CPU time (bus-pump.c), in place of
 * sd_bus_attach_event(): tpacceld runs at real-time priority for the poll's sake (the unit's
 * CPUSchedulingPolicy=rr), and the bus work a flood of calls asks for would take that priority too. While
 * the daemon runs at a real-time policy, the bus work of every connection together (reading, dispatching,
 * the method handlers, writing) may take BUS_BUDGET_SHARE_PERCENT of the CPU on average, in bursts of at
 * most BUS_BUDGET_BURST_USEC; past it, no connection reads or dispatches until the budget has refilled.
 * The messages wait in the socket and in the bus daemon's queue, not in the daemon's memory. The poll
 * and every other event source keep running meanwhile. At SCHED_OTHER the kernel shares the CPU fairly
 * and there is no budget.
 *
 * The same pump bounds what a connection holds: it reads no message while one is queued for dispatch
 * or while more than BUS_PUMP_WQUEUE_MAX messages wait to be written (the bus daemon not reading ours),
 * so what sd-bus holds of its callers is one message and the replies to what was already read. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#define BUS_BUDGET_SHARE_PERCENT 20
#define BUS_BUDGET_BURST_USEC    (20 * 1000ULL)
#define BUS_PUMP_WQUEUE_MAX      256

/* The budget as a token bucket: CPU microseconds that refill at BUS_BUDGET_SHARE_PERCENT of the time
 * passed, up to BUS_BUDGET_BURST_USEC; bus work spends them. Pure arithmetic over the times it is given,
 * so that it is tested without a clock. */
typedef struct BusBudget {
        bool enabled;      /* false: unlimited (SCHED_OTHER) */
        int64_t tokens;    /* CPU microseconds left; negative: overdrawn */
        uint64_t refilled; /* CLOCK_MONOTONIC microseconds of the last refill */
} BusBudget;

/* A full bucket at now_usec, enabled or not. */
void bus_budget_init(BusBudget *b, bool enabled, uint64_t now_usec);
/* Spends cpu_usec of bus work, done by now_usec. */
void bus_budget_spend(BusBudget *b, uint64_t now_usec, uint64_t cpu_usec);
/* When bus work may go on: now_usec if it may now, else the CLOCK_MONOTONIC time the overdraft is
 * refilled by. */
uint64_t bus_budget_next(BusBudget *b, uint64_t now_usec);

typedef struct BusPump BusPump;

/* Drives bus (connected, not attached to an event loop) from e at priority, spending budget (borrowed;
 * it outlives the pump). When the connection closes (the bus daemon gone, or a read or write failed), the
 * loop exits with status 1 (what sd_bus_set_exit_on_disconnect() does for an attached bus). Returns 0 or
 * a negative errno. */
int bus_pump_new(sd_bus *bus, sd_event *e, int64_t priority, BusBudget *budget, BusPump **ret);
/* Stops driving the connection (which stays open: the caller flushes and closes it). NULL is fine. */
BusPump *bus_pump_free(BusPump *p);
static inline void bus_pump_freep(BusPump **p)
{
        bus_pump_free(*p);
}
