/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Axis orientation and scale of the HDAPS sensor. The per-model table is in thinkpad-models.h (ec
 * layer, shared with detection); sources in docs/PROTOCOL.md.
 *
 * Axis codes (tp_smapi 0.33+): X,Y are the hardware readout; swap is applied first, then bit 0
 * negates both axes, then bit 1 negates X:
 *   0: X,Y  1: -X,-Y  2: -X,Y  3: X,-Y  4: Y,X  5: -Y,-X  6: -Y,X  7: Y,-X */

#include "thinkpad-models.h"

#define HDAPS_AXIS_CODE_MAX        7
#define HDAPS_AXIS_SWAP            0x4
#define HDAPS_AXIS_NEGATE_BOTH     0x1
#define HDAPS_AXIS_NEGATE_X        0x2
#define HDAPS_COUNTS_PER_G_DEFAULT 157.0 /* thinkpad-scripts (Ben Suter's data): about 155-160 */

/* Axis code for a DMI model: the table's, or 0 (normal) when the model is not listed. */
unsigned hdaps_axis_code_for_model(const char *board_vendor, const char *product_version);

/* Applies an axis code to a hardware readout. */
void hdaps_axes_transform(unsigned code, int hw_x, int hw_y, int *ret_x, int *ret_y);
