/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The motion alarm's sounds, from the freedesktop sound theme through libcanberra and the desktop's sound
 * server (PulseAudio, or PipeWire's PulseAudio server): the warning ("dialog-warning") once, the alarm
 * ("alarm-clock-elapsed") again whenever it has ended. The volume is the user's, in percent of the sound
 * server's own volume (canberra.volume in dB); nothing touches the mixer. */

#include <glib.h>

/* The default volume: loud, yet below the sink's full volume (a user who wants more says so). */
#define ALARM_VOLUME_DEFAULT 80
#define ALARM_VOLUME_MIN     1
#define ALARM_VOLUME_MAX     100

typedef enum AlarmSoundKind {
        ALARM_SOUND_WARNING,
        ALARM_SOUND_ALARM,
} AlarmSoundKind;

/* The event ids played for each kind (the freedesktop sound naming specification's names). */
const char *alarm_sound_event_id(AlarmSoundKind kind);

/* The canberra.volume value for a percentage (1..100) as PulseAudio's mixers show percentages: "0.00" at
 * 100, "-5.81" at 80, in dB. */
char *alarm_sound_volume_db(guint percent);

typedef struct AlarmSound AlarmSound;

/* A libcanberra context for the application: 0, or a negative errno (-ENOMEM, -EIO) with *error_text
 * (canberra's words) set. */
int alarm_sound_new(AlarmSound **ret, char **error_text);
void alarm_sound_free(AlarmSound *sound);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlarmSound, alarm_sound_free)

/* Plays kind at percent volume; the alarm only when it is not playing still. 0, or -EIO with *error_text
 * set (no sound server, the theme missing, ...). */
int alarm_sound_play(AlarmSound *sound, AlarmSoundKind kind, guint percent, char **error_text);

/* Stops every sound it plays. */
void alarm_sound_stop(AlarmSound *sound);
