/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccel-tray: tray tilt indicator and shock alerts for tpacceld. Options and start-up; the
 * application itself is in tray-app.c. */
#include <stdio.h>

#include <glib-unix.h>
#include <gtk/gtk.h>

#include "client-i18n.h"
#include "config.h"
#include "tray-app.h"
#include "tray-backend.h"
#include "tray-icon.h"
#include "tray-x11.h"

static gboolean on_quit_signal(gpointer userdata)
{
        gtk_main_quit();
        return G_SOURCE_CONTINUE;
}

/* The directory holding hicolor/ with our icons when they are not installed: $TPACCEL_ICON_DIR, else
 * the source tree's data/icons. NULL when the installed theme has them. */
static char *find_icon_dir(void)
{
        const char *env = g_getenv("TPACCEL_ICON_DIR");
        GtkIconTheme *theme = gtk_icon_theme_get_default();

        if (env && env[0])
                return g_strdup(env);
        if (gtk_icon_theme_has_icon(theme, TRAY_ICON_SERVICE_MISSING))
                return NULL;
        if (g_file_test(TPACCEL_SOURCE_ICON_DIR, G_FILE_TEST_IS_DIR))
                return g_strdup(TPACCEL_SOURCE_ICON_DIR);
        return NULL;
}

/* A test-only time from the environment (tpaccel-tray(1)): $TPACCEL_TRAY_TEMPERATURE_POLL_MS, the
 * period of the temperature reads while the window is shown, instead of 5 s, so that a test waits out a
 * few periods in a second; $TPACCEL_TRAY_HOST_GRACE_MS, how long no tray host must last before it is
 * reported, instead of TRAY_HOST_GRACE_SEC; $TPACCEL_TRAY_SERVICE_NOTICE_MS, how long the notices that
 * the service stopped or is back stay, instead of TRAY_SERVICE_NOTIFY_TIMEOUT_MS. 0 when name is unset;
 * -1 (and an error on stderr, not translated: only tests set it) when it is no number of milliseconds
 * from 10 to 60000. */
static long test_ms_from_env(const char *name)
{
        const char *env = g_getenv(name);
        guint64 ms;

        if (!env)
                return 0;
        if (!g_ascii_string_to_unsigned(env, 10, 10, 60000, &ms, NULL)) {
                fprintf(stderr, "tpaccel-tray: %s=\"%s\": expected milliseconds from 10 to 60000\n", name,
                        env);
                return -1;
        }
        return (long) ms;
}

int main(int argc, char *argv[])
{
        gboolean system_bus = FALSE, session_bus = FALSE, show_window = FALSE, no_animation = FALSE,
                 watch_shocks = FALSE, version = FALSE;
        g_autofree char *address = NULL;
        const GOptionEntry entries[] = {
                {"system", 0, 0, G_OPTION_ARG_NONE, &system_bus,
                 N_("Follow tpacceld on the system bus (default)"), NULL},
                {"session", 0, 0, G_OPTION_ARG_NONE, &session_bus,
                 N_("Follow the demo tpacceld on the session bus"), NULL},
                {"address", 0, 0, G_OPTION_ARG_STRING, &address, N_("Follow tpacceld on the bus at ADDR"),
                 N_("ADDR")},
                {"show-window", 0, 0, G_OPTION_ARG_NONE, &show_window, N_("Open the window at start"), NULL},
                {"no-animation", 0, 0, G_OPTION_ARG_NONE, &no_animation,
                 N_("Do not animate the icon (claim the accelerometer only while the window is open)"),
                 NULL},
                {"watch-shocks", 0, 0, G_OPTION_ARG_NONE, &watch_shocks,
                 N_("Hold a full-rate claim so that tpacceld detects shocks even without disk protection "
                    "(costs power)"),
                 NULL},
                {"version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Show the version"), NULL},
                {},
        };
        g_autoptr(GError) error = NULL;
        g_autoptr(TrayApp) app = NULL;
        g_autofree char *icon_dir = NULL;
        TrayOptions options = {.target = BUS_TARGET_SYSTEM};

        client_i18n_init();
        tray_backend_choose();
        if (!gtk_init_with_args(&argc, &argv, _("- tray tilt indicator for the ThinkPad accelerometer"),
                                entries, GETTEXT_PACKAGE, &error)) {
                /* The command line is wrong, unless GTK could not open the display (FAILED). */
                if (error && !g_error_matches(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED)) {
                        fprintf(stderr,
                                _("tpaccel-tray: %s\nTry 'tpaccel-tray --help' for more information.\n"),
                                error->message);
                        return 2;
                }
                /* GTK says "Cannot open display: " with the (often empty) name: say what that means. */
                fprintf(stderr,
                        _("tpaccel-tray: cannot open the display%s%s: the tray icon needs a desktop session "
                          "(DISPLAY or WAYLAND_DISPLAY)\n"),
                        g_getenv("DISPLAY") ? " " : "", g_getenv("DISPLAY") ?: "");
                return 1;
        }
        tray_x11_tolerate_destroyed_windows();
        if (version) {
                printf("tpaccel-tray %s\n", PACKAGE_VERSION);
                return 0;
        }
        if (argc > 1) {
                fprintf(stderr, _("tpaccel-tray: unexpected argument \"%s\"\n"), argv[1]);
                return 2;
        }
        if (system_bus + session_bus + (address != NULL) > 1) {
                fprintf(stderr, _("tpaccel-tray: choose one of --system, --session, --address\n"));
                return 2;
        }
        if (address && !g_dbus_is_supported_address(address, NULL)) {
                fprintf(stderr, _("tpaccel-tray: --address: \"%s\" is not a D-Bus address\n"), address);
                return 2;
        }

        long temperature_poll_ms = test_ms_from_env("TPACCEL_TRAY_TEMPERATURE_POLL_MS");
        long host_grace_ms = test_ms_from_env("TPACCEL_TRAY_HOST_GRACE_MS");
        long service_notice_ms = test_ms_from_env("TPACCEL_TRAY_SERVICE_NOTICE_MS");
        if (temperature_poll_ms < 0 || host_grace_ms < 0 || service_notice_ms < 0)
                return 2;

        icon_dir = find_icon_dir();
        if (icon_dir)
                gtk_icon_theme_append_search_path(gtk_icon_theme_get_default(), icon_dir);
        /* Every window and dialog, also uninstalled (from icon_dir). */
        gtk_window_set_default_icon_name(TRAY_ICON_APP);

        options.target = session_bus ? BUS_TARGET_SESSION : address ? BUS_TARGET_ADDRESS : BUS_TARGET_SYSTEM;
        options.address = address;
        options.show_window = show_window;
        options.animate_icon = !no_animation;
        options.watch_shocks = watch_shocks;
        options.icon_dir = icon_dir;
        options.symbolic_icons = tray_icon_wants_symbolic(g_getenv("XDG_CURRENT_DESKTOP"));
        options.temperature_poll_ms = (guint) temperature_poll_ms;
        options.host_grace_ms = (guint) host_grace_ms;
        options.service_notice_ms = (guint) service_notice_ms;

        app = tray_app_new(&options, &error);
        if (!app) {
                fprintf(stderr, _("tpaccel-tray: cannot connect to the bus: %s\n"), error->message);
                return 1;
        }

        g_unix_signal_add(SIGINT, on_quit_signal, NULL);
        g_unix_signal_add(SIGTERM, on_quit_signal, NULL);
        gtk_main();
        return 0;
}
