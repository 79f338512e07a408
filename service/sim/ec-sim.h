/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The EC emulator: a port-level model of the H8S LPC channel 3 with the accelerometer behind it,
 * exposed as the "sim" port backend. It is not a row-level shortcut: STR3 walks the sequence the 2006 patch
 * series' driver (PATCH 01) expects (idle 0x00; after TWR0 is written MWMF; after TWR15 is written
 * IBF3B|MWMF, then SWMF, then OBF3B|SWMF once the reply is ready; reading TWR15 ends the read and returns to
 * idle), with a configurable reply latency. Real ECs showed more than that sequence: after TWR15, 0x80
 * (tp_smapi 0.31 CHANGES; the end-status fault shows it), which is why 0.31 relaxed the end check and 0.30
 * raised the SWMF wait to 1000 polls; tests/reference/ runs tp_smapi 0.43's own driver here.
 *
 * Behind the channel: commands 0x01 (battery status), 0x10, 0x11, 0x13, 0x14, 0x17/0x81/0x82/0x83
 * (service/shared/ec-protocol.h). The accelerometer samples its motion source at the EC rate (the
 * host asks for sampling rate x oversampling ratio; the EC only knows the product), applies the
 * running-average filter, and queues one filtered readout per EC sample (queue depth 8, the oldest
 * dropped on overflow); 0x11 delivers the latest readout and the one before it, reports how many
 * older ones were queued (QUEUED) and drops them: a later reply never goes back in time.
 * docs/EMULATOR.md.
 *
 * Time: either the real CLOCK_MONOTONIC (the daemon) or a virtual clock that only delay_ns() and
 * ec_sim_advance_ns() move (deterministic tests and benchmarks).
 *
 * Strict mode (always on): every port access the 2006 patch series' driver (or tp_smapi 0.43's) would never
 * make at that point (a TWR read outside a read, a TWR write outside a request, a TWR0 write while the EC is
 * busy or a reply is pending, a TWR15 read while nothing is pending, any other port of the channel) is a
 * protocol violation: counted, logged with the access (the first SIM_VIOLATIONS_LOGGED at warning level),
 * and reported by ec_sim_get_status(). The EC still reacts to it as the model says. */

#include <stdbool.h>
#include <stdint.h>

#include "port.h"
#include "trace.h"

typedef enum SimFaultKind {
        SIM_FAULT_BUSY,       /* the EC stays busy: STR3 shows SWMF and never gets to OBF3B */
        SIM_FAULT_SILENT,     /* the EC never replies: STR3 stays IBF3B|MWMF after TWR15 */
        SIM_FAULT_BAD_STATUS, /* STR3 shows an unexpected value */
        SIM_FAULT_RETVAL,     /* 0x11 answers a nonzero RETVAL */
        SIM_FAULT_PENDING,    /* 0x10 answers 0x06 (change pending) */
        SIM_FAULT_ABSENT,     /* no accelerometer: mode latch 0x00, 0x11 READOUTS 0, 0x17/0x82 not polling */
        /* Behaviour the 2006 patch series describe (docs/EMULATOR.md): */
        SIM_FAULT_ZERO_STEP,       /* STR3 0x00 between IBF3B|MWMF and SWMF (PATCH 01's "0x00 step") */
        SIM_FAULT_SWMF_AFTER_READ, /* STR3 still SWMF for a moment after the read's TWR15 */
        SIM_FAULT_NO_READOUT,      /* 0x11 answers READOUTS 0 ("not in ready status (common)") */
        SIM_FAULT_WARM_UP,         /* after 0x14 on, ~1 s of READOUTS 0 ("~1sec delay on load") */
        SIM_FAULT_MODE_CHANGE,     /* 0x13 answers another nonzero mode latch than at first */
        /* Behaviour real ECs showed (tp_smapi 0.31 CHANGES, docs/EMULATOR.md): */
        SIM_FAULT_END_STATUS, /* after TWR15 is written: STR3 IBF3B (0x80) alone, then MWMF (0x20) alone */
        _SIM_FAULT_MAX,
} SimFaultKind;

