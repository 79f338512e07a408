/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "strutil.h"

char *vstrprintf(const char *fmt, va_list ap)
{
        char *s;
        return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *strprintf(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = vstrprintf(fmt, ap);
        va_end(ap);
        return s;
}

int strprintf_to(char **ret, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = vstrprintf(fmt, ap);
        va_end(ap);
        free(*ret);
        *ret = s;
        return s ? 0 : -ENOMEM;
}

int error_printf(char **ret_error, int err, const char *fmt, ...)
{
        if (!ret_error)
                return err;
        va_list ap;
        va_start(ap, fmt);
        *ret_error = vstrprintf(fmt, ap);
        va_end(ap);
        return err;
}

int error_printf_at(char **ret_error, int err, const char *name, unsigned line, const char *fmt, ...)
{
        if (!ret_error)
                return err;
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = vstrprintf(fmt, ap);
        va_end(ap);
        *ret_error = msg ? strprintf("%s:%u: %s", name, line, msg) : NULL;
        return *ret_error ? err : -ENOMEM;
}

const char *str_excerpt_n(const char *s, size_t len, char buf[static STR_EXCERPT_SIZE])
{
        size_t o = 0;

        assert(s || len == 0);
        assert(buf);

        for (size_t i = 0; i < len && i < STR_EXCERPT_MAX; i++) {
                unsigned char ch = (unsigned char) s[i];
                if (ch >= 0x20 && ch < 0x7f && ch != '\\')
                        buf[o++] = (char) ch;
                else
                        o += (size_t) snprintf(buf + o, STR_EXCERPT_SIZE - o, "\\x%02x", ch);
        }
        if (len > STR_EXCERPT_MAX)
                o += (size_t) snprintf(buf + o, STR_EXCERPT_SIZE - o, "...");
        buf[o] = '\0';
        return buf;
}

const char *str_excerpt(const char *s, char buf[static STR_EXCERPT_SIZE])
{
        assert(s);
        /* strnlen(): only one character past the excerpt decides the "...", the rest is never read. */
        return str_excerpt_n(s, strnlen(s, STR_EXCERPT_MAX + 1), buf);
}

const char *str_double(double d, char buf[static STR_DOUBLE_SIZE])
{
        for (int precision = 6; precision <= 17; precision++) { /* %g first, more digits when needed */
                snprintf(buf, STR_DOUBLE_SIZE, "%.*g", precision, d);
                if (strtod(buf, NULL) == d)
                        break;
        }
        return buf;
}

int safe_atou64(const char *s, uint64_t *ret)
{
        unsigned long long u;
        char *end;

        assert(s);
        assert(ret);

        if (*s < '0' || *s > '9') /* no space, no sign: strtoull() would take "-1" as ULLONG_MAX */
                return -EINVAL;
        errno = 0;
        u = strtoull(s, &end, 10);
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || u > UINT64_MAX)
                return -ERANGE;
        if (errno != 0)
                return -EINVAL;
        *ret = (uint64_t) u;
        return 0;
}

static int safe_atou_max(const char *s, uint64_t max, uint64_t *ret)
{
        uint64_t u;
        int r;

        r = safe_atou64(s, &u);
        if (r < 0)
                return r;
        if (u > max)
                return -ERANGE;
        *ret = u;
        return 0;
}

int safe_atou(const char *s, unsigned *ret)
{
        uint64_t u;
        int r;

        assert(ret);
        r = safe_atou_max(s, UINT_MAX, &u);
        if (r >= 0)
                *ret = (unsigned) u;
        return r;
}

int safe_atou8(const char *s, uint8_t *ret)
{
        uint64_t u;
        int r;

        assert(ret);
        r = safe_atou_max(s, UINT8_MAX, &u);
        if (r >= 0)
                *ret = (uint8_t) u;
        return r;
}

int safe_atou16(const char *s, uint16_t *ret)
{
        uint64_t u;
        int r;

        assert(ret);
        r = safe_atou_max(s, UINT16_MAX, &u);
        if (r >= 0)
                *ret = (uint16_t) u;
        return r;
}

int safe_atoi64(const char *s, int64_t *ret)
{
        const char *digits;
        long long l;
        char *end;

        assert(s);
        assert(ret);

        digits = s + (*s == '-');
        if (*digits < '0' || *digits > '9')
                return -EINVAL;
        errno = 0;
        l = strtoll(s, &end, 10);
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || l < INT64_MIN || l > INT64_MAX)
                return -ERANGE;
        if (errno != 0)
                return -EINVAL;
        *ret = (int64_t) l;
        return 0;
}

int safe_atoi(const char *s, int *ret)
{
        int64_t l;
        int r;

        assert(ret);
        r = safe_atoi64(s, &l);
        if (r < 0)
                return r;
        if (l < INT_MIN || l > INT_MAX)
                return -ERANGE;
        *ret = (int) l;
        return 0;
}

/* The plain decimal spelling safe_atod() accepts: [+-]digits[.digits][(e|E)[+-]digits], at least one
 * digit in the mantissa. */
static bool is_plain_decimal(const char *s)
{
        bool digit = false;

        if (*s == '+' || *s == '-')
                s++;
        for (; *s >= '0' && *s <= '9'; s++)
                digit = true;
        if (*s == '.')
                for (s++; *s >= '0' && *s <= '9'; s++)
                        digit = true;
        if (!digit)
                return false;
        if (*s == 'e' || *s == 'E') {
                s++;
                if (*s == '+' || *s == '-')
                        s++;
                if (*s < '0' || *s > '9')
                        return false;
                while (*s >= '0' && *s <= '9')
                        s++;
        }
        return *s == '\0';
}

int safe_atod(const char *s, double *ret)
{
        char *end;
        double d;

        assert(s);
        assert(ret);

        if (!is_plain_decimal(s)) /* also what keeps a locale's decimal comma out: only '.' gets here */
                return -EINVAL;
        errno = 0;
        d = strtod(s, &end);
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || !isfinite(d))
                return -ERANGE;
        if (errno != 0)
                return -EINVAL;
        *ret = d;
        return 0;
}

ssize_t string_table_lookup(const char *const *table, size_t len, const char *s)
{
        assert(table);

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < len; i++)
                if (table[i] && streq(table[i], s))
                        return (ssize_t) i;
        return -EINVAL;
}
