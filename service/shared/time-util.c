/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <time.h>

#include "macros.h"
#include "time-util.h"

uint64_t now_usec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}
