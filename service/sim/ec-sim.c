/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The "sim" port backend: LPC channel 3 of the emulated EC. This file is the channel (STR3 and the
 * TWR registers, the request/read handshake, timing, fault injection); sim-firmware.c answers the
 * commands and sim-accel.c is the accelerometer. The model is documented in docs/EMULATOR.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec-protocol.h"
#include "ec-sim.h"
#include "log.h"
#include "strutil.h"
#include "sim-fault.h"
#include "sim-firmware.h"

/* STR3 flags (H8S/2104B hardware manual p.549, via the 2006 patch series' thinkpad_ec.c). */
#define STR3_IDLE  0x00
#define STR3_IBF3B 0x80
#define STR3_OBF3B 0x40
#define STR3_MWMF  0x20
#define STR3_SWMF  0x10
/* What the bad-status fault shows: OBF3B without SWMF, which no legal phase reads and which the host
 * cannot mistake for progress (0x30 would pass the 2006 patch series' "SWMF set: replying" test). */
#define STR3_BAD STR3_OBF3B

#define PORT_FLOATING 0xFF /* what a read outside the channel returns */
#define PORT_UNMAPPED 0x00 /* reads of the channel's other ports */

/* Timing model (docs/EMULATOR.md). */
#define SIM_ACCEPT_NS                60 /* IBF3B|MWMF after TWR15 is written ("~60ns", the 2006 patch series) */
#define SIM_DEFAULT_REPLY_LATENCY_NS 5000 /* TWR15 written -> OBF3B|SWMF */
#define SIM_REPLY_LATENCY_MAX_NS     NSEC_PER_SEC
#define SIM_VIRTUAL_ACCESS_NS        1000                /* one LPC port access in virtual time */
#define SIM_VIRTUAL_EPOCH_NS         NSEC_PER_SEC        /* virtual clock at creation */
#define SIM_ZERO_STEP_NS             (3 * NSEC_PER_USEC) /* zero-step: STR3 0x00 this long before SWMF */
#define SIM_SWMF_LINGER_NS           (3 * NSEC_PER_USEC) /* swmf-after-read: SWMF this long after the read */
/* end-status: after TWR15 is written, IBF3B alone this long, then MWMF alone this long, then SWMF. Long
 * enough in virtual time (1 us per access) for the host's end-of-request polls to see both. */
#define SIM_END_STATUS_STEP_NS (2 * NSEC_PER_USEC)
/* How long the busy and silent faults last. Both are longer than the host's whole budget for the phase
 * they stall (150 x 500 ns read polls; 1000 x 10 ns request polls, about 1 ms in virtual time at 1 us
 * per access), so the host gives up first, and short enough that the EC is itself again well before
 * the next poll tick. The EC then recovers on its own: the 2006 patch series' host never aborts a
 * transaction. */
#define SIM_BUSY_HOLD_NS       (10 * NSEC_PER_MSEC) /* busy: SWMF this long, then the reply is ready */
#define SIM_SILENT_HOLD_NS     (10 * NSEC_PER_MSEC) /* silent: IBF3B|MWMF this long, then idle, no reply */
#define SIM_VIOLATIONS_LOGGED  10 /* protocol violations logged at warning level; then only counted */
#define SIM_VIOLATION_TEXT_MAX 96
#define SIM_TEMPERATURE_MIN    (-40)
#define SIM_TEMPERATURE_MAX    125

typedef enum ChannelPhase {
        PHASE_IDLE,         /* 0x00 */
        PHASE_HOST_WRITING, /* TWR0 accepted, host writes TWR1..15: MWMF */
        PHASE_ACCEPTING,    /* TWR15 written: IBF3B|MWMF for SIM_ACCEPT_NS */
        PHASE_PREPARING,    /* SWMF until the reply is ready */
        PHASE_READY,        /* OBF3B|SWMF: host may read; TWR15 read ends it */
        PHASE_STUCK_SILENT, /* silent fault: IBF3B|MWMF for SIM_SILENT_HOLD_NS; row 0x0B: for ever */
        PHASE_ZERO_STEP,    /* zero-step fault: 0x00 after IBF3B|MWMF, for SIM_ZERO_STEP_NS */
        PHASE_LINGER,       /* swmf-after-read fault: SWMF after the read ended, until linger_until_ns */
} ChannelPhase;

