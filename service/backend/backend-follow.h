/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the kernel hdaps driver appearing or going away at run time (module load/unload) means for the
 * backend in use, with --backend=auto or kernel:
 *   appeared: the kernel backend replaces an EC backend (the driver owns the ports now) or no backend;
 *   went away: auto chooses again (the EC if the ports are usable, else none, saying why); kernel
 *     waits for it to come back with no backend.
 * With another --backend it only logs the change. The daemon's backend watch (daemon/backend-watch.c)
 * notices the change and applies the decision; the flavours are this layer's business. */

#include <stdbool.h>

#include "backend-choose.h"
#include "backend.h"

/* The kernel driver under sysroot as the watch compares it (a stat, no driver call). */
KernelDriverFlavour backend_follow_probe(const char *sysroot);

/* The kernel driver went from before to now (they differ) while current (NULL: none) was in use,
 * current_works telling whether it is initialized. Returns 0: keep the current backend (what happened
 * is logged); 1: switch to *ret (NULL: no backend) for the reason *ret_reason (free it; NULL when out of
 * memory). o is what --backend and the paths said at start. */
int backend_follow_kernel_driver(const BackendOptions *o, Backend *current, bool current_works,
                                 KernelDriverFlavour before, KernelDriverFlavour now, Backend **ret,
                                 char **ret_reason);
