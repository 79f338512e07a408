/* SPDX-License-Identifier: GPL-2.0-or-later */
/* EC transport: the H8S LPC channel 3 handshake. Protocol facts: docs/PROTOCOL.md, "Request", "Read" and
 * "Retries, prefetch, recovery". */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ec.h"
#include "log.h"

typedef enum PrefetchState {
        PREFETCH_NONE,  /* nothing requested in advance */
        PREFETCH_VALID, /* a request for (arg0, arg15) was made at prefetch_ns */
        PREFETCH_JUNK,  /* something happened since: do not trust any pending reply */
} PrefetchState;

struct Ec {
        PortIO *port;
        PrefetchState prefetch;
        uint8_t prefetch_arg0, prefetch_arg15;
        uint64_t prefetch_ns;
        EcStats stats;
};

int ec_new(PortIO *port, Ec **ret)
{
        assert(port);
        assert(ret);

        Ec *ec = calloc(1, sizeof(*ec));
        if (!ec)
                return -ENOMEM;
        ec->port = port;
        ec->prefetch = PREFETCH_NONE;
        *ret = ec;
        return 0;
}

Ec *ec_free(Ec *ec)
{
        if (!ec)
                return NULL;
        port_free(ec->port);
        free(ec);
        return NULL;
}

PortIO *ec_port(Ec *ec)
{
        assert(ec);

        return ec->port;
}

const EcStats *ec_stats(const Ec *ec)
{
        assert(ec);

        return &ec->stats;
}

uint8_t ec_last_str3(const Ec *ec)
{
        assert(ec);

        return ec->stats.last_str3;
}

const char *ec_row_describe(const EcRow *args, char buf[static 16])
{
        uint8_t arg15 = (args->mask & EC_ROW_MASK_ARG15) ? args->val[0xF] : EC_ROW_ARG15_DEFAULT;
        snprintf(buf, 16, "(0x%02x:0x%02x)", args->val[0], arg15);
        return buf;
}

int ec_row_validate_request(const EcRow *args)
{
        assert(args);

        return (args->mask & EC_ROW_MASK_ARG0) ? 0 : -EINVAL;
}

static uint8_t read_str3(Ec *ec)
{
        return port_inb(ec->port, EC_PORT_STR3) & H8S_STR3_MASK;
}

/* "Normal progress" while the EC takes in a request: any subset of IBF3B|MWMF, including 0x00, which
 * cannot be told apart from an idle EC (tp_smapi 0.31 relaxed the 2006 patch series' exact list to this). */
static bool str3_request_in_progress(uint8_t str3)
{
        return (str3 & ~(H8S_STR3_IBF3B | H8S_STR3_MWMF)) == 0;
}

/* "Not ready yet" before a read: exactly the 2006 patch series' three values, IBF3B|MWMF, 0x00 and SWMF
 * (tp_smapi 0.43 keeps this list; its 0.31 relaxation applies to the request's end only). */
static bool str3_read_not_ready(uint8_t str3)
{
        return str3 == (H8S_STR3_IBF3B | H8S_STR3_MWMF) || str3 == 0x00 || str3 == H8S_STR3_SWMF;
}

static int fail(Ec *ec, uint8_t str3, int r)
{
        ec->stats.last_str3 = str3;
        if (r != -EBUSY)
                ec->stats.errors++;
        return r;
}

/* Tells the EC to prepare a row. On success the EC has started replying (SWMF): returning earlier may
 * hang the EC (firmware bug noted in the 2006 patch series), so this waits for SWMF within the retry budget.
 * TWR15 is read only to end a reply already pending (OBF3B set), as in the 2006 patch series and tp_smapi
 * 0.43; no other failure touches the EC further. */
/* Reads TWR15, which marks the end of a reply still pending (from a prefetch or an abandoned read). */
static void end_stale_reply(Ec *ec)
{
        (void) port_inb(ec->port, EC_PORT_TWR15);
        ec->stats.stale_endings++;
}

