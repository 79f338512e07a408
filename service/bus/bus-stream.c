/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sample stream (bus-stream.h): a table of streams, each our end of a SOCK_SEQPACKET pair and an
 * EPOLLHUP watch on it (the client closed its end: released). The claim, its bounds and the watch on
 * the owner leaving the bus live in claims.c, which calls bus_streams_owner_gone() back (the callback
 * bus-face.c gives claims_start()). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bus-errors.h"
#include "bus-creds.h"
#include "bus-face.h"
#include "bus-method.h"
#include "bus-stream.h"
#include "claims.h"
#include "context.h"
#include "log-limit.h"
#include "log.h"
#include "strutil.h"

/* A readout more than 1.5 poll periods after the previous one: one (or more) was missed. */
#define MISSED_GAP_PERIODS_NUM 3
#define MISSED_GAP_PERIODS_DEN 2

typedef struct Stream {
        BusStreams *streams;
        uint64_t id; /* for the log: streams are numbered from 1 in the order they were acquired */
        char *owner; /* the unique bus name that acquired it */
        uid_t uid;   /* the owner's */
        int fd;      /* our end */
        sd_event_source *hangup;
        uint64_t sent, dropped;
        bool missed;  /* records were dropped since the last one sent: the next one says so */
        bool started; /* a record was offered: the gap before the first one is no miss */
} Stream;

typedef struct SampleSubscriber {
        char *name; /* the connection's unique name */
        uid_t uid;
        bool reserved;  /* may use the privileged reserve (bus_uid_privileged()) */
        unsigned count; /* its subscriptions */
} SampleSubscriber;

struct BusStreams {
        BusFace *face;
        UidLogTable logs; /* kinds[0]: the release lines of each user (bus-stream.h) */
        Stream **v;
        size_t n;
        uint64_t next_id;
        uint64_t last_readout_usec; /* the time of the last readout; 0: none yet */
        unsigned
                sample_credit; /* Sample decimation: SAMPLE_SIGNAL_RATE_MAX per readout, a signal per rate */
        /* SubscribeSamples(): the subscribed connections, each with its count of subscriptions. Leaving
         * the bus is seen through claims.c's one NameOwnerChanged match (its callback
         * bus_streams_owner_gone()), not a track (a match rule each) per subscriber: see claims.c. */
        SampleSubscriber *subscribers;
        size_t n_subscribers;
};

static Stream *stream_free(Stream *s)
{
        if (!s)
                return NULL;
        sd_event_source_disable_unref(s->hangup);
        if (s->fd >= 0)
                close(s->fd);
        free(s->owner);
        free(s);
        return NULL;
}

BusStreams *bus_streams_free(BusStreams *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                stream_free(s->v[i]);
        free(s->v);
        for (size_t i = 0; i < s->n_subscribers; i++)
                free(s->subscribers[i].name);
        free(s->subscribers);
        free(s);
        return NULL;
}

/* A stream that dropped records is worth a line, but at most one per user per interval. */
static void log_release(BusStreams *t, const Stream *s, const char *owner, const char *why)
{
        int level = LOG_DEBUG;
        unsigned n, others = 0;

        if (s->dropped > 0 && log_limit_pass(&uid_log_get(&t->logs, s->uid)->kinds[0], now_usec(),
                                             STREAM_LOG_INTERVAL_USEC, &n)) {
                level = LOG_INFO;
                others = n - 1;
        }
        if (others > 0)
                log_full_errno(
                        level, 0,
                        "Stream %llu of %s released (%s): %llu records sent, %llu dropped (not read in "
                        "time); %u more stream(s) of uid %u released with drops since the last message "
                        "(at most one per %llu s)",
                        (unsigned long long) s->id, owner, why, (unsigned long long) s->sent,
                        (unsigned long long) s->dropped, others, (unsigned) s->uid,
                        (unsigned long long) (STREAM_LOG_INTERVAL_USEC / USEC_PER_SEC));
        else
                log_full_errno(
                        level, 0,
                        "Stream %llu of %s released (%s): %llu records sent, %llu dropped (not read in "
                        "time; uid %u)",
                        (unsigned long long) s->id, owner, why, (unsigned long long) s->sent,
                        (unsigned long long) s->dropped, (unsigned) s->uid);
}

