/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the emulated accelerometer feels: either the built-in demo (a laptop on a desk: slow tilts of
 * a few degrees around a real X-series rest position, an occasional small bump, bursts of typing and
 * mouse use), a pure function of (seed, time), or a trace file sampled at the EC's sample times. Time
 * is nanoseconds since the emulator was created. */

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

/* Demo constants: rest (-498, -439) is the hdapsd test snapshot of a real X-series ThinkPad; about
 * 157 raw counts per g. */
#define SIM_DEMO_REST_X       (-498)
#define SIM_DEMO_REST_Y       (-439)
#define SIM_DEMO_COUNTS_PER_G 157.0

typedef struct SimMotion {
        Trace *trace; /* owned; NULL: the demo */
        bool loop;    /* trace: restart after the last row instead of holding it */
        uint32_t seed;
} SimMotion;

/* Position in raw counts (not rounded) at t_ns. */
void sim_motion_position(const SimMotion *m, uint64_t t_ns, double *ret_x, double *ret_y);

/* Whether the keyboard and the mouse were active at any time in [from_ns, to_ns]. */
void sim_motion_activity(const SimMotion *m, uint64_t from_ns, uint64_t to_ns, bool *ret_keyboard,
                         bool *ret_mouse);

void sim_motion_done(SimMotion *m);
