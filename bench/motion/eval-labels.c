/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval-labels.h"

#define EXPECT_PREFIX "# expect: "

static int fail(char **ret_error, const char *path, unsigned line, const char *what)
{
        if (asprintf(ret_error, "%s:%u: %s", path, line, what) < 0)
                *ret_error = NULL;
        return -EINVAL;
}

static int parse_expect(Labels *l, const char *e)
{
        char kind[16] = "", to[32] = "";
        double a, b, impact;
        int used = 0;

        if (strcmp(e, "no-shock") == 0) {
                l->no_shock = true;
                return 0;
        }
        if (l->n_shocks < EVAL_MAX_EVENTS &&
            sscanf(e, "shock at_ms=%lf kind=%15s%n", &a, kind, &used) == 2) {
                ShockLabel *s = &l->shocks[l->n_shocks];
                const char *rest = e + used;

                *s = (ShockLabel) {.at_ms = a, .impact_ms = NAN};
                snprintf(s->kind, sizeof(s->kind), "%s", kind);
                s->drop = strcmp(kind, "drop") == 0;
                s->flat_drop = strcmp(kind, "flat-drop") == 0;
                if (*rest) {
                        if (sscanf(rest, " impact_ms=%lf%n", &impact, &used) != 1 || rest[used] != '\0' ||
                            impact <= a)
                                return -EINVAL;
                        s->impact_ms = impact;
                }
                if (s->flat_drop && isnan(s->impact_ms))
                        return -EINVAL; /* "before the impact" needs the impact */
                l->n_shocks++;
                return 0;
        }
        if (l->n_allowed < EVAL_MAX_EVENTS &&
            sscanf(e, "shock-allowed from_ms=%lf to_ms=%lf", &a, &b) == 2 && a <= b) {
                l->allowed_from[l->n_allowed] = a;
                l->allowed_to[l->n_allowed++] = b;
                return 0;
        }
        if (strncmp(e, "orientation ", 12) == 0 && strlen(e + 12) < sizeof(l->orientation)) {
                snprintf(l->orientation, sizeof(l->orientation), "%s", e + 12);
                return 0;
        }
        if (l->n_flips < EVAL_MAX_EVENTS && sscanf(e, "flip to=%31s at_ms=%lf", to, &a) == 2) {
                int o = motion_orientation_from_string(to);
                if (o < 0)
                        return o;
                l->flips[l->n_flips++] = (FlipLabel) {.to = o, .at_ms = a};
                return 0;
        }
        return -EINVAL;
}

int labels_read(const char *path, char *name, size_t name_size,
                int (*parse)(const char *expect, void *userdata), void *userdata, char **ret_error)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char line[512];
        unsigned n = 0;

        if (!f) {
                int r = -errno;
                if (asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        snprintf(name, name_size, "%.*s", (int) strcspn(base, "."), base);

        while (fgets(line, sizeof(line), f)) {
                n++;
                line[strcspn(line, "\n")] = '\0';
                if (line[0] != '#')
                        break; /* labels live in the leading comment block */
                if (strncmp(line, EXPECT_PREFIX, strlen(EXPECT_PREFIX)) != 0)
                        continue;
                if (parse(line + strlen(EXPECT_PREFIX), userdata) < 0)
                        return fail(ret_error, path, n, "unknown or malformed expect line");
        }
        return 0;
}

static int parse_shock_expect(const char *e, void *userdata)
{
        return parse_expect(userdata, e);
}

int labels_load(const char *path, Labels *ret, char **ret_error)
{
        int r;

        *ret = (Labels) {};
        r = labels_read(path, ret->name, sizeof(ret->name), parse_shock_expect, ret, ret_error);
        if (r < 0)
                return r;
        if (ret->no_shock && ret->n_shocks > 0) {
                if (asprintf(ret_error, "%s: both no-shock and shock expected", path) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        return 0;
}

bool labels_shock_allowed(const Labels *l, double ms)
{
        for (unsigned i = 0; i < l->n_allowed; i++)
                if (ms >= l->allowed_from[i] && ms <= l->allowed_to[i])
                        return true;
        return false;
}
