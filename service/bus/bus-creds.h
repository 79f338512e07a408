/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Who sent a call: the one owner of the senders' uids, asked of the bus without ever waiting for it.
 *
 * dbus-daemon does not attach the sender's credentials to a message, so the uid is asked of the bus
 * driver (GetConnectionUnixUser) asynchronously and kept per connection (unique name) for its
 * lifetime: a connection's first call that needs its uid waits, later ones do not. A handler that needs
 * the uid calls bus_sender_uid(). The first time, that asks the bus and returns 0: the handler returns
 * 1, the call stays unanswered (its message kept) and the loop goes on with the poll. When the bus
 * answers, every call of that connection waiting for it is dispatched again, in the order they came
 * (sd_bus_enqueue_for_read()); each handler runs again from the top and bus_sender_uid() now returns
 * the uid (or AccessDenied "Cannot tell who SENDER is" when the bus could not tell). The shape of
 * bus-polkit.h, which chains after it: a polkit-checked call first waits for its sender's uid, then for
 * polkit.
 *
 * Ordering rules (tests/bus/test_slow_bus.py):
 *   - Calls of one connection that change what it holds (Claim, ClaimAtRate, AcquireStream,
 *     SubscribeSamples, ClaimAccelerometer and their Release, UnsubscribeSamples, ReleaseAccelerometer)
 *     take effect and are answered in the order they were sent. A Release sent while its Claim waits for
 *     the uid waits behind it (bus_sender_in_order()): the Claim is recorded and answered, then the
 *     Release drops it and is answered; no claim remains. Both succeed.
 *   - A connection that leaves the bus while its uid is asked: the question is dropped and so are its
 *     waiting calls, unanswered (there is no one to answer); nothing it asked for is recorded, whatever
 *     the bus answers after. The bus driver answers and announces the leaving in order, so a uid that
 *     came before the leaving lets the calls run before the leaving drops what they recorded.
 *   - The daemon shutting down with calls waiting: each is answered with NoServer ("tpacceld is
 *     shutting down"), before the connection closes.
 *
 * Bounded: CREDS_WAITING_PER_SENDER calls wait per connection, CREDS_WAITING_MAX in all (so at most as
 * many questions are in flight); past them a call is refused at once with Busy naming the bound (a
 * queue that drains when the bus answers, so "try again", as for polkit's) and changes nothing. At most
 * CREDS_KNOWN_MAX uids are kept; past it the one used longest ago is forgotten (asked again when its
 * connection calls again). */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

typedef struct BusFace BusFace;
typedef struct BusCreds BusCreds;

#define CREDS_WAITING_PER_SENDER 32u   /* calls of one connection waiting for its uid */
#define CREDS_WAITING_MAX        512u  /* calls waiting for a uid, in all */
#define CREDS_KNOWN_MAX          1024u /* connections whose uid is kept */

/* The uid of call's sender. Returns 1 with *ret_uid set; 0: the bus was asked (or is being asked) and
 * the call waits, the handler returns 1 and runs again from the top with the answer; or a negative
 * errno with error set (AccessDenied when the bus cannot tell, Busy past the bounds) for the
 * handler to return. f->creds is allocated on first use. */
int bus_sender_uid(BusFace *f, sd_bus_message *call, uid_t *ret_uid, sd_bus_error *error);
/* For a call that needs no uid but must not overtake its connection's earlier calls (a Release): 1
 * when none of them waits, go on; 0: it waits behind them, return 1 and run again from the top; or a
 * negative errno with error set (Busy). */
int bus_sender_in_order(BusFace *f, sd_bus_message *call, sd_bus_error *error);
/* name left the bus (the bus driver's NameOwnerChanged, claims.c): forgets its uid, drops a question in
 * flight and its waiting calls unanswered. */
void bus_creds_forget(BusFace *f, const char *name);
/* Answers every waiting call with NoServer (the daemon is shutting down), cancels the questions and
 * forgets every uid. Returns NULL. */
BusCreds *bus_creds_free(BusCreds *t);
