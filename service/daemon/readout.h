/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The one place a readout flows through the daemon, in this order: the observer's readout event (the
 * Sample signal), calibration (a finished one becomes the rest position), keyboard/mouse activity, the
 * hdaps input devices, motion processing (tilt, shock; the observer's motion event), the observer's
 * processed event (the sensor proxy's screen orientation), disk protection. Beside it the readouts
 * nobody polls for: the on-demand readout of the properties' readers and of Calibrate. */

#include <stdbool.h>

#include "backend.h"
#include "motion.h"

typedef struct Context Context;

void readout_process(Context *c, const HdapsReadout *ro);

/* The on-demand readout: when nobody polls (and the device is there, awake and working), refreshes the
 * backend's state (Position, Temperature; rate-limited by the device layer; a failure is logged at debug
 * level and keeps the cached values). Writes nothing. Returns whether it finished a calibration, whose
 * rest position is then to be taken (context_check_rest()). */
bool readout_on_demand(Context *c);
/* Calibrate: the next readout becomes the rest position (an on-demand readout takes it now when nobody
 * polls; context_check_rest() then applies it as a configuration change). The caller has checked that
 * the state file can be written (context_save_config()). */
void context_calibrate(Context *c);
/* For the readers of properties, which never write: readout_on_demand(), and a calibration it finished
 * is taken as the rest position (and saved) right after the reader, from a deferred event. */
void readout_refresh(Context *c);

/* Pitch, roll and orientation now, for readers of the properties: while polling, the motion state
 * (debounced orientation); otherwise computed from a fresh on-demand readout (readout_refresh(),
 * rate-limited like Position). Without an accelerometer or motion processing: 0, 0, "undefined". */
void readout_current_angles(Context *c, double *ret_pitch, double *ret_roll,
                            MotionOrientation *ret_orientation);
