/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Claim/ClaimAtRate/Release, ClaimMovement/ReleaseMovement and the sample streams' claims: a table of
 * claimers, one per unique name holding a claim or a stream, each with its uid, the rates its claims
 * asked for (0: the configured SamplingRate; Release drops the most recent), its count of movement
 * claims (counted as claims in the bounds; while anyone holds one, movement is watched:
 * movement-watch.h) and its count of open streams (bus-stream.c: claims at
 * the full rate that Release does not drop, closing the stream does). The poller polls at the highest
 * rate any claim needs (poller_set_claim()).
 *
 * Leaving the bus is seen through ONE match on the bus driver's NameOwnerChanged, made at start, not an
 * sd_bus_track (a match rule each) per claimer or stream: dbus-daemon allows 512 match rules per
 * connection and closes the connection at the next AddMatch past them, which ended the daemon. The
 * bus delivers a client's calls before the NameOwnerChanged of its leaving, so a claim is never
 * recorded after its client was seen to go. What else ends with the client (its streams) is the face's
 * callback (claims_start()): this file calls no function of bus-stream.c.
 *
 * Everything is bounded (bus-face.h: CLAIMS_*, STREAMS_* in bus-stream.h): per connection, per user
 * (but root) and in all, with the last part of the total kept for privileged callers (root, the daemon's
 * own uid and the user of seat0's active session), so that no set of other users can lock them out. Each
 * claimer caches the highest rate it needs; a claim costs O(claimers), never O(all claims). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>

#include "bus-creds.h"
#include "bus-face.h"
#include "bus-stream.h"
#include "claims.h"
#include "log.h"
#include "movement-watch.h"
#include "strutil.h"

typedef struct Claimer {
        char *name;
        uid_t uid;
        bool reserved;                             /* may use the privileged reserve */
        unsigned rates[CLAIMS_PER_CONNECTION_MAX]; /* the claims' rates, most recent last; 0: SamplingRate */
        size_t n_rates;
        size_t n_streams;  /* open sample streams: claims at the configured SamplingRate */
        size_t n_movement; /* ClaimMovement claims: movement detection (movement-watch.h) */
        unsigned need;     /* the highest rate its claims need (POLLER_RATE_FULL: the configured one) */
} Claimer;

struct Claims {
        Claimer **v;
        size_t n;
        size_t n_claims, n_streams;             /* held by everyone */
        size_t n_claims_other, n_streams_other; /* held by callers without the reserve */
        sd_bus_slot *gone;                      /* the NameOwnerChanged match */
        ClaimsOwnerGone owner_gone;             /* the face's: what else ends with a client (streams) */
};

static Claimer *claimer_free(Claimer *k)
{
        if (!k)
                return NULL;
        free(k->name);
        free(k);
        return NULL;
}

/* Claims in the sense of the CLAIMS_* bounds: Claim/ClaimAtRate and ClaimMovement ones. */
static size_t claimer_claims(const Claimer *k)
{
        return k->n_rates + k->n_movement;
}

static void claimer_update_need(Claimer *k)
{
        k->need = k->n_streams > 0 ? POLLER_RATE_FULL : 0;
        for (size_t j = 0; j < k->n_rates; j++)
                k->need = MAX(k->need, k->rates[j] ?: POLLER_RATE_FULL);
}

static void remove_claimer(Claims *t, size_t i)
{
        claimer_free(t->v[i]);
        memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof(Claimer *));
        t->n--;
        if (t->n == 0) {
                free(t->v);
                t->v = NULL;
                log_debug("Last claim released");
        }
}

static ssize_t find_claimer(const Claims *t, const char *name)
{
        for (size_t i = 0; t && i < t->n; i++)
                if (streq(t->v[i]->name, name))
                        return (ssize_t) i;
        return -1;
}

/* Tells the poller the highest rate any claim needs now (0: no claim) and a claimer needing it, and
 * the core whether anyone watches for movement. */
