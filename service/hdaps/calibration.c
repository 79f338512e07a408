/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>

#include "calibration.h"

void calibration_request(HdapsState *s)
{
        assert(s);
        s->calibration_pending = true;
}

void calibration_set_rest(HdapsState *s, int rest_x, int rest_y)
{
        assert(s);
        s->rest_x = rest_x;
        s->rest_y = rest_y;
        s->calibration_pending = false;
}

bool calibration_readout(HdapsState *s, int x, int y)
{
        assert(s);
        if (!s->calibration_pending)
                return false;
        calibration_set_rest(s, x, y);
        return true;
}

bool calibration_has_rest(const HdapsState *s)
{
        assert(s);
        return !s->calibration_pending;
}

void calibration_negate(HdapsState *s)
{
        assert(s);
        s->x = -s->x;
        s->y = -s->y;
        if (calibration_has_rest(s)) {
                s->rest_x = -s->rest_x;
                s->rest_y = -s->rest_y;
        }
}
