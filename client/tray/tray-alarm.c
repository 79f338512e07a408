/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "accel-alarm-run.h"
#include "accel-sound.h"
#include "client-i18n.h"
#include "tray-alarm.h"

#define PREFS_GROUP       "Alarm"
#define PREFS_KEY_ENABLED "Enabled"
#define PREFS_KEY_VOLUME  "Volume"

struct TrayAlarm {
        TrayNotifier *notifier;
        GDBusConnection *bus;
        gboolean enabled;
        guint volume;
        char *prefs_path;
        AlarmRunner *runner; /* while enabled and the bus is set */
        char *problem;       /* the last fatal problem of this runner, "" if none */
        void (*changed)(gpointer userdata);
        gpointer changed_userdata;
};

static void notify_changed(TrayAlarm *a)
{
        if (a->changed)
                a->changed(a->changed_userdata);
}

/* --- The choice, kept between sessions ------------------------------------------------------- */

static void load_prefs(TrayAlarm *a)
{
        g_autoptr(GKeyFile) file = g_key_file_new();
        g_autoptr(GError) error = NULL;
        gboolean enabled;
        gint volume;

        if (!g_key_file_load_from_file(file, a->prefs_path, G_KEY_FILE_NONE, &error)) {
                if (!g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
                        g_warning(_("Cannot read %s, taking the defaults: %s"), a->prefs_path,
                                  error->message);
                return;
        }
        enabled = g_key_file_get_boolean(file, PREFS_GROUP, PREFS_KEY_ENABLED, &error);
        if (!error)
                a->enabled = enabled;
        g_clear_error(&error);
        volume = g_key_file_get_integer(file, PREFS_GROUP, PREFS_KEY_VOLUME, &error);
        if (!error && volume >= ALARM_VOLUME_MIN && volume <= ALARM_VOLUME_MAX)
                a->volume = (guint) volume;
        else if (g_key_file_has_key(file, PREFS_GROUP, PREFS_KEY_VOLUME, NULL))
                g_warning(_("%s: %s is not a volume from %d to %d, taking %d"), a->prefs_path,
                          PREFS_KEY_VOLUME, ALARM_VOLUME_MIN, ALARM_VOLUME_MAX, ALARM_VOLUME_DEFAULT);
}

static void save_prefs(TrayAlarm *a)
{
        g_autoptr(GKeyFile) file = g_key_file_new();
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_path_get_dirname(a->prefs_path);

        /* Other groups a newer tray wrote stay. */
        (void) g_key_file_load_from_file(file, a->prefs_path, G_KEY_FILE_KEEP_COMMENTS, NULL);
        g_key_file_set_boolean(file, PREFS_GROUP, PREFS_KEY_ENABLED, a->enabled);
        g_key_file_set_integer(file, PREFS_GROUP, PREFS_KEY_VOLUME, (gint) a->volume);
        if (g_mkdir_with_parents(dir, 0700) < 0 || !g_key_file_save_to_file(file, a->prefs_path, &error))
                g_warning(_("Cannot save the alarm setting in %s: %s"), a->prefs_path,
                          error ? error->message : g_strerror(errno));
}

/* --- The runner's news ------------------------------------------------------------------------- */

static void on_summary(const char *text, gpointer userdata)
{
        TrayAlarm *a = userdata;

        g_message("%s", text); /* the journal keeps it too */
        tray_notifier_alarm(a->notifier, _("Moved while locked"), text);
}

static void on_problem(const char *text, gboolean fatal, gpointer userdata)
{
        TrayAlarm *a = userdata;

        g_message("%s", text);
        tray_notifier_alarm(a->notifier, _("Motion alarm"), text);
        if (fatal) {
                g_free(a->problem);
                a->problem = g_strdup(text);
                notify_changed(a);
        }
}

static void on_state(AlarmState state, gpointer userdata)
{
        g_debug("Motion alarm %s", alarm_state_name(state));
}

static void update_runner(TrayAlarm *a)
{
        static const AlarmRunnerCallbacks callbacks = {
                .state_changed = on_state,
                .summary = on_summary,
                .problem = on_problem,
        };
        gboolean want = a->enabled && a->bus;
        g_autoptr(GDBusConnection) login_bus = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *why = NULL;
        AlarmRunnerOptions options = {.accel_bus = a->bus, .volume_percent = a->volume};

        if (want == (a->runner != NULL))
                return;
        g_free(a->problem);
        a->problem = g_strdup("");
        if (!want) {
                g_clear_pointer(&a->runner, alarm_runner_free);
                return;
        }
        if (alarm_times_from_env(&options.times, &why) < 0)
                g_warning("%s", why); /* tests only: the defaults are taken */
        login_bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &error);
        if (!login_bus)
                g_message("Cannot connect to the system bus: %s", error->message);
        options.login_bus = login_bus;
        a->runner = alarm_runner_new(&options, &callbacks, a);
}

/* --- The interface ------------------------------------------------------------------------------ */

TrayAlarm *tray_alarm_new(TrayNotifier *notifier)
{
        TrayAlarm *a = g_new0(TrayAlarm, 1);

        a->notifier = notifier;
        a->volume = ALARM_VOLUME_DEFAULT;
        a->problem = g_strdup("");
        a->prefs_path = g_build_filename(g_get_user_config_dir(), "tpaccel", "tray.conf", NULL);
        load_prefs(a);
        return a;
}

void tray_alarm_free(TrayAlarm *a)
{
        if (!a)
                return;
        g_clear_pointer(&a->runner, alarm_runner_free);
        g_clear_object(&a->bus);
        g_free(a->prefs_path);
        g_free(a->problem);
        g_free(a);
}

void tray_alarm_set_bus(TrayAlarm *a, GDBusConnection *bus)
{
        g_set_object(&a->bus, bus);
        update_runner(a);
        notify_changed(a);
}

void tray_alarm_set_enabled(TrayAlarm *a, gboolean enabled)
{
        if (a->enabled == enabled)
                return;
        a->enabled = enabled;
        g_debug("Motion alarm %s", enabled ? "on" : "off");
        save_prefs(a);
        update_runner(a);
        notify_changed(a);
}

gboolean tray_alarm_get_enabled(TrayAlarm *a)
{
        return a->enabled;
}

void tray_alarm_set_volume(TrayAlarm *a, guint percent)
{
        percent = CLAMP(percent, ALARM_VOLUME_MIN, ALARM_VOLUME_MAX);
        if (a->volume == percent)
                return;
        a->volume = percent;
        save_prefs(a);
        if (a->runner)
                alarm_runner_set_volume(a->runner, percent);
        notify_changed(a);
}

guint tray_alarm_get_volume(TrayAlarm *a)
{
        return a->volume;
}

const char *tray_alarm_get_problem(TrayAlarm *a)
{
        return a->problem;
}

void tray_alarm_on_changed(TrayAlarm *a, void (*changed)(gpointer userdata), gpointer userdata)
{
        a->changed = changed;
        a->changed_userdata = userdata;
}
