/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's clock: CLOCK_MONOTONIC in microseconds, the clock of every timer and timestamp tpacceld
 * keeps (sd-event's CLOCK_MONOTONIC timers, the Sample and Shock times). */

#include <stdint.h>

uint64_t now_usec(void);
