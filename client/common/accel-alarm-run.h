/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The motion alarm running: accel-alarm.h's state machine driven by the real parts, for tpaccel-tray and
 * "tpaccelctl alarm" alike. It follows the session's LockedHint at logind (the session of $XDG_SESSION_ID,
 * or of this process), holds tpacceld's movement claim (ClaimMovement) only while the state wants it,
 * takes it again when tpacceld comes back, listens to Moved, blocks logind's lid switch handling while
 * warned or sounding, and plays the sounds (accel-sound.h). Everything runs on the thread-default main
 * context; freeing it releases the claim and the inhibitor and stops the sound. */

#include <gio/gio.h>

#include "accel-alarm.h"

typedef struct AlarmRunnerCallbacks {
        /* The state changed (also DISARMED at the unlock). May be NULL. */
        void (*state_changed)(AlarmState state, gpointer userdata);
        /* After an unlock with movements: alarm_summary()'s words. */
        void (*summary)(const char *text, gpointer userdata);
        /* Something keeps the alarm from working, in the user's words, each different problem once:
         * fatal when it cannot arm or watch at all (no logind session, no LockedHint, tpacceld refusing
         * the movement claim), else a part missing (no sound, the lid switch not blocked). */
        void (*problem)(const char *text, gboolean fatal, gpointer userdata);
        /* A sound could not be played (loud: the alarm, else the warning); the CLI rings the bell. May be
         * NULL. */
        void (*sound_failed)(gboolean loud, gpointer userdata);
} AlarmRunnerCallbacks;

typedef struct AlarmRunnerOptions {
        GDBusConnection *accel_bus; /* where tpacceld is */
        GDBusConnection *login_bus; /* logind's, the system bus; NULL: the problem is told */
        const char *session_id;     /* NULL: $XDG_SESSION_ID, else the session of this process */
        guint volume_percent;       /* ALARM_VOLUME_MIN..ALARM_VOLUME_MAX */
        AlarmTimes times;           /* zero: the defaults */
} AlarmRunnerOptions;

typedef struct AlarmRunner AlarmRunner;

AlarmRunner *alarm_runner_new(const AlarmRunnerOptions *options, const AlarmRunnerCallbacks *callbacks,
                              gpointer userdata);
void alarm_runner_free(AlarmRunner *runner);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlarmRunner, alarm_runner_free)

void alarm_runner_set_volume(AlarmRunner *runner, guint percent);
AlarmState alarm_runner_get_state(AlarmRunner *runner);
/* The logind session followed, NULL until it is known. */
const char *alarm_runner_get_session(AlarmRunner *runner);

/* The times from $TPACCEL_ALARM_ARMING_MS and $TPACCEL_ALARM_GRACE_MS (tests shorten them; tpaccelctl(1),
 * tpaccel-tray(1)), the defaults for those unset: 0, or -EINVAL with *error_text naming the variable and
 * the value when one is no number of milliseconds from 100 to 600000. */
int alarm_times_from_env(AlarmTimes *times, char **error_text);