typedef struct EcSim {
        PortIO base;
        bool virtual_time;
        uint64_t virtual_now_ns;
        uint64_t reply_latency_ns;

        ChannelPhase phase;
        uint8_t twr[SIM_ROW_LEN];     /* the registers as the host sees them */
        uint8_t request[SIM_ROW_LEN]; /* the request as it was when TWR15 was written */
        uint64_t request_ns;          /* when TWR15 was written */
        bool bad_status;              /* this transaction shows STR3_BAD until the reply is ready */
        bool busy;                    /* this transaction stays SWMF for SIM_BUSY_HOLD_NS */
        bool hung;                    /* row 0x0B: silent until a TWR15 read */
        bool zero_step;               /* this transaction shows 0x00 between IBF3B|MWMF and SWMF */
        bool linger;                  /* this transaction's read leaves SWMF showing for a moment */
        bool end_status;              /* this transaction shows IBF3B, then MWMF, after TWR15 */
        bool end_status_mwmf;         /* ... and is in its second step */
        uint64_t linger_until_ns;
        bool read_started;    /* TWR0 was read in PHASE_READY */
        unsigned data_faults; /* retval/pending/absent faults for the firmware */

        SimFirmware firmware;
        SimMotion motion;
        SimFault faults[SIM_FAULTS_MAX];
        unsigned n_faults;
        SimRng rng;

        uint64_t transactions, faults_injected, readouts_delivered;
        uint64_t port_violations, requests_ignored, replies_discarded;
        uint64_t protocol_violations;
        char last_violation[SIM_VIOLATION_TEXT_MAX];
        uint8_t last_command;
} EcSim;

static const PortOps sim_ops;

bool port_is_sim(const PortIO *p)
{
        return p && p->ops == &sim_ops;
}

static EcSim *to_sim(PortIO *p)
{
        return (EcSim *) p;
}

static uint64_t sim_now(EcSim *s)
{
        return s->virtual_time ? s->virtual_now_ns : port_clock_now_ns();
}

/* Applies what time alone does: the end of the accept phase, the reply becoming ready, sampling. */
static uint64_t accept_ns(const EcSim *s)
{
        return s->end_status ? 2 * SIM_END_STATUS_STEP_NS : SIM_ACCEPT_NS;
}

static void sync_to(EcSim *s, uint64_t now)
{
        if (s->phase == PHASE_ACCEPTING && s->end_status)
                s->end_status_mwmf = now >= s->request_ns + SIM_END_STATUS_STEP_NS;
        if (s->phase == PHASE_ACCEPTING && now >= s->request_ns + accept_ns(s))
                s->phase = s->zero_step ? PHASE_ZERO_STEP : PHASE_PREPARING;
        if (s->phase == PHASE_ZERO_STEP && now >= s->request_ns + SIM_ACCEPT_NS + SIM_ZERO_STEP_NS)
                s->phase = PHASE_PREPARING;
        if (s->phase == PHASE_LINGER && now >= s->linger_until_ns)
                s->phase = PHASE_IDLE;
        if (s->phase == PHASE_STUCK_SILENT && !s->hung && now >= s->request_ns + SIM_SILENT_HOLD_NS)
                s->phase = PHASE_IDLE; /* the EC dropped the request */

        if (s->phase == PHASE_PREPARING) {
                uint64_t latency = s->busy ? SIM_BUSY_HOLD_NS : MAX(s->reply_latency_ns, accept_ns(s));
                if (s->zero_step)
                        latency = MAX(latency, (uint64_t) (SIM_ACCEPT_NS + 2 * SIM_ZERO_STEP_NS));
                uint64_t ready_ns = s->request_ns + latency;
                if (now >= ready_ns) {
                        uint8_t reply[SIM_ROW_LEN];
                        sim_accel_advance(&s->firmware.accel, ready_ns);
                        if (sim_firmware_execute(&s->firmware, s->request, s->data_faults, ready_ns,
                                                 reply)) {
                                memcpy(s->twr, reply, SIM_ROW_LEN);
                                s->phase = PHASE_READY;
                                s->read_started = false;
                        } else {
                                s->phase = PHASE_STUCK_SILENT;
                                s->hung = true;
                        }
                }
        }
        sim_accel_advance(&s->firmware.accel, now);
}

