/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The EC transport (user-space thinkpad_ec): row requests and reads over LPC channel 3 with the
 * H8S STR3 handshake, bounded retries, prefetch, and the firmware-bug rule that the EC is never left
 * before it has started replying. All functions return 0 or a negative errno; the transport itself
 * only logs at debug level: the caller decides and logs once, using ec_row_describe(). Pointer
 * arguments are never NULL (assert()ed) unless a function says otherwise; ec_free() takes NULL.
 *
 * Single owner: one Ec per process, used from one thread. Every transaction (the hdaps poller, raw
 * ReadRow from D-Bus clients, the self-test) is a call into this object and runs to completion
 * before the next starts; that is the arbitration (fairness between D-Bus users: the EcQueue of
 * service/bus/bus-ec.c). */

#include <stdbool.h>
#include <stdint.h>

#include "macros.h"
#include "port.h"

#define EC_ROW_LEN 16

/* H8S STR3 flags ("H8S/2104B Group Hardware Manual" p.549, via the 2006 patch series' thinkpad_ec.c). */
#define H8S_STR3_IBF3B 0x80 /* bidirectional data register input buffer full */
#define H8S_STR3_OBF3B 0x40 /* bidirectional data register output buffer full */
#define H8S_STR3_MWMF  0x20 /* master write mode flag */
#define H8S_STR3_SWMF  0x10 /* slave write mode flag */
#define H8S_STR3_MASK  0xF0 /* the bits the protocol uses */

/* Row masks: bit i selects TWRi. Bit 0 (TWR0, the function code) is mandatory in requests. If bit 15
 * is clear in a request, TWR15 is written as EC_ROW_ARG15_DEFAULT. */
#define EC_ROW_MASK_ARG0     0x0001u
#define EC_ROW_MASK_ARG15    0x8000u
#define EC_ROW_ARG15_DEFAULT 0x01u

/* Retries and delays: the 2006 patch series (TPC_READ_RETRIES 150 x 500 ns, TPC_PREFETCH_TIMEOUT HZ/10) and
 * tp_smapi 0.30 (TPC_REQUEST_RETRIES 100 -> 1000, 10 ns apart). */
#define EC_REQUEST_RETRIES   1000
#define EC_REQUEST_DELAY_NS  10
#define EC_READ_RETRIES      150
#define EC_READ_DELAY_NS     500
#define EC_PREFETCH_VALID_NS (100 * NSEC_PER_MSEC)

/* tp_smapi 0.30: TWR15 reading 0x80 after a read means the EC may lock up. */
#define EC_TWR15_LOCKUP_WARNING 0x80

typedef struct EcRow {
        uint16_t mask;
        uint8_t val[EC_ROW_LEN];
} EcRow;

/* The second step of a read decided on the way (the reads are sequential): once TWR[index] is read
 * (index must be in the data mask), the bytes of mask are read too if TWR[index] >= min, in index order
 * with the rest; every index of mask must be above index. Those read are added to data->mask, so the
 * caller sees what was read. The readout row: READOUTS (TWR1) says whether the older readout is there. */
typedef struct EcReadMore {
        uint8_t index, min;
        uint16_t mask;
} EcReadMore;

typedef struct EcStats {
        uint64_t requests, reads, busy_retries, errors, prefetch_hits, stale_endings;
        uint8_t last_str3; /* STR3 seen at the last failure */
} EcStats;

typedef struct Ec Ec;

/* Takes ownership of port. */
int ec_new(PortIO *port, Ec **ret);
Ec *ec_free(Ec *ec);
DEFINE_TRIVIAL_CLEANUP_FUNC(Ec *, ec_free);

PortIO *ec_port(Ec *ec);
const EcStats *ec_stats(const Ec *ec);
/* The STR3 value seen when the last transaction failed (for log lines). */
uint8_t ec_last_str3(const Ec *ec);

/* Reads a row: requests it (unless it was prefetched and is still valid), retrying -EBUSY
 * EC_READ_RETRIES times EC_READ_DELAY_NS apart, then reads the bytes selected by data->mask (TWR0 and
 * TWR15 always), with the same retries. Returns 0, -EINVAL (bad mask), -EBUSY (still busy after the
 * retries) or -EIO (EC off protocol). The prefetch is junked afterwards. A failure leaves the EC as it
 * is: TWR15 is read only to end a read or a reply found pending (the 2006 patch series, tp_smapi 0.43). */
int ec_read_row(Ec *ec, const EcRow *args, EcRow *data);

/* ec_read_row() with a read decided on the way (more may be NULL: the same as ec_read_row()). */
int ec_read_row_more(Ec *ec, const EcRow *args, EcRow *data, const EcReadMore *more);

/* Reads a prefetched row once, without requesting or retrying. Returns 0 (the prefetch is eaten),
 * -ENODATA (not prefetched, or older than EC_PREFETCH_VALID_NS), -EBUSY (not ready yet), -EIO; on an
 * error the prefetch state is left as it was (the 2006 patch series). */
int ec_try_read_row(Ec *ec, const EcRow *args, EcRow *data);
/* ec_try_read_row() with a read decided on the way (more may be NULL). */
int ec_try_read_row_more(Ec *ec, const EcRow *args, EcRow *data, const EcReadMore *more);

/* Requests a row without reading it, so that a later read is quick. Returns 0, -EBUSY, -EIO. */
int ec_prefetch_row(Ec *ec, const EcRow *args);

/* Requests a row anew, as ec_prefetch_row(), after ending a reply still pending from an earlier
 * prefetch (reading TWR15, as request_row() does with a stale reply) instead of failing -EBUSY on it:
 * for a reader that wants the EC's data of now, not of the older request. Returns as ec_prefetch_row(). */
int ec_prefetch_row_afresh(Ec *ec, const EcRow *args);

/* True when a prefetch of args is out, unread, and still valid for_ns from now (younger than
 * EC_PREFETCH_VALID_NS then). No EC access. */
bool ec_row_prefetched(Ec *ec, const EcRow *args, uint64_t for_ns);

/* True when the last prefetch was ended by another transaction or a failure (junked), not eaten by
 * ec_try_read_row(), merely expired, or never made. */
bool ec_prefetch_junked(const Ec *ec);

/* Forgets any prefetch. */
void ec_invalidate(Ec *ec);

/* Checks args for a request: 16 bytes, bit 0 of mask set. Returns 0 or -EINVAL. */
int ec_row_validate_request(const EcRow *args);

/* Formats "(0xAA:0xFF)" from arg0 and arg15 of a request, for log lines. buf must hold 16 bytes. */
const char *ec_row_describe(const EcRow *args, char buf[static 16]);
