/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-creds.h"
#include "bus-errors.h"
#include "bus-face.h"
#include "bus-polkit.h"
#include "log-limit.h"
#include "log.h"
#include "strv.h"
#include "strutil.h"

#define POLKIT_BUS_NAME                    "org.freedesktop.PolicyKit1"
#define POLKIT_PATH                        "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE                   "org.freedesktop.PolicyKit1.Authority"
#define POLKIT_FLAG_ALLOW_USER_INTERACTION 1u
/* Interactive authentication can take long; the caller's own call timeout still applies. */
#define POLKIT_TIMEOUT_USEC (120 * USEC_PER_SEC)

static const struct {
        const char *interface;
        const char *member;
        const char *action;
} auth_table[] = {
        {ACCEL_INTERFACE, "Calibrate", ACTION_CALIBRATE},
        {ACCEL_INTERFACE, "SetSamplingRate", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetOversamplingRatio", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetFilterOrder", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetFakeDataMode", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetInvert", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetInputDevices", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetShockSensitivity", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetTiltStep", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "SetProtectedDisks", ACTION_CONFIGURE},
        {ACCEL_INTERFACE, "Pause", ACTION_CONFIGURE},
        {EC_INTERFACE, "ReadRow", ACTION_EC_RAW},
};

const char *bus_polkit_action(const char *interface, const char *member)
{
        if (!interface || !member)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(auth_table); i++)
                if (streq(auth_table[i].interface, interface) && streq(auth_table[i].member, member))
                        return auth_table[i].action;
        return NULL;
}

/* Authorizations in flight, per connection (bus-polkit.h: the bounds). A slot lives while its connection
 * has checks pending, so there are never more than POLKIT_PENDING_MAX. Refusals and failed polkit checks
 * are logged per user (a client can open connections at will, but not change its uid): one line of each
 * kind per uid per interval, with a count. */
#define PENDING_SLOTS POLKIT_PENDING_MAX

typedef struct PendingSlot {
        char *sender; /* NULL: free */
        uid_t uid;
        unsigned pending;
} PendingSlot;

typedef enum Verdict {
        VERDICT_NONE,    /* polkit has not answered about the uid (since its record was made) */
        VERDICT_ALLOWED, /* its last answer authorized the uid: it may use the reserve */
        VERDICT_DENIED,  /* its last answer did not: POLKIT_PENDING_PER_DENIED_UID */
} Verdict;

/* The kinds of per-user lines (UidLog.kinds); UidLog.note is polkit's last Verdict about the uid. */
enum {
        LOG_BUSY,          /* Error.Busy refusals */
        LOG_POLKIT_FAILED, /* polkit checks that failed (no polkitd, a timeout, an error) */
};

typedef struct AuthQuery AuthQuery;

struct PolkitPending {
        PendingSlot slots[PENDING_SLOTS];
        UidLogTable logs; /* what is known of each uid: its log lines, polkit's last verdict */
        unsigned total, total_privileged; /* checks in flight; those of callers with the reserve */
        AuthQuery *queries; /* the registry: one per call polkit was asked about, keyed by the message */
        sd_event *event;    /* borrowed: the loop the re-runs go through (the bus is not attached) */
};

static AuthQuery *auth_query_free(AuthQuery *q);

PolkitPending *polkit_pending_free(PolkitPending *p)
{
        if (!p)
                return NULL;
        while (p->queries)
                auth_query_free(p->queries);
        for (size_t i = 0; i < ELEMENTSOF(p->slots); i++)
                free(p->slots[i].sender);
        free(p);
        return NULL;
}

static PendingSlot *pending_find(PolkitPending *p, const char *sender)
{
        for (size_t i = 0; i < ELEMENTSOF(p->slots); i++)
                if (p->slots[i].sender && streq(p->slots[i].sender, sender))
                        return &p->slots[i];
        return NULL;
}

static PendingSlot *pending_free_slot(PolkitPending *p)
{
        for (size_t i = 0; i < ELEMENTSOF(p->slots); i++)
                if (!p->slots[i].sender)
                        return &p->slots[i];
        return NULL;
}

