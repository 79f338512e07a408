/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* logind's PrepareForSleep with a delay inhibitor; suspend.h (the core) does the work. */

typedef struct BusFace BusFace;
typedef struct BusLogind BusLogind;

/* Subscribes to PrepareForSleep on f->bus and takes a delay inhibitor (without logind: one warning);
 * sets f->logind. Returns 0 or a negative errno (logged). */
int bus_logind_start(BusFace *f);
/* Closes the inhibitor. Returns NULL. */
BusLogind *bus_logind_free(BusLogind *l);
