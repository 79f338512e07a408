/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log-limit.h"
#include "test-helpers.h"

#define INTERVAL 10000000ULL

TEST(first_event_is_logged_alone)
{
        LogLimit l = {};
        unsigned n = 0;

        CHECK(log_limit_pass(&l, 5, INTERVAL, &n));
        CHECK_EQ(n, 1);
}

TEST(events_within_the_interval_are_counted_into_the_next_line)
{
        LogLimit l = {};
        unsigned n = 0;

        CHECK(log_limit_pass(&l, 1000, INTERVAL, &n));
        CHECK(!log_limit_pass(&l, 2000, INTERVAL, &n));
        CHECK(!log_limit_pass(&l, 1000 + INTERVAL - 1, INTERVAL, &n));
        n = 0;
        CHECK(log_limit_pass(&l, 1000 + INTERVAL, INTERVAL, &n));
        CHECK_EQ(n, 3); /* this one and the two not logged */
        CHECK(!log_limit_pass(&l, 1000 + INTERVAL + 1, INTERVAL, &n));
        CHECK(log_limit_pass(&l, 1000 + 3 * INTERVAL, INTERVAL, &n));
        CHECK_EQ(n, 2);
}

int main(void)
{
        RUN(first_event_is_logged_alone);
        RUN(events_within_the_interval_are_counted_into_the_next_line);
        return test_summary();
}
