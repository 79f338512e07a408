/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include <libayatana-appindicator/app-indicator.h>

#include "accel-client.h"
#include "accel-props.h"
#include "accel-words.h"
#include "client-i18n.h"
#include "tray-alarm.h"
#include "tray-app.h"
#include "tray-icon.h"
#include "tray-indicator.h"
#include "tray-menu.h"
#include "tray-notify.h"
#include "tray-refusal.h"
#include "tray-settings.h"
#include "tray-window.h"

#define INDICATOR_ID         "tpaccel-tray"
#define TEMPERATURE_POLL_SEC 5

struct TrayApp {
        TrayOptions options;
        char *bus_description;
        GDBusConnection *bus;
        AccelClient *client;      /* the generated proxy and its signals; NULL until it is made */
        gboolean service_present; /* the proxy has an owner and its properties */
        char *owner;              /* the unique name of the instance present, NULL if none */
        /* Of the instance last present, for when it has left (the proxy forgets its properties): */
        gboolean had_accelerometer;
        char *backend_reason;
        gboolean service_idle;    /* it left while it had no accelerometer: its idle exit, not a failure */
        gboolean told_gone;       /* "service stopped" was notified: say when it is back */
        gboolean start_in_flight; /* StartServiceByName sent */
        gboolean start_asked;     /* by the user: say if it fails */
        /* The claims held, in the order taken (the service's Release drops the most recent): a rate,
         * or 0 for a plain Claim (the full SamplingRate). At most the icon's and a full-rate one. */
        guint claims[2];
        guint n_claims;
        gboolean claim_in_flight;
        gboolean claim_failed;     /* do not retry until something changes */
        guint temperature_timer;   /* only while the window shows the temperature */
        GCancellable *cancellable; /* calls to the current service instance */
        AppIndicator *indicator;
        char *icon_name;
        TrayMenu *menu;
        TrayWindow *window;
        TraySettings *settings;
        TrayNotifier *notifier;
        gboolean no_tray_host; /* no tray host shows the icon (said once, in no_tray_host_body()) */
        gboolean told_no_host;
        TrayAlarm *alarm; /* the motion alarm: the user's choice, running while on */
};

static void update_claim(TrayApp *app);

/* The proxy while the service is present, else NULL: its properties are the service's. */
static TpaccelAccelerometer *service(TrayApp *app)
{
        return app->service_present ? accel_client_get_proxy(app->client) : NULL;
}

static gboolean has_accelerometer(TrayApp *app)
{
        TpaccelAccelerometer *s = service(app);
        return s && tpaccel_accelerometer_get_has_accelerometer(s);
}

static double pitch(TrayApp *app)
{
        TpaccelAccelerometer *s = service(app);
        return s ? tpaccel_accelerometer_get_pitch(s) : 0.0;
}

static double roll(TrayApp *app)
{
        TpaccelAccelerometer *s = service(app);
        return s ? tpaccel_accelerometer_get_roll(s) : 0.0;
}

/* The orientation in the user's words (the code itself from a newer service). */
static const char *orientation(TrayApp *app)
{
        TpaccelAccelerometer *s = service(app);
        const char *value = s ? tpaccel_accelerometer_get_orientation(s) : NULL;
        return value ? accel_code_words("Orientation", value) ?: value : "";
}

static gboolean usable(TrayApp *app)
{
        return has_accelerometer(app);
}

static gboolean no_accelerometer(TrayApp *app)
{
        return app->service_idle || (app->service_present && !has_accelerometer(app));
}

static void refresh_icon(TrayApp *app)
{
        TrayIconState state = {
                .service_present = app->service_present || app->service_idle,
                .has_accelerometer = has_accelerometer(app),
                .shock_active = usable(app) && tpaccel_accelerometer_get_shock_active(service(app)),
                .pitch = pitch(app),
                .roll = roll(app),
        };
        g_autofree char *name = NULL;

        /* Without animation, the icon stays level but still shows shock and the missing states. */
        if (!app->options.animate_icon && usable(app) && !state.shock_active)
                state.pitch = state.roll = 0;
        name = tray_icon_name(&state);
        if (app->options.symbolic_icons) {
                char *symbolic = g_strconcat(name, "-symbolic", NULL);
                g_free(name);
                name = symbolic;
        }
        if (g_strcmp0(name, app->icon_name) == 0)
                return;
        g_free(app->icon_name);
        app->icon_name = g_steal_pointer(&name);
        app_indicator_set_icon_full(app->indicator, app->icon_name, _("Accelerometer tilt"));
        g_debug("Icon: %s", app->icon_name);
}

