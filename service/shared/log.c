/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"

/* /dev/null (devices.txt: char major 1, minor 3). */
#define DEV_NULL_MAJOR 1
#define DEV_NULL_MINOR 3

/* Process-wide state: logging is configured once in main() and read everywhere. */
static int max_level = LOG_INFO;
static bool use_syslog = false;

void log_set_max_level(int level)
{
        max_level = level;
}

int log_get_max_level(void)
{
        return max_level;
}

static bool stderr_goes_nowhere(void)
{
        struct stat st;

        if (fstat(STDERR_FILENO, &st) < 0)
                return errno == EBADF;
        return S_ISCHR(st.st_mode) && major(st.st_rdev) == DEV_NULL_MAJOR &&
               minor(st.st_rdev) == DEV_NULL_MINOR;
}

bool log_target_auto(const char *ident)
{
        if (getenv("JOURNAL_STREAM") || !stderr_goes_nowhere())
                return false;
        openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
        use_syslog = true;
        return true;
}

int log_internal(int level, int err, const char *fmt, ...)
{
        if (level > max_level)
                return err;

        int saved_errno = errno;
        va_list ap;
        va_start(ap, fmt);
        errno = err < 0 ? -err : err; /* so that %m prints the error we were given */
        if (use_syslog)
                vsyslog(level, fmt, ap);
        else {
                if (getenv("JOURNAL_STREAM"))
                        fprintf(stderr, "<%d>", level);
                vfprintf(stderr, fmt, ap);
                fputc('\n', stderr);
        }
        va_end(ap);
        errno = saved_errno;
        return err;
}
