/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Formatted messages for the "return an errno and a sentence saying why" convention used across
 * tpacceld (error texts for D-Bus replies, backend reasons, file:line parse errors). */

#include <stdarg.h>

#include "macros.h"

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