/* What is wrong, in a few words ("" when all is well), and why (may be long, may be ""). */
static const char *status_headline(TrayApp *app)
{
        if (no_accelerometer(app))
                return _("No accelerometer");
        if (!app->service_present)
                return _("The accelerometer service is not running");
        if (app->service_present && tpaccel_accelerometer_get_suspended(service(app)))
                return _("The machine is suspended");
        return "";
}

/* The service's reason usually starts with "no accelerometer: " itself: the headline says that. */
static char *without_headline(const char *reason)
{
        static const char prefix[] = "no accelerometer";

        if (g_ascii_strncasecmp(reason, prefix, strlen(prefix)) != 0)
                return g_strdup(reason);
        reason += strlen(prefix);
        while (*reason == ':' || *reason == ' ')
                reason++;
        return g_strdup(reason);
}

static char *status_detail(TrayApp *app)
{
        if (app->service_idle || no_accelerometer(app)) {
                /* In the user's language when there is a translation (the service's reason is English). */
                TpaccelAccelerometer *proxy = service(app);
                const char *words =
                        proxy && accel_words_translated()
                                ? accel_code_words("BackendReasonCode",
                                                   tpaccel_accelerometer_get_backend_reason_code(proxy))
                                : NULL;
                if (words)
                        return g_strdup(words);
                return without_headline(app->backend_reason ? app->backend_reason : "");
        }
        /* Not running: the headline says it all (once). */
        return g_strdup("");
}

/* What is missing when no tray host shows the icon, what to do, and what the tray does instead. */
static const char *no_tray_host_summary(void)
{
        return _("No tray shows the accelerometer icon");
}

static const char *no_tray_host_body(void)
{
        return _("This desktop has no tray for status icons. On GNOME, install and enable the AppIndicator "
                 "extension (gnome-shell-extension-appindicator); on sway, run a bar with a tray, such as "
                 "waybar. Until then this window shows the accelerometer, and shocks still come as "
                 "notifications.");
}

static void refresh_ui(TrayApp *app)
{
        const char *headline = status_headline(app);
        g_autofree char *detail = status_detail(app);
        /* The window's line: "No accelerometer: why", or just what is wrong; then the missing tray. */
        g_autofree char *service_status = no_accelerometer(app) && detail[0]
                                                  ? g_strdup_printf("%s: %s", headline, detail)
                                                  : g_strdup(headline);
        g_autofree char *status = app->no_tray_host ? g_strjoin(service_status[0] ? "\n" : "",
                                                                service_status, no_tray_host_body(), NULL)
                                                    : g_strdup(service_status);

        refresh_icon(app);
        tray_menu_set_service_usable(app->menu, usable(app));
        tray_settings_set_unavailable(app->settings, usable(app) ? NULL : headline);
        tray_window_set_status(app->window, status);

        if (!usable(app)) {
                tray_menu_set_readouts(app->menu, headline, detail, "");
                tray_window_clear(app->window);
                return;
        }

        TpaccelAccelerometer *accel = service(app);
        g_autoptr(GVariant) temperature_value =
                g_dbus_proxy_get_cached_property(G_DBUS_PROXY(accel), "Temperature");
        int temperature_c = tpaccel_accelerometer_get_temperature(accel);
        g_autofree char *tilt =
                g_strdup_printf(_("Pitch %+.0f°, roll %+.0f°"), accel_display_round(pitch(app), 0),
                                accel_display_round(roll(app), 0));
        g_autofree char *orientation_text = g_strdup_printf(_("Orientation: %s"), orientation(app));
        g_autofree char *temperature =
                temperature_value ? g_strdup_printf(_("Temperature: %d °C"), temperature_c) : g_strdup("");
        tray_menu_set_readouts(app->menu, tilt, orientation_text, temperature);
        tray_window_set_readouts(app->window, orientation(app), temperature_value ? &temperature_c : NULL,
                                 pitch(app), roll(app), tpaccel_accelerometer_get_sampling_rate(accel));

        GVariant *rest = tpaccel_accelerometer_get_rest_position(accel);
        if (rest) {
                gint32 x, y;
                g_variant_get(rest, "(ii)", &x, &y);
                tray_window_set_rest(app->window, x, y);
        }

        TraySettingsValues values = {
                .sampling_rate = tpaccel_accelerometer_get_sampling_rate(accel),
                .filter_order = tpaccel_accelerometer_get_filter_order(accel),
                .shock_sensitivity = tpaccel_accelerometer_get_shock_sensitivity(accel),
                .invert = tpaccel_accelerometer_get_invert(accel),
        };
        tray_settings_set_values(app->settings, &values);
}

