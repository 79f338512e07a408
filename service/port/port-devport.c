/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Port backend "devport": one-byte pread/pwrite on /dev/port at the port's offset. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "port-log.h"
#include "port.h"

typedef struct {
        PortIO base;
        int fd;
} PortDevport;

static uint8_t devport_inb(PortIO *p, uint16_t port)
{
        PortDevport *d = (PortDevport *) p;
        uint8_t v = 0xFF; /* what a floating ISA bus reads */
        if (pread(d->fd, &v, 1, port) != 1)
                log_debug_errno(-errno, "devport: read of port 0x%04x failed: %m", port);
        return v;
}

static void devport_outb(PortIO *p, uint16_t port, uint8_t value)
{
        PortDevport *d = (PortDevport *) p;
        if (pwrite(d->fd, &value, 1, port) != 1)
                log_debug_errno(-errno, "devport: write of port 0x%04x failed: %m", port);
}

static void devport_delay_ns(PortIO *p, uint64_t ns)
{
        (void) p;
        port_clock_delay_ns(ns);
}

static uint64_t devport_now_ns(PortIO *p)
{
        (void) p;
        return port_clock_now_ns();
}

static void devport_free(PortIO *p)
{
        PortDevport *d = (PortDevport *) p;
        closep(&d->fd);
        free(d);
}

static const PortOps devport_ops = {
        .name = "devport",
        .inb = devport_inb,
        .outb = devport_outb,
        .delay_ns = devport_delay_ns,
        .now_ns = devport_now_ns,
        .free = devport_free,
};

int port_open_devport(const char *path, PortLog *log, PortIO **ret)
{
        _cleanup_close_ int fd = open(path ? path : "/dev/port", O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;

        /* Probe one read of STR3 now, so lockdown (EPERM on access) shows at open, not mid-transaction. */
        uint8_t v;
        uint64_t t = port_clock_now_ns();
        if (pread(fd, &v, 1, EC_PORT_STR3) != 1)
                return errno ? -errno : -EIO;
        if (log)
                port_log_record(log, t, PORT_LOG_IN, EC_PORT_STR3, v);

        PortDevport *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->base.ops = &devport_ops;
        d->fd = TAKE_FD(fd);
        *ret = &d->base;
        return 0;
}
