/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The poll timer's schedule (service/daemon/poll-schedule.c): the cadence holds while ticks are on time
 * or a little late; a tick more than half a period late starts over, so readouts never bunch up. */

#include "poll-schedule.h"
#include "test-helpers.h"

#define PERIOD 20000ULL /* 50 Hz */

TEST(test_on_time_keeps_the_cadence)
{
        CHECK_EQ(poll_schedule_next(1000000, 1000000, PERIOD), 1020000);
        /* within the timer slack and up to half a period late: still on the grid */
        CHECK_EQ(poll_schedule_next(1000000, 1002000, PERIOD), 1020000);
        CHECK_EQ(poll_schedule_next(1000000, 1010000, PERIOD), 1020000);
}

TEST(test_late_tick_starts_over)
{
        /* 14 ms late: the grid would fire 6 ms after this readout; start over one period from now */
        CHECK_EQ(poll_schedule_next(1000000, 1014000, PERIOD), 1034000);
        CHECK_EQ(poll_schedule_next(1000000, 1010001, PERIOD), 1030001);
        /* a stall of many periods: no catching up */
        CHECK_EQ(poll_schedule_next(1000000, 1500000, PERIOD), 1520000);
}

TEST(test_never_closer_than_half_a_period)
{
        for (uint64_t late = 0; late < 3 * PERIOD; late += 100) {
                uint64_t next = poll_schedule_next(1000000, 1000000 + late, PERIOD);
                CHECK(next >= 1000000 + late + PERIOD / 2);
                CHECK(next <= 1000000 + late + PERIOD);
        }
}

int main(void)
{
        RUN(test_on_time_keeps_the_cadence);
        RUN(test_late_tick_starts_over);
        RUN(test_never_closer_than_half_a_period);
        return test_summary();
}
