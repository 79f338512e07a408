/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"
#include "strv.h"

char **strv_free(char **l)
{
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l)
{
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

bool strv_contains(char *const *l, const char *s)
{
        for (; l && *l; l++)
                if (streq(*l, s))
                        return true;
        return false;
}

bool strv_equal(char *const *a, char *const *b)
{
        size_t n = strv_length(a);

        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return true;
}

char **strv_copy(char *const *l)
{
        size_t n = strv_length(l);
        char **c = calloc(n + 1, sizeof(char *));

        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return strv_free(c);
        }
        return c;
}

int strv_consume(char ***l, char *value)
{
        size_t n = strv_length(*l);
        char **c = realloc(*l, (n + 2) * sizeof(char *));

        if (!c) {
                free(value);
                return -ENOMEM;
        }
        c[n] = value;
        c[n + 1] = NULL;
        *l = c;
        return 0;
}

char *strv_join(char *const *l, const char *sep)
{
        size_t n = strv_length(l), len = 1, k = strlen(sep);
        char *s, *p;

        for (size_t i = 0; i < n; i++)
                len += strlen(l[i]) + (i > 0 ? k : 0);
        s = p = malloc(len);
        if (!s)
                return NULL;
        *p = '\0';
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        p = stpcpy(p, sep);
                p = stpcpy(p, l[i]);
        }
        return s;
}