static int request_row(Ec *ec, const EcRow *args)
{
        char desc[16];
        uint8_t str3;

        if (ec_row_validate_request(args) < 0)
                return -EINVAL;

        str3 = read_str3(ec);
        if (str3 & H8S_STR3_OBF3B) {
                end_stale_reply(ec);
                if (ec->prefetch == PREFETCH_NONE)
                        log_debug(
                                "ec: %s: the EC has a result from an unrequested transaction (STR3 0x%02x)",
                                ec_row_describe(args, desc), str3);
                return fail(ec, str3, -EBUSY);
        }
        if (str3 == H8S_STR3_SWMF) /* still busy with the previous request; data comes in microseconds */
                return fail(ec, str3, -EBUSY);
        if (str3 != 0x00) {
                log_debug("ec: %s: unexpected initial STR3 0x%02x", ec_row_describe(args, desc), str3);
                return fail(ec, str3, -EIO);
        }

        port_outb(ec->port, EC_PORT_TWR0, args->val[0]);
        str3 = read_str3(ec);
        if (str3 != H8S_STR3_MWMF) {
                log_debug("ec: %s: arg0 rejected, STR3 0x%02x", ec_row_describe(args, desc), str3);
                return fail(ec, str3, -EIO);
        }

        for (unsigned i = 1; i < EC_ROW_LEN - 1; i++)
                if (args->mask & (1u << i))
                        port_outb(ec->port, EC_PORT_TWR0 + i, args->val[i]);
        port_outb(ec->port, EC_PORT_TWR15,
                  (args->mask & EC_ROW_MASK_ARG15) ? args->val[0xF] : EC_ROW_ARG15_DEFAULT);
        ec->stats.requests++;

        for (unsigned i = 0; i < EC_REQUEST_RETRIES; i++) {
                str3 = read_str3(ec);
                if (str3 & H8S_STR3_SWMF)
                        return 0; /* the EC started replying */
                if (!str3_request_in_progress(str3)) {
                        log_debug("ec: %s: bad end STR3 0x%02x", ec_row_describe(args, desc), str3);
                        return fail(ec, str3, -EIO);
                }
                port_delay_ns(ec->port, EC_REQUEST_DELAY_NS);
        }
        log_debug("ec: %s: EC is silent, STR3 0x%02x", ec_row_describe(args, desc), str3);
        return fail(ec, str3, -EIO);
}

/* Reads the reply to a request: STR3 must be OBF3B|SWMF; TWR0 starts the read, the masked TWR1..14
 * follow (and more->mask if TWR[more->index] says so), TWR15 ends it, and STR3 is read once more (OBF3B
 * still set is worth a debug line). The 2006 patch series and tp_smapi 0.43 make exactly these accesses on
 * every read, the try-read included. */
static int read_data(Ec *ec, EcRow *data, const EcReadMore *more)
{
        uint16_t mask = data->mask;

        uint8_t str3 = read_str3(ec);

        if (str3_read_not_ready(str3))
                return fail(ec, str3, -EBUSY);
        if (str3 != (H8S_STR3_OBF3B | H8S_STR3_SWMF)) {
                log_debug("ec: bad STR3 0x%02x before read", str3);
                return fail(ec, str3, -EIO);
        }

        data->val[0] = port_inb(ec->port, EC_PORT_TWR0); /* starts the read */
        for (unsigned i = 1; i < EC_ROW_LEN - 1; i++) {
                if (mask & (1u << i))
                        data->val[i] = port_inb(ec->port, EC_PORT_TWR0 + i);
                if (more && i == more->index && data->val[i] >= more->min)
                        mask |= more->mask;
        }
        data->mask = mask;
        data->val[0xF] = port_inb(ec->port, EC_PORT_TWR15); /* ends it */
        ec->stats.reads++;

        str3 = read_str3(ec);
        if (str3 & H8S_STR3_OBF3B)
                log_debug("ec: OBF3B still set after read (STR3 0x%02x)", str3);
        if (data->val[0xF] == EC_TWR15_LOCKUP_WARNING)
                log_debug("ec: TWR15 read 0x%02x: the EC may lock up", data->val[0xF]);
        return 0;
}