static unsigned pending_of_uid(const PolkitPending *p, uid_t uid)
{
        unsigned n = 0;

        for (size_t i = 0; i < ELEMENTSOF(p->slots); i++)
                if (p->slots[i].sender && p->slots[i].uid == uid)
                        n += p->slots[i].pending;
        return n;
}

static void log_refusal(PolkitPending *p, const char *sender, uid_t uid, const char *limit)
{
        unsigned n;

        if (!log_limit_pass(&uid_log_get(&p->logs, uid)->kinds[LOG_BUSY], now_usec(),
                            POLKIT_BUSY_LOG_INTERVAL_USEC, &n))
                return;
        log_warning("Too many pending authorizations: refused %u call(s) of uid %u since the last message "
                    "(at most one per %llu s), the last one from %s (limit %s)",
                    n, (unsigned) uid, (unsigned long long) (POLKIT_BUSY_LOG_INTERVAL_USEC / USEC_PER_SEC),
                    sender, limit);
}

/* Admits one more check for the caller (sender, whose uid is uid), or sets error to Error.Busy naming the
 * bound. Returns 0 or a negative errno; *ret_privileged whether it took the reserve. Every admission is
 * paired with pending_release(). */
static int pending_admit(BusFace *f, const char *sender, uid_t uid, bool *ret_privileged,
                         sd_bus_error *error)
{
        UidLog *known;
        bool privileged;
        unsigned per_uid;
        PolkitPending *p;
        PendingSlot *s;
        const char *limit = NULL;
        unsigned bound = 0;

        if (!f->polkit_pending) {
                f->polkit_pending = calloc(1, sizeof(PolkitPending));
                if (!f->polkit_pending)
                        return -ENOMEM;
                f->polkit_pending->event = f->context->event;
        }
        p = f->polkit_pending;
        s = pending_find(p, sender);

        /* Root, and a user polkit authorized when it last answered about it, may use the reserve; a user
         * it last refused gets POLKIT_PENDING_PER_DENIED_UID checks in flight, no more. */
        known = uid_log_get(&p->logs, uid);
        privileged = uid == 0 || known->note == VERDICT_ALLOWED;
        per_uid = known->note == VERDICT_DENIED ? POLKIT_PENDING_PER_DENIED_UID : POLKIT_PENDING_PER_UID;
        if (s && s->pending >= POLKIT_PENDING_PER_SENDER)
                limit = "per connection", bound = POLKIT_PENDING_PER_SENDER;
        else if (uid != 0 && pending_of_uid(p, uid) >= per_uid)
                limit = known->note == VERDICT_DENIED ? "per user refused by polkit" : "per user",
                bound = per_uid;
        else if (!privileged && p->total - p->total_privileged >= POLKIT_PENDING_TOTAL)
                limit = "for all users", bound = POLKIT_PENDING_TOTAL;
        else if (p->total >= POLKIT_PENDING_MAX)
                limit = "in all", bound = POLKIT_PENDING_MAX;
        if (limit) {
                log_refusal(p, sender, uid, limit);
                return sd_bus_error_setf(
                        error, ACCEL_ERROR_BUSY,
                        "Too many pending authorizations (%u %s); try again when they are answered", bound,
                        limit);
        }

        if (!s) {
                s = pending_free_slot(p); /* there is one: total < POLKIT_PENDING_MAX slots */
                if (!s)
                        return -ENOBUFS;
                *s = (PendingSlot) {.sender = strdup(sender), .uid = uid};
                if (!s->sender)
                        return -ENOMEM;
        }
        s->pending++;
        p->total++;
        if (privileged)
                p->total_privileged++;
        *ret_privileged = privileged;
        return 0;
}

static void pending_release(PolkitPending *p, const char *sender, bool privileged)
{
        PendingSlot *s;

        if (!p || !sender)
                return;
        s = pending_find(p, sender);
        if (!s || s->pending == 0)
                return;
        s->pending--;
        p->total--;
        if (privileged)
                p->total_privileged--;
        if (s->pending == 0) {
                free(s->sender);
                s->sender = NULL;
        }
}

