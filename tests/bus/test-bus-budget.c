/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The budget of bus work (bus-pump.h): a token bucket of CPU time, in given times. */
#include "bus-pump.h"
#include "test-helpers.h"

#define MS 1000ULL
#define T0 (1000 * 1000 * MS)

TEST(off_never_waits)
{
        BusBudget b;

        bus_budget_init(&b, false, T0);
        bus_budget_spend(&b, T0, 10 * 1000 * MS);
        CHECK_EQ(bus_budget_next(&b, T0), T0);
}

TEST(a_burst_passes_then_work_waits_for_the_share)
{
        BusBudget b;

        bus_budget_init(&b, true, T0);
        bus_budget_spend(&b, T0, BUS_BUDGET_BURST_USEC - 1);
        CHECK_EQ(bus_budget_next(&b, T0), T0);
        /* 10 ms overdrawn: refilled at the share, 10 ms / 20% = 50 ms later. */
        bus_budget_spend(&b, T0, 10 * MS + 1);
        CHECK_EQ(bus_budget_next(&b, T0), T0 + (10 * MS + 1) * 100 / BUS_BUDGET_SHARE_PERCENT);
        CHECK(bus_budget_next(&b, T0 + 49 * MS) > T0 + 49 * MS);
        CHECK_EQ(bus_budget_next(&b, T0 + 51 * MS), T0 + 51 * MS);
}

TEST(the_share_holds_over_time)
{
        BusBudget b;
        uint64_t t = T0, work = 0;

        /* Work of 1 ms a step whenever the budget lets it, for 10 s: at most the share and one burst. */
        bus_budget_init(&b, true, t);
        while (t < T0 + 10 * 1000 * MS) {
                uint64_t next = bus_budget_next(&b, t);

                if (next > t) {
                        t = next;
                        continue;
                }
                t += MS;
                bus_budget_spend(&b, t, MS);
                work += MS;
        }
        CHECK(work <= 10 * 1000 * MS * BUS_BUDGET_SHARE_PERCENT / 100 + BUS_BUDGET_BURST_USEC + MS);
        CHECK(work >= 10 * 1000 * MS * BUS_BUDGET_SHARE_PERCENT / 100 - 2 * MS);
}

TEST(idle_time_refills_only_to_the_burst)
{
        BusBudget b;

        bus_budget_init(&b, true, T0);
        bus_budget_spend(&b, T0 + 60 * 1000 * MS, 2 * BUS_BUDGET_BURST_USEC);
        CHECK(bus_budget_next(&b, T0 + 60 * 1000 * MS) > T0 + 60 * 1000 * MS);
}

int main(void)
{
        RUN(off_never_waits);
        RUN(a_burst_passes_then_work_waits_for_the_share);
        RUN(the_share_holds_over_time);
        RUN(idle_time_refills_only_to_the_burst);
        return test_summary();
}
