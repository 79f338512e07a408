/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.thinkpad.EmbeddedController object: ReadRow, arbitrated. Only rows on the allow-list
 * (ec-readable.h) are served: anything else is refused with AccessDenied before polkit is asked and
 * before the EC sees it. After validation and polkit each request joins its client's FIFO (at most
 * EC_QUEUE_PER_CLIENT_MAX, else Busy); a low-priority defer source serves one request per loop
 * iteration, round-robin over clients. The poll timer runs at a higher priority, so a flood of ReadRow
 * calls can delay neither the poller nor other clients. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-ec.h"
#include "bus-errors.h"
#include "bus-face.h"
#include "bus-polkit.h"
#include "ec-protocol.h"
#include "ec-readable.h"
#include "log.h"
#include "strutil.h"

#define EC_QUEUE_PER_CLIENT_MAX 8

typedef struct EcRequest {
        sd_bus_message *call;
        EcRow args;
        uint16_t data_mask;
        struct EcRequest *next;
} EcRequest;

typedef struct EcClient {
        char *sender;
        EcRequest *head, *tail;
        unsigned n_queued;
        struct EcClient *next;
} EcClient;

struct EcQueue {
        EcClient *clients; /* served in list order; the served client moves to the end */
        sd_event_source *defer;
};

static EcRequest *ec_request_free(EcRequest *q)
{
        if (q) {
                sd_bus_message_unref(q->call);
                free(q);
        }
        return NULL;
}

static EcClient *ec_client_free(EcClient *cl)
{
        if (!cl)
                return NULL;
        while (cl->head) {
                EcRequest *q = cl->head;
                cl->head = q->next;
                ec_request_free(q);
        }
        free(cl->sender);
        free(cl);
        return NULL;
}

EcQueue *ec_queue_free(EcQueue *q)
{
        if (!q)
                return NULL;
        while (q->clients) {
                EcClient *cl = q->clients;
                q->clients = cl->next;
                ec_client_free(cl);
        }
        sd_event_source_disable_unref(q->defer);
        free(q);
        return NULL;
}

static EcClient *ec_queue_find(EcQueue *q, const char *sender)
{
        for (EcClient *cl = q->clients; cl; cl = cl->next)
                if (streq(cl->sender, sender))
                        return cl;
        return NULL;
}

static unsigned ec_queue_length(EcQueue *q, const char *sender)
{
        EcClient *cl = ec_queue_find(q, sender);
        return cl ? cl->n_queued : 0;
}

