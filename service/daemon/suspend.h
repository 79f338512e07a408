/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Suspend and resume, the daemon side (what to do, not how it is learnt: bus-logind.c follows logind's
 * PrepareForSleep). Before sleep: stop polling, unpark, power the accelerometer off; after resume:
 * re-initialize and poll again if anything demands it. Both report Suspended. */

#include <stdbool.h>

typedef struct Context Context;

typedef struct Suspend {
        bool active; /* the Suspended property */
} Suspend;

/* Both are idempotent: entering twice or leaving while awake does nothing. */
void suspend_enter(Context *c);
void suspend_leave(Context *c);
