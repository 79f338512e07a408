/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
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

const char *str_excerpt(const char *s, char buf[static STR_EXCERPT_SIZE])
{
        size_t o = 0, i;

        for (i = 0; s[i] && i < STR_EXCERPT_MAX; i++) {
                unsigned char ch = (unsigned char) s[i];
                if (ch >= 0x20 && ch < 0x7f && ch != '\\')
                        buf[o++] = (char) ch;
                else
                        o += (size_t) snprintf(buf + o, STR_EXCERPT_SIZE - o, "\\x%02x", ch);
        }
        if (s[i])
                o += (size_t) snprintf(buf + o, STR_EXCERPT_SIZE - o, "...");
        buf[o] = '\0';
        return buf;
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
