/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The port I/O layer: the only code that touches the EC's I/O ports 0x1600-0x161F.
 *
 * Three backends implement the same small interface: "ioperm" (inb/outb after ioperm(), needs
 * CAP_SYS_RAWIO), "devport" (pread/pwrite on /dev/port) and "sim" (the EC emulator in service/sim/).
 * Everything above this layer (EC transport, hdaps device, motion, bus) is shared by all three and
 * never knows which one runs. A wrapper with the same interface, the port log (port-log.h), records every
 * access of whichever backend it wraps. */

#include <stdint.h>

#include "macros.h"

/* LPC channel 3 of the H8S embedded controller. */
#define EC_PORT_BASE  0x1600u
#define EC_PORT_COUNT 0x20u
#define EC_PORT_STR3  0x1604u /* H8S register STR3 (read) */
#define EC_PORT_TWR0  0x1610u /* H8S register TWR0; TWRi is at EC_PORT_TWR0 + i */
#define EC_PORT_TWR15 0x161Fu /* H8S register TWR15: ends a request or a read */

typedef struct PortIO PortIO;

typedef struct PortOps {
        const char *name; /* "ioperm", "devport", "sim" */
        uint8_t (*inb)(PortIO *p, uint16_t port);
        void (*outb)(PortIO *p, uint16_t port, uint8_t value);
        /* Waits at least ns nanoseconds (busy-waits for short waits, as the kernel's ndelay()). */
        void (*delay_ns)(PortIO *p, uint64_t ns);
        /* The backend's monotonic clock in nanoseconds (the emulator may run on virtual time). */
        uint64_t (*now_ns)(PortIO *p);
        /* Wrappers only (the port log, port-log.h): the port this one forwards to. NULL: a backend. */
        PortIO *(*inner)(PortIO *p);
        void (*free)(PortIO *p);
} PortOps;

struct PortIO {
        const PortOps *ops;
        uint64_t n_in, n_out; /* port operations done, for the benchmarks */
};

static inline uint8_t port_inb(PortIO *p, uint16_t port)
{
        p->n_in++;
        return p->ops->inb(p, port);
}

static inline void port_outb(PortIO *p, uint16_t port, uint8_t value)
{
        p->n_out++;
        p->ops->outb(p, port, value);
}

static inline void port_delay_ns(PortIO *p, uint64_t ns)
{
        p->ops->delay_ns(p, ns);
}

static inline uint64_t port_now_ns(PortIO *p)
{
        return p->ops->now_ns(p);
}

/* The backend under any wrappers: the port that does the I/O (port_is_sim() and the emulator's
 * introspection want this one). */
static inline PortIO *port_innermost(PortIO *p)
{
        while (p && p->ops->inner)
                p = p->ops->inner(p);
        return p;
}

static inline const char *port_backend_name(PortIO *p)
{
        return port_innermost(p)->ops->name;
}

PortIO *port_free(PortIO *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PortIO *, port_free);

/* Opens direct port access with ioperm() for 0x1600-0x161F. Returns 0 or a negative errno: -ENOSYS
 * (kernel built without ioperm), -EPERM (no CAP_SYS_RAWIO, or kernel lockdown). */
int port_open_ioperm(PortIO **ret);

/* Opens /dev/port read-write and probes one read of STR3, so that lockdown shows now. log (NULL: none,
 * port-log.h) records that read; wrap the port with port_log_wrap() for the rest. Returns 0 or a
 * negative errno (-ENOENT, -EACCES, -EPERM under lockdown). */
typedef struct PortLog PortLog;
int port_open_devport(const char *path, PortLog *log, PortIO **ret);

/* Monotonic clock helper shared by the real backends. */
uint64_t port_clock_now_ns(void);
/* Waits ns nanoseconds on the real clock: busy-waits below 50 us, sleeps above. */
void port_clock_delay_ns(uint64_t ns);
