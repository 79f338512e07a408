/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl alarm: the motion alarm in a terminal, for a session without the tray (accel-alarm-run.h):
 * armed while the logind session is locked, one line per change, the sounds through libcanberra or, where
 * they cannot play, the terminal bell. Runs until Ctrl-C, or until the alarm cannot work at all. */
#include <stdio.h>

#include <glib-unix.h>

#include "accel-alarm-run.h"
#include "accel-sound.h"
#include "ctl.h"

typedef struct AlarmCommand {
        GMainLoop *loop;
        ExitStatus status;
        AlarmTimes times;
} AlarmCommand;

static void print_line(const char *format, ...) G_GNUC_PRINTF(1, 2);

static void print_line(const char *format, ...)
{
        g_autoptr(GDateTime) now = g_date_time_new_now_local();
        g_autofree char *stamp = g_date_time_format(now, "%H:%M:%S");
        g_autofree char *text = NULL;
        va_list ap;

        va_start(ap, format);
        text = g_strdup_vprintf(format, ap);
        va_end(ap);
        (void) ctl_output_line(stdout, "%s  %s\n", stamp, text);
}

static void on_state(AlarmState state, gpointer userdata)
{
        AlarmCommand *a = userdata;

        switch (state) {
        case ALARM_DISARMED:
                print_line(_("unlocked: disarmed"));
                break;
        case ALARM_ARMING:
                print_line(_("locked: armed in %u s"), a->times.arming_ms / 1000);
                break;
        case ALARM_ARMED:
                print_line(_("armed: moving the machine now sounds the alarm"));
                break;
        case ALARM_WARNED:
                print_line(_("moved: the alarm sounds in %u s unless the session is unlocked"),
                           a->times.grace_ms / 1000);
                break;
        case ALARM_SOUNDING:
                print_line(_("sounding until the session is unlocked"));
                break;
        }
}

static void on_summary(const char *text, gpointer userdata)
{
        print_line("%s", text);
}

static void on_problem(const char *text, gboolean fatal, gpointer userdata)
{
        AlarmCommand *a = userdata;

        fprintf(stderr, "tpaccelctl: %s\n", text);
        if (fatal) {
                a->status = EXIT_STATUS_FAILURE;
                g_main_loop_quit(a->loop);
        }
}

/* No sound server: the terminal's bell, once for the warning, at every repeat for the alarm. */
static void on_sound_failed(gboolean loud, gpointer userdata)
{
        (void) ctl_output_line(stdout, "\a");
}

static gboolean on_interrupt(gpointer userdata)
{
        AlarmCommand *a = userdata;

        g_main_loop_quit(a->loop);
        return G_SOURCE_CONTINUE;
}

/* The words after "alarm": "session ID", "volume PERCENT", each at most once. */
static ExitStatus parse_args(char **args, int n_args, const char **session, guint *volume)
{
        for (int i = 0; i < n_args; i += 2) {
                guint64 percent;

                if (i + 1 >= n_args)
                        return ctl_usage_error(_("alarm: \"%s\" needs a value"), args[i]);
                if (g_str_equal(args[i], "session") && !*session) {
                        *session = args[i + 1];
                } else if (g_str_equal(args[i], "volume")) {
                        if (!g_ascii_string_to_unsigned(args[i + 1], 10, ALARM_VOLUME_MIN, ALARM_VOLUME_MAX,
                                                        &percent, NULL))
                                return ctl_usage_error(_("alarm: volume \"%s\" is not a percentage from %d "
                                                         "to %d"),
                                                       args[i + 1], ALARM_VOLUME_MIN, ALARM_VOLUME_MAX);
                        *volume = (guint) percent;
                } else
                        return ctl_usage_error(_("alarm: \"%s\" is not \"session\" or \"volume\""), args[i]);
        }
        return EXIT_STATUS_OK;
}

ExitStatus ctl_alarm(Ctl *ctl, char **args, int n_args)
{
        static const AlarmRunnerCallbacks callbacks = {
                .state_changed = on_state,
                .summary = on_summary,
                .problem = on_problem,
                .sound_failed = on_sound_failed,
        };
        AlarmCommand a = {.status = EXIT_STATUS_OK};
        AlarmRunnerOptions options = {.volume_percent = ALARM_VOLUME_DEFAULT};
        g_autoptr(GError) error = NULL;
        g_autoptr(GDBusConnection) login_bus = NULL;
        g_autoptr(AlarmRunner) runner = NULL;
        g_autofree char *why = NULL;
        ExitStatus status;
        guint sigint, sigterm;

        status = parse_args(args, n_args, &options.session_id, &options.volume_percent);
        if (status != EXIT_STATUS_OK)
                return status;
        if (alarm_times_from_env(&a.times, &why) < 0) {
                fprintf(stderr, "tpaccelctl: %s\n", why);
                return EXIT_STATUS_USAGE;
        }
        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;
        /* logind is on the system bus, wherever tpacceld is. */
        login_bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &error);
        if (!login_bus)
                fprintf(stderr, _("tpaccelctl: cannot connect to the system bus: %s\n"), error->message);

        options.accel_bus = ctl->bus;
        options.login_bus = login_bus;
        options.times = a.times;
        a.loop = g_main_loop_new(NULL, FALSE);
        print_line(_("motion alarm: arms when the session locks; Ctrl-C ends it"));
        runner = alarm_runner_new(&options, &callbacks, &a);
        sigint = g_unix_signal_add(SIGINT, on_interrupt, &a);
        sigterm = g_unix_signal_add(SIGTERM, on_interrupt, &a);
        if (a.status == EXIT_STATUS_OK)
                g_main_loop_run(a.loop);
        g_source_remove(sigint);
        g_source_remove(sigterm);
        g_clear_pointer(&runner, alarm_runner_free);
        /* The release goes out before the connection closes. */
        g_dbus_connection_flush_sync(ctl->bus, NULL, NULL);
        g_main_loop_unref(a.loop);
        return a.status;
}