/* Ends a stream: drops it from the table, logs its counts, releases its claim. */
static void stream_release(Stream *s, const char *why)
{
        BusStreams *t = s->streams;
        BusFace *f = t->face;
        _cleanup_free_ char *owner = TAKE_PTR(s->owner);

        for (size_t i = 0; i < t->n; i++)
                if (t->v[i] == s) {
                        memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof(Stream *));
                        t->n--;
                        break;
                }
        log_release(t, s, owner, why);
        stream_free(s);
        claims_remove_stream(f, owner);
}

static int on_stream_hangup(sd_event_source *source, int fd, uint32_t revents, void *userdata)
{
        stream_release(userdata, "the client closed it");
        return 0;
}

static ssize_t find_subscriber(const BusStreams *t, const char *name)
{
        for (size_t i = 0; t && i < t->n_subscribers; i++)
                if (streq(t->subscribers[i].name, name))
                        return (ssize_t) i;
        return -1;
}

static void remove_subscriber(BusStreams *t, size_t i)
{
        free(t->subscribers[i].name);
        t->subscribers[i] = t->subscribers[--t->n_subscribers];
        if (t->n_subscribers == 0)
                log_debug("No Sample subscription left");
}

void bus_streams_owner_gone(BusFace *f, const char *owner)
{
        BusStreams *t = f->streams;
        ssize_t k = find_subscriber(t, owner);

        if (k >= 0)
                remove_subscriber(t, (size_t) k);

        for (size_t i = t ? t->n : 0; i > 0; i--) /* from the end: a release moves the later ones */
                if (streq(t->v[i - 1]->owner, owner))
                        stream_release(t->v[i - 1], "the client left the bus");
}

/* The table, made at the first use (NULL: out of memory). */
static BusStreams *streams_get(BusFace *f)
{
        if (!f->streams) {
                f->streams = calloc(1, sizeof(BusStreams));
                if (f->streams)
                        f->streams->face = f;
        }
        return f->streams;
}

/* Makes the socket pair: ours (the daemon only sends; SHUT_RD makes a client's write fail with EPIPE)
 * and theirs, returned in ret_fds[0] and [1]. */
static int make_socket_pair(int ret_fds[2])
{
        int fds[2];

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
                return -errno;
        if (shutdown(fds[0], SHUT_RD) < 0) {
                int r = -errno;
                close(fds[0]);
                close(fds[1]);
                return r;
        }
        ret_fds[0] = fds[0];
        ret_fds[1] = fds[1];
        return 0;
}

static int stream_new(BusFace *f, const char *owner, uid_t uid, int fd, Stream **ret)
{
        Context *c = f->context;
        BusStreams *t = f->streams;
        Stream **a, *s;
        int r;

        a = reallocarray(t->v, t->n + 1, sizeof(Stream *));
        if (!a)
                return -ENOMEM;
        t->v = a;
        s = calloc(1, sizeof(Stream));
        if (!s)
                return -ENOMEM;
        s->streams = t;
        s->fd = fd;
        s->uid = uid;
        s->owner = strdup(owner);
        if (!s->owner) {
                s->fd = -1;
                stream_free(s);
                return -ENOMEM;
        }
        r = sd_event_add_io(c->event, &s->hangup, fd, EPOLLHUP, on_stream_hangup, s);
        if (r >= 0)
                (void) sd_event_source_set_description(s->hangup, "stream-hangup");
        if (r < 0) {
                s->fd = -1; /* the caller's to close */
                stream_free(s);
                return r;
        }
        s->id = ++t->next_id;
        t->v[t->n++] = s;
        *ret = s;
        return 0;
}

