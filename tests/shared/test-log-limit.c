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

/* One record per uid, found again; past UID_LOG_SLOTS users the one used longest ago (its last line or
 * note) is reused, empty. */
TEST(uid_table_keeps_the_recent_users)
{
        UidLogTable t = {};
        unsigned n;

        for (uid_t uid = 1000; uid < 1000 + UID_LOG_SLOTS; uid++) {
                UidLog *l = uid_log_get(&t, uid);
                CHECK(l->used && l->uid == uid && l->note == 0);
                CHECK(log_limit_pass(&l->kinds[0], 100 + uid, 10, &n));
        }
        CHECK(uid_log_get(&t, 1003) == uid_log_get(&t, 1003));
        uid_log_get(&t, 1000)->note = 7; /* 1000 used last: a note now */
        uid_log_get(&t, 1000)->note_usec = 5000;

        UidLog *l = uid_log_get(&t, 42); /* replaces 1001, the oldest line */
        CHECK(l->uid == 42 && l->note == 0 && l->kinds[0].last_usec == 0);
        CHECK(uid_log_get(&t, 1000)->note == 7);
        for (size_t i = 0; i < UID_LOG_SLOTS; i++)
                CHECK(!(t.v[i].used && t.v[i].uid == 1001));
}

int main(void)
{
        RUN(first_event_is_logged_alone);
        RUN(events_within_the_interval_are_counted_into_the_next_line);
        RUN(uid_table_keeps_the_recent_users);
        return test_summary();
}
