/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

/* The one piece of process-wide state: logging is configured once in main() and read everywhere. */
static int max_level = LOG_INFO;

void log_set_max_level(int level)
{
        max_level = level;
}

int log_get_max_level(void)
{
        return max_level;
}

int log_internal(int level, int err, const char *file, int line, const char *fmt, ...)
{
        (void) file;
        (void) line;

        if (level > max_level)
                return err;

        int saved_errno = errno;
        va_list ap;
        va_start(ap, fmt);
        if (getenv("JOURNAL_STREAM"))
                fprintf(stderr, "<%d>", level);
        errno = err < 0 ? -err : err; /* so that %m prints the error we were given */
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        errno = saved_errno;
        return err;
}
