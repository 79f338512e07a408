/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The senders' uids, asked of the bus driver asynchronously and kept per connection (bus-creds.h: the
 * model, the ordering rules and the bounds). One record per unique name: its uid once known, the
 * question in flight, and the calls waiting for the answer, oldest first. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-creds.h"
#include "bus-errors.h"
#include "bus-face.h"
#include "log.h"
#include "strutil.h"

typedef struct Sender {
        BusCreds *table;
        char *name;
        uid_t uid;
        bool known;               /* uid is the bus's answer */
        bool answered;            /* the bus answered: the waiting calls are queued to run again */
        sd_bus_error failure;     /* answered without a uid: what the bus said */
        sd_bus_slot *lookup;      /* GetConnectionUnixUser in flight */
        sd_bus_message **waiting; /* the calls waiting for the answer, oldest first (referenced) */
        size_t n_waiting;
        uint64_t used; /* when the uid was last used (the table's clock), for forgetting the oldest */
} Sender;

struct BusCreds {
        BusFace *face;
        Sender **v;
        size_t n;
        size_t n_waiting;      /* calls waiting, in all */
        uint64_t clock;        /* counts the uses */
        sd_event_source *drop; /* once answered: drops the calls whose re-run did not ask again */
};

static void sender_drop_waiting(BusCreds *t, Sender *s, const char *shutdown_reason)
{
        for (size_t i = 0; i < s->n_waiting; i++) {
                if (shutdown_reason) {
                        int r = sd_bus_reply_method_errorf(s->waiting[i], SD_BUS_ERROR_NO_SERVER, "%s",
                                                           shutdown_reason);
                        if (r < 0)
                                log_debug_errno(r, "Failed to answer a call of %s: %m", s->name);
                }
                sd_bus_message_unref(s->waiting[i]);
        }
        t->n_waiting -= s->n_waiting;
        free(s->waiting);
        s->waiting = NULL;
        s->n_waiting = 0;
}

static Sender *sender_free(Sender *s)
{
        if (!s)
                return NULL;
        sd_bus_slot_unref(s->lookup); /* cancels a question still in flight */
        sd_bus_error_free(&s->failure);
        free(s->name);
        free(s);
        return NULL;
}

static ssize_t find_sender(const BusCreds *t, const char *name)
{
        for (size_t i = 0; t && i < t->n; i++)
                if (streq(t->v[i]->name, name))
                        return (ssize_t) i;
        return -1;
}

static void remove_sender(BusCreds *t, size_t i)
{
        sender_drop_waiting(t, t->v[i], NULL);
        sender_free(t->v[i]);
        memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof(Sender *));
        t->n--;
}

/* A record that holds nothing worth keeping (no uid, nothing waiting or asked) goes. */
static void sender_tidy(BusCreds *t, Sender *s)
{
        ssize_t i;

        if (s->known || s->lookup || s->n_waiting > 0)
                return;
        i = find_sender(t, s->name);
        if (i >= 0)
                remove_sender(t, (size_t) i);
}

BusCreds *bus_creds_free(BusCreds *t)
{
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n; i++) {
                sender_drop_waiting(t, t->v[i], "tpacceld is shutting down");
                sender_free(t->v[i]);
        }
        free(t->v);
        sd_event_source_disable_unref(t->drop);
        free(t);
        return NULL;
}

void bus_creds_forget(BusFace *f, const char *name)
{
        ssize_t i = find_sender(f->creds, name);

        if (i < 0)
                return;
        if (f->creds->v[i]->n_waiting > 0)
                log_debug("%s left the bus while %zu call(s) of it waited for its uid: dropped", name,
                          f->creds->v[i]->n_waiting);
        remove_sender(f->creds, (size_t) i);
}

static BusCreds *creds_get(BusFace *f)
{
        if (!f->creds) {
                f->creds = calloc(1, sizeof(BusCreds));
                if (f->creds)
                        f->creds->face = f;
        }
        return f->creds;
}

/* A new record for name; past CREDS_KNOWN_MAX the known uid used longest ago is forgotten (a record
 * with calls waiting never is: there are fewer of those than CREDS_WAITING_MAX). */
