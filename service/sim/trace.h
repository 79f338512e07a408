/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Motion trace files: CSV text, '#' comment lines, header "time_ms,x,y,keyboard,mouse", x and y raw
 * counts as the EC reports them (signed 16-bit), keyboard and mouse 0 or 1, time strictly increasing.
 * Sampled with linear interpolation between rows; after the last row the last row holds. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macros.h"

typedef struct TraceRow {
        double time_ms;
        int x, y;
        bool keyboard, mouse;
} TraceRow;

typedef struct Trace {
        TraceRow *rows;
        size_t n_rows;
        char *name;
} Trace;

/* Parses text (len bytes, need not be NUL-terminated). name is used in error messages (NULL: "trace").
 * Returns 0, or -EINVAL with *ret_error = "NAME:LINE: reason" (free it), or -ENOMEM. ret is not NULL
 * (assert()ed here and in trace_load(), whose path is not NULL either); ret_error may be NULL. */
int trace_parse(const char *text, size_t len, const char *name, Trace **ret, char **ret_error);
/* Reads and parses a regular file: opened with O_NONBLOCK, so a FIFO never blocks, and anything but a
 * regular file is refused (-EINVAL, "PATH: not a regular file ..."; a directory -EISDIR). Errors as
 * trace_parse() (which quotes at most 16 characters of the file's text, escaped), plus -errno from
 * reading with "PATH: strerror". */
int trace_load(const char *path, Trace **ret, char **ret_error);
Trace *trace_free(Trace *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Trace *, trace_free);

/* Position and activity at time_ms (interpolated; before the first row the first row holds). */
void trace_sample(const Trace *t, double time_ms, double *ret_x, double *ret_y, bool *ret_keyboard,
                  bool *ret_mouse);
double trace_duration_ms(const Trace *t);