/* One call polkit was asked about. Lives from the question until the re-run of the call takes the
 * verdict, or the loop is idle after the answer (the re-run refused the call before asking), or exit. */
struct AuthQuery {
        PolkitPending *registry;
        sd_bus_message *call; /* the key */
        const char *action;
        uid_t uid;             /* the caller's */
        bool privileged;       /* admitted to the reserve (pending_admit()) */
        sd_bus_slot *slot;     /* CheckAuthorization in flight; NULL once answered */
        sd_event_source *drop; /* once answered: drops the verdict if no re-run took it */
        bool answered, authorized;
        sd_bus_error denial; /* answered and not authorized: the error the call gets */
        AuthQuery *next;
};

static AuthQuery *auth_query_free(AuthQuery *q)
{
        if (!q)
                return NULL;
        for (AuthQuery **i = &q->registry->queries; *i; i = &(*i)->next)
                if (*i == q) {
                        *i = q->next;
                        break;
                }
        pending_release(q->registry, sd_bus_message_get_sender(q->call), q->privileged);
        sd_bus_slot_unref(q->slot); /* cancels a question still in flight */
        sd_event_source_disable_unref(q->drop);
        sd_bus_error_free(&q->denial);
        sd_bus_message_unref(q->call);
        free(q);
        return NULL;
}

static AuthQuery *auth_query_find(PolkitPending *p, sd_bus_message *call)
{
        for (AuthQuery *q = p ? p->queries : NULL; q; q = q->next)
                if (q->call == call)
                        return q;
        return NULL;
}

/* A failed polkit check, logged per uid like the refusals: a client cannot buy a line per call. */
static void log_polkit_failed(AuthQuery *q, const sd_bus_error *e)
{
        const char *sender = strna(sd_bus_message_get_sender(q->call));
        PolkitPending *p = q->registry;
        PendingSlot *s = pending_find(p, sender); /* released only with the query */
        unsigned n = 1;

        if (s && !log_limit_pass(&uid_log_get(&p->logs, s->uid)->kinds[LOG_POLKIT_FAILED], now_usec(),
                                 POLKIT_BUSY_LOG_INTERVAL_USEC, &n))
                return;
        log_warning(
                "polkit check of %s for %s failed: %s: %s; denying (%u failed check(s) of uid %d since the "
                "last message, at most one per %llu s)",
                q->action, sender, e->name, strna(e->message), n, s ? (int) s->uid : -1,
                (unsigned long long) (POLKIT_BUSY_LOG_INTERVAL_USEC / USEC_PER_SEC));
}

/* Keeps polkit's answer as the query's verdict: authorized, or the denial to reply with. */
static void take_answer(AuthQuery *q, sd_bus_message *reply)
{
        UidLog *known;
        const sd_bus_error *e;
        int authorized = 0, challenge = 0, r;

        q->answered = true;
        e = sd_bus_message_get_error(reply);
        if (e) {
                /* No polkit, a timeout, or polkit refusing the subject: fail closed. */
                log_polkit_failed(q, e);
                sd_bus_error_setf(&q->denial, SD_BUS_ERROR_ACCESS_DENIED,
                                  "Not authorized: %s (the polkit check failed: %s: %s)", q->action, e->name,
                                  strna(e->message));
                return;
        }

        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0) {
                log_warning_errno(r, "polkit answered %s off protocol, denying: %m", q->action);
                sd_bus_error_setf(&q->denial, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized: %s", q->action);
                return;
        }
        known = uid_log_get(&q->registry->logs, q->uid);
        known->note = authorized ? VERDICT_ALLOWED : VERDICT_DENIED;
        known->note_usec = now_usec();
        if (authorized)
                q->authorized = true;
        else if (challenge)
                sd_bus_error_setf(&q->denial, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                  "Interactive authentication required for %s", q->action);
        else
                sd_bus_error_setf(&q->denial, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized: %s", q->action);
}

/* At idle priority, so after the re-run (the bus dispatches at normal priority): the re-run did not
 * take the verdict, because its handler refused the call before asking. */
static int on_drop(sd_event_source *s, void *userdata)
{
        auth_query_free(userdata);
        return 0;
}

static int polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        AuthQuery *q = userdata;
        sd_bus *bus = sd_bus_message_get_bus(q->call);
        int r;

        q->slot = sd_bus_slot_unref(q->slot); /* answered: sd-bus holds the slot while this runs */
        take_answer(q, reply);

        /* Run the call again from the top, its handler now gets the verdict. */
        r = sd_event_add_defer(q->registry->event, &q->drop, on_drop, q);
        if (r >= 0)
                r = sd_event_source_set_priority(q->drop, SD_EVENT_PRIORITY_IDLE);
        if (r >= 0)
                r = sd_bus_enqueue_for_read(bus, q->call);
        if (r < 0) {
                log_warning_errno(r, "Failed to run %s again with polkit's answer: %m",
                                  strna(sd_bus_message_get_member(q->call)));
                r = sd_bus_reply_method_errno(q->call, r, NULL);
                if (r < 0)
                        log_debug_errno(r, "Failed to send an error reply: %m");
                auth_query_free(q);
        }
        return 0;
}