static int serve_request(BusFace *f, EcRequest *q)
{
        Context *c = f->context;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        EcRow data = {.mask = q->data_mask};
        char desc[16];
        int r;

        if (!c->backend)
                r = -EOPNOTSUPP;
        else if (c->suspend.active)
                r = -EBUSY;
        else
                r = backend_read_row(c->backend, &q->args, &data);
        if (r < 0) {
                log_debug_errno(r, "ReadRow %s for %s failed: %m", ec_row_describe(&q->args, desc),
                                strna(sd_bus_message_get_sender(q->call)));
                if (r == -EOPNOTSUPP && c->backend && c->backend->unsupported_reason)
                        bus_error_from_backend(&error, c->backend, r, "ReadRow");
                else if (r == -EOPNOTSUPP)
                        sd_bus_error_setf(&error, ACCEL_ERROR_NOT_SUPPORTED,
                                          "This backend has no raw EC access (%s)", c->backend_reason ?: "");
                else
                        bus_error_from_errno(&error, r, "ReadRow");
                return sd_bus_reply_method_error(q->call, &error);
        }

        r = sd_bus_message_new_method_return(q->call, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_array(reply, 'y', data.val, EC_ROW_LEN);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int on_ec_queue(sd_event_source *s, void *userdata)
{
        BusFace *f = userdata;
        EcQueue *q = f->ec_queue;
        EcClient *cl = q->clients;
        EcRequest *req;
        int r;

        if (!cl) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return 0;
        }

        req = cl->head;
        cl->head = req->next;
        if (!cl->head)
                cl->tail = NULL;
        cl->n_queued--;

        /* Round-robin: this client goes to the back of the line (or leaves it). */
        q->clients = cl->next;
        cl->next = NULL;
        if (cl->n_queued == 0)
                ec_client_free(cl);
        else {
                EcClient **p = &q->clients;
                while (*p)
                        p = &(*p)->next;
                *p = cl;
        }

        r = serve_request(f, req);
        if (r < 0)
                log_debug_errno(r, "Failed to reply to ReadRow: %m");
        ec_request_free(req);

        if (!q->clients)
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        return 0;
}

/* Queues an authorized request at the end of its client's FIFO; the caller checked the client's bound. */
static int ec_queue_push(BusFace *f, sd_bus_message *call, const EcRow *args, uint16_t data_mask)
{
        EcQueue *q = f->ec_queue;
        const char *sender = sd_bus_message_get_sender(call) ?: "";
        EcClient *cl;
        EcRequest *req;
        int r;

        req = calloc(1, sizeof(*req));
        if (!req)
                return -ENOMEM;
        *req = (EcRequest) {
                .call = sd_bus_message_ref(call),
                .args = *args,
                .data_mask = data_mask,
        };

        cl = ec_queue_find(q, sender);
        if (!cl) {
                cl = calloc(1, sizeof(*cl));
                if (!cl || !(cl->sender = strdup(sender))) {
                        free(cl);
                        ec_request_free(req);
                        return -ENOMEM;
                }
                EcClient **p = &q->clients;
                while (*p)
                        p = &(*p)->next;
                *p = cl;
        }
        if (cl->tail)
                cl->tail->next = req;
        else
                cl->head = req;
        cl->tail = req;
        cl->n_queued++;

        r = sd_event_source_set_enabled(q->defer, SD_EVENT_ON);
        if (r < 0)
                return log_error_errno(r, "Failed to schedule the EC queue: %m");
        return 0;
}

static int method_read_row(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusFace *f = userdata;
        EcRow args = {};
        const void *bytes;
        const char *why;
        size_t n;
        uint16_t args_mask, data_mask;
        int r;

        r = sd_bus_message_read(m, "q", &args_mask);
        if (r < 0)
                return r;
        r = sd_bus_message_read_array(m, 'y', &bytes, &n);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "q", &data_mask);
        if (r < 0)
                return r;

        if (n != EC_ROW_LEN)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "args must be exactly %d bytes, got %zu", EC_ROW_LEN, n);
        if (!(args_mask & EC_ROW_MASK_ARG0))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "args_mask 0x%04x: bit 0 (the function code, args[0]) is mandatory",
                                         args_mask);

        args.mask = args_mask;
        memcpy(args.val, bytes, EC_ROW_LEN);
        /* Before polkit and the queue: a row that is not known to only read never reaches the EC. */
        if (!ec_row_readable(&args, &why))
                return sd_bus_error_setf(
                        error, SD_BUS_ERROR_ACCESS_DENIED,
                        "Row 0x%02X (args_mask 0x%04x, TWR1 0x%02X, TWR15 0x%02X) is refused: "
                        "ReadRow serves only rows that only read (docs/PROTOCOL.md, \"Raw "
                        "rows\"), and %s",
                        args.val[0], args_mask, args.val[1], args.val[15], why);
        /* Checked again when the call comes back with polkit's answer, right before it is queued. */
        if (ec_queue_length(f->ec_queue, sd_bus_message_get_sender(m) ?: "") >= EC_QUEUE_PER_CLIENT_MAX)
                return sd_bus_error_setf(error, ACCEL_ERROR_BUSY,
                                         "Too many ReadRow calls queued (at most %d per client)",
                                         EC_QUEUE_PER_CLIENT_MAX);

        r = bus_authorize(f, m, error);
        if (r < 0)
                return r;
        if (r == 0)
                return 1; /* polkit decides; the call comes back with the answer */
        r = ec_queue_push(f, m, &args, data_mask);
        if (r < 0)
                return r;
        return 1; /* the queue replies */
}

static const sd_bus_vtable ec_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("ReadRow", SD_BUS_ARGS("q", args_mask, "ay", args, "q", data_mask),
                                SD_BUS_RESULT("ay", data), method_read_row, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int bus_ec_register(BusFace *f)
{
        Context *c = f->context;
        int r;

        if (!f->ec_queue) {
                f->ec_queue = calloc(1, sizeof(EcQueue));
                if (!f->ec_queue)
                        return log_error_errno(-ENOMEM, "Out of memory");
                r = sd_event_add_defer(c->event, &f->ec_queue->defer, on_ec_queue, f);
                if (r < 0)
                        return log_error_errno(r, "Failed to create the EC queue: %m");
                (void) sd_event_source_set_priority(f->ec_queue->defer, SD_EVENT_PRIORITY_IDLE);
                (void) sd_event_source_set_enabled(f->ec_queue->defer, SD_EVENT_OFF);
                (void) sd_event_source_set_description(f->ec_queue->defer, "ec-queue");
        }

        r = sd_bus_add_object_vtable(f->bus, NULL, EC_OBJECT_PATH, EC_INTERFACE, ec_vtable, f);
        if (r < 0)
                return log_error_errno(r, "Failed to export %s: %m", EC_OBJECT_PATH);
        return 0;
}
