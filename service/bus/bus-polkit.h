/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Authorization the way systemd's bus_verify_polkit_async() does it: one default-deny table maps each
 * guarded method to its polkit action. A method handler parses and validates its arguments, then calls
 * bus_authorize(). That first waits for the sender's uid (bus-creds.h: the same re-run, chained). The
 * first time it has it, it asks polkit asynchronously (CheckAuthorization on
 * org.freedesktop.PolicyKit1, interactive when the call's header allows it) and returns 0: the handler
 * returns 1, the call stays unanswered and the loop goes on. When polkit answers, the verdict is kept in a
 * registry keyed by the message and the message is dispatched again (sd_bus_enqueue_for_read()): the
 * handler runs again from the top, validates against the state of that moment (another call may have
 * changed it meanwhile), and bus_authorize() now returns the verdict. A verdict no re-run took (the
 * handler refused the call before asking) is dropped once the loop is idle. Fails closed: no polkit
 * means AccessDenied. On the session bus, callers with the daemon's own uid are allowed without asking
 * polkit.
 *
 * Checks in flight are bounded, so that a flood of calls by some users can neither exhaust the
 * daemon's pending replies on the bus (dbus-daemon's max_replies_per_connection, 128 on the system
 * bus) nor deny anyone polkit authorizes: POLKIT_PENDING_PER_SENDER per connection,
 * POLKIT_PENDING_PER_UID per user (POLKIT_PENDING_PER_DENIED_UID for a user polkit refused when it last
 * answered about it), POLKIT_PENDING_TOTAL for all users without the reserve, and POLKIT_PENDING_MAX
 * with it. The reserve is root's and that of every user polkit authorized when it last answered about
 * it (remembered for the last 16 users seen). So users polkit refuses hold at most
 * POLKIT_PENDING_PER_DENIED_UID checks each once their first ones are answered, and a user allowed by
 * a rule is answered during their flood (tests/bus/test-bus-limits.sh: 4 flooding uids). A check
 * counts from the question until its verdict is taken or dropped. The excess is answered at once with
 * Error.Busy ("too many pending authorizations"), logged
 * at most once per user (uid) per POLKIT_BUSY_LOG_INTERVAL_USEC with a count: a client can open
 * connections at will, not change its uid. A failed polkit check (no polkitd, a timeout, an error) is
 * logged the same way, its own line per uid per interval. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "macros.h"

typedef struct BusFace BusFace;
typedef struct PolkitPending PolkitPending;

#define ACTION_CALIBRATE "org.thinkpad.accelerometer.calibrate"
#define ACTION_CONFIGURE "org.thinkpad.accelerometer.configure"
#define ACTION_EC_RAW    "org.thinkpad.ec.raw"

#define POLKIT_PENDING_PER_SENDER     4
#define POLKIT_PENDING_PER_UID        16
#define POLKIT_PENDING_PER_DENIED_UID 2
#define POLKIT_PENDING_TOTAL          64
#define POLKIT_PENDING_MAX            96
#define POLKIT_BUSY_LOG_INTERVAL_USEC (10 * USEC_PER_SEC)

/* The polkit action for interface.member, or NULL: not in the table, so denied. */
const char *bus_polkit_action(const char *interface, const char *member);

/* Authorizes call (its interface and member select the action); for a method handler after it has
 * validated the arguments, before it changes anything. Returns 1: authorized, go on; 0: polkit was asked,
 * the handler returns 1 and runs again from the top with the answer; or a negative errno with error set
 * (AccessDenied, InteractiveAuthorizationRequired, Error.Busy) for the handler to return. */
int bus_authorize(BusFace *f, sd_bus_message *call, sd_bus_error *error);
/* Cancels the questions in flight and forgets the verdicts (f->polkit_pending). Returns NULL. */
PolkitPending *polkit_pending_free(PolkitPending *p);