static uint8_t str3_of(const EcSim *s)
{
        switch (s->phase) {
        case PHASE_IDLE:
                return STR3_IDLE;
        case PHASE_HOST_WRITING:
                return STR3_MWMF;
        case PHASE_ACCEPTING:
                if (s->bad_status)
                        return STR3_BAD;
                if (s->end_status) /* what real ECs showed here (tp_smapi 0.31 CHANGES) */
                        return s->end_status_mwmf ? STR3_MWMF : STR3_IBF3B;
                return STR3_IBF3B | STR3_MWMF;
        case PHASE_PREPARING:
                return s->bad_status ? STR3_BAD : STR3_SWMF;
        case PHASE_READY:
                return STR3_OBF3B | STR3_SWMF;
        case PHASE_STUCK_SILENT:
                return STR3_IBF3B | STR3_MWMF;
        case PHASE_ZERO_STEP:
                return STR3_IDLE; /* "indistinguishable from idle EC!" (the 2006 patch series) */
        case PHASE_LINGER:
                return STR3_SWMF;
        }
        return STR3_IDLE;
}

/* Every access: in virtual time the access itself takes SIM_VIRTUAL_ACCESS_NS and the EC sees it at
 * its end; then the model catches up with the clock and the access is applied at that time. */
static uint64_t access_begin(EcSim *s)
{
        uint64_t now;

        if (s->virtual_time)
                s->virtual_now_ns += SIM_VIRTUAL_ACCESS_NS;
        now = sim_now(s);
        sync_to(s, now);
        return now;
}

static bool port_is_twr_port(uint16_t port)
{
        return port >= EC_PORT_TWR0 && port <= EC_PORT_TWR15;
}

static const char *phase_name(ChannelPhase phase)
{
        switch (phase) {
        case PHASE_IDLE:
                return "idle";
        case PHASE_HOST_WRITING:
                return "while the host writes a request";
        case PHASE_ACCEPTING:
                return "while the EC takes in a request (before SWMF)";
        case PHASE_PREPARING:
                return "while the EC prepares a reply";
        case PHASE_READY:
                return "while a reply is pending";
        case PHASE_STUCK_SILENT:
                return "while the EC is silent";
        case PHASE_ZERO_STEP:
                return "while the EC takes in a request (the 0x00 step)";
        case PHASE_LINGER:
                return "while the EC ends a read (SWMF still showing)";
        }
        return "?";
}

static void port_name(uint16_t port, char buf[static 16])
{
        if (port == EC_PORT_STR3)
                snprintf(buf, 16, "STR3");
        else if (port >= EC_PORT_TWR0 && port <= EC_PORT_TWR15)
                snprintf(buf, 16, "TWR%u", (unsigned) (port - EC_PORT_TWR0));
        else
                snprintf(buf, 16, "port");
}

/* A protocol violation: an access the 2006 patch series' driver never makes in this phase. */
static void violation(EcSim *s, bool write, uint16_t port, uint8_t value, const char *detail)
{
        char name[16];

        port_name(port, name);
        s->protocol_violations++;
        if (write)
                snprintf(s->last_violation, sizeof(s->last_violation), "write of 0x%02x to %s (0x%04x) %s",
                         value, name, port, detail);
        else
                snprintf(s->last_violation, sizeof(s->last_violation), "read of %s (0x%04x) %s", name, port,
                         detail);
        if (s->protocol_violations <= SIM_VIOLATIONS_LOGGED)
                log_warning("sim: protocol violation #%llu: %s", (unsigned long long) s->protocol_violations,
                            s->last_violation);
        else
                log_debug("sim: protocol violation #%llu: %s", (unsigned long long) s->protocol_violations,
                          s->last_violation);
}

/* Strict mode for a read, before it takes effect. */
static void check_read(EcSim *s, uint16_t port)
{
        if (port == EC_PORT_STR3)
                return; /* always allowed */
        if (!port_is_twr_port(port)) {
                violation(s, false, port, 0, "(not a port of the protocol)");
                return;
        }
        if (port == EC_PORT_TWR0) {
                if (s->phase != PHASE_READY)
                        violation(s, false, port, 0, phase_name(s->phase));
                else if (s->read_started)
                        violation(s, false, port, 0, "a second time in one read");
        } else if (port == EC_PORT_TWR15) {
                /* Ends a read, or a reply the host found pending (STR3 shows OBF3B). */
                if (s->phase != PHASE_READY && !(str3_of(s) & STR3_OBF3B))
                        violation(s, false, port, 0, phase_name(s->phase));
        } else if (s->phase != PHASE_READY || !s->read_started)
                violation(s, false, port, 0,
                          s->phase == PHASE_READY ? "before TWR0 started the read" : phase_name(s->phase));
}

