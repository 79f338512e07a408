/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* --dump=N: no bus. Reads n readouts from the initialized device at its sampling rate and prints them
 * to out as CSV ("time_ms,x,y,temperature,keyboard,mouse", axis-corrected raw counts, time from the
 * first readout), then powers the accelerometer off. Returns 0 or a negative errno (logged). */

#include <stdio.h>

#include "context.h"

int dump_readouts(Context *c, unsigned n, FILE *out);
