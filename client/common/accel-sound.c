/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>

#include <canberra.h>

#include "accel-sound.h"

struct AlarmSound {
        ca_context *context;
};

/* canberra ids of the two sounds, for ca_context_playing() and ca_context_cancel(). */
static const guint32 sound_ids[] = {[ALARM_SOUND_WARNING] = 1, [ALARM_SOUND_ALARM] = 2};

const char *alarm_sound_event_id(AlarmSoundKind kind)
{
        return kind == ALARM_SOUND_WARNING ? "dialog-warning" : "alarm-clock-elapsed";
}

char *alarm_sound_volume_db(guint percent)
{
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];
        /* PulseAudio's percentages are cubic (pa_sw_volume_from_linear()): 80% there is -5.81 dB, and the
         * same 80% here. */
        double db = 60.0 * log10(CLAMP(percent, ALARM_VOLUME_MIN, ALARM_VOLUME_MAX) / 100.0);

        /* canberra parses it in the C locale, whatever the user's. */
        return g_strdup(g_ascii_formatd(buffer, sizeof(buffer), "%.2f", db));
}

int alarm_sound_new(AlarmSound **ret, char **error_text)
{
        g_autoptr(AlarmSound) sound = g_new0(AlarmSound, 1);
        int r = ca_context_create(&sound->context);

        if (r == CA_SUCCESS)
                r = ca_context_change_props(sound->context, CA_PROP_APPLICATION_NAME, "tpaccel",
                                            CA_PROP_APPLICATION_ID, "org.thinkpad.Accelerometer",
                                            CA_PROP_APPLICATION_ICON_NAME, "tpaccel", NULL);
        if (r != CA_SUCCESS) {
                *error_text = g_strdup(ca_strerror(r));
                return r == CA_ERROR_OOM ? -ENOMEM : -EIO;
        }
        *ret = g_steal_pointer(&sound);
        return 0;
}

void alarm_sound_free(AlarmSound *sound)
{
        if (!sound)
                return;
        if (sound->context)
                ca_context_destroy(sound->context);
        g_free(sound);
}

int alarm_sound_play(AlarmSound *sound, AlarmSoundKind kind, guint percent, char **error_text)
{
        g_autofree char *volume = alarm_sound_volume_db(percent);
        int playing = 0, r;

        if (kind == ALARM_SOUND_ALARM &&
            ca_context_playing(sound->context, sound_ids[kind], &playing) == CA_SUCCESS && playing)
                return 0;
        /* Streamed, not uploaded into the server's sample cache: a sound that never stays behind. */
        r = ca_context_play(sound->context, sound_ids[kind], CA_PROP_EVENT_ID, alarm_sound_event_id(kind),
                            CA_PROP_EVENT_DESCRIPTION,
                            kind == ALARM_SOUND_WARNING ? "Motion alarm: moved while locked"
                                                        : "Motion alarm: sounding",
                            CA_PROP_CANBERRA_VOLUME, volume, CA_PROP_CANBERRA_CACHE_CONTROL, "never", NULL);
        if (r != CA_SUCCESS) {
                *error_text = g_strdup(ca_strerror(r));
                return -EIO;
        }
        return 0;
}

void alarm_sound_stop(AlarmSound *sound)
{
        for (size_t i = 0; i < G_N_ELEMENTS(sound_ids); i++)
                (void) ca_context_cancel(sound->context, sound_ids[i]);
}