/* Takes the verdict for call out of the registry: 1 authorized, or the denial set in error. */
static int take_verdict(AuthQuery *q, sd_bus_error *error)
{
        int r = 1;

        if (!q->authorized)
                r = sd_bus_error_copy(error, &q->denial);
        auth_query_free(q);
        return r;
}

/* Asks polkit about call (from uid) for action; the query goes into the registry. Returns 0 or a
 * negative errno with error set. */
static int ask_polkit(BusFace *f, sd_bus_message *call, uid_t uid, const char *action, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        const char *sender = sd_bus_message_get_sender(call);
        AuthQuery *q;
        bool privileged = false;
        int r;

        if (!sender)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized: no sender");
        r = pending_admit(f, sender, uid, &privileged, error);
        if (r < 0)
                return r;
        q = calloc(1, sizeof(*q));
        if (!q) {
                pending_release(f->polkit_pending, sender, privileged);
                return -ENOMEM;
        }
        *q = (AuthQuery) {
                .registry = f->polkit_pending,
                .call = sd_bus_message_ref(call),
                .action = action,
                .uid = uid,
                .privileged = privileged,
                .denial = SD_BUS_ERROR_NULL,
                .next = f->polkit_pending->queries,
        };
        f->polkit_pending->queries = q;

        r = sd_bus_message_new_method_call(f->bus, &m, POLKIT_BUS_NAME, POLKIT_PATH, POLKIT_INTERFACE,
                                           "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(m, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender,
                                          action, 0,
                                          sd_bus_message_get_allow_interactive_authorization(call) > 0
                                                  ? POLKIT_FLAG_ALLOW_USER_INTERACTION
                                                  : 0u,
                                          "");
        if (r >= 0)
                r = sd_bus_call_async(f->bus, &q->slot, m, polkit_reply, q, POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                auth_query_free(q);
                return log_warning_errno(r, "Failed to ask polkit about %s: %m", action);
        }
        return 0;
}

int bus_authorize(BusFace *f, sd_bus_message *call, sd_bus_error *error)
{
        const char *action;
        AuthQuery *q;
        uid_t uid;
        int r;

        action = bus_polkit_action(sd_bus_message_get_interface(call), sd_bus_message_get_member(call));
        if (!action)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "%s is not permitted",
                                         strna(sd_bus_message_get_member(call)));

        q = auth_query_find(f->polkit_pending, call);
        if (q)
                /* The re-run after polkit's answer; still unanswered: dispatched twice, keep waiting. */
                return q->answered ? take_verdict(q, error) : 0;
        /* The uid first (for the bounds and the session bus's own user): 0 waits for it, like polkit. */
        r = bus_sender_uid(f, call, &uid, error);
        if (r <= 0)
                return r;
        if (f->session_bus && uid == f->own_uid)
                return 1;
        return ask_polkit(f, call, uid, action, error);
}