/* --- Claim/Release -------------------------------------------------------------------------- */

/* The claims wanted, in order: the icon's low rate while it is animated, then the full rate while the
 * window (bubble level, plot) is open or shocks are watched. */
static guint wanted_claims(TrayApp *app, guint wanted[2])
{
        guint n = 0;

        if (!usable(app))
                return 0;
        if (app->options.animate_icon)
                wanted[n++] = TRAY_ICON_RATE_HZ;
        if (app->options.watch_shocks || tray_window_is_seen(app->window))
                wanted[n++] = 0;
        return n;
}

static void on_claim_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, &error);
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return; /* the service went away or we are quitting: app may be gone */
        app = userdata;
        app->claim_in_flight = FALSE;
        if (reply)
                app->n_claims++; /* claims[n_claims] was set when the call was made */
        else {
                g_autofree char *words = accel_error_describe(error, app->bus_description);
                g_message(_("Cannot claim the accelerometer: %s"), words);
                app->claim_failed = TRUE;
        }
        update_claim(app);
}

static void on_release_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        gboolean released =
                tpaccel_accelerometer_call_release_finish(TPACCEL_ACCELEROMETER(source), result, &error);
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        app = userdata;
        app->claim_in_flight = FALSE;
        if (app->n_claims > 0)
                app->n_claims--;
        if (!released)
                g_debug("Release failed, ignoring: %s", error->message);
        update_claim(app);
}

/* Brings the claims held to the ones wanted, one call at a time: releases (most recent first) down to
 * the part both share, then claims the rest. */
static void update_claim(TrayApp *app)
{
        guint wanted[2], n_wanted = wanted_claims(app, wanted), same = 0;

        if (app->claim_in_flight)
                return;
        while (same < app->n_claims && same < n_wanted && app->claims[same] == wanted[same])
                same++;

        if (app->n_claims > same) {
                app->claim_in_flight = TRUE;
                g_debug("Releasing a claim (%u held)", app->n_claims);
                tpaccel_accelerometer_call_release(service(app), app->cancellable, on_release_done, app);
                return;
        }
        if (app->n_claims >= n_wanted || app->claim_failed)
                return;

        guint rate = wanted[app->n_claims];
        app->claims[app->n_claims] = rate;
        app->claim_in_flight = TRUE;
        if (rate)
                g_debug("Claiming the accelerometer at %u Hz", rate);
        else
                g_debug("Claiming the accelerometer at the full rate");
        /* Claim and ClaimAtRate share one reply handler: both return nothing. */
        g_dbus_proxy_call(G_DBUS_PROXY(service(app)), rate ? "ClaimAtRate" : "Claim",
                          rate ? g_variant_new("(u)", rate) : NULL, G_DBUS_CALL_FLAGS_NONE, -1,
                          app->cancellable, on_claim_done, app);
}

/* --- Properties and signals ----------------------------------------------------------------- */

static void on_temperature_fetched(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, &error);
        g_autoptr(GVariant) value = NULL;
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        app = userdata;
        if (!reply) {
                g_debug("Cannot read the temperature, ignoring: %s", error->message);
                return;
        }
        g_variant_get(reply, "(v)", &value);
        /* Into the proxy's cache, which has it from GetAll only: it is not signalled. */
        g_dbus_proxy_set_cached_property(G_DBUS_PROXY(source), "Temperature", value);
        refresh_ui(app);
}

/* Reads Temperature once (it is not signalled). Nothing is read without an accelerometer: there is
 * no reading, and every call would keep the service from its idle exit. */