/* Strict mode for a write, before it takes effect. */
static void check_write(EcSim *s, uint16_t port, uint8_t value)
{
        if (!port_is_twr_port(port)) {
                violation(s, true, port, value, "(not a port the host writes)");
                return;
        }
        if (port == EC_PORT_TWR0) {
                if (s->phase != PHASE_IDLE)
                        violation(s, true, port, value, phase_name(s->phase));
        } else if (s->phase != PHASE_HOST_WRITING)
                violation(s, true, port, value, phase_name(s->phase));
}

static bool port_in_channel(uint16_t port)
{
        return port >= EC_PORT_BASE && port < EC_PORT_BASE + EC_PORT_COUNT;
}

/* The host wrote TWR15: the request is complete. Decides this transaction's faults. */
static void request_complete(EcSim *s, uint64_t now)
{
        uint8_t command = s->twr[0];
        unsigned set;

        memcpy(s->request, s->twr, SIM_ROW_LEN);
        s->request_ns = now;
        s->transactions++;
        s->last_command = command;
        s->busy = s->bad_status = s->hung = s->zero_step = s->linger = false;
        s->end_status = s->end_status_mwmf = false;
        s->data_faults = 0;

        if (command == EC_CMD_BATTERY_FORBIDDEN) {
                s->firmware.battery_row_0b_requested = true;
                s->phase = PHASE_STUCK_SILENT;
                s->hung = true;
                return;
        }

        set = sim_faults_roll(s->faults, s->n_faults, command,
                              (double) (now - s->firmware.accel.start_ns) / NSEC_PER_SEC, &s->rng);
        s->phase = PHASE_ACCEPTING;
        if (sim_faults_has(set, SIM_FAULT_SILENT)) {
                s->phase = PHASE_STUCK_SILENT;
                s->faults_injected++;
        } else if (sim_faults_has(set, SIM_FAULT_BUSY)) {
                s->busy = true;
                s->faults_injected++;
        } else {
                if (sim_faults_has(set, SIM_FAULT_BAD_STATUS)) {
                        s->bad_status = true;
                        s->faults_injected++;
                }
                if (sim_faults_has(set, SIM_FAULT_ZERO_STEP)) {
                        s->zero_step = true;
                        s->faults_injected++;
                }
                if (sim_faults_has(set, SIM_FAULT_END_STATUS)) {
                        s->end_status = true;
                        s->faults_injected++;
                }
                if (sim_faults_has(set, SIM_FAULT_SWMF_AFTER_READ)) {
                        s->linger = true;
                        s->faults_injected++;
                }
                s->data_faults = set & ((1u << SIM_FAULT_RETVAL) | (1u << SIM_FAULT_PENDING) |
                                        (1u << SIM_FAULT_ABSENT) | (1u << SIM_FAULT_NO_READOUT) |
                                        (1u << SIM_FAULT_WARM_UP) | (1u << SIM_FAULT_MODE_CHANGE));
                s->faults_injected += (unsigned) __builtin_popcount(s->data_faults);
        }
}

/* The host read TWR15: ends a read, or aborts whatever transaction is in progress. */
static void transaction_end(EcSim *s, uint64_t now)
{
        bool linger = false;

        switch (s->phase) {
        case PHASE_IDLE:
        case PHASE_LINGER:
                return;
        case PHASE_READY:
                if (s->read_started) {
                        s->readouts_delivered += sim_firmware_reply_readouts(s->twr);
                        linger = s->linger;
                } else
                        s->replies_discarded++; /* a stale reply nobody started to read */
                break;
        case PHASE_HOST_WRITING:
        case PHASE_ACCEPTING:
        case PHASE_ZERO_STEP:
        case PHASE_PREPARING:
        case PHASE_STUCK_SILENT:
                break;
        }
        s->phase = linger ? PHASE_LINGER : PHASE_IDLE;
        s->linger_until_ns = now + SIM_SWMF_LINGER_NS;
        s->read_started = false;
        s->busy = s->bad_status = s->hung = false;
}