static int sender_new(BusCreds *t, const char *name, Sender **ret)
{
        Sender *s, **a;

        if (t->n >= CREDS_KNOWN_MAX) {
                ssize_t oldest = -1;
                for (size_t i = 0; i < t->n; i++)
                        if (t->v[i]->n_waiting == 0 && !t->v[i]->lookup &&
                            (oldest < 0 || t->v[i]->used < t->v[oldest]->used))
                                oldest = (ssize_t) i;
                if (oldest < 0)
                        return -ENOBUFS;
                remove_sender(t, (size_t) oldest);
        }
        a = reallocarray(t->v, t->n + 1, sizeof(Sender *));
        if (!a)
                return -ENOMEM;
        t->v = a;
        s = calloc(1, sizeof(Sender));
        if (!s)
                return -ENOMEM;
        *s = (Sender) {.table = t, .name = strdup(name), .uid = (uid_t) -1, .failure = SD_BUS_ERROR_NULL};
        if (!s->name) {
                free(s);
                return -ENOMEM;
        }
        t->v[t->n++] = s;
        *ret = s;
        return 0;
}

/* At idle priority, so after every re-run (the bus dispatches at normal priority): a call still waiting
 * after its re-run was refused by its handler before it asked again (the state changed meanwhile); it
 * was answered then. */
static int on_drop(sd_event_source *source, void *userdata)
{
        BusCreds *t = userdata;

        for (size_t i = t->n; i > 0; i--) {
                Sender *s = t->v[i - 1];
                if (!s->answered || s->n_waiting == 0)
                        continue;
                sender_drop_waiting(t, s, NULL);
                sender_tidy(t, s);
        }
        return 0;
}

static int schedule_drop(BusCreds *t)
{
        sd_event *e = t->face->context->event;
        int r;

        if (t->drop)
                return sd_event_source_set_enabled(t->drop, SD_EVENT_ONESHOT);
        r = sd_event_add_defer(e, &t->drop, on_drop, t);
        if (r < 0)
                return r;
        return sd_event_source_set_priority(t->drop, SD_EVENT_PRIORITY_IDLE);
}

/* Queues call to be dispatched again (its handler runs from the top); on failure answers it with the
 * error and forgets it. */
static void resume(BusCreds *t, Sender *s, size_t i)
{
        sd_bus_message *call = s->waiting[i];
        int r;

        r = schedule_drop(t);
        if (r >= 0)
                r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(call), call);
        if (r >= 0)
                return;
        log_warning_errno(r, "Failed to run %s of %s again with its uid: %m",
                          strna(sd_bus_message_get_member(call)), s->name);
        r = sd_bus_reply_method_errno(call, r, NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to send an error reply: %m");
        sd_bus_message_unref(call);
        memmove(s->waiting + i, s->waiting + i + 1, (s->n_waiting - i - 1) * sizeof(sd_bus_message *));
        s->n_waiting--;
        t->n_waiting--;
}

static int on_lookup(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        Sender *s = userdata;
        BusCreds *t = s->table;
        const sd_bus_error *e;
        uint32_t uid;
        int r;

        s->lookup = sd_bus_slot_unref(s->lookup); /* answered: sd-bus holds the slot while this runs */
        s->answered = true;
        e = sd_bus_message_get_error(reply);
        if (e)
                sd_bus_error_copy(&s->failure, e);
        else {
                r = sd_bus_message_read(reply, "u", &uid);
                if (r < 0)
                        sd_bus_error_set_errnof(&s->failure, r, "the bus answered off protocol: %m");
                else {
                        s->uid = (uid_t) uid;
                        s->known = true;
                }
        }
        if (!s->known)
                log_debug("Cannot tell who %s is: %s: %s", s->name, strna(s->failure.name),
                          strna(s->failure.message));

        for (size_t i = 0; i < s->n_waiting;) {
                size_t n = s->n_waiting;
                resume(t, s, i);
                if (s->n_waiting == n) /* else resume() answered and removed it */
                        i++;
        }
        sender_tidy(t, s);
        return 0;
}

