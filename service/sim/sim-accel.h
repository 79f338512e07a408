/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The accelerometer behind the emulated EC: power, the (rate, filter order) configuration with its
 * delayed take-over, sampling at the EC rate, the running-average filter, the readout queue and the
 * keyboard/mouse activity flags. Sampling is lazy: sim_accel_advance() catches up to a time, doing at
 * most SIM_ACCEL_CATCHUP_MAX samples however long the idle period was (older samples cannot
 * influence the queue or the filter any more; they are only counted). */

#include <stdbool.h>
#include <stdint.h>

#include "sim-motion.h"

#define SIM_ACCEL_QUEUE_DEPTH     8
#define SIM_ACCEL_FILTER_MAX      8 /* = EC_FILTER_ORDER_MAX, checked at compile time in sim-accel.c */
#define SIM_ACCEL_CATCHUP_MAX     (SIM_ACCEL_QUEUE_DEPTH + SIM_ACCEL_FILTER_MAX)
#define SIM_ACCEL_EC_RATE_MAX     10000               /* the emulated EC samples at most this fast (Hz) */
#define SIM_ACCEL_CONFIG_DELAY_NS (1 * NSEC_PER_MSEC) /* 0x10 takes effect this long after the reply */
/* The state at power-up: the 2006 patch series' defaults (50 Hz x 5 = 250 Hz, order 2), powered on. */
#define SIM_ACCEL_BOOT_EC_RATE 250
#define SIM_ACCEL_BOOT_ORDER   2

typedef struct SimReadout {
        int16_t x, y;
} SimReadout;

typedef struct SimAccel {
        const SimMotion *motion; /* borrowed */
        uint64_t start_ns;       /* motion time 0 */

        bool powered;
        unsigned ec_rate, filter_order;
        bool change_pending;
        unsigned pending_rate, pending_order;
        uint64_t pending_until_ns;
        bool fake_data;
        uint16_t fake_counter;

        /* Sampling: sample k >= 1 is taken at base + k / ec_rate seconds; samples_done taken so far. */
        uint64_t sample_base_ns, samples_done, synced_ns;
        int raw_x[SIM_ACCEL_FILTER_MAX], raw_y[SIM_ACCEL_FILTER_MAX];
        unsigned raw_len, raw_next;
        SimReadout queue[SIM_ACCEL_QUEUE_DEPTH];
        unsigned queue_head, queue_len; /* queue_head: the oldest readout */

        uint64_t activity_since_ns; /* KMACT covers [activity_since_ns, now] */
        uint64_t readouts_made, readouts_lost;
        uint64_t readouts_superseded; /* left behind by a reply that delivered newer ones */
} SimAccel;

/* One 0x11 answer: n readouts (0..2), newest first. */
typedef struct SimReadoutReply {
        unsigned n;
        SimReadout readout[2];
        unsigned queued;
        bool keyboard, mouse;
} SimReadoutReply;

void sim_accel_init(SimAccel *a, const SimMotion *motion, uint64_t now_ns);
/* Applies a due configuration change and samples up to now_ns. Time never goes back. */
void sim_accel_advance(SimAccel *a, uint64_t now_ns);

/* 0x10. Returns the EC return code: EC_RETVAL_OK (the change is pending for
 * SIM_ACCEL_CONFIG_DELAY_NS), EC_RETVAL_OUT_OF_RANGE, EC_RETVAL_CHANGE_PENDING. */
uint8_t sim_accel_configure(SimAccel *a, uint64_t now_ns, unsigned ec_rate, unsigned order);
/* 0x14. Power off clears the queue and stops sampling; power on restarts it from now. */
void sim_accel_set_power(SimAccel *a, uint64_t now_ns, bool on);
void sim_accel_set_fake_data(SimAccel *a, bool on);
/* 0x11: pops the newest readout and the one before it; the older ones left are counted in
 * ret->queued and superseded (dropped). Reads and clears the activity flags. */
void sim_accel_pop(SimAccel *a, uint64_t now_ns, SimReadoutReply *ret);

static inline bool sim_accel_sampling(const SimAccel *a)
{
        return a->powered && a->ec_rate > 0;
}
