/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* When the poll timer fires next: a pure decision, tested without an event loop. */

#include <stdint.h>

/* The time of the tick after one scheduled for `scheduled` that ran at `now` (all in us, one clock).
 * On time or a little late (up to half a period): one period after `scheduled`, keeping the cadence.
 * Later than that: one period after `now`, so two readouts are never much closer than a period. */
uint64_t poll_schedule_next(uint64_t scheduled, uint64_t now, uint64_t period);