static void fetch_temperature(TrayApp *app)
{
        if (!usable(app))
                return;
        g_debug("Reading the temperature");
        g_dbus_proxy_call(G_DBUS_PROXY(service(app)), "org.freedesktop.DBus.Properties.Get",
                          g_variant_new("(ss)", ACCEL_INTERFACE, "Temperature"), G_DBUS_CALL_FLAGS_NONE, -1,
                          app->cancellable, on_temperature_fetched, app);
}

static gboolean on_temperature_timer(gpointer userdata)
{
        fetch_temperature(userdata);
        return G_SOURCE_CONTINUE;
}

/* The temperature is read every TEMPERATURE_POLL_SEC (or options.temperature_poll_ms) while the window
 * that shows it is open, and then only. */
static void update_temperature_polling(TrayApp *app)
{
        gboolean want = usable(app) && tray_window_is_seen(app->window);

        if (want == (app->temperature_timer != 0))
                return;
        if (!want) {
                g_clear_handle_id(&app->temperature_timer, g_source_remove);
                return;
        }
        fetch_temperature(app);
        if (app->options.temperature_poll_ms)
                app->temperature_timer =
                        g_timeout_add(app->options.temperature_poll_ms, on_temperature_timer, app);
        else
                app->temperature_timer =
                        g_timeout_add_seconds(TEMPERATURE_POLL_SEC, on_temperature_timer, app);
}

/* What the instance said about itself, kept for when it has left (the proxy forgets). */
static void remember_instance(TrayApp *app)
{
        const char *reason = tpaccel_accelerometer_get_backend_reason(service(app));

        app->had_accelerometer = has_accelerometer(app);
        g_free(app->backend_reason);
        app->backend_reason = g_strdup(reason ? reason : "");
}

/* The signals shown: Shock and HeadsParked always (notifications), Sample only while the window draws them,
 * so that neither the bus daemon nor the tray wakes up for them otherwise (the client subscribes to Sample
 * at the service, SubscribeSamples, while the signal is asked for: accel-client.h). Pitch, Roll and
 * Orientation come as properties (Tilt's PropertiesChanged): the tray needs no Tilt. */
static void update_signals(TrayApp *app)
{
        AccelSignals signals = ACCEL_SIGNAL_SHOCK | ACCEL_SIGNAL_HEADS_PARKED;

        if (!app->client)
                return;
        if (tray_window_is_seen(app->window))
                signals |= ACCEL_SIGNAL_SAMPLE;
        accel_client_set_signals(app->client, signals);
}

static void on_properties_changed(GDBusProxy *proxy, GVariant *changed, const char *const *invalidated,
                                  gpointer userdata)
{
        TrayApp *app = userdata;
        g_autofree char *owner = g_dbus_proxy_get_name_owner(proxy);
        gboolean ignored;

        /* No owner: the proxy forgets a departed instance; not present: one still loading. Both are
         * on_name_owner()'s to handle. */
        if (!owner || !app->service_present)
                return;
        if (g_variant_lookup(changed, "HasAccelerometer", "b", &ignored))
                app->claim_failed = FALSE;
        remember_instance(app);
        refresh_ui(app);
        update_claim(app);
        update_temperature_polling(app);
}

static void on_sample(TpaccelAccelerometer *proxy, guint64 time_usec, gint x, gint y, gpointer userdata)
{
        TrayApp *app = userdata;
        tray_window_add_sample(app->window, time_usec, x, y);
}

static void on_shock(TpaccelAccelerometer *proxy, double magnitude, guint64 time_usec, const char *reason,
                     gpointer userdata)
{
        TrayApp *app = userdata;
        tray_notifier_shock(app->notifier, magnitude, reason);
}

static void on_heads_parked(TpaccelAccelerometer *proxy, const char *const *disks, gboolean parked,
                            gpointer userdata)
{
        TrayApp *app = userdata;

        if (parked)
                tray_notifier_heads_parked(app->notifier, disks);
}

/* --- Service presence ----------------------------------------------------------------------- */

