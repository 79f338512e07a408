/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The rest position's state machine, one for both backends (the EC device in hdaps.c and the kernel
 * driver's backend-kernel.c): calibration is deferred (the 2006 patch series, PATCH 07/12): a request
 * arms it and the next good readout becomes the rest position; a rest position set from outside (the
 * state file) disarms it. It is armed at load and on request only, never by an init.
 *
 * Every function takes the device's HdapsState (not NULL) and only touches its x, y, rest_x, rest_y and
 * calibration_pending fields. */

#include <stdbool.h>

#include "hdaps.h"

/* Arms the calibration: the next calibration_readout() sets the rest position. */
void calibration_request(HdapsState *s);

/* A known rest position (x, y); disarms a pending calibration. */
void calibration_set_rest(HdapsState *s, int rest_x, int rest_y);

/* A good readout at (x, y): becomes the rest position when a calibration is armed, which it disarms.
 * Returns whether it did. */
bool calibration_readout(HdapsState *s, int x, int y);

/* Whether the rest position is known (no calibration armed). */
bool calibration_has_rest(const HdapsState *s);

/* The axes were negated (invert): negates the position and, when known, the rest position, so that a
 * calibration survives the change. */
void calibration_negate(HdapsState *s);
