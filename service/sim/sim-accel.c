/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulated accelerometer: configuration, lazy sampling, filter, readout queue. */
#include <math.h>
#include <string.h>

#include "ec-protocol.h"
#include "sim-accel.h"

_Static_assert(SIM_ACCEL_FILTER_MAX == EC_FILTER_ORDER_MAX, "filter history must hold the largest order");
_Static_assert(SIM_ACCEL_EC_RATE_MAX <= EC_RATE_MAX, "the EC rate travels in 16 bits");

#define S16_MIN (-32768)
#define S16_MAX 32767

static void restart_sampling(SimAccel *a, uint64_t now_ns)
{
        a->sample_base_ns = now_ns;
        a->samples_done = 0;
        a->raw_len = a->raw_next = 0;
}

void sim_accel_init(SimAccel *a, const SimMotion *motion, uint64_t now_ns)
{
        *a = (SimAccel) {
                .motion = motion,
                .start_ns = now_ns,
                .powered = true,
                .ec_rate = SIM_ACCEL_BOOT_EC_RATE,
                .filter_order = SIM_ACCEL_BOOT_ORDER,
                .synced_ns = now_ns,
                .activity_since_ns = now_ns,
        };
        restart_sampling(a, now_ns);
}

/* Time of sample k >= 1 (exact: no accumulated rounding). */
static uint64_t sample_time(const SimAccel *a, uint64_t k)
{
        return a->sample_base_ns + (uint64_t) (((unsigned __int128) k * NSEC_PER_SEC) / a->ec_rate);
}

/* Samples whose time is <= t. */
static uint64_t samples_due(const SimAccel *a, uint64_t t)
{
        if (t <= a->sample_base_ns)
                return 0;
        return (uint64_t) (((unsigned __int128) (t - a->sample_base_ns) * a->ec_rate) / NSEC_PER_SEC);
}

static void queue_push(SimAccel *a, SimReadout r)
{
        if (a->queue_len == SIM_ACCEL_QUEUE_DEPTH) { /* drop the oldest */
                a->queue_head = (a->queue_head + 1) % SIM_ACCEL_QUEUE_DEPTH;
                a->queue_len--;
                a->readouts_lost++;
        }
        a->queue[(a->queue_head + a->queue_len) % SIM_ACCEL_QUEUE_DEPTH] = r;
        a->queue_len++;
        a->readouts_made++;
}

static int16_t to_s16(double v)
{
        long r = lround(v);
        return (int16_t) CLAMP(r, S16_MIN, S16_MAX);
}

/* The running average of the last filter_order raw samples (fewer right after a restart). */
static SimReadout filtered(const SimAccel *a)
{
        unsigned n = MIN(a->filter_order, a->raw_len);
        double sx = 0, sy = 0;

        for (unsigned i = 0; i < n; i++) {
                unsigned j = (a->raw_next + SIM_ACCEL_FILTER_MAX - 1 - i) % SIM_ACCEL_FILTER_MAX;
                sx += a->raw_x[j];
                sy += a->raw_y[j];
        }
        return (SimReadout) {.x = to_s16(sx / n), .y = to_s16(sy / n)};
}

static void take_sample(SimAccel *a, uint64_t t_ns)
{
        SimReadout r;

        if (a->fake_data) {
                r.x = r.y = (int16_t) a->fake_counter++;
        } else {
                double x, y;
                sim_motion_position(a->motion, t_ns - a->start_ns, &x, &y);
                a->raw_x[a->raw_next] = to_s16(x);
                a->raw_y[a->raw_next] = to_s16(y);
                a->raw_next = (a->raw_next + 1) % SIM_ACCEL_FILTER_MAX;
                a->raw_len = MIN(a->raw_len + 1, (unsigned) SIM_ACCEL_FILTER_MAX);
                r = filtered(a);
        }
        queue_push(a, r);
}

