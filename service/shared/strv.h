/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* NULL-terminated string arrays (char **), the shape sd-bus reads "as" into. All functions accept NULL
 * as the empty list. */

#include <stdbool.h>
#include <stddef.h>

#include "macros.h"

char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l);
bool strv_contains(char *const *l, const char *s);
bool strv_equal(char *const *a, char *const *b);
/* Deep copy; NULL on allocation failure (an empty input gives an empty, non-NULL list). */
char **strv_copy(char *const *l);
/* Appends value (taking ownership). Returns 0 or -ENOMEM (value is freed then). */
int strv_consume(char ***l, char *value);
/* Joins with sep; NULL on allocation failure. */
char *strv_join(char *const *l, const char *sep);
