/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Claim/ClaimAtRate/Release: a small table of claimers keyed by unique name. Each claimer has its own
 * sd_bus_track on its name (its handler fires when the name leaves the bus: all its claims go) and a
 * stack of the rates its claims asked for (0: the configured SamplingRate); Release drops the caller's
 * most recent claim. A claimer's open sample streams (bus-stream.c) are claims at the full rate that
 * Release does not drop: closing the stream does. The poller polls at the highest rate any claim needs
 * (poller_set_claim()). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-face.h"
#include "log.h"

struct Claimer {
        Context *context;
        char *name;
        sd_bus_track *track; /* on name; its handler removes the claimer when the name leaves the bus */
        unsigned *rates;     /* the claims' rates, most recent last; 0: the configured SamplingRate */
        size_t n_rates;
        size_t n_streams; /* open sample streams: claims at the configured SamplingRate */
};

static Claimer *claimer_free(Claimer *k)
{
        if (!k)
                return NULL;
        sd_bus_track_unref(k->track);
        free(k->rates);
        free(k->name);
        free(k);
        return NULL;
}

static void remove_claimer(Context *c, size_t i)
{
        claimer_free(c->claimers[i]);
        memmove(c->claimers + i, c->claimers + i + 1, (c->n_claimers - i - 1) * sizeof(Claimer *));
        c->n_claimers--;
        if (c->n_claimers == 0) {
                free(c->claimers);
                c->claimers = NULL;
                log_debug("Last claim released");
        }
}

static ssize_t find_claimer(const Context *c, const char *name)
{
        for (size_t i = 0; i < c->n_claimers; i++)
                if (strcmp(c->claimers[i]->name, name) == 0)
                        return (ssize_t) i;
        return -1;
}

/* Tells the poller the highest rate any claim needs now (0: no claim) and a claimer needing it. */
static void claims_changed(Context *c)
{
        unsigned max = 0;
        const char *claimer = NULL;

        for (size_t i = 0; i < c->n_claimers; i++) {
                if (c->claimers[i]->n_streams > 0 && max != POLLER_RATE_FULL) {
                        max = POLLER_RATE_FULL;
                        claimer = c->claimers[i]->name;
                }
                for (size_t j = 0; j < c->claimers[i]->n_rates; j++) {
                        unsigned rate = c->claimers[i]->rates[j] ?: POLLER_RATE_FULL;
                        if (rate > max) {
                                max = rate;
                                claimer = c->claimers[i]->name;
                        }
                }
        }
        poller_set_claim(&c->poller, max, claimer);
}

static int on_claimer_gone(sd_bus_track *t, void *userdata)
{
        Claimer *k = userdata;
        Context *c = k->context;
        ssize_t i = find_claimer(c, k->name);

        log_debug("%s left the bus, dropping its %zu claim(s)", k->name, k->n_rates + k->n_streams);
        if (i >= 0)
                remove_claimer(c, (size_t) i);
        claims_changed(c);
        return 0;
}

static int new_claimer(Context *c, const char *name, Claimer **ret)
{
        Claimer *k, **a;
        int r;

        a = reallocarray(c->claimers, c->n_claimers + 1, sizeof(Claimer *));
        if (!a)
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        c->claimers = a;

        k = calloc(1, sizeof(Claimer));
        if (!k)
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        k->context = c;
        k->name = strdup(name);
        if (!k->name) {
                claimer_free(k);
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        }
        r = sd_bus_track_new(c->bus, &k->track, on_claimer_gone, k);
        if (r >= 0)
                r = sd_bus_track_add_name(k->track, name);
        if (r < 0) {
                claimer_free(k);
                if (r == -ENXIO) /* the client is already gone: its business, not worth a line per client */
                        return log_debug_errno(r, "%s left before its claim was tracked", name);
                return log_error_errno(r, "Failed to track the claim of %s: %m", name);
        }
        c->claimers[c->n_claimers++] = k;
        *ret = k;
        return 0;
}

/* The sender's claimer, made if it has none. */
static int get_claimer(Context *c, const char *sender, Claimer **ret)
{
        ssize_t i;

        if (!sender)
                return log_error_errno(-EINVAL, "A claim without a sender");
        i = find_claimer(c, sender);
        if (i < 0)
                return new_claimer(c, sender, ret);
        *ret = c->claimers[i];
        return 0;
}

static bool claimer_empty(const Claimer *k)
{
        return k->n_rates == 0 && k->n_streams == 0;
}

int claims_add(Context *c, sd_bus_message *m, unsigned rate)
{
        const char *sender = sd_bus_message_get_sender(m);
        Claimer *k = NULL;
        unsigned *a;
        int r;

        r = get_claimer(c, sender, &k);
        if (r < 0)
                return r;
        a = reallocarray(k->rates, k->n_rates + 1, sizeof(unsigned));
        if (!a) {
                if (claimer_empty(k))
                        remove_claimer(c, c->n_claimers - 1);
                return log_error_errno(-ENOMEM, "Failed to record a claim: %m");
        }
        k->rates = a;
        k->rates[k->n_rates++] = rate;

        if (rate)
                log_debug("Claim by %s at %u Hz (%zu)", sender, rate, k->n_rates);
        else
                log_debug("Claim by %s at the configured rate (%zu)", sender, k->n_rates);
        claims_changed(c);
        return 0;
}

int claims_add_stream(Context *c, const char *sender)
{
        Claimer *k = NULL;
        int r;

        r = get_claimer(c, sender, &k);
        if (r < 0)
                return r;
        k->n_streams++;
        log_debug("Stream claim by %s at the configured rate (%zu)", sender, k->n_streams);
        claims_changed(c);
        return 0;
}

void claims_remove_stream(Context *c, const char *sender)
{
        ssize_t i = find_claimer(c, sender);

        if (i < 0 || c->claimers[i]->n_streams == 0)
                return; /* it left the bus: on_claimer_gone() dropped its claims */
        if (--c->claimers[i]->n_streams == 0 && claimer_empty(c->claimers[i]))
                remove_claimer(c, (size_t) i);
        log_debug("Stream claim of %s released", sender);
        claims_changed(c);
}

int claims_remove(Context *c, sd_bus_message *m)
{
        const char *sender = sd_bus_message_get_sender(m);
        ssize_t i;

        if (!sender)
                return 0;
        i = find_claimer(c, sender);
        if (i < 0 || c->claimers[i]->n_rates == 0) /* a stream's claim is released by closing it */
                return 0;
        if (--c->claimers[i]->n_rates == 0 && claimer_empty(c->claimers[i]))
                remove_claimer(c, (size_t) i);
        log_debug("Release by %s", sender);
        claims_changed(c);
        return 1;
}

void claims_free(Context *c)
{
        for (size_t i = 0; i < c->n_claimers; i++)
                claimer_free(c->claimers[i]);
        free(c->claimers);
        c->claimers = NULL;
        c->n_claimers = 0;
}