int method_acquire_stream(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        const char *sender = sd_bus_message_get_sender(m);
        _cleanup_close_ int ours = -1, theirs = -1;
        Stream *s;
        uid_t uid;
        int fds[2] = {-1, -1}, r;

        r = bus_require_accelerometer(f, error);
        if (r < 0)
                return r;
        if (!sender)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "AcquireStream: a call without a sender");
        if (!streams_get(f))
                return log_error_errno(-ENOMEM, "Failed to make a stream: %m");
        /* The claim first: it applies the bounds (claims.c). */
        r = claims_add_stream(f, m, &uid, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 1: waits for the sender's uid, runs again (bus-creds.h) */
        r = make_socket_pair(fds);
        if (r < 0) {
                claims_remove_stream(f, sender);
                return log_error_errno(r, "Failed to make a stream socket pair for %s: %m", sender);
        }
        ours = fds[0];
        theirs = fds[1];
        r = stream_new(f, sender, uid, ours, &s);
        if (r < 0) {
                claims_remove_stream(f, sender);
                return log_error_errno(r, "Failed to make a stream for %s: %m", sender);
        }
        TAKE_FD(ours); /* the stream's now */

        r = sd_bus_reply_method_return(m, "hu", theirs, (uint32_t) sizeof(StreamRecord));
        if (r < 0) {
                stream_release(s, "it could not be handed over");
                return r;
        }
        log_debug("Stream %llu acquired by %s (%zu open)", (unsigned long long) s->id, sender,
                  f->streams->n);
        return 0;
}

static void stream_send(Stream *s, StreamRecord rec, bool gap)
{
        if (s->missed || (gap && s->started))
                rec.flags |= STREAM_FLAG_MISSED;
        s->started = true;
        if (send(s->fd, &rec, sizeof(rec), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t) sizeof(rec)) {
                s->sent++;
                s->missed = false;
                return;
        }
        s->missed = true;
        /* EPIPE and the like: the client is going, EPOLLHUP releases the stream. */
        if (errno != EAGAIN && errno != ENOBUFS)
                return;
        /* The client's buffer is full: it does not read in time. */
        if (s->dropped++ == 0)
                log_debug_errno(-errno, "Stream %llu of %s: dropping records the client does not read: %m",
                                (unsigned long long) s->id, s->owner);
}

/* Sample, for busctl and gdbus users: every readout up to SAMPLE_SIGNAL_RATE_MAX Hz, above it evenly
 * spread SAMPLE_SIGNAL_RATE_MAX of every poll_rate readouts (a Bresenham credit: never more). */
static bool sample_signal_due(BusStreams *t, unsigned poll_rate)
{
        if (poll_rate <= SAMPLE_SIGNAL_RATE_MAX)
                return true;
        t->sample_credit += SAMPLE_SIGNAL_RATE_MAX;
        if (t->sample_credit < poll_rate)
                return false;
        t->sample_credit -= poll_rate;
        return true;
}

void bus_stream_readout(BusFace *f, const HdapsReadout *ro, bool shock_active)
{
        Context *c = f->context;
        uint64_t t = ro->time_ns / NSEC_PER_USEC;
        BusStreams *streams = streams_get(f);
        int r;

        if (streams && streams->n > 0) {
                StreamRecord rec = {
                        .time_usec = t,
                        .x = ro->x,
                        .y = ro->y,
                        .flags = (ro->keyboard ? STREAM_FLAG_KEYBOARD : 0) |
                                 (ro->mouse ? STREAM_FLAG_MOUSE : 0) |
                                 (shock_active ? STREAM_FLAG_SHOCK_ACTIVE : 0),
                };
                /* A poll tick without a readout (the EC busy, a failure, the daemon late): a hole in the
                 * series, more than 3/2 poll periods since the last readout. */
                bool gap = c->poller.poll_rate > 0 && streams->last_readout_usec > 0 &&
                           (t - streams->last_readout_usec) * c->poller.poll_rate * MISSED_GAP_PERIODS_DEN >
                                   USEC_PER_SEC * MISSED_GAP_PERIODS_NUM;
                for (size_t i = 0; i < streams->n; i++)
                        stream_send(streams->v[i], rec, gap);
        }
        if (streams)
                streams->last_readout_usec = t;
        if (!streams || !bus_sample_subscribed(f) || !sample_signal_due(streams, c->poller.poll_rate))
                return;
        r = sd_bus_emit_signal(f->bus, ACCEL_OBJECT_PATH, ACCEL_INTERFACE, "Sample", "tii", t, ro->x, ro->y);
        if (r < 0)
                log_debug_errno(r, "Failed to emit Sample: %m");
}

bool bus_sample_subscribed(BusFace *f)
{
        return f->streams && f->streams->n_subscribers > 0;
}

/* Connections of one user holding a subscription. */
static size_t subscribers_of_uid(const BusStreams *t, uid_t uid)
{
        size_t n = 0;

        for (size_t i = 0; i < t->n_subscribers; i++)
                n += t->subscribers[i].uid == uid;
        return n;
}

