/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Fault decisions, one per request: which fault (if any) the EC shows for this transaction. */

#include <stdbool.h>

#include "ec-sim.h"
#include "sim-random.h"

/* The faults a list holds that hit this transaction: for each entry that applies to the command
 * (retval only to 0x11, pending only to 0x10, absent only to 0x13; busy, silent and bad-status to
 * every command) and whose time window holds t_s (seconds since the emulator started), one draw from
 * rng; a draw below the probability hits. Returns a bit set of (1u << SimFaultKind). Draws happen only
 * for applicable entries, in list order. */
unsigned sim_faults_roll(const SimFault *faults, unsigned n, uint8_t command, double t_s, SimRng *rng);

static inline bool sim_faults_has(unsigned set, SimFaultKind k)
{
        return set & (1u << k);
}
