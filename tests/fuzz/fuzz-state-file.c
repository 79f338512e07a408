/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the state file parser (service/state/state-file.c) on arbitrary bytes. Whatever the
 * input: no crash, no leak, and either
 *   - 0 with every value in its documented range (state-file.h), warnings of the form "fuzz:LINE: ...",
 *     and a configuration that survives state_config_format() -> parse unchanged and without warnings
 *     (what the daemon writes, it reads back), or
 *   - -EINVAL with a "fuzz:LINE: reason" (or, for the whole file, "fuzz: reason") message and the
 *     caller's configuration untouched. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ec-protocol.h"
#include "motion.h"
#include "state-file.h"
#include "strv.h"

#define FUZZ_NAME     "fuzz"
#define S16_MIN       (-32768)
#define S16_MAX       32767
#define SENTINEL_RATE 777 /* a value the parser never produces by itself: shows that *ret was untouched */

/* "fuzz:LINE: reason" for a line's error or warning, "fuzz: reason" for one about the whole file (the
 * sampling rate x oversampling ratio check spans two lines). */
static void check_message(const char *m)
{
        const char *p;

        if (!m || strncmp(m, FUZZ_NAME ":", strlen(FUZZ_NAME ":")) != 0)
                abort();
        p = m + strlen(FUZZ_NAME ":");
        if (*p == ' ' && p[1] != '\0')
                return;
        if (strspn(p, "0123456789") == 0)
                abort();
        p += strspn(p, "0123456789");
        if (strncmp(p, ": ", 2) != 0 || p[2] == '\0')
                abort();
}

static void check_ranges(const StateConfig *c)
{
        if (c->sampling_rate < HDAPS_SAMPLING_RATE_MIN || c->sampling_rate > HDAPS_SAMPLING_RATE_MAX)
                abort();
        if (c->oversampling_ratio < HDAPS_OVERSAMPLING_RATIO_MIN ||
            (uint64_t) c->sampling_rate * c->oversampling_ratio > EC_RATE_MAX)
                abort();
        if (c->filter_order < EC_FILTER_ORDER_MIN || c->filter_order > EC_FILTER_ORDER_MAX)
                abort();
        if (c->has_rest &&
            (c->rest_x < S16_MIN || c->rest_x > S16_MAX || c->rest_y < S16_MIN || c->rest_y > S16_MAX))
                abort();
        if (!(c->tilt_step >= MOTION_TILT_STEP_MIN && c->tilt_step <= MOTION_TILT_STEP_MAX))
                abort(); /* also catches NaN */
        if (!(c->shock_sensitivity >= MOTION_SENSITIVITY_MIN &&
              c->shock_sensitivity <= MOTION_SENSITIVITY_MAX))
                abort();
        if (strv_length(c->protected_disks) > STATE_DISKS_MAX)
                abort();
        for (char **d = c->protected_disks; d && *d; d++)
                if (!state_disk_name_valid(*d))
                        abort();
}

static bool same_config(const StateConfig *a, const StateConfig *b)
{
        size_t n = strv_length(a->protected_disks);

        if (a->sampling_rate != b->sampling_rate || a->oversampling_ratio != b->oversampling_ratio ||
            a->filter_order != b->filter_order || a->invert != b->invert || a->has_rest != b->has_rest ||
            a->tilt_step != b->tilt_step || a->shock_sensitivity != b->shock_sensitivity ||
            n != strv_length(b->protected_disks))
                return false;
        if (a->has_rest && (a->rest_x != b->rest_x || a->rest_y != b->rest_y))
                return false;
        for (size_t i = 0; i < n; i++)
                if (strcmp(a->protected_disks[i], b->protected_disks[i]) != 0)
                        return false;
        return true;
}

/* What the daemon writes, it reads back: format, parse, compare. */
static void check_round_trip(const StateConfig *c)
{
        _cleanup_free_ char *text = NULL, *error = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        StateConfig again;
        int r;

        if (state_config_format(c, &text) < 0)
                return; /* -ENOMEM */
        state_config_init(&again);
        r = state_config_parse(text, strlen(text), FUZZ_NAME, &again, &warnings, &error);
        if (r == -ENOMEM)
                return;
        if (r != 0 || error || strv_length(warnings) > 0)
                abort();
        if (!same_config(c, &again))
                abort();
        state_config_done(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *error = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        StateConfig c;
        int r;

        state_config_init(&c);
        c.sampling_rate = SENTINEL_RATE;
        c.protected_disks = NULL;

        r = state_config_parse((const char *) data, size, FUZZ_NAME, &c, &warnings, &error);
        if (r == -ENOMEM)
                return 0;
        if (r == -EINVAL) {
                check_message(error);
                if (c.sampling_rate != SENTINEL_RATE || c.protected_disks)
                        abort(); /* a bad file changes nothing */
                return 0;
        }
        if (r != 0 || error)
                abort();
        for (char **w = warnings; w && *w; w++)
                check_message(*w);
        check_ranges(&c);
        check_round_trip(&c);
        state_config_done(&c);
        return 0;
}
