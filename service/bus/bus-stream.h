/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* AcquireStream(): the sample stream for fast consumers, in the manner of BlueZ's AcquireNotify. Each
 * call makes a SOCK_SEQPACKET socket pair, keeps one end and hands the other to the caller; every
 * readout then goes to every stream as one StreamRecord, sent without blocking (a client that does not
 * read loses records, counted per stream, and the next record it gets has STREAM_FLAG_MISSED). A stream
 * is a claim at the full SamplingRate (claims.c) for as long as the caller holds its end: closing it
 * (EPOLLHUP on ours) or leaving the bus (claims.c's one NameOwnerChanged match) releases it. Streams are
 * bounded per connection, per user and in all, the last STREAMS_RESERVED kept for privileged callers
 * (claims.c). A released stream that dropped records is logged at most once per user per
 * STREAM_LOG_INTERVAL_USEC, with the count of the others (a client can open streams at will, not change
 * its uid). The broadcast Sample signal is decimated here to at most SAMPLE_SIGNAL_RATE_MAX per second. */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "hdaps.h"
#include "macros.h"

typedef struct BusFace BusFace;
typedef struct BusStreams BusStreams;

/* One record per readout, native endian (the interface XML documents it). */
typedef struct StreamRecord {
        uint64_t time_usec; /* CLOCK_MONOTONIC time of the readout, as Sample's */
        int32_t x, y;       /* axis-corrected raw counts, as Sample's */
        uint32_t flags;     /* STREAM_FLAG_* */
        uint32_t reserved;  /* 0 */
} StreamRecord;
static_assert(sizeof(StreamRecord) == 24, "StreamRecord is 24 bytes on every ABI");

#define STREAM_FLAG_KEYBOARD     (UINT32_C(1) << 0) /* the EC's keyboard-activity flag of this readout */
#define STREAM_FLAG_MOUSE        (UINT32_C(1) << 1) /* the EC's mouse-activity flag of this readout */
#define STREAM_FLAG_SHOCK_ACTIVE (UINT32_C(1) << 2) /* ShockActive after this readout */
/* A readout was missed before this one: more than 1.5 poll periods passed since the previous readout
 * (a poll tick without one), or this stream dropped records its client did not read in time. */
#define STREAM_FLAG_MISSED (UINT32_C(1) << 3)

#define STREAMS_PER_SENDER_MAX              4u   /* open streams of one bus connection */
#define STREAMS_PER_UID_MAX                 16u  /* open streams of all connections of one user */
#define STREAMS_MAX                         128u /* open streams of all clients */
#define STREAMS_RESERVED                    32u /* of STREAMS_MAX, the last ones only privileged callers may open */
#define STREAM_LOG_INTERVAL_USEC            (10 * USEC_PER_SEC) /* release lines of one user: at most one per */
#define SAMPLE_SIGNAL_RATE_MAX              50u /* Sample signals per second; above it every readout is not sent */
#define SAMPLE_SUBSCRIPTIONS_PER_SENDER_MAX 64u  /* SubscribeSamples() calls one connection may hold */
#define SAMPLE_SUBSCRIBERS_PER_UID_MAX      16u  /* connections of one user holding a subscription */
#define SAMPLE_SUBSCRIBERS_MAX              128u /* connections holding a subscription */
#define SAMPLE_SUBSCRIBERS_RESERVED         32u  /* of SAMPLE_SUBSCRIBERS_MAX, kept for privileged callers */

/* The AcquireStream() method handler (userdata: the BusFace). Errors: NoAccelerometer; LimitsExceeded
 * naming the bound when the caller's connection, its user or everyone holds the most streams allowed. */
int method_acquire_stream(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* SubscribeSamples()/UnsubscribeSamples() (userdata: the BusFace): the Sample signal is emitted only
 * while at least one subscription exists. Subscriptions are counted per connection: each
 * SubscribeSamples() adds one, UnsubscribeSamples() drops one (Error.NotSubscribed when the caller holds
 * none), and leaving the bus (claims.c's one NameOwnerChanged match, bus_streams_owner_gone()) drops all
 * of a caller's. Subscribing claims nothing: Sample comes only while something else makes the daemon
 * poll. LimitsExceeded naming the bound above SAMPLE_SUBSCRIPTIONS_PER_SENDER_MAX subscriptions of one
 * connection, SAMPLE_SUBSCRIBERS_PER_UID_MAX subscribed connections of one user (but root), or
 * SAMPLE_SUBSCRIBERS_MAX in all, the last SAMPLE_SUBSCRIBERS_RESERVED for privileged callers. */
int method_subscribe_samples(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_unsubscribe_samples(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* Whether a Sample subscription exists now. */
bool bus_sample_subscribed(BusFace *f);

/* Per readout (poller.c): one record to every stream, and, while someone subscribed to it, the Sample
 * signal, decimated to at most SAMPLE_SIGNAL_RATE_MAX per second at the poll rate in force.
 * shock_active: after this readout. */
void bus_stream_readout(BusFace *f, const HdapsReadout *ro, bool shock_active);

/* owner left the bus: ends its Sample subscriptions and releases its streams (their claims:
 * claims_remove_stream()). The ClaimsOwnerGone callback bus-face.c gives claims_start(): claims.c calls
 * it for every unique name that leaves, before it drops the owner's claims. */
void bus_streams_owner_gone(BusFace *f, const char *owner);

/* Closes every stream without touching the claims (bus_face_free(), before claims_free()). */
BusStreams *bus_streams_free(BusStreams *s);