static bool row_prefetched_until(Ec *ec, const EcRow *args, uint64_t t_ns)
{
        uint8_t arg15 = (args->mask & EC_ROW_MASK_ARG15) ? args->val[0xF] : EC_ROW_ARG15_DEFAULT;

        return ec->prefetch == PREFETCH_VALID && ec->prefetch_arg0 == args->val[0] &&
               ec->prefetch_arg15 == arg15 && t_ns < ec->prefetch_ns + EC_PREFETCH_VALID_NS;
}

static bool row_is_prefetched(Ec *ec, const EcRow *args)
{
        return row_prefetched_until(ec, args, port_now_ns(ec->port));
}

bool ec_row_prefetched(Ec *ec, const EcRow *args, uint64_t for_ns)
{
        assert(ec);
        assert(args);

        return row_prefetched_until(ec, args, port_now_ns(ec->port) + for_ns);
}

static bool read_more_valid(const EcRow *data, const EcReadMore *more)
{
        return !more ||
               (more->index > 0 && more->index < EC_ROW_LEN - 1 && (data->mask & (1u << more->index)) &&
                (more->mask & ((2u << more->index) - 1)) == 0 && !(more->mask & EC_ROW_MASK_ARG15));
}

int ec_read_row(Ec *ec, const EcRow *args, EcRow *data)
{
        return ec_read_row_more(ec, args, data, NULL);
}

int ec_read_row_more(Ec *ec, const EcRow *args, EcRow *data, const EcReadMore *more)
{
        int r = -EBUSY;

        assert(ec);
        assert(args);
        assert(data);

        assert(read_more_valid(data, more));
        if (ec_row_validate_request(args) < 0)
                return -EINVAL;

        if (row_is_prefetched(ec, args))
                ec->stats.prefetch_hits++;
        else {
                for (unsigned i = 0; i < EC_READ_RETRIES; i++) {
                        r = request_row(ec, args);
                        if (r != -EBUSY)
                                break;
                        ec->stats.busy_retries++;
                        port_delay_ns(ec->port, EC_READ_DELAY_NS);
                }
                if (r < 0) {
                        ec->prefetch = PREFETCH_JUNK;
                        return r;
                }
        }

        for (unsigned i = 0; i < EC_READ_RETRIES; i++) {
                r = read_data(ec, data, more);
                if (r != -EBUSY)
                        break;
                ec->stats.busy_retries++;
                port_delay_ns(ec->port, EC_READ_DELAY_NS);
        }
        ec->prefetch = PREFETCH_JUNK;
        return r;
}

int ec_try_read_row(Ec *ec, const EcRow *args, EcRow *data)
{
        return ec_try_read_row_more(ec, args, data, NULL);
}

int ec_try_read_row_more(Ec *ec, const EcRow *args, EcRow *data, const EcReadMore *more)
{
        int r;

        assert(ec);
        assert(args);
        assert(data);

        assert(read_more_valid(data, more));
        if (!row_is_prefetched(ec, args))
                return -ENODATA;

        r = read_data(ec, data, more);
        if (r == 0) {
                ec->stats.prefetch_hits++;
                ec->prefetch = PREFETCH_NONE; /* eaten */
        }
        return r;
}

int ec_prefetch_row(Ec *ec, const EcRow *args)
{
        assert(ec);
        assert(args);

        uint8_t arg15 = (args->mask & EC_ROW_MASK_ARG15) ? args->val[0xF] : EC_ROW_ARG15_DEFAULT;
        int r = request_row(ec, args);

        if (r < 0) {
                ec->prefetch = PREFETCH_JUNK;
                return r;
        }
        ec->prefetch = PREFETCH_VALID;
        ec->prefetch_arg0 = args->val[0];
        ec->prefetch_arg15 = arg15;
        ec->prefetch_ns = port_now_ns(ec->port);
        return 0;
}

int ec_prefetch_row_afresh(Ec *ec, const EcRow *args)
{
        assert(ec);
        assert(args);

        if (read_str3(ec) & H8S_STR3_OBF3B)
                end_stale_reply(ec);
        return ec_prefetch_row(ec, args);
}

bool ec_prefetch_junked(const Ec *ec)
{
        assert(ec);

        return ec->prefetch == PREFETCH_JUNK;
}

void ec_invalidate(Ec *ec)
{
        assert(ec);

        ec->prefetch = PREFETCH_JUNK;
}
