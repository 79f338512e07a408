/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* --exit-idle-time=SEC: without an accelerometer, nothing to serve but "no": exit once no method call
 * arrived for SEC seconds and no client holds a claim. D-Bus activation starts tpacceld again on the
 * next call (and the kernel driver appearing later is then noticed at start). With an accelerometer the
 * daemon never exits on its own (disk protection and claims need it). 0 disables. */

#include "macros.h"

typedef struct Context Context;
typedef struct IdleExit IdleExit;

#define EXIT_IDLE_SEC_MAX 86400u

/* What sd_event_loop() returns after the idle exit, told apart from a signal (0, sd_event_set_signal_exit())
 * and the bus connection lost (1, sd-bus's exit on disconnect): the caller logs why it ends. */
#define IDLE_EXIT_EVENT_CODE 2

/* Starts the timer on c->event; when it fires it ends the loop with IDLE_EXIT_EVENT_CODE. Returns 0 or a
 * negative errno (logged); seconds == 0 sets *ret to NULL. */
int idle_exit_start(Context *c, unsigned seconds, IdleExit **ret);
/* A method call arrived (the D-Bus face's filter): the idle time starts again. e may be NULL. */
void idle_exit_note_call(IdleExit *e);
IdleExit *idle_exit_free(IdleExit *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(IdleExit *, idle_exit_free);