static uint8_t sim_inb(PortIO *p, uint16_t port)
{
        EcSim *s = to_sim(p);
        uint8_t v = PORT_UNMAPPED;

        if (!port_in_channel(port)) {
                s->port_violations++;
                return PORT_FLOATING;
        }

        uint64_t now = access_begin(s);
        check_read(s, port);
        if (port == EC_PORT_STR3)
                v = str3_of(s);
        else if (port_is_twr_port(port)) {
                v = s->twr[port - EC_PORT_TWR0];
                if (port == EC_PORT_TWR0 && s->phase == PHASE_READY)
                        s->read_started = true;
                else if (port == EC_PORT_TWR15)
                        transaction_end(s, now);
        }
        return v;
}

static void sim_outb(PortIO *p, uint16_t port, uint8_t value)
{
        EcSim *s = to_sim(p);
        uint64_t now;

        if (!port_in_channel(port)) {
                s->port_violations++;
                return;
        }

        now = access_begin(s);
        check_write(s, port, value);
        if (port == EC_PORT_TWR0) {
                if (s->phase == PHASE_IDLE || s->phase == PHASE_HOST_WRITING) {
                        s->twr[0] = value;
                        s->phase = PHASE_HOST_WRITING;
                } else
                        s->requests_ignored++; /* the EC is busy with a transaction: arg0 rejected */
        } else if (port_is_twr_port(port) && s->phase == PHASE_HOST_WRITING) {
                s->twr[port - EC_PORT_TWR0] = value;
                if (port == EC_PORT_TWR15)
                        request_complete(s, now);
        }
        /* Other ports of the channel, and TWR writes outside a request, are ignored. */
}

static void sim_delay_ns(PortIO *p, uint64_t ns)
{
        EcSim *s = to_sim(p);

        if (s->virtual_time)
                s->virtual_now_ns += ns;
        else
                port_clock_delay_ns(ns);
}

static uint64_t sim_now_ns(PortIO *p)
{
        return sim_now(to_sim(p));
}

static void sim_free(PortIO *p)
{
        EcSim *s = to_sim(p);

        sim_motion_done(&s->motion);
        free(s);
}

static const PortOps sim_ops = {
        .name = "sim",
        .inb = sim_inb,
        .outb = sim_outb,
        .delay_ns = sim_delay_ns,
        .now_ns = sim_now_ns,
        .free = sim_free,
};

static int validate_faults(const SimFault *faults, unsigned n, char **ret_error)
{
        if (n > SIM_FAULTS_MAX)
                return error_printf(ret_error, -EINVAL, "too many faults: %u (at most %d)", n,
                                    SIM_FAULTS_MAX);
        for (unsigned i = 0; i < n; i++) {
                if ((unsigned) faults[i].kind >= _SIM_FAULT_MAX)
                        return error_printf(ret_error, -EINVAL, "fault %u: unknown fault kind %d", i,
                                            (int) faults[i].kind);
                if (!(faults[i].probability >= 0 && faults[i].probability <= 1))
                        return error_printf(ret_error, -EINVAL,
                                            "fault %u (%s): probability %g is not between 0 and 1", i,
                                            sim_fault_kind_to_string(faults[i].kind), faults[i].probability);
                if (!(faults[i].from_s >= 0) || !(faults[i].to_s >= 0) ||
                    (faults[i].to_s > 0 && faults[i].to_s <= faults[i].from_s))
                        return error_printf(
                                ret_error, -EINVAL, "fault %u (%s): time window %g-%g s is not a window", i,
                                sim_fault_kind_to_string(faults[i].kind), faults[i].from_s, faults[i].to_s);
        }
        return 0;
}

static int validate_options(const SimOptions *o, char **ret_error)
{
        if (o->reply_latency_ns > SIM_REPLY_LATENCY_MAX_NS)
                return error_printf(ret_error, -EINVAL,
                                    "reply latency %llu ns is too long (at most %llu ns)",
                                    (unsigned long long) o->reply_latency_ns,
                                    (unsigned long long) SIM_REPLY_LATENCY_MAX_NS);
        if (o->temperature != 0 &&
            (o->temperature < SIM_TEMPERATURE_MIN || o->temperature > SIM_TEMPERATURE_MAX))
                return error_printf(ret_error, -EINVAL,
                                    "temperature %d C is out of range (%d..%d, 0 for the default %d)",
                                    o->temperature, SIM_TEMPERATURE_MIN, SIM_TEMPERATURE_MAX,
                                    SIM_DEFAULT_TEMPERATURE);
        if (o->trace_loop && !o->trace_path)
                return error_printf(ret_error, -EINVAL, "trace_loop is set but there is no trace file");
        return validate_faults(o->faults, o->n_faults, ret_error);
}

