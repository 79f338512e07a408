/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Follows the kernel hdaps driver appearing and disappearing at run time (module load/unload). sysfs
 * sends no inotify events for devices the kernel adds, so a slow CLOCK_MONOTONIC timer checks whether
 * /sys/devices/platform/hdaps/position exists and which flavour it is (a stat, no driver call). On a
 * change, with --backend=auto or kernel:
 *   appeared: the kernel backend replaces an EC backend (the driver owns the ports now) or no backend;
 *   went away: auto chooses again (the EC if the ports are usable, else none, saying why); kernel
 *     waits for it to come back with HasAccelerometer false.
 * Every switch is logged with its reason and emits PropertiesChanged for HasAccelerometer, Backend,
 * BackendReason and AxisCode. With another --backend it only logs the change. */

#include <stdint.h>

#include "backend.h"

#define BACKEND_WATCH_INTERVAL_USEC (2 * USEC_PER_SEC)

typedef struct Context Context;
typedef struct BackendWatch BackendWatch;

/* Starts watching on c->event; o is copied (its strings are borrowed and must outlive the watch).
 * Returns 0 or a negative errno (logged). */
int backend_watch_start(Context *c, const BackendOptions *o, uint64_t interval_usec, BackendWatch **ret);
BackendWatch *backend_watch_free(BackendWatch *w);

/* Replaces the context's backend (NULL: none) with reason (taken), initializes it with the configuration
 * and restarts polling for existing claims. Emits the property changes. */
void backend_watch_switch(Context *c, Backend *backend, char *reason);