static void service_appeared(TrayApp *app)
{
        g_debug("tpacceld appeared as %s", app->owner);
        app->service_present = TRUE;
        /* "Alerts are on again" only when they are: an instance without an accelerometer (the icon and
         * the menu say why) keeps them off, and the bubble waits for one that has it. */
        if (app->told_gone && tpaccel_accelerometer_get_has_accelerometer(service(app))) {
                tray_notifier_service(app->notifier, TRUE);
                app->told_gone = FALSE;
        }
        app->service_idle = FALSE;
        app->claim_failed = FALSE;
        remember_instance(app);
        refresh_ui(app);
        update_claim(app);
        update_temperature_polling(app);
}

static void service_vanished(TrayApp *app)
{
        gboolean was_present = app->service_present;
        /* Without an accelerometer the service exits when idle (and is started again on demand): that
         * is no news. It leaving while it had one is. */
        gboolean idle_exit = was_present && !app->had_accelerometer;

        g_debug("tpacceld is not on the bus%s", idle_exit ? " (idle exit without an accelerometer)" : "");
        if (idle_exit)
                app->service_idle = TRUE; /* backend_reason says why it had none */
        /* Forget everything about the old instance: its claims died with it. */
        g_cancellable_cancel(app->cancellable);
        g_object_unref(app->cancellable);
        app->cancellable = g_cancellable_new();
        app->service_present = FALSE;
        app->n_claims = 0;
        app->claim_in_flight = FALSE;
        if (was_present && !idle_exit) {
                tray_notifier_service(app->notifier, FALSE);
                app->told_gone = TRUE;
        }
        refresh_ui(app);
        update_temperature_polling(app);
}

/* The proxy notifies its new owner once it has the new instance's properties (or none: it left). */
static void on_name_owner(GObject *proxy, GParamSpec *pspec, gpointer userdata)
{
        TrayApp *app = userdata;
        gboolean present = accel_client_is_present(app->client);
        g_autofree char *owner = present ? g_dbus_proxy_get_name_owner(G_DBUS_PROXY(proxy)) : NULL;

        if (g_strcmp0(owner, app->owner) == 0)
                return;
        if (app->service_present)
                service_vanished(app); /* a new owner without a vanish between: a restart all the same */
        g_free(app->owner);
        app->owner = g_steal_pointer(&owner);
        if (app->owner)
                service_appeared(app);
}

static void on_client_ready(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        AccelClient *client = accel_client_new_finish(result, &error);
        TrayApp *app;
        TpaccelAccelerometer *proxy;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return; /* quitting: app is gone */
        app = userdata;
        if (!client) {
                g_warning(_("Cannot follow tpacceld on the %s: %s"), app->bus_description, error->message);
                return;
        }
        app->client = client;
        proxy = accel_client_get_proxy(client);
        g_signal_connect(proxy, "g-properties-changed", G_CALLBACK(on_properties_changed), app);
        g_signal_connect(proxy, "notify::g-name-owner", G_CALLBACK(on_name_owner), app);
        g_signal_connect(proxy, "sample", G_CALLBACK(on_sample), app);
        g_signal_connect(proxy, "shock", G_CALLBACK(on_shock), app);
        g_signal_connect(proxy, "heads-parked", G_CALLBACK(on_heads_parked), app);
        update_signals(app);
        on_name_owner(G_OBJECT(proxy), NULL, app);
}

static void on_start_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        app = userdata;
        app->start_in_flight = FALSE;
        if (!reply && app->start_asked)
                g_message(_("Cannot start tpacceld on the %s: %s"), app->bus_description, error->message);
        else if (!reply)
                g_debug("Cannot start tpacceld: %s", error->message);
}

/* Starts the service through D-Bus activation if it is not running: at login (nothing else may have
 * started it yet) and when the user wants to see something (it exits when idle without an
 * accelerometer). The proxy notices it appear. */
static void start_service(TrayApp *app, gboolean user_asked)
{
        if (app->service_present || app->start_in_flight)
                return;
        app->start_asked = user_asked;
        g_debug("Starting tpacceld through D-Bus activation");
        app->start_in_flight = TRUE;
        g_dbus_connection_call(
                app->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "StartServiceByName", g_variant_new("(su)", ACCEL_BUS_NAME, 0), G_VARIANT_TYPE("(u)"),
                G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS, app->cancellable, on_start_done, app);
}

