/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Strings: comparison (streq), strict number parsing (safe_ato*), enum <-> name tables
 * (DEFINE_STRING_TABLE_LOOKUP), and formatted messages for the "return an errno and a sentence saying
 * why" convention used across tpacceld (error texts for D-Bus replies, backend reasons, file:line parse
 * errors, escaped excerpts of untrusted text). */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "macros.h"

/* a and b (neither NULL) are the same string. */
static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

/* As streq(), where either may be NULL: two NULLs are equal, NULL and a string are not. */
static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

/* Strict number parsing (as systemd's parse-util): the whole of s (not NULL) must be the number, in
 * decimal, with no leading or trailing space. Return 0 with *ret set (ret not NULL), -EINVAL when s is
 * not a number (empty, a sign where none is allowed, other characters) or -ERANGE when it does not fit
 * the type; *ret is untouched on failure.
 *
 * safe_atou*(): digits only (leading zeros allowed); no sign at all, so "-1" is never ULONG_MAX. */
int safe_atou64(const char *s, uint64_t *ret);
int safe_atou(const char *s, unsigned *ret);
int safe_atou8(const char *s, uint8_t *ret);
int safe_atou16(const char *s, uint16_t *ret);
static inline int safe_atou32(const char *s, uint32_t *ret)
{
        return safe_atou(s, ret);
}
/* safe_atoi*(): an optional '-' then digits; no '+'. */
int safe_atoi64(const char *s, int64_t *ret);
int safe_atoi(const char *s, int *ret);
/* safe_atod(): a finite decimal number: an optional sign ('-' or '+'), digits with at most one '.',
 * an optional exponent (e or E, optional sign, digits). No hex, inf, nan, nor leading space. -ERANGE
 * when the value overflows or underflows a double. The daemon never sets a locale: strtod() reads C's
 * format. */
int safe_atod(const char *s, double *ret);

/* String tables: one array of names indexed by an enum gives both directions, as systemd's
 * DEFINE_STRING_TABLE_LOOKUP. With
 *
 *     static const char *const color_table[_COLOR_MAX] = {[COLOR_RED] = "red", ...};
 *     DEFINE_STRING_TABLE_LOOKUP(color, Color);
 *
 * color_to_string(Color) returns the name, or NULL for a value outside the table (or a hole in it), and
 * color_from_string(const char *) returns the value whose name is s, or -EINVAL (also for s NULL).
 * string_table_lookup() is their helper: the index of s in table's len entries (holes skipped). */
ssize_t string_table_lookup(const char *const *table, size_t len, const char *s);

#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type, scope)                                             \
        scope const char *name##_to_string(type i)                                                          \
        {                                                                                                   \
                if ((size_t) i >= ELEMENTSOF(name##_table))                                                 \
                        return NULL;                                                                        \
                return name##_table[i];                                                                     \
        }
#define DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type, scope)                                           \
        scope type name##_from_string(const char *s)                                                        \
        {                                                                                                   \
                return (type) string_table_lookup(name##_table, ELEMENTSOF(name##_table), s);               \
        }
#define DEFINE_STRING_TABLE_LOOKUP(name, type)                                                              \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type, )                                                  \
        DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type, )
#define DEFINE_PRIVATE_STRING_TABLE_LOOKUP(name, type)                                                      \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type, static)                                            \
        DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type, static)

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
/* As str_excerpt() for the len bytes at s (not NUL-terminated, may contain NULs). */
const char *str_excerpt_n(const char *s, size_t len, char buf[static STR_EXCERPT_SIZE]);

/* The shortest decimal text that reads back as exactly d (range errors: 10.0000001 must not print as
 * "10"). Returns buf. */
#define STR_DOUBLE_SIZE 32
const char *str_double(double d, char buf[static STR_DOUBLE_SIZE]);