int port_open_sim(const SimOptions *o, PortIO **ret, char **ret_error)
{
        static const SimOptions defaults = {};
        _cleanup_free_ EcSim *s = NULL;
        _cleanup_(trace_freep) Trace *trace = NULL;
        uint64_t now;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!o)
                o = &defaults;

        r = validate_options(o, ret_error);
        if (r < 0)
                return r;
        if (o->trace_path) {
                r = trace_load(o->trace_path, &trace, ret_error);
                if (r < 0)
                        return r;
        }

        s = calloc(1, sizeof(EcSim));
        if (!s)
                return -ENOMEM;
        s->base.ops = &sim_ops;
        s->virtual_time = o->virtual_time;
        s->virtual_now_ns = SIM_VIRTUAL_EPOCH_NS;
        s->reply_latency_ns = o->reply_latency_ns ? o->reply_latency_ns : SIM_DEFAULT_REPLY_LATENCY_NS;
        s->phase = PHASE_IDLE;

        uint32_t seed = o->seed ? o->seed : SIM_DEFAULT_SEED;
        sim_rng_init(&s->rng, seed);
        memcpy(s->faults, o->faults, o->n_faults * sizeof(SimFault));
        s->n_faults = o->n_faults;

        s->motion = (SimMotion) {.trace = TAKE_PTR(trace), .loop = o->trace_loop, .seed = seed};
        s->firmware = (SimFirmware) {
                .mode = o->mode ? o->mode : SIM_DEFAULT_MODE,
                .check_t61 = o->check_t61,
                .temperature = o->temperature ? o->temperature : SIM_DEFAULT_TEMPERATURE,
        };
        now = sim_now(s);
        sim_accel_init(&s->firmware.accel, &s->motion, now);

        *ret = &TAKE_PTR(s)->base;
        return 0;
}

void ec_sim_get_status(PortIO *p, EcSimStatus *ret)
{
        EcSim *s = to_sim(p);
        const SimAccel *a = &s->firmware.accel;

        sync_to(s, sim_now(s)); /* time-driven transitions only; no access cost */
        *ret = (EcSimStatus) {
                .str3 = str3_of(s),
                .idle = s->phase == PHASE_IDLE,
                .powered = a->powered,
                .ec_rate = a->ec_rate,
                .filter_order = a->filter_order,
                .fake_data_mode = a->fake_data,
                .transactions = s->transactions,
                .readouts_made = a->readouts_made,
                .readouts_lost = a->readouts_lost,
                .readouts_delivered = s->readouts_delivered,
                .queue_len = a->queue_len,
                .faults_injected = s->faults_injected,
                .last_command = s->last_command,
                .battery_row_0b_requested = s->firmware.battery_row_0b_requested,
                .port_violations = s->port_violations,
                .requests_ignored = s->requests_ignored,
                .replies_discarded = s->replies_discarded,
                .change_pending = a->change_pending,
                .readouts_superseded = a->readouts_superseded,
                .protocol_violations = s->protocol_violations,
                .last_violation = s->last_violation,
        };
}

uint64_t ec_sim_protocol_violations(PortIO *p)
{
        return to_sim(p)->protocol_violations;
}

void ec_sim_advance_ns(PortIO *p, uint64_t ns)
{
        EcSim *s = to_sim(p);

        if (!s->virtual_time) {
                log_debug("sim: ec_sim_advance_ns() ignored: the emulator runs on the real clock");
                return;
        }
        s->virtual_now_ns += ns;
}

void ec_sim_set_faults(PortIO *p, const SimFault *faults, unsigned n)
{
        EcSim *s = to_sim(p);

        s->n_faults = 0;
        for (unsigned i = 0; i < n && s->n_faults < SIM_FAULTS_MAX; i++) {
                if ((unsigned) faults[i].kind >= _SIM_FAULT_MAX)
                        continue; /* invalid entries are dropped; port_open_sim() rejects them */
                s->faults[s->n_faults] = faults[i];
                s->faults[s->n_faults].probability = CLAMP(faults[i].probability, 0.0, 1.0);
                s->n_faults++;
        }
}
