/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "poll-schedule.h"

uint64_t poll_schedule_next(uint64_t scheduled, uint64_t now, uint64_t period)
{
        /* Keeping the grid after a late tick would put the next readout only a few ms after this one,
         * and programs that divide by the time between two input events (hdapsd does, twice) would read
         * noise as a jolt. The kernel's hdaps timer, too, is re-armed one period after each poll. */
        if (now > scheduled + period / 2)
                return now + period;
        return scheduled + period;
}