/* --- Actions ---------------------------------------------------------------------------------- */

/* On the window when it is shown; of a fixed size (tiling compositors float it). */
static void show_error_dialog(TrayApp *app, const char *title, const char *text)
{
        GtkWidget *dialog = gtk_message_dialog_new(tray_window_dialog_parent(app->window), 0,
                                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", title);

        gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", text);
        gtk_window_set_resizable(GTK_WINDOW(dialog), FALSE);
        g_signal_connect(dialog, "response", G_CALLBACK(gtk_widget_destroy), NULL);
        gtk_widget_show(dialog);
}

static void on_calibrate_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, &error);

        TrayApp *app = userdata;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        if (!reply) {
                g_autofree char *words = tray_refusal_describe(error);
                if (!words)
                        words = accel_error_describe(error, app->bus_description);
                show_error_dialog(app, _("Calibration failed"), words);
                return;
        }
        tray_notifier_calibrated(app->notifier);
}

static void action_calibrate(gpointer userdata)
{
        TrayApp *app = userdata;

        if (!usable(app))
                return; /* the item is insensitive then; a click may race the service leaving */
        /* polkit may ask for a password: interactive, and the long timeout. */
        g_dbus_proxy_call(G_DBUS_PROXY(service(app)), "Calibrate", NULL,
                          G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, ACCEL_CALL_TIMEOUT_MS,
                          app->cancellable, on_calibrate_done, app);
}

static void action_animate(gboolean active, gpointer userdata)
{
        TrayApp *app = userdata;

        app->options.animate_icon = active;
        refresh_icon(app);
        update_claim(app);
}

static void action_watch_shocks(gboolean active, gpointer userdata)
{
        TrayApp *app = userdata;

        app->options.watch_shocks = active;
        update_claim(app);
}

static void action_alarm(gboolean active, gpointer userdata)
{
        TrayApp *app = userdata;
        tray_alarm_set_enabled(app->alarm, active);
}

static void action_alarm_volume(guint percent, gpointer userdata)
{
        TrayApp *app = userdata;
        tray_alarm_set_volume(app->alarm, percent);
}

/* The alarm's choice or problem changed (from the menu, Settings, or the alarm itself): both show it. */
static void on_alarm_changed(gpointer userdata)
{
        TrayApp *app = userdata;

        tray_menu_set_alarm(app->menu, tray_alarm_get_enabled(app->alarm));
        tray_settings_set_alarm(app->settings, tray_alarm_get_enabled(app->alarm),
                                tray_alarm_get_volume(app->alarm), tray_alarm_get_problem(app->alarm));
}

static void action_settings(gpointer userdata)
{
        TrayApp *app = userdata;
        start_service(app, TRUE);
        tray_settings_present(app->settings, tray_window_dialog_parent(app->window));
}

static void action_show_window(gpointer userdata)
{
        TrayApp *app = userdata;
        start_service(app, TRUE);
        tray_window_present(app->window);
}

static void action_menu_opened(gpointer userdata)
{
        TrayApp *app = userdata;

        g_debug("Menu opened");
        start_service(app, TRUE);
        fetch_temperature(app);
}

static void action_quit(gpointer userdata)
{
        gtk_main_quit();
}

/* No tray host: said once (log, notification; the window's line while it lasts) and the window opens
 * instead of the icon; a host that comes later shows the icon, and the window stays as the user left
 * it. */
static void on_tray_host(gboolean shown, gpointer userdata)
{
        TrayApp *app = userdata;

        app->no_tray_host = !shown;
        if (!shown) {
                if (!app->told_no_host) {
                        app->told_no_host = TRUE;
                        g_message("%s. %s", no_tray_host_summary(), no_tray_host_body());
                        tray_notifier_no_tray_host(app->notifier, no_tray_host_summary(),
                                                   no_tray_host_body());
                } else
                        g_debug("The tray host left");
                /* At each loss (a panel that crashed and stays away), said or not. */
                start_service(app, FALSE);
                tray_window_present(app->window);
        } else if (app->told_no_host)
                g_message(_("A tray shows the accelerometer icon now."));
        else
                g_debug("A tray host shows the icon");
        refresh_ui(app);
}

