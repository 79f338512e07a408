/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* --dump=N: no bus, no daemon context. Sets the device b up with the state file's configuration
 * (state_path, NULL: the defaults), reads n readouts at its sampling rate and prints them to out as CSV
 * ("time_ms,x,y,temperature,keyboard,mouse", axis-corrected raw counts, time from the first readout),
 * then powers the accelerometer off. reason is why b was chosen (for the error when it cannot be set
 * up). Returns 0 or a negative errno (logged). */

#include <stdio.h>

#include "backend.h"

int dump_readouts(Backend *b, const char *reason, const char *state_path, unsigned n, FILE *out);