static void claims_changed(BusFace *f)
{
        Context *c = f->context;
        Claims *t = f->claims;
        unsigned max = 0;
        const char *claimer = NULL;
        bool movement = false;

        for (size_t i = 0; t && i < t->n; i++) {
                if (t->v[i]->need > max) {
                        max = t->v[i]->need;
                        claimer = t->v[i]->name;
                }
                movement = movement || t->v[i]->n_movement > 0;
        }
        poller_set_claim(&c->poller, max, claimer);
        movement_watch_set(c, movement);
}

/* The bus driver's NameOwnerChanged: a unique name without a new owner left the bus. */
static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        const char *name, *old_owner, *new_owner;
        ssize_t i;
        int r;

        r = sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner);
        if (r < 0) {
                log_debug_errno(r, "Ignoring a NameOwnerChanged off protocol: %m");
                return 0;
        }
        if (name[0] != ':' || new_owner[0] != '\0')
                return 0;
        bus_creds_forget(f, name); /* its uid, and its calls still waiting for it */
        if (f->claims->owner_gone)
                f->claims->owner_gone(f, name); /* its streams: each releases its claim */
        if (find_claimer(f->claims, name) < 0)
                return 0;

        log_debug("%s left the bus, dropping its claims", name);
        i = find_claimer(f->claims, name);
        if (i >= 0) {
                Claimer *k = f->claims->v[i];
                f->claims->n_claims -= claimer_claims(k);
                if (!k->reserved)
                        f->claims->n_claims_other -= claimer_claims(k);
                remove_claimer(f->claims, (size_t) i);
        }
        claims_changed(f);
        return 0;
}

int claims_start(BusFace *f, ClaimsOwnerGone owner_gone)
{
        int r;

        assert(!f->claims);
        f->claims = calloc(1, sizeof(Claims));
        if (!f->claims)
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        f->claims->owner_gone = owner_gone;
        r = sd_bus_match_signal(f->bus, &f->claims->gone, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, f);
        if (r < 0)
                return log_error_errno(r, "Failed to watch clients leaving the bus: %m");
        return 0;
}

bool bus_uid_privileged(const BusFace *f, uid_t uid)
{
        _cleanup_free_ char *session = NULL;
        uid_t active = (uid_t) -1;

        if (uid == 0 || uid == f->own_uid)
                return true;
        if (sd_seat_get_active("seat0", &session, &active) < 0)
                return false;
        return active == uid;
}

/* The sender's claimer, or NULL with *ret_uid and *ret_reserved of a new one (its uid: bus-creds.h).
 * Returns 1, 0: the call waits for its sender's uid (bus_sender_uid()), or a negative errno with error
 * set. */
static int find_or_identify(BusFace *f, sd_bus_message *m, Claimer **ret, uid_t *ret_uid, bool *ret_reserved,
                            sd_bus_error *error)
{
        const char *sender = sd_bus_message_get_sender(m);
        ssize_t i;
        int r;

        if (!sender)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "A claim without a sender");
        i = find_claimer(f->claims, sender);
        if (i >= 0) {
                *ret = f->claims->v[i];
                *ret_uid = (*ret)->uid;
                *ret_reserved = (*ret)->reserved;
                return 1;
        }
        r = bus_sender_uid(f, m, ret_uid, error);
        if (r <= 0)
                return r;
        *ret = NULL;
        *ret_reserved = bus_uid_privileged(f, *ret_uid);
        return 1;
}

static int new_claimer(BusFace *f, const char *name, uid_t uid, bool reserved, Claimer **ret)
{
        Claims *t = f->claims;
        Claimer *k, **a;

        a = reallocarray(t->v, t->n + 1, sizeof(Claimer *));
        if (!a)
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        t->v = a;
        k = calloc(1, sizeof(Claimer));
        if (!k)
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        k->name = strdup(name);
        if (!k->name) {
                claimer_free(k);
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        }
        k->uid = uid;
        k->reserved = reserved;
        t->v[t->n++] = k;
        *ret = k;
        return 0;
}

