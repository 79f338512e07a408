/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>

#include "log-limit.h"

bool log_limit_pass(LogLimit *l, uint64_t now_usec, uint64_t interval_usec, unsigned *ret_count)
{
        assert(l);
        assert(ret_count);

        l->count++;
        if (l->last_usec != 0 && now_usec - l->last_usec < interval_usec)
                return false;
        *ret_count = l->count;
        l->count = 0;
        l->last_usec = now_usec;
        return true;
}

static uint64_t uid_log_last_usec(const UidLog *l)
{
        uint64_t last = l->note_usec;

        for (size_t k = 0; k < UID_LOG_KINDS; k++)
                if (l->kinds[k].last_usec > last)
                        last = l->kinds[k].last_usec;
        return last;
}

UidLog *uid_log_get(UidLogTable *t, uid_t uid)
{
        UidLog *oldest = &t->v[0];

        assert(t);
        for (size_t i = 0; i < UID_LOG_SLOTS; i++) {
                UidLog *l = &t->v[i];
                if (l->used && l->uid == uid)
                        return l;
                if (!l->used || (oldest->used && uid_log_last_usec(l) < uid_log_last_usec(oldest)))
                        oldest = l;
        }
        *oldest = (UidLog) {.used = true, .uid = uid};
        return oldest;
}
