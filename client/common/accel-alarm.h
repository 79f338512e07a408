/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The motion alarm's state machine, shared by tpaccel-tray and "tpaccelctl alarm": pure logic in the
 * caller's time (monotonic microseconds; the wall clock only for the summary), no I/O. Each event returns
 * what the caller must do now (AlarmEffects) and leaves alarm->deadline_usec, the time of the next
 * alarm_tick() (0: none). docs/MOTION.md, "The motion alarm", says why each step is as it is.
 *
 *   DISARMED --lock--> ARMING --arming_ms--> ARMED --Moved--> WARNED --grace_ms--> SOUNDING
 *        ^                                                                            |
 *        +------------------------------ unlock (from any state) --------------------+
 *
 * The movement claim is held from ARMING (the detector settles while the owner walks away; movements
 * then are ignored) until the unlock; the lid switch is blocked from the first movement (WARNED) until
 * the unlock, so that closing the lid does not silence it; the loud sound repeats every repeat_ms while
 * SOUNDING. After an unlock with movements, the summary says when and how often. */

#include <glib.h>

typedef enum AlarmState {
        ALARM_DISARMED,
        ALARM_ARMING,
        ALARM_ARMED,
        ALARM_WARNED,
        ALARM_SOUNDING,
} AlarmState;

/* What the caller does after an event, any combination. */
typedef enum AlarmEffects {
        ALARM_EFFECT_NONE = 0,
        ALARM_EFFECT_CLAIM = 1 << 0,         /* start holding the movement claim (ClaimMovement) */
        ALARM_EFFECT_RELEASE = 1 << 1,       /* stop holding it (ReleaseMovement) */
        ALARM_EFFECT_WARN = 1 << 2,          /* play the warning sound once */
        ALARM_EFFECT_SOUND = 1 << 3,         /* play the alarm sound (again, unless it still plays) */
        ALARM_EFFECT_SILENCE = 1 << 4,       /* stop every sound */
        ALARM_EFFECT_BLOCK_LID = 1 << 5,     /* take the lid switch inhibitor */
        ALARM_EFFECT_UNBLOCK_LID = 1 << 6,   /* drop it */
        ALARM_EFFECT_SUMMARY = 1 << 7,       /* tell alarm_summary() (after an unlock with movements) */
        ALARM_EFFECT_STATE_CHANGED = 1 << 8, /* alarm->state changed */
} AlarmEffects;

typedef struct AlarmTimes {
        guint arming_ms; /* after the lock, before movements count */
        guint grace_ms;  /* after the first movement, before the loud sound */
        guint repeat_ms; /* how often the loud sound is started again (if it has ended) */
} AlarmTimes;

/* The defaults: 10 s to put the machine down and walk away, 10 s for the owner to unlock, the loud sound
 * checked twice a second (the freedesktop theme's alarm-clock-elapsed lasts about 2.5 s). */
#define ALARM_ARMING_MS_DEFAULT 10000
#define ALARM_GRACE_MS_DEFAULT  10000
#define ALARM_REPEAT_MS_DEFAULT 500

typedef struct Alarm {
        AlarmTimes times;
        AlarmState state;
        gint64 deadline_usec; /* the next alarm_tick(), monotonic; 0: none */
        /* The movements since the lock, counted from ARMED on: */
        guint moves;
        gint64 first_move_wall_usec, last_move_wall_usec; /* g_get_real_time() of the first and last */
        gboolean sounded;                                 /* the loud sound played */
} Alarm;

/* A disarmed alarm with these times (NULL: the defaults). */
void alarm_init(Alarm *alarm, const AlarmTimes *times);

/* The session locked / unlocked. A lock while armed in any way changes nothing; an unlock disarms from
 * every state and asks for the summary when something moved. */
AlarmEffects alarm_lock(Alarm *alarm, gint64 now_usec);
AlarmEffects alarm_unlock(Alarm *alarm, gint64 now_usec);

/* The service said the machine moved (Moved). Ignored while DISARMED or ARMING; counted otherwise; the
 * first one while ARMED warns and starts the grace. */
AlarmEffects alarm_moved(Alarm *alarm, gint64 now_usec, gint64 wall_usec);

/* Call when now_usec >= deadline_usec (an early call does nothing). */
AlarmEffects alarm_tick(Alarm *alarm, gint64 now_usec);

/* The claim was lost (the service restarted): CLAIM when the state wants one, else nothing. */
AlarmEffects alarm_reclaim(const Alarm *alarm);

/* Whether the state holds the movement claim / blocks the lid switch / sounds. */
gboolean alarm_wants_claim(AlarmState state);
gboolean alarm_blocks_lid(AlarmState state);

/* The state's name for logs and "tpaccelctl alarm": "disarmed", "arming", "armed", "warned", "sounding". */
const char *alarm_state_name(AlarmState state);

/* The words of the summary after an unlock, in the user's language: "Moved 3 times while locked, first at
 * 14:02:11, last at 14:05:40; the alarm sounded." NULL if nothing moved. */
char *alarm_summary(const Alarm *alarm);
