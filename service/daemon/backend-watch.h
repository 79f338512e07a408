/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Follows the kernel hdaps driver appearing and disappearing at run time (module load/unload). sysfs
 * sends no inotify events for devices the kernel adds, so a slow CLOCK_MONOTONIC timer checks whether
 * the hdaps sysfs device exists and which flavour it is (a stat, no driver call). On a change, the
 * backend layer decides what it means (backend-follow.h) and a switch goes through
 * context_switch_backend(), logged with its reason and reported (HasAccelerometer, Backend,
 * BackendReason, AxisCode). */

#include <stdint.h>

#include "backend.h"

#define BACKEND_WATCH_INTERVAL_USEC (2 * USEC_PER_SEC)

typedef struct Context Context;
typedef struct BackendWatch BackendWatch;

/* Starts watching on c->event; o is copied (its strings are borrowed and must outlive the watch).
 * Returns 0 or a negative errno (logged). */
int backend_watch_start(Context *c, const BackendOptions *o, uint64_t interval_usec, BackendWatch **ret);
BackendWatch *backend_watch_free(BackendWatch *w);