static void on_window_visibility(gpointer userdata)
{
        TrayApp *app = userdata;
        update_signals(app);
        update_claim(app);
        update_temperature_polling(app);
}

/* --- Life cycle ------------------------------------------------------------------------------- */

TrayApp *tray_app_new(const TrayOptions *options, GError **error)
{
        static const TrayMenuActions actions = {
                .animate_toggled = action_animate,
                .watch_shocks_toggled = action_watch_shocks,
                .alarm_toggled = action_alarm,
                .calibrate = action_calibrate,
                .settings = action_settings,
                .show_window = action_show_window,
                .quit = action_quit,
        };
        static const TraySettingsAlarmActions alarm_actions = {
                .enabled_changed = action_alarm,
                .volume_changed = action_alarm_volume,
        };
        g_autoptr(TrayApp) app = g_new0(TrayApp, 1);

        app->options = *options;
        app->options.address = g_strdup(options->address);
        app->options.icon_dir = g_strdup(options->icon_dir);
        app->bus_description = accel_bus_describe(options->target, options->address);
        app->cancellable = g_cancellable_new();
        app->notifier = tray_notifier_new(options->icon_dir, options->service_notice_ms);
        app->window = tray_window_new(G_CALLBACK(on_window_visibility), app);
        app->settings = tray_settings_new();
        app->alarm = tray_alarm_new(app->notifier);
        app->menu = tray_menu_new(&actions, app, options->animate_icon, options->watch_shocks,
                                  tray_alarm_get_enabled(app->alarm), options->symbolic_icons);
        tray_settings_set_alarm_actions(app->settings, &alarm_actions, app);
        tray_alarm_on_changed(app->alarm, on_alarm_changed, app);
        on_alarm_changed(app);

        app->icon_name =
                g_strconcat(TRAY_ICON_SERVICE_MISSING, options->symbolic_icons ? "-symbolic" : "", NULL);
        app->indicator = tray_indicator_new(INDICATOR_ID, app->icon_name, _("ThinkPad Accelerometer"));
        if (options->icon_dir)
                app_indicator_set_icon_theme_path(app->indicator, options->icon_dir);
        app_indicator_set_menu(app->indicator, tray_menu_get_menu(app->menu));
        tray_indicator_on_menu_opened(app->indicator, action_menu_opened, app);
        app_indicator_set_status(app->indicator, APP_INDICATOR_STATUS_ACTIVE);
        tray_indicator_on_host_changed(app->indicator, options->host_grace_ms, on_tray_host, app);

        app->bus = accel_bus_connect(options->target, options->address, error);
        if (!app->bus)
                return NULL;
        tray_settings_set_bus(app->settings, app->bus);
        tray_alarm_set_bus(app->alarm, app->bus);

        /* The proxy follows the service from now on (its properties, its coming and going); the
         * service is bus-activated, and at login nothing else may have started it yet. */
        accel_client_new(app->bus, 0, app->cancellable, on_client_ready, app);
        start_service(app, FALSE);

        refresh_ui(app);
        if (options->show_window)
                tray_window_present(app->window);
        return g_steal_pointer(&app);
}

void tray_app_free(TrayApp *app)
{
        if (!app)
                return;
        if (app->cancellable)
                g_cancellable_cancel(app->cancellable);
        if (app->temperature_timer)
                g_source_remove(app->temperature_timer);
        if (app->client) {
                g_signal_handlers_disconnect_by_data(accel_client_get_proxy(app->client), app);
                g_clear_pointer(&app->client, accel_client_free);
        }
        if (app->indicator)
                tray_indicator_on_host_changed(app->indicator, 0, NULL, NULL);
        g_clear_pointer(&app->alarm, tray_alarm_free);
        g_clear_object(&app->indicator);
        g_clear_pointer(&app->menu, tray_menu_free);
        g_clear_pointer(&app->settings, tray_settings_free);
        g_clear_pointer(&app->window, tray_window_free);
        g_clear_pointer(&app->notifier, tray_notifier_free);
        g_clear_object(&app->cancellable);
        g_clear_object(&app->bus);
        g_free(app->icon_name);
        g_free(app->owner);
        g_free(app->backend_reason);
        g_free(app->bus_description);
        g_free(app->options.address);
        g_free(app->options.icon_dir);
        g_free(app);
}
