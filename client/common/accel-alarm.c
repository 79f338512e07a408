/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "accel-alarm.h"
#include "client-i18n.h"

#define USEC_PER_MSEC 1000

void alarm_init(Alarm *alarm, const AlarmTimes *times)
{
        static const AlarmTimes defaults = {
                .arming_ms = ALARM_ARMING_MS_DEFAULT,
                .grace_ms = ALARM_GRACE_MS_DEFAULT,
                .repeat_ms = ALARM_REPEAT_MS_DEFAULT,
        };

        *alarm = (Alarm) {.times = times ? *times : defaults, .state = ALARM_DISARMED};
}

gboolean alarm_wants_claim(AlarmState state)
{
        return state != ALARM_DISARMED;
}

gboolean alarm_blocks_lid(AlarmState state)
{
        return state == ALARM_WARNED || state == ALARM_SOUNDING;
}

/* Moves to state, with the effects of leaving the old one and entering the new one. */
static AlarmEffects enter(Alarm *alarm, AlarmState state, gint64 now_usec)
{
        AlarmState old = alarm->state;
        AlarmEffects effects = ALARM_EFFECT_STATE_CHANGED;

        alarm->state = state;
        if (alarm_wants_claim(state) && !alarm_wants_claim(old))
                effects |= ALARM_EFFECT_CLAIM;
        if (!alarm_wants_claim(state) && alarm_wants_claim(old))
                effects |= ALARM_EFFECT_RELEASE;
        if (alarm_blocks_lid(state) && !alarm_blocks_lid(old))
                effects |= ALARM_EFFECT_BLOCK_LID;
        if (!alarm_blocks_lid(state) && alarm_blocks_lid(old))
                effects |= ALARM_EFFECT_UNBLOCK_LID;
        if (old == ALARM_WARNED || old == ALARM_SOUNDING)
                effects |= ALARM_EFFECT_SILENCE;

        switch (state) {
        case ALARM_DISARMED:
        case ALARM_ARMED:
                alarm->deadline_usec = 0;
                break;
        case ALARM_ARMING:
                alarm->deadline_usec = now_usec + (gint64) alarm->times.arming_ms * USEC_PER_MSEC;
                break;
        case ALARM_WARNED:
                alarm->deadline_usec = now_usec + (gint64) alarm->times.grace_ms * USEC_PER_MSEC;
                effects |= ALARM_EFFECT_WARN;
                break;
        case ALARM_SOUNDING:
                alarm->deadline_usec = now_usec + (gint64) alarm->times.repeat_ms * USEC_PER_MSEC;
                alarm->sounded = TRUE;
                effects = (effects & ~ALARM_EFFECT_SILENCE) | ALARM_EFFECT_SOUND;
                break;
        }
        return effects;
}

AlarmEffects alarm_lock(Alarm *alarm, gint64 now_usec)
{
        if (alarm->state != ALARM_DISARMED)
                return ALARM_EFFECT_NONE;
        alarm->moves = 0;
        alarm->first_move_wall_usec = alarm->last_move_wall_usec = 0;
        alarm->sounded = FALSE;
        return enter(alarm, ALARM_ARMING, now_usec);
}

AlarmEffects alarm_unlock(Alarm *alarm, gint64 now_usec)
{
        AlarmEffects effects;

        if (alarm->state == ALARM_DISARMED)
                return ALARM_EFFECT_NONE;
        effects = enter(alarm, ALARM_DISARMED, now_usec);
        if (alarm->moves > 0)
                effects |= ALARM_EFFECT_SUMMARY;
        return effects;
}

AlarmEffects alarm_moved(Alarm *alarm, gint64 now_usec, gint64 wall_usec)
{
        if (alarm->state == ALARM_DISARMED || alarm->state == ALARM_ARMING)
                return ALARM_EFFECT_NONE;
        if (alarm->moves++ == 0)
                alarm->first_move_wall_usec = wall_usec;
        alarm->last_move_wall_usec = wall_usec;
        /* Later movements are counted, and change nothing else: the grace is not extended (a thief
         * moving it again gains nothing), the loud sound goes on. */
        if (alarm->state == ALARM_ARMED)
                return enter(alarm, ALARM_WARNED, now_usec);
        return ALARM_EFFECT_NONE;
}

AlarmEffects alarm_tick(Alarm *alarm, gint64 now_usec)
{
        if (alarm->deadline_usec == 0 || now_usec < alarm->deadline_usec)
                return ALARM_EFFECT_NONE;
        switch (alarm->state) {
        case ALARM_ARMING:
                return enter(alarm, ALARM_ARMED, now_usec);
        case ALARM_WARNED:
                return enter(alarm, ALARM_SOUNDING, now_usec);
        case ALARM_SOUNDING:
                alarm->deadline_usec = now_usec + (gint64) alarm->times.repeat_ms * USEC_PER_MSEC;
                return ALARM_EFFECT_SOUND;
        case ALARM_DISARMED:
        case ALARM_ARMED:
                break;
        }
        return ALARM_EFFECT_NONE;
}

AlarmEffects alarm_reclaim(const Alarm *alarm)
{
        return alarm_wants_claim(alarm->state) ? ALARM_EFFECT_CLAIM : ALARM_EFFECT_NONE;
}

const char *alarm_state_name(AlarmState state)
{
        static const char *const names[] = {
                [ALARM_DISARMED] = "disarmed", [ALARM_ARMING] = "arming",     [ALARM_ARMED] = "armed",
                [ALARM_WARNED] = "warned",     [ALARM_SOUNDING] = "sounding",
        };
        return state < G_N_ELEMENTS(names) ? names[state] : "?";
}

static char *clock_time(gint64 wall_usec)
{
        g_autoptr(GDateTime) t = g_date_time_new_from_unix_local(wall_usec / G_USEC_PER_SEC);
        return t ? g_date_time_format(t, "%H:%M:%S") : g_strdup("?");
}

char *alarm_summary(const Alarm *alarm)
{
        g_autofree char *first = NULL, *last = NULL, *moved = NULL;

        if (alarm->moves == 0)
                return NULL;
        first = clock_time(alarm->first_move_wall_usec);
        if (alarm->moves == 1)
                moved = g_strdup_printf(_("Moved once while locked, at %s"), first);
        else {
                last = clock_time(alarm->last_move_wall_usec);
                moved = g_strdup_printf(ngettext("Moved %u time while locked, first at %s, last at %s",
                                                 "Moved %u times while locked, first at %s, last at %s",
                                                 alarm->moves),
                                        alarm->moves, first, last);
        }
        return g_strdup_printf("%s%s", moved,
                               alarm->sounded ? _("; the alarm sounded.")
                                              : _("; unlocked within the grace."));
}