/* What one user's connections hold: claims (streams false) or streams. */
static size_t held_by_uid(const Claims *t, uid_t uid, bool streams)
{
        size_t n = 0;

        for (size_t i = 0; i < t->n; i++)
                if (t->v[i]->uid == uid)
                        n += streams ? t->v[i]->n_streams : claimer_claims(t->v[i]);
        return n;
}

/* Admits one more claim (streams false) or stream of the sender, or sets error to LimitsExceeded
 * naming the bound. Returns 1 with *ret the sender's claimer (made if new), 0 (the call waits for its
 * sender's uid) or a negative errno. */
static int admit(BusFace *f, sd_bus_message *m, bool streams, Claimer **ret, sd_bus_error *error)
{
        Claims *t = f->claims;
        const char *what = streams ? "AcquireStream" : sd_bus_message_get_member(m);
        const char *noun = streams ? "streams" : "claims";
        const char *bound = NULL;
        unsigned limit = 0;
        size_t have;
        Claimer *k = NULL;
        uid_t uid = (uid_t) -1;
        bool reserved = false;
        int r;

        if (!t) /* claims_start() failed or was not called: the face is not up */
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "Claims are not being taken");
        r = find_or_identify(f, m, &k, &uid, &reserved, error);
        if (r <= 0)
                return r;

        have = k ? (streams ? k->n_streams : claimer_claims(k)) : 0;
        if (have >= (streams ? STREAMS_PER_SENDER_MAX : CLAIMS_PER_CONNECTION_MAX))
                bound = "per-connection",
                limit = streams ? STREAMS_PER_SENDER_MAX : CLAIMS_PER_CONNECTION_MAX;
        else if (uid != 0 &&
                 held_by_uid(t, uid, streams) >= (streams ? STREAMS_PER_UID_MAX : CLAIMS_PER_UID_MAX))
                bound = "per-user", limit = streams ? STREAMS_PER_UID_MAX : CLAIMS_PER_UID_MAX;
        else if (!reserved &&
                 (streams ? t->n_streams_other : t->n_claims_other) >=
                         (streams ? STREAMS_MAX - STREAMS_RESERVED : CLAIMS_MAX - CLAIMS_RESERVED))
                bound = "unprivileged users'",
                limit = streams ? STREAMS_MAX - STREAMS_RESERVED : CLAIMS_MAX - CLAIMS_RESERVED;
        else if ((streams ? t->n_streams : t->n_claims) >= (streams ? STREAMS_MAX : CLAIMS_MAX))
                bound = "total", limit = streams ? STREAMS_MAX : CLAIMS_MAX;
        if (bound) {
                log_debug("%s of %s (uid %u) refused: the %s bound of %u %s is reached", what,
                          sd_bus_message_get_sender(m), (unsigned) uid, bound, limit, noun);
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "%s: the %s bound of %u %s is reached (uid %u); %s one first", what,
                                         bound, limit, noun, (unsigned) uid, streams ? "close" : "release");
        }

        if (!k) {
                r = new_claimer(f, sd_bus_message_get_sender(m), uid, reserved, &k);
                if (r < 0)
                        return r;
        }
        *ret = k;
        return 1;
}

int claims_add(BusFace *f, sd_bus_message *m, unsigned rate, sd_bus_error *error)
{
        Claimer *k;
        int r;

        r = admit(f, m, /* streams= */ false, &k, error);
        if (r <= 0)
                return r;
        k->rates[k->n_rates++] = rate;
        k->need = MAX(k->need, rate ?: POLLER_RATE_FULL);
        f->claims->n_claims++;
        if (!k->reserved)
                f->claims->n_claims_other++;

        if (rate)
                log_debug("Claim by %s at %u Hz (%zu)", k->name, rate, k->n_rates);
        else
                log_debug("Claim by %s at the configured rate (%zu)", k->name, k->n_rates);
        claims_changed(f);
        return 1;
}

