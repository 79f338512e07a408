/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Port backend "ioperm": inb/outb on the real ports after ioperm(). x86 only. */
#include <errno.h>
#include <stdlib.h>

#include "port.h"

#if defined(__x86_64__) || defined(__i386__)
#include <sys/io.h>

typedef struct {
        PortIO base;
} PortIoperm;

static uint8_t ioperm_inb(PortIO *p, uint16_t port)
{
        (void) p;
        return inb(port);
}

static void ioperm_outb(PortIO *p, uint16_t port, uint8_t value)
{
        (void) p;
        outb(value, port);
}

static void ioperm_delay_ns(PortIO *p, uint64_t ns)
{
        (void) p;
        port_clock_delay_ns(ns);
}

static uint64_t ioperm_now_ns(PortIO *p)
{
        (void) p;
        return port_clock_now_ns();
}

static void ioperm_free(PortIO *p)
{
        (void) ioperm(EC_PORT_BASE, EC_PORT_COUNT, 0);
        free(p);
}

static const PortOps ioperm_ops = {
        .name = "ioperm",
        .inb = ioperm_inb,
        .outb = ioperm_outb,
        .delay_ns = ioperm_delay_ns,
        .now_ns = ioperm_now_ns,
        .free = ioperm_free,
};

int port_open_ioperm(PortIO **ret)
{
        if (ioperm(EC_PORT_BASE, EC_PORT_COUNT, 1) < 0)
                return -errno;

        PortIoperm *p = calloc(1, sizeof(*p));
        if (!p) {
                (void) ioperm(EC_PORT_BASE, EC_PORT_COUNT, 0);
                return -ENOMEM;
        }
        p->base.ops = &ioperm_ops;
        *ret = &p->base;
        return 0;
}
#else
int port_open_ioperm(PortIO **ret)
{
        (void) ret;
        return -ENOSYS;
}
#endif
