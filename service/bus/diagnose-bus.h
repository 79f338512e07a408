/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Diagnose(): one diagnosis run (f->diagnosis, service/diagnose/) at a time, and the callers waiting
 * for it (f->diagnose_calls). */

#include <systemd/sd-bus.h>

typedef struct BusFace BusFace;
typedef struct DiagnoseCalls DiagnoseCalls;

/* The Diagnose(s) -> s method handler (in the vtable of bus-accelerometer.c; userdata: the BusFace). */
int method_diagnose(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* After each poll tick: replies to the callers when the run is complete. */
void diagnose_bus_tick(BusFace *f);
/* Drops the waiting callers without an answer. Returns NULL. */
DiagnoseCalls *diagnose_calls_free(DiagnoseCalls *w);
