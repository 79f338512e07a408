/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The "# expect:" labels of a trace file (format: tests/traces/gen-traces.py). */

#include <stdbool.h>
#include <stddef.h>

#include "motion.h"

#define EVAL_MAX_EVENTS   64
#define EVAL_COUNTS_PER_G 157.0 /* the traces' scale (HDAPS_COUNTS_PER_G_DEFAULT) */
#define EVAL_PERIOD_MS    20.0  /* 50 Hz */

typedef struct ShockLabel {
        double at_ms;
        char kind[16];
        bool drop;        /* kind=drop: the release of a tilted machine, within EVAL_DROP_MAX_READOUTS */
        bool flat_drop;   /* kind=flat-drop: a nearly flat machine, before its impact */
        double impact_ms; /* impact_ms=: a drop must be detected before it; NAN if not given */
} ShockLabel;

typedef struct FlipLabel {
        MotionOrientation to;
        double at_ms;
} FlipLabel;

typedef struct Labels {
        char name[64]; /* file name without directory and ".csv" */
        bool no_shock;
        ShockLabel shocks[EVAL_MAX_EVENTS];
        unsigned n_shocks;
        double allowed_from[EVAL_MAX_EVENTS], allowed_to[EVAL_MAX_EVENTS];
        unsigned n_allowed;
        char orientation[128]; /* expected sequence, "" if not labelled */
        FlipLabel flips[EVAL_MAX_EVENTS];
        unsigned n_flips;
} Labels;

/* Reads the "# expect:" lines of a trace file's leading comment block, each (without the prefix) to
 * parse(), which returns 0 or a negative errno for a line it does not take; name gets the file name
 * without directory and extension. Returns 0, or a negative errno with *ret_error "PATH[:LINE]: reason". */
int labels_read(const char *path, char *name, size_t name_size,
                int (*parse)(const char *expect, void *userdata), void *userdata, char **ret_error);
/* Reads the labels of a trace file. Returns 0, or a negative errno with *ret_error "PATH:LINE: reason". */
int labels_load(const char *path, Labels *ret, char **ret_error);

/* True if a shock at ms falls in a shock-allowed span. */
bool labels_shock_allowed(const Labels *l, double ms);