/* Takes the samples due up to t with the current configuration. */
static void sample_until(SimAccel *a, uint64_t t)
{
        uint64_t due, todo;

        if (!sim_accel_sampling(a))
                return;
        due = samples_due(a, t);
        if (due <= a->samples_done)
                return;
        todo = due - a->samples_done;

        if (todo > SIM_ACCEL_CATCHUP_MAX) {
                /* Everything queued now and every skipped readout would be pushed out by the
                 * SIM_ACCEL_CATCHUP_MAX (> queue depth) newer ones: count them as made and lost. */
                uint64_t skip = todo - SIM_ACCEL_CATCHUP_MAX;
                a->readouts_made += skip;
                a->readouts_lost += skip + a->queue_len;
                a->queue_len = 0;
                a->fake_counter = (uint16_t) (a->fake_counter + skip);
                a->samples_done += skip;
                todo = SIM_ACCEL_CATCHUP_MAX;
        }
        for (; todo > 0; todo--) {
                a->samples_done++;
                take_sample(a, sample_time(a, a->samples_done));
        }
}

void sim_accel_advance(SimAccel *a, uint64_t now_ns)
{
        if (now_ns < a->synced_ns)
                now_ns = a->synced_ns;

        if (a->change_pending && a->pending_until_ns <= now_ns) {
                sample_until(a, a->pending_until_ns);
                a->ec_rate = a->pending_rate;
                a->filter_order = a->pending_order;
                a->change_pending = false;
                restart_sampling(a, a->pending_until_ns);
        }
        sample_until(a, now_ns);
        a->synced_ns = now_ns;
}

uint8_t sim_accel_configure(SimAccel *a, uint64_t now_ns, unsigned ec_rate, unsigned order)
{
        bool shutdown = ec_rate == HDAPS_SHUTDOWN_EC_RATE && order == HDAPS_SHUTDOWN_ORDER;

        sim_accel_advance(a, now_ns);
        if (!shutdown && (order < EC_FILTER_ORDER_MIN || order > EC_FILTER_ORDER_MAX || ec_rate < 1 ||
                          ec_rate > SIM_ACCEL_EC_RATE_MAX))
                return EC_RETVAL_OUT_OF_RANGE;
        if (a->change_pending)
                return EC_RETVAL_CHANGE_PENDING;

        a->change_pending = true;
        a->pending_rate = ec_rate;
        a->pending_order = order;
        a->pending_until_ns = now_ns + SIM_ACCEL_CONFIG_DELAY_NS;
        return EC_RETVAL_OK;
}

void sim_accel_set_power(SimAccel *a, uint64_t now_ns, bool on)
{
        sim_accel_advance(a, now_ns);
        if (on == a->powered)
                return;
        a->powered = on;
        a->queue_len = 0;
        restart_sampling(a, now_ns);
}

void sim_accel_set_fake_data(SimAccel *a, bool on)
{
        a->fake_data = on;
        a->fake_counter = 0;
}

void sim_accel_pop(SimAccel *a, uint64_t now_ns, SimReadoutReply *ret)
{
        *ret = (SimReadoutReply) {};
        sim_accel_advance(a, now_ns);

        while (ret->n < ELEMENTSOF(ret->readout) && a->queue_len > 0) {
                a->queue_len--; /* the newest is at the tail */
                ret->readout[ret->n++] = a->queue[(a->queue_head + a->queue_len) % SIM_ACCEL_QUEUE_DEPTH];
        }
        /* What is left is older than what this reply delivers: superseded, never to be delivered (a later
         * reply must not go back in time). QUEUED reports how many there were. */
        ret->queued = a->queue_len;
        a->readouts_superseded += a->queue_len;
        a->queue_len = 0;

        sim_motion_activity(a->motion, a->activity_since_ns - a->start_ns, now_ns - a->start_ns,
                            &ret->keyboard, &ret->mouse);
        a->activity_since_ns = now_ns;
}
