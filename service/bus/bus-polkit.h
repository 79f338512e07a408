/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Authorization: one default-deny table maps each guarded method to its polkit action, and
 * bus_authorize() checks the caller asynchronously (CheckAuthorization on org.freedesktop.PolicyKit1,
 * interactive when the call's header allows it). A pending check never blocks the loop. Fails closed:
 * no polkit means AccessDenied. On the session bus, callers with the daemon's own uid are allowed
 * without asking polkit.
 *
 * Checks in flight are bounded, so that a flood of calls by some users can neither exhaust the
 * daemon's pending replies on the bus (dbus-daemon's max_replies_per_connection, 128 on the system
 * bus) nor deny anyone else: POLKIT_PENDING_PER_SENDER per connection, POLKIT_PENDING_PER_UID per
 * user, POLKIT_PENDING_TOTAL for all users but root, and POLKIT_PENDING_MAX including root (the rest is
 * kept for root, whom polkit authorizes). The excess is answered at once with Error.Busy ("too many
 * pending authorizations"), logged at most once per user (uid) per POLKIT_BUSY_LOG_INTERVAL_USEC with a
 * count: a client can open connections at will, not change its uid. A failed polkit check (no polkitd,
 * a timeout, an error) is logged the same way, its own line per uid per interval. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "context.h"
#include "ec.h"

#define ACTION_CALIBRATE "org.thinkpad.accelerometer.calibrate"
#define ACTION_CONFIGURE "org.thinkpad.accelerometer.configure"
#define ACTION_EC_RAW    "org.thinkpad.ec.raw"

#define POLKIT_PENDING_PER_SENDER     4
#define POLKIT_PENDING_PER_UID        16
#define POLKIT_PENDING_TOTAL          64
#define POLKIT_PENDING_MAX            96
#define POLKIT_BUSY_LOG_INTERVAL_USEC (10 * USEC_PER_SEC)

/* The parsed, validated arguments of a guarded call, kept while polkit decides. */
typedef struct BusArgs {
        uint32_t u;
        bool b;
        double d;
        char **strv; /* owned */
        EcRow row;
        uint16_t data_mask;
        const void *setting; /* which setting a shared setter applies (the handler's own descriptor) */
} BusArgs;

/* Applies an authorized call. Either replies to call itself and returns >= 0, or returns a negative
 * errno / sets error, and bus_authorize() replies with that error. */
typedef int (*BusAuthorizedFunc)(Context *c, sd_bus_message *call, BusArgs *args, sd_bus_error *error);

/* The polkit action for interface.member, or NULL: not in the table, so denied. */
const char *bus_polkit_action(const char *interface, const char *member);

/* Authorizes call (its interface and member select the action), then runs func with a copy of *args
 * (ownership of args->strv moves to the query). Returns 1: the call is handled (replied, or pending),
 * or a negative errno / sets error for the method handler to return. */
int bus_authorize(Context *c, sd_bus_message *call, BusArgs *args, BusAuthorizedFunc func,
                  sd_bus_error *error);
