/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Movement watching: while someone watches (the D-Bus face's movement claims), polling runs at
 * MOVEMENT_RATE_HZ at least (DEMAND_MOVEMENT, poller.h) and every readout goes through movement
 * detection (motion.h, MotionSample.watch_movement); nothing polls for it otherwise. */

#include <stdbool.h>

typedef struct Context Context;

/* Starts (on) or stops watching; reports MovementWatched, and Moving when stopping ended a movement.
 * A no-op when it is so already. */
void movement_watch_set(Context *c, bool on);
/* Whether someone watches (the MovementWatched property). */
bool movement_watched(const Context *c);
