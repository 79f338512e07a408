/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The ThinkPad model table: which DMI models carry HDAPS and how their sensor is mounted (an axis
 * orientation code, see hdaps-models.h). Used by detection (ec layer) and by the hdaps device layer.
 * Sources per entry in docs/PROTOCOL.md. */

typedef struct ThinkpadModel {
        const char *vendor;          /* DMI board_vendor */
        const char *product_version; /* substring of DMI product_version; the first match wins */
        unsigned axis_code;
        const char *source;
} ThinkpadModel;

/* First matching entry for this DMI board vendor and product version, or NULL. */
const ThinkpadModel *thinkpad_model_lookup(const char *board_vendor, const char *product_version);
