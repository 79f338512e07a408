/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <time.h>

#include "port.h"

PortIO *port_free(PortIO *p)
{
        if (p)
                p->ops->free(p);
        return NULL;
}

uint64_t port_clock_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

#define BUSY_WAIT_LIMIT_NS (50 * NSEC_PER_USEC)

void port_clock_delay_ns(uint64_t ns)
{
        if (ns >= BUSY_WAIT_LIMIT_NS) {
                struct timespec ts = {.tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC};
                while (nanosleep(&ts, &ts) < 0)
                        ;
                return;
        }
        uint64_t end = port_clock_now_ns() + ns;
        while (port_clock_now_ns() < end)
                ;
}
