/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The one place a readout flows through the daemon, in this order: the observer's readout event (the
 * Sample signal), calibration (a finished one becomes the rest position), keyboard/mouse activity, the
 * hdaps input devices, motion processing (tilt, shock; the observer's motion event), the observer's
 * processed event (the sensor proxy's screen orientation), disk protection. */

#include "backend.h"

typedef struct Context Context;

void readout_process(Context *c, const HdapsReadout *ro);
