/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "hdaps-models.h"

unsigned hdaps_axis_code_for_model(const char *board_vendor, const char *product_version)
{
        const ThinkpadModel *m = thinkpad_model_lookup(board_vendor, product_version);
        return m ? m->axis_code : 0;
}

void hdaps_axes_transform(unsigned code, int hw_x, int hw_y, int *ret_x, int *ret_y)
{
        int x = hw_x, y = hw_y;

        if (code & HDAPS_AXIS_SWAP) {
                int t = x;
                x = y;
                y = t;
        }
        if (code & HDAPS_AXIS_NEGATE_BOTH) {
                x = -x;
                y = -y;
        }
        if (code & HDAPS_AXIS_NEGATE_X)
                x = -x;
        *ret_x = x;
        *ret_y = y;
}