/* Asks the bus for s's uid, on the connection call came in on (the sensor proxy has its own). */
static int ask_bus(Sender *s, sd_bus_message *call)
{
        return sd_bus_call_method_async(sd_bus_message_get_bus(call), &s->lookup, "org.freedesktop.DBus",
                                        "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                        "GetConnectionUnixUser", on_lookup, s, "s", s->name);
}

/* Makes call wait behind s's waiting calls, or sets error to Busy naming the bound (a queue that drains
 * as soon as the bus answers, like polkit's: the caller tries again). Once the
 * bus has answered, the call is queued to run again at once, after those before it. Returns 0 or a
 * negative errno. */
static int wait_in_line(BusCreds *t, Sender *s, sd_bus_message *call, sd_bus_error *error)
{
        const char *member = strna(sd_bus_message_get_member(call));
        sd_bus_message **a;

        if (s->n_waiting >= CREDS_WAITING_PER_SENDER || t->n_waiting >= CREDS_WAITING_MAX) {
                bool per_sender = s->n_waiting >= CREDS_WAITING_PER_SENDER;
                log_debug("%s of %s refused: the %s bound of %u calls waiting for the bus to identify "
                          "their senders is reached",
                          member, s->name, per_sender ? "per-connection" : "total",
                          per_sender ? CREDS_WAITING_PER_SENDER : CREDS_WAITING_MAX);
                return sd_bus_error_setf(error, ACCEL_ERROR_BUSY,
                                         "%s: the %s bound of %u calls waiting for the bus to tell who "
                                         "their senders are is reached; try again when they are answered",
                                         member, per_sender ? "per-connection" : "total",
                                         per_sender ? CREDS_WAITING_PER_SENDER : CREDS_WAITING_MAX);
        }
        a = reallocarray(s->waiting, s->n_waiting + 1, sizeof(sd_bus_message *));
        if (!a)
                return -ENOMEM;
        s->waiting = a;
        s->waiting[s->n_waiting++] = sd_bus_message_ref(call);
        t->n_waiting++;
        if (s->answered)
                resume(t, s, s->n_waiting - 1);
        return 0;
}

static ssize_t waiting_index(const Sender *s, sd_bus_message *call)
{
        for (size_t i = 0; i < s->n_waiting; i++)
                if (s->waiting[i] == call)
                        return (ssize_t) i;
        return -1;
}

/* The re-run of a waiting call: it leaves the line; 1 with the uid, or AccessDenied when the bus could
 * not tell and the call needs the uid. */
static int take_answer(BusCreds *t, Sender *s, size_t i, uid_t *ret_uid, sd_bus_error *error)
{
        int r = 1;

        sd_bus_message_unref(s->waiting[i]);
        memmove(s->waiting + i, s->waiting + i + 1, (s->n_waiting - i - 1) * sizeof(sd_bus_message *));
        s->n_waiting--;
        t->n_waiting--;
        if (ret_uid && s->known)
                *ret_uid = s->uid;
        else if (ret_uid)
                r = sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot tell who %s is: %s",
                                      s->name, strna(s->failure.message));
        sender_tidy(t, s);
        return r;
}

/* bus_sender_uid() (ret_uid set) and bus_sender_in_order() (ret_uid NULL). */
static int sender_gate(BusFace *f, sd_bus_message *call, uid_t *ret_uid, sd_bus_error *error)
{
        const char *sender = sd_bus_message_get_sender(call);
        BusCreds *t;
        Sender *s = NULL;
        ssize_t i;
        int r;

        if (!sender)
                return ret_uid ? sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                                  "Cannot tell who sent the call: it has no sender")
                               : 1;
        t = creds_get(f);
        if (!t)
                return -ENOMEM;
        i = find_sender(t, sender);
        if (i >= 0) {
                ssize_t w;

                s = t->v[i];
                w = waiting_index(s, call);
                if (w >= 0) /* dispatched again: with the answer, or (before it) by sd-bus itself */
                        return s->answered ? take_answer(t, s, (size_t) w, ret_uid, error) : 0;
                if (s->n_waiting > 0) /* earlier calls wait: behind them */
                        return wait_in_line(t, s, call, error);
                if (s->known) {
                        s->used = ++t->clock;
                        if (ret_uid)
                                *ret_uid = s->uid;
                        return 1;
                }
        }
        if (!ret_uid)
                return 1; /* nothing of its connection waits */

        if (!s) {
                r = sender_new(t, sender, &s);
                if (r < 0)
                        return log_error_errno(r, "Failed to record the sender %s: %m", sender);
        }
        r = wait_in_line(t, s, call, error);
        if (r < 0) {
                sender_tidy(t, s);
                return r;
        }
        r = ask_bus(s, call);
        if (r < 0) {
                log_debug_errno(r, "Cannot ask the bus who %s is: %m", sender);
                i = waiting_index(s, call);
                if (i >= 0)
                        (void) take_answer(t, s, (size_t) i, NULL, NULL);
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot tell who %s is: %s",
                                         sender, strerror(-r));
        }
        return 0;
}

int bus_sender_uid(BusFace *f, sd_bus_message *call, uid_t *ret_uid, sd_bus_error *error)
{
        assert(ret_uid);
        return sender_gate(f, call, ret_uid, error);
}

int bus_sender_in_order(BusFace *f, sd_bus_message *call, sd_bus_error *error)
{
        return sender_gate(f, call, NULL, error);
}
