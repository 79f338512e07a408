/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Formatted messages for the "return an errno and a sentence saying why" convention used across
 * tpacceld (error texts for D-Bus replies, backend reasons, file:line parse errors). */

#include <stdarg.h>

#include "macros.h"

/* s, or "n/a" for NULL (log lines naming something that may be missing, such as a sender). */
static inline const char *strna(const char *s)
{
        return s ?: "n/a";
}

/* A newly allocated formatted string, or NULL when out of memory. */
char *strprintf(const char *fmt, ...) _printf_(1, 2);
char *vstrprintf(const char *fmt, va_list ap) _printf_(1, 0);

/* Replaces *ret (freeing the old string) with a formatted one. Returns 0, or -ENOMEM with *ret NULL. */
int strprintf_to(char **ret, const char *fmt, ...) _printf_(2, 3);

/* If ret_error is not NULL, sets *ret_error to a formatted message (NULL when out of memory). Returns err,
 * so that "return error_printf(ret_error, -EINVAL, ...)" reports and fails in one line. */
int error_printf(char **ret_error, int err, const char *fmt, ...) _printf_(3, 4);

/* As error_printf(), with "NAME:LINE: " before the message (parse errors). */
int error_printf_at(char **ret_error, int err, const char *name, unsigned line, const char *fmt, ...)
        _printf_(5, 6);

/* A short, safe excerpt of untrusted text for messages and logs: at most STR_EXCERPT_MAX characters of
 * s, printable ASCII kept, everything else as \xNN, "..." when cut. Returns buf. */
#define STR_EXCERPT_MAX  16
#define STR_EXCERPT_SIZE (STR_EXCERPT_MAX * 4 + 4)
const char *str_excerpt(const char *s, char buf[static STR_EXCERPT_SIZE]);

/* The shortest decimal text that reads back as exactly d (range errors: 10.0000001 must not print as
 * "10"). Returns buf. */
#define STR_DOUBLE_SIZE 32
const char *str_double(double d, char buf[static STR_DOUBLE_SIZE]);
