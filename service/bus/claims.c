/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Claim/Release: a recursive sd_bus_track, created lazily on the first claim and dropped in its
 * "empty" handler (an empty tracker with a handler would fire again and again). A client that leaves
 * the bus loses all its claims. */

#include "context.h"
#include "log.h"

static int on_claims_empty(sd_bus_track *t, void *userdata)
{
        Context *c = userdata;

        if (sd_bus_track_count(t) > 0)
                return 0;
        log_debug("Last claim released, stopping polling");
        c->claims = sd_bus_track_unref(c->claims);
        poller_update(c);
        return 0;
}

int claims_add(Context *c, sd_bus_message *m)
{
        int r;

        if (!c->claims) {
                r = sd_bus_track_new(c->bus, &c->claims, on_claims_empty, c);
                if (r < 0)
                        return log_error_errno(r, "Failed to create the claim tracker: %m");
                r = sd_bus_track_set_recursive(c->claims, true);
                if (r < 0) {
                        c->claims = sd_bus_track_unref(c->claims);
                        return log_error_errno(r, "Failed to make the claim tracker recursive: %m");
                }
        }

        r = sd_bus_track_add_sender(c->claims, m);
        if (r == -ENXIO) /* the client is already gone: its business, not worth a line per client */
                return log_debug_errno(r, "%s left before its claim was tracked",
                                       strna(sd_bus_message_get_sender(m)));
        if (r < 0)
                return log_error_errno(r, "Failed to track claim of %s: %m",
                                       strna(sd_bus_message_get_sender(m)));

        log_debug("Claim by %s (%u)", strna(sd_bus_message_get_sender(m)),
                  (unsigned) sd_bus_track_count_sender(c->claims, m));
        poller_update(c);
        return 0;
}

int claims_remove(Context *c, sd_bus_message *m)
{
        int r;

        if (!c->claims)
                return 0;
        r = sd_bus_track_remove_sender(c->claims, m);
        if (r <= 0)
                return r;
        log_debug("Release by %s", strna(sd_bus_message_get_sender(m)));
        return 1;
}
