/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-polkit.h"
#include "log.h"
#include "strv.h"

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
                if (strcmp(auth_table[i].interface, interface) == 0 &&
                    strcmp(auth_table[i].member, member) == 0)
                        return auth_table[i].action;
        return NULL;
}

typedef struct AuthQuery {
        Context *context;
        sd_bus_message *call;
        BusArgs args;
        BusAuthorizedFunc func;
        const char *action;
} AuthQuery;

static void auth_query_free(void *p)
{
        AuthQuery *q = p;

        if (!q)
                return;
        sd_bus_message_unref(q->call);
        strv_free(q->args.strv);
        free(q);
}

/* Runs the authorized function and replies with its error, if any. */
static void run_authorized(Context *c, sd_bus_message *call, BusArgs *args, BusAuthorizedFunc func)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = func(c, call, args, &error);
        if (r < 0 || sd_bus_error_is_set(&error)) {
                if (!sd_bus_error_is_set(&error))
                        (void) sd_bus_error_set_errno(&error, r);
                r = sd_bus_reply_method_error(call, &error);
                if (r < 0)
                        log_debug_errno(r, "Failed to send an error reply: %m");
        }
}

static int polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        AuthQuery *q = userdata;
        const sd_bus_error *e;
        int authorized = 0, challenge = 0, r;

        e = sd_bus_message_get_error(reply);
        if (e) {
                /* No polkit, a timeout, or polkit refusing the subject: fail closed. */
                log_warning("polkit check of %s for %s failed: %s: %s; denying", q->action,
                            strna(sd_bus_message_get_sender(q->call)), e->name, strna(e->message));
                r = sd_bus_error_setf(&error, SD_BUS_ERROR_ACCESS_DENIED,
                                      "Not authorized: %s (the polkit check failed: %s: %s)", q->action,
                                      e->name, strna(e->message));
                goto reply_error;
        }

        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0) {
                log_warning_errno(r, "polkit answered %s off protocol, denying: %m", q->action);
                sd_bus_error_setf(&error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized: %s", q->action);
                goto reply_error;
        }

        if (authorized) {
                run_authorized(q->context, q->call, &q->args, q->func);
                return 0;
        }
        if (challenge)
                sd_bus_error_setf(&error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                  "Interactive authentication required for %s", q->action);
        else
                sd_bus_error_setf(&error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized: %s", q->action);

reply_error:
        r = sd_bus_reply_method_error(q->call, &error);
        if (r < 0)
                log_debug_errno(r, "Failed to send an error reply: %m");
        return 0;
}

static bool sender_is_own_uid(Context *c, sd_bus_message *call)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        uid_t uid;

        if (sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID, &creds) < 0)
                return false;
        if (sd_bus_creds_get_euid(creds, &uid) < 0)
                return false;
        return uid == c->own_uid;
}

int bus_authorize(Context *c, sd_bus_message *call, BusArgs *args, BusAuthorizedFunc func,
                  sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        AuthQuery *q;
        const char *action, *sender;
        int r;

        action = bus_polkit_action(sd_bus_message_get_interface(call), sd_bus_message_get_member(call));
        if (!action) {
                strv_free(TAKE_PTR(args->strv));
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "%s is not permitted",
                                         strna(sd_bus_message_get_member(call)));
        }

        if (c->session_bus && sender_is_own_uid(c, call)) {
                run_authorized(c, call, args, func);
                strv_free(TAKE_PTR(args->strv));
                return 1;
        }

        sender = sd_bus_message_get_sender(call);
        if (!sender) {
                strv_free(TAKE_PTR(args->strv));
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized: no sender");
        }

        q = calloc(1, sizeof(*q));
        if (!q) {
                strv_free(TAKE_PTR(args->strv));
                return -ENOMEM;
        }
        *q = (AuthQuery){
                .context = c,
                .call = sd_bus_message_ref(call),
                .args = *args,
                .func = func,
                .action = action,
        };
        args->strv = NULL;

        r = sd_bus_message_new_method_call(c->bus, &m, POLKIT_BUS_NAME, POLKIT_PATH, POLKIT_INTERFACE,
                                           "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(m, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender,
                                          action, 0,
                                          sd_bus_message_get_allow_interactive_authorization(call) > 0
                                                  ? POLKIT_FLAG_ALLOW_USER_INTERACTION
                                                  : 0u,
                                          "");
        if (r >= 0)
                r = sd_bus_call_async(c->bus, &slot, m, polkit_reply, q, POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                auth_query_free(q);
                return log_warning_errno(r, "Failed to ask polkit about %s: %m", action);
        }

        /* The query lives exactly as long as the pending call. */
        (void) sd_bus_slot_set_destroy_callback(slot, auth_query_free);
        (void) sd_bus_slot_set_floating(slot, 1);
        return 1;
}
