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
