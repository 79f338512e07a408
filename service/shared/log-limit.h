/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A log line that a client could otherwise have written at will (one per refused call, per released
 * stream): at most one per interval, carrying the count of the events it stands for. */

#include <stdbool.h>
#include <stdint.h>

typedef struct LogLimit {
        unsigned count;     /* events since the last line */
        uint64_t last_usec; /* when the last line was written; 0: never */
} LogLimit;

/* Counts one event at now_usec. Returns true when a line is to be written now: the first event, or the
 * first one interval_usec or more after the last line. *ret_count is then the number of events the line
 * stands for (this one and those not logged since the last line), and the count starts again. */
bool log_limit_pass(LogLimit *l, uint64_t now_usec, uint64_t interval_usec, unsigned *ret_count);