/* Connections without the reserve holding a subscription. */
static size_t subscribers_unreserved(const BusStreams *t)
{
        size_t n = 0;

        for (size_t i = 0; i < t->n_subscribers; i++)
                n += !t->subscribers[i].reserved;
        return n;
}

int method_subscribe_samples(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        const char *sender = sd_bus_message_get_sender(m);
        BusStreams *t = streams_get(f);
        SampleSubscriber *a;
        const char *bound = NULL;
        unsigned limit = 0;
        bool reserved;
        uid_t uid;
        ssize_t k;
        int r;

        if (!sender)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "SubscribeSamples: a call without a sender");
        if (!t)
                return log_error_errno(-ENOMEM, "Failed to record a Sample subscription: %m");
        /* Not before the sender's earlier calls that wait for its uid (bus-creds.h: ordering rules). */
        r = bus_sender_in_order(f, m, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        k = find_subscriber(t, sender);
        if (k >= 0) {
                if (t->subscribers[k].count >= SAMPLE_SUBSCRIPTIONS_PER_SENDER_MAX)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                                 "SubscribeSamples: the per-connection bound of %u "
                                                 "subscriptions is reached; unsubscribe one first",
                                                 SAMPLE_SUBSCRIPTIONS_PER_SENDER_MAX);
                t->subscribers[k].count++;
                return sd_bus_reply_method_return(m, NULL);
        }

        r = bus_sender_uid(f, m, &uid, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        reserved = bus_uid_privileged(f, uid);
        if (uid != 0 && subscribers_of_uid(t, uid) >= SAMPLE_SUBSCRIBERS_PER_UID_MAX)
                bound = "per-user", limit = SAMPLE_SUBSCRIBERS_PER_UID_MAX;
        else if (!reserved &&
                 subscribers_unreserved(t) >= SAMPLE_SUBSCRIBERS_MAX - SAMPLE_SUBSCRIBERS_RESERVED)
                bound = "unprivileged users'", limit = SAMPLE_SUBSCRIBERS_MAX - SAMPLE_SUBSCRIBERS_RESERVED;
        else if (t->n_subscribers >= SAMPLE_SUBSCRIBERS_MAX)
                bound = "total", limit = SAMPLE_SUBSCRIBERS_MAX;
        if (bound) {
                log_debug("SubscribeSamples of %s (uid %u) refused: the %s bound of %u subscribed "
                          "connections is reached",
                          sender, (unsigned) uid, bound, limit);
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "SubscribeSamples: the %s bound of %u subscribed connections is "
                                         "reached (uid %u)",
                                         bound, limit, (unsigned) uid);
        }

        a = reallocarray(t->subscribers, t->n_subscribers + 1, sizeof(SampleSubscriber));
        if (!a)
                return log_error_errno(-ENOMEM, "Failed to record a Sample subscription: %m");
        t->subscribers = a;
        a[t->n_subscribers] = (SampleSubscriber) {
                .name = strdup(sender),
                .uid = uid,
                .reserved = reserved,
                .count = 1,
        };
        if (!a[t->n_subscribers].name)
                return log_error_errno(-ENOMEM, "Failed to record a Sample subscription: %m");
        t->n_subscribers++;
        log_debug("Sample subscription by %s (%zu subscribers)", sender, t->n_subscribers);
        return sd_bus_reply_method_return(m, NULL);
}

int method_unsubscribe_samples(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        const char *sender = sd_bus_message_get_sender(m);
        BusStreams *t = f->streams;
        ssize_t k;
        int r;

        /* Not before the sender's earlier calls that wait for its uid (bus-creds.h: ordering rules). */
        r = bus_sender_in_order(f, m, error);
        if (r <= 0)
                return r < 0 ? r : 1;
        k = sender ? find_subscriber(t, sender) : -1;
        if (k < 0)
                return sd_bus_error_set(error, ACCEL_ERROR_NOT_SUBSCRIBED,
                                        "UnsubscribeSamples: this connection holds no Sample subscription");
        if (--t->subscribers[k].count == 0)
                remove_subscriber(t, (size_t) k);
        log_debug("Sample subscription of %s released", sender);
        return sd_bus_reply_method_return(m, NULL);
}