typedef struct SimFault {
        SimFaultKind kind;
        double probability; /* per transaction, 0..1 */
        /* Active window in seconds since the emulator was created: from_s <= t < to_s; to_s == 0 means
         * no end (the default window is always). */
        double from_s, to_s;
} SimFault;

#define SIM_FAULTS_MAX 16

typedef struct SimOptions {
        const char *trace_path; /* NULL: the built-in demo motion */
        bool trace_loop;        /* restart the trace after its last row instead of holding it */
        SimFault faults[SIM_FAULTS_MAX];
        unsigned n_faults;
        bool virtual_time;
        uint64_t reply_latency_ns; /* TWR15 written -> OBF3B|SWMF; 0 = default */
        uint32_t seed;             /* for fault and demo randomness; 0 = fixed default */
        uint8_t mode;              /* mode latch to report; 0 = default (1) */
        bool check_t61;            /* answer 0x17/0x81 with 01 00 00 like a T61 */
        int temperature;           /* degrees C; 0 = default (38) */
} SimOptions;

/* Parses "KIND[:PROBABILITY][@FROM-TO]" (KIND: a name of sim_fault_kind_to_string(), which its errors
 * list; probability 0..1, default 1; FROM and TO seconds since the emulator started, TO > FROM, default
 * always). Returns 0 or -EINVAL with *ret_error set to a message (free it; ret_error may be NULL).
 * s NULL or empty is refused like a bad specification; ret is not NULL (assert()ed). */
int sim_fault_parse(const char *s, SimFault *ret, char **ret_error);
/* The kind's name, from the one table of fault names (the parse errors, tpacceld --help and
 * --sim-fault=help list it); NULL past the last kind. */
const char *sim_fault_kind_to_string(SimFaultKind k);

/* Creates the emulator as a port backend. Loads the trace if set: a bad file gives -EINVAL with
 * *ret_error "FILE:LINE: reason". */
int port_open_sim(const SimOptions *o, PortIO **ret, char **ret_error);

/* Introspection for tests and benchmarks; p must come from port_open_sim(). */
typedef struct EcSimStatus {
        uint8_t str3; /* STR3 as a read would see it now (without advancing anything) */
        bool idle;    /* no transaction in progress: not mid-transaction */
        bool powered;
        unsigned ec_rate, filter_order;
        bool fake_data_mode;
        uint64_t transactions;  /* requests completed (TWR15 written) */
        uint64_t readouts_made; /* readouts the EC queued */
        uint64_t readouts_lost; /* readouts dropped because the queue overflowed */
        uint64_t readouts_delivered;
        unsigned queue_len;
        uint64_t faults_injected;
        uint8_t last_command;          /* TWR0 of the last request */
        bool battery_row_0b_requested; /* the forbidden row was requested */
        uint64_t port_violations;      /* accesses outside 0x1600-0x161F (reads answered 0xFF) */
        uint64_t requests_ignored;     /* TWR0 writes refused because a transaction was in progress */
        uint64_t replies_discarded;    /* ready replies ended by a TWR15 read without a TWR0 read first */
        bool change_pending;           /* a 0x10 configuration change has not taken effect yet */
        uint64_t readouts_superseded;  /* older than the two a 0x11 reply delivered: reported, dropped */
        /* Strict mode: accesses the 2006 patch series' driver never makes at that point (docs/EMULATOR.md).
         */
        uint64_t protocol_violations;
        const char *last_violation; /* "read of TWR3 (0x1613) while idle", "" if none; valid until the
                                     * next access */
} EcSimStatus;

void ec_sim_get_status(PortIO *p, EcSimStatus *ret);
/* Protocol violations so far (strict mode, always on): the test helper every transport test checks. */
uint64_t ec_sim_protocol_violations(PortIO *p);
/* Virtual time only: moves the clock forward. */
void ec_sim_advance_ns(PortIO *p, uint64_t ns);
/* Enables or disables fault injection at run time (the soak test). */
void ec_sim_set_faults(PortIO *p, const SimFault *faults, unsigned n);
bool port_is_sim(const PortIO *p);
