/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The one place a readout flows through the daemon, in this order: the observer's readout event (the
 * Sample signal), calibration (a finished one becomes the rest position), keyboard/mouse activity, the
 * hdaps input devices, motion processing (tilt, shock; the observer's motion event), the observer's
 * processed event (the sensor proxy's screen orientation), disk protection. */

#include "backend.h"
#include "motion.h"

typedef struct Context Context;

void readout_process(Context *c, const HdapsReadout *ro);

/* Pitch, roll and orientation now, for readers of the properties: while polling, the motion state
 * (debounced orientation); otherwise computed from a fresh on-demand readout (poller_refresh_on_demand(),
 * rate-limited like Position). Without an accelerometer or motion processing: 0, 0, "undefined". */
void readout_current_angles(Context *c, double *ret_pitch, double *ret_roll,
                            MotionOrientation *ret_orientation);
