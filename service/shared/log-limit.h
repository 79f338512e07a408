/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A log line that a client could otherwise have written at will (one per refused call, per released
 * stream): at most one per interval, carrying the count of the events it stands for. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct LogLimit {
        unsigned count;     /* events since the last line */
        uint64_t last_usec; /* when the last line was written; 0: never */
} LogLimit;

/* Counts one event at now_usec. Returns true when a line is to be written now: the first event, or the
 * first one interval_usec or more after the last line. *ret_count is then the number of events the line
 * stands for (this one and those not logged since the last line), and the count starts again. */
bool log_limit_pass(LogLimit *l, uint64_t now_usec, uint64_t interval_usec, unsigned *ret_count);

/* The log limits of the last UID_LOG_SLOTS users seen, the one table for every per-user log line (a
 * client can open connections at will, not change its uid): each user's record has UID_LOG_KINDS
 * limits, one per kind of line, and a note, the caller's own fact about the user kept and lost with the
 * record (polkit's last verdict). */
#define UID_LOG_SLOTS 16
#define UID_LOG_KINDS 2

typedef struct UidLog {
        bool used;
        uid_t uid;
        LogLimit kinds[UID_LOG_KINDS];
        int note;           /* 0 when the record is made */
        uint64_t note_usec; /* when the note was last set; 0: never */
} UidLog;

typedef struct UidLogTable {
        UidLog v[UID_LOG_SLOTS];
} UidLogTable;

/* uid's record in t, or a new one in a free slot, else in the one used longest ago (its last line or
 * note: its counts and note are lost). Never NULL. */
UidLog *uid_log_get(UidLogTable *t, uid_t uid);
