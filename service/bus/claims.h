/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Claim/Release and the streams' claims, bounded, one match for leaving clients (the model and its
 * bounds: claims.c's head comment). Refusals are LimitsExceeded naming the bound; the last
 * CLAIMS_RESERVED of CLAIMS_MAX are kept for privileged callers (root, the daemon's uid, the user of
 * seat0's active session). The same scheme bounds the streams (bus-stream.h, STREAMS_*). The state is
 * f->claims. */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

typedef struct BusFace BusFace;

#define CLAIMS_PER_CONNECTION_MAX 16u  /* Claim/ClaimAtRate/ClaimMovement claims one connection holds */
#define CLAIMS_PER_UID_MAX        32u  /* ... all connections of one user hold */
#define CLAIMS_MAX                256u /* ... everyone holds */
#define CLAIMS_RESERVED           64u  /* ... of which only privileged callers may hold the last ones */

/* What else ends when a client leaves the bus: called with the unique name that left, after the
 * sender's uid is forgotten (bus_creds_forget()) and before its claims are dropped. The face passes
 * bus_streams_owner_gone() (bus-stream.h: its subscriptions end, its streams release their claims
 * through claims_remove_stream()), so that claims.c never calls into bus-stream.c. */
typedef void (*ClaimsOwnerGone)(BusFace *f, const char *name);

/* Watches clients leaving the bus (one NameOwnerChanged match, for every claimer and stream) and calls
 * owner_gone (may be NULL) for each; before the name is taken. Returns 0 or a negative errno (logged). */
int claims_start(BusFace *f, ClaimsOwnerGone owner_gone);
/* Records a claim of the message's sender at rate Hz (0: the configured SamplingRate, validated by the
 * caller) and updates the poller's claim: returns 1. Returns 0 when the call waits for its sender's uid
 * (bus-creds.h: the handler returns 1 and runs again); or sets error (LimitsExceeded naming the bound)
 * and returns a negative errno. */
int claims_add(BusFace *f, sd_bus_message *m, unsigned rate, sd_bus_error *error);
/* Records a claim of the sender's new sample stream (bus-stream.c) at the configured SamplingRate after
 * the STREAMS_* bounds, *ret_uid the sender's uid; returns as claims_add(). Release does not drop
 * it; claims_remove_stream() does (a no-op once the sender left the bus: its claims went with it). */
int claims_add_stream(BusFace *f, sd_bus_message *m, uid_t *ret_uid, sd_bus_error *error);
void claims_remove_stream(BusFace *f, const char *sender);
/* Drops the sender's most recent claim made by Claim or ClaimAtRate; 0 if the caller held none. */
int claims_remove(BusFace *f, sd_bus_message *m);
/* Records a movement claim of the sender (ClaimMovement: movement is watched while any is held,
 * movement-watch.h), counted as a claim in the CLAIMS_* bounds: returns 1. Returns 0 when the call
 * waits for its sender's uid (the handler returns 1 and runs again); or sets error as claims_add() and
 * returns a negative errno. */
int claims_add_movement(BusFace *f, sd_bus_message *m, sd_bus_error *error);
/* Drops one of the sender's movement claims: 1, or 0 if it held none. */
int claims_remove_movement(BusFace *f, sd_bus_message *m);
/* Drops every claim and the match; f->claims is NULL after. */
void claims_free(BusFace *f);
/* Whether uid may use the reserves (claims, streams, sensor-proxy claims): root, the daemon's own uid,
 * the user of seat0's active session (logind; nobody without it). */
bool bus_uid_privileged(const BusFace *f, uid_t uid);
