/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the EC transport and the hdaps device layer on a port whose every read returns the
 * next fuzz byte. Whatever the "EC" answers: no crash, no hang (a bounded number of port accesses per
 * call), no access outside 0x1600-0x161F, and the battery row 0x0B is never requested. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ec-protocol.h"
#include "ec.h"
#include "hdaps.h"
#include "log.h"

/* One transaction retries at most 150 times, each poll loop at most 1000 times: a generous bound. */
#define MAX_ACCESSES_PER_CALL 2000000ULL

typedef struct FuzzPort {
        PortIO base;
        const uint8_t *data;
        size_t size, pos;
        uint64_t now_ns, accesses;
        int last_twr0_write;
} FuzzPort;

static void check_port(FuzzPort *f, uint16_t port)
{
        if (port < EC_PORT_BASE || port >= EC_PORT_BASE + EC_PORT_COUNT)
                abort(); /* outside the EC's LPC3 window */
        if (++f->accesses > MAX_ACCESSES_PER_CALL)
                abort(); /* a hang */
        f->now_ns += 1000;
}

static uint8_t fuzz_inb(PortIO *p, uint16_t port)
{
        FuzzPort *f = (FuzzPort *) p;
        check_port(f, port);
        return f->pos < f->size ? f->data[f->pos++] : 0x00;
}

static void fuzz_outb(PortIO *p, uint16_t port, uint8_t value)
{
        FuzzPort *f = (FuzzPort *) p;
        check_port(f, port);
        if (port == EC_PORT_TWR0 && value == EC_CMD_BATTERY_FORBIDDEN)
                abort();
}

static void fuzz_delay_ns(PortIO *p, uint64_t ns)
{
        ((FuzzPort *) p)->now_ns += ns;
}

static uint64_t fuzz_now_ns(PortIO *p)
{
        return ((FuzzPort *) p)->now_ns;
}

static void fuzz_free(PortIO *p)
{
        free(p);
}

static const PortOps fuzz_ops = {
        .name = "fuzz",
        .inb = fuzz_inb,
        .outb = fuzz_outb,
        .delay_ns = fuzz_delay_ns,
        .now_ns = fuzz_now_ns,
        .free = fuzz_free,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        log_set_max_level(LOG_CRIT);

        FuzzPort *f = calloc(1, sizeof(*f));
        if (!f)
                return 0;
        f->base.ops = &fuzz_ops;
        f->data = data;
        f->size = size;
        f->now_ns = 1;

        Ec *ec;
        if (ec_new(&f->base, &ec) < 0) {
                free(f);
                return 0;
        }

        HdapsDevice *d;
        if (hdaps_new(ec, size ? data[0] % 8 : 0, &d) == 0) {
                HdapsConfig c = HDAPS_CONFIG_DEFAULT;
                HdapsReadout r;
                unsigned rate, order;

                (void) hdaps_init(d, &c);
                for (int i = 0; i < 4; i++) {
                        f->accesses = 0;
                        (void) hdaps_poll(d, &r);
                }
                f->accesses = 0;
                (void) hdaps_update(d);
                f->accesses = 0;
                (void) hdaps_set_filter_order(d, 3);
                f->accesses = 0;
                (void) hdaps_get_ec_config(d, &rate, &order);
                f->accesses = 0;
                (void) hdaps_power_off(d, NULL);
                hdaps_free(d);
        }

        /* A raw row with arguments from the input itself. */
        EcRow args = {.mask = 0x8001}, out = {.mask = 0xFFFF};
        if (size >= 18) {
                args.mask = (uint16_t) (data[0] | data[1] << 8);
                memcpy(args.val, data + 2, 16);
                if (args.val[0] == EC_CMD_BATTERY_FORBIDDEN)
                        args.val[0] = EC_CMD_BATTERY_STATUS;
        }
        f->accesses = 0;
        (void) ec_read_row(ec, &args, &out);

        ec_free(ec);
        return 0;
}