int claims_add_stream(BusFace *f, sd_bus_message *m, uid_t *ret_uid, sd_bus_error *error)
{
        Claimer *k;
        int r;

        r = admit(f, m, /* streams= */ true, &k, error);
        if (r <= 0)
                return r;
        k->n_streams++;
        k->need = POLLER_RATE_FULL;
        f->claims->n_streams++;
        if (!k->reserved)
                f->claims->n_streams_other++;
        log_debug("Stream claim by %s at the configured rate (%zu)", k->name, k->n_streams);
        claims_changed(f);
        *ret_uid = k->uid;
        return 1;
}

int claims_add_movement(BusFace *f, sd_bus_message *m, sd_bus_error *error)
{
        Claimer *k = NULL;
        int r;

        r = admit(f, m, /* streams= */ false, &k, error);
        if (r < 0)
                return r;
        if (!k)
                return 0; /* admitted nothing yet: the call waits for its sender's uid */
        k->n_movement++;
        f->claims->n_claims++;
        if (!k->reserved)
                f->claims->n_claims_other++;
        log_debug("Movement claim by %s (%zu)", k->name, k->n_movement);
        claims_changed(f);
        return 1;
}

/* After one of claimer i's claims went: its need follows, a claimer left without claims goes, and the
 * poller hears of it. */
static void claimer_released_one(BusFace *f, size_t i)
{
        Claimer *k = f->claims->v[i];

        claimer_update_need(k);
        if (k->n_streams == 0 && claimer_claims(k) == 0)
                remove_claimer(f->claims, i);
        claims_changed(f);
}

/* The one release of both kinds: drops one of the sender's stream claims (streams true) or its most
 * recent Claim/ClaimAtRate claim, and the counts of everyone's. Returns 1, or 0 if it held none of
 * that kind (a stream's claim is released by closing the stream, never by Release). */
static int release_one(BusFace *f, const char *sender, bool streams)
{
        Claims *t = f->claims;
        ssize_t i = sender ? find_claimer(t, sender) : -1;
        size_t *held, *total, *total_other;
        Claimer *k;

        if (i < 0)
                return 0;
        k = t->v[i];
        held = streams ? &k->n_streams : &k->n_rates;
        total = streams ? &t->n_streams : &t->n_claims;
        total_other = streams ? &t->n_streams_other : &t->n_claims_other;
        if (*held == 0)
                return 0;
        (*held)--;
        (*total)--;
        if (!k->reserved)
                (*total_other)--;
        log_debug("%s of %s released", streams ? "A stream claim" : "A claim", sender);
        claimer_released_one(f, (size_t) i);
        return 1;
}

void claims_remove_stream(BusFace *f, const char *sender)
{
        (void) release_one(f, sender, /* streams= */ true);
}

int claims_remove(BusFace *f, sd_bus_message *m)
{
        return release_one(f, sd_bus_message_get_sender(m), /* streams= */ false);
}

int claims_remove_movement(BusFace *f, sd_bus_message *m)
{
        const char *sender = sd_bus_message_get_sender(m);
        ssize_t i = sender ? find_claimer(f->claims, sender) : -1;
        Claimer *k;

        if (i < 0 || f->claims->v[i]->n_movement == 0)
                return 0;
        k = f->claims->v[i];
        k->n_movement--;
        f->claims->n_claims--;
        if (!k->reserved)
                f->claims->n_claims_other--;
        log_debug("Movement claim of %s released", sender);
        claimer_released_one(f, (size_t) i);
        return 1;
}

void claims_free(BusFace *f)
{
        Claims *t = f->claims;

        if (!t)
                return;
        for (size_t i = 0; i < t->n; i++)
                claimer_free(t->v[i]);
        free(t->v);
        sd_bus_slot_unref(t->gone);
        free(t);
        f->claims = NULL;
}
