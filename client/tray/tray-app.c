/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include <libayatana-appindicator/app-indicator.h>

#include "client-i18n.h"
#include "tray-app.h"
#include "tray-icon.h"
#include "tray-indicator.h"
#include "tray-menu.h"
#include "tray-notify.h"
#include "tray-settings.h"
#include "tray-window.h"

#define INDICATOR_ID         "tpaccel-tray"
#define TEMPERATURE_POLL_SEC 5

struct TrayApp {
        TrayOptions options;
        char *bus_description;
        GDBusConnection *bus;
        guint name_watch;
        guint tilt_subscription, shock_subscription, properties_subscription;
        guint sample_subscription; /* only while the window is open: it draws them */
        gboolean service_present;
        gboolean service_was_present;
        gboolean service_idle;    /* it left while it had no accelerometer: its idle exit, not a failure */
        char *idle_reason;        /* the BackendReason it had then */
        gboolean told_gone;       /* "service stopped" was notified: say when it is back */
        gboolean start_in_flight; /* StartServiceByName sent */
        GHashTable *props;        /* D-Bus property name -> GVariant, empty while the service is missing */
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
};

static void update_claim(TrayApp *app);

static gboolean prop_bool(TrayApp *app, const char *name)
{
        GVariant *v = g_hash_table_lookup(app->props, name);
        return v && g_variant_is_of_type(v, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean(v);
}

static double prop_double(TrayApp *app, const char *name)
{
        GVariant *v = g_hash_table_lookup(app->props, name);
        return v && g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE) ? g_variant_get_double(v) : 0.0;
}

static guint32 prop_uint(TrayApp *app, const char *name)
{
        GVariant *v = g_hash_table_lookup(app->props, name);
        return v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32) ? g_variant_get_uint32(v) : 0;
}

static gint32 prop_int(TrayApp *app, const char *name)
{
        GVariant *v = g_hash_table_lookup(app->props, name);
        return v && g_variant_is_of_type(v, G_VARIANT_TYPE_INT32) ? g_variant_get_int32(v) : 0;
}

static const char *prop_string(TrayApp *app, const char *name)
{
        GVariant *v = g_hash_table_lookup(app->props, name);
        return v && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING) ? g_variant_get_string(v, NULL) : "";
}

static void prop_store(TrayApp *app, const char *name, GVariant *value)
{
        g_hash_table_insert(app->props, g_strdup(name), g_variant_ref_sink(value));
}

static gboolean usable(TrayApp *app)
{
        return app->service_present && prop_bool(app, "HasAccelerometer");
}

static gboolean no_accelerometer(TrayApp *app)
{
        return app->service_idle || (app->service_present && !prop_bool(app, "HasAccelerometer"));
}

static void refresh_icon(TrayApp *app)
{
        TrayIconState state = {
                .service_present = app->service_present || app->service_idle,
                .has_accelerometer = prop_bool(app, "HasAccelerometer"),
                .shock_active = prop_bool(app, "ShockActive"),
                .pitch = prop_double(app, "Pitch"),
                .roll = prop_double(app, "Roll"),
        };
        g_autofree char *name = tray_icon_name(&state);

        /* Without animation, the icon stays level but still shows shock and the missing states. */
        if (!app->options.animate_icon && usable(app) && !state.shock_active) {
                state.pitch = state.roll = 0;
                g_free(name);
                name = tray_icon_name(&state);
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
        if (prop_bool(app, "Suspended"))
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
        if (app->service_idle)
                return without_headline(app->idle_reason ? app->idle_reason : "");
        if (no_accelerometer(app))
                return without_headline(prop_string(app, "BackendReason"));
        if (!app->service_present)
                return g_strdup_printf(_("tpacceld is not running on the %s."), app->bus_description);
        return g_strdup("");
}

static void refresh_ui(TrayApp *app)
{
        const char *headline = status_headline(app);
        g_autofree char *detail = status_detail(app);
        /* The window's line: "No accelerometer: why", or just what is wrong. */
        g_autofree char *status = no_accelerometer(app) && detail[0]
                                          ? g_strdup_printf("%s: %s", headline, detail)
                                  : !app->service_present ? g_strdup(detail)
                                                          : g_strdup(headline);

        refresh_icon(app);
        tray_menu_set_service_usable(app->menu, usable(app));
        tray_window_set_status(app->window, status);

        if (!usable(app)) {
                tray_menu_set_readouts(app->menu, headline, detail, "");
                tray_window_clear(app->window);
                return;
        }

        GVariant *temperature_value = g_hash_table_lookup(app->props, "Temperature");
        int temperature_c = prop_int(app, "Temperature");
        g_autofree char *tilt = g_strdup_printf(_("Pitch %+.0f°, roll %+.0f°"), prop_double(app, "Pitch"),
                                                prop_double(app, "Roll"));
        g_autofree char *orientation =
                g_strdup_printf(_("Orientation: %s"), prop_string(app, "Orientation"));
        g_autofree char *temperature =
                temperature_value ? g_strdup_printf(_("Temperature: %d °C"), temperature_c) : g_strdup("");
        tray_menu_set_readouts(app->menu, tilt, orientation, temperature);
        tray_window_set_readouts(app->window, prop_string(app, "Orientation"),
                                 temperature_value ? &temperature_c : NULL, prop_double(app, "Pitch"),
                                 prop_double(app, "Roll"), prop_uint(app, "SamplingRate"));

        GVariant *rest = g_hash_table_lookup(app->props, "RestPosition");
        if (rest && g_variant_is_of_type(rest, G_VARIANT_TYPE("(ii)"))) {
                gint32 x, y;
                g_variant_get(rest, "(ii)", &x, &y);
                tray_window_set_rest(app->window, x, y);
        }

        TraySettingsValues values = {
                .sampling_rate = prop_uint(app, "SamplingRate"),
                .filter_order = prop_uint(app, "FilterOrder"),
                .shock_sensitivity = prop_double(app, "ShockSensitivity"),
                .invert = prop_bool(app, "Invert"),
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
        if (app->options.watch_shocks || tray_window_is_visible(app->window))
                wanted[n++] = 0;
        return n;
}

static void on_claim_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
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
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        app = userdata;
        app->claim_in_flight = FALSE;
        if (app->n_claims > 0)
                app->n_claims--;
        if (!reply)
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
                g_dbus_connection_call(app->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE, "Release",
                                       NULL, G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NONE,
                                       ACCEL_CALL_TIMEOUT_MS, app->cancellable, on_release_done, app);
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
        g_dbus_connection_call(app->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE,
                               rate ? "ClaimAtRate" : "Claim", rate ? g_variant_new("(u)", rate) : NULL,
                               G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS,
                               app->cancellable, on_claim_done, app);
}

/* Sample signals are drawn by the window only: the match rule for them exists while it is open, so
 * that neither the bus daemon nor the tray wakes up for them otherwise. */
static void update_sample_subscription(TrayApp *app);

/* --- Properties and signals ----------------------------------------------------------------- */

static void on_property_fetched(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        g_autoptr(GVariant) value = NULL;
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        app = userdata;
        if (!reply) {
                g_debug("Cannot read a property, ignoring: %s", error->message);
                return;
        }
        g_variant_get(reply, "(v)", &value);
        /* Only Temperature is fetched on its own (it is not signalled). */
        prop_store(app, "Temperature", g_steal_pointer(&value));
        refresh_ui(app);
}

/* Reads Temperature once (it is not signalled). Nothing is read without an accelerometer: there is
 * no reading, and every call would keep the service from its idle exit. */
static void fetch_temperature(TrayApp *app)
{
        if (!usable(app))
                return;
        g_debug("Reading the temperature");
        g_dbus_connection_call(app->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, "org.freedesktop.DBus.Properties",
                               "Get", g_variant_new("(ss)", ACCEL_INTERFACE, "Temperature"),
                               G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS,
                               app->cancellable, on_property_fetched, app);
}

static gboolean on_temperature_timer(gpointer userdata)
{
        fetch_temperature(userdata);
        return G_SOURCE_CONTINUE;
}

/* The temperature is read every TEMPERATURE_POLL_SEC while the window that shows it is open, and then
 * only. */
static void update_temperature_polling(TrayApp *app)
{
        gboolean want = usable(app) && tray_window_is_visible(app->window);

        if (want == (app->temperature_timer != 0))
                return;
        if (!want) {
                g_clear_handle_id(&app->temperature_timer, g_source_remove);
                return;
        }
        fetch_temperature(app);
        app->temperature_timer = g_timeout_add_seconds(TEMPERATURE_POLL_SEC, on_temperature_timer, app);
}

static void store_all(TrayApp *app, GVariant *dict)
{
        GVariantIter iter;
        const char *name;
        GVariant *value;

        g_variant_iter_init(&iter, dict);
        while (g_variant_iter_next(&iter, "{&sv}", &name, &value)) {
                prop_store(app, name, value);
                g_variant_unref(value);
        }
}

static void on_get_all_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        g_autoptr(GVariant) dict = NULL;
        TrayApp *app;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        app = userdata;
        if (!reply) {
                g_autofree char *words = accel_error_describe(error, app->bus_description);
                g_message(_("Cannot read the accelerometer's properties: %s"), words);
                return;
        }
        g_variant_get(reply, "(@a{sv})", &dict);
        store_all(app, dict);
        app->service_present = TRUE;
        app->service_idle = FALSE;
        g_clear_pointer(&app->idle_reason, g_free);
        app->claim_failed = FALSE;
        refresh_ui(app);
        update_claim(app);
        update_temperature_polling(app);
}

static void on_properties_changed(TrayApp *app, GVariant *params)
{
        g_autoptr(GVariant) changed = NULL;
        g_autofree const char **invalidated = NULL;

        g_variant_get(params, "(&s@a{sv}^a&s)", NULL, &changed, &invalidated);
        store_all(app, changed);
        if (invalidated[0])
                /* Rare: fetch everything again rather than one by one. */
                g_dbus_connection_call(app->bus, ACCEL_BUS_NAME, ACCEL_OBJECT,
                                       "org.freedesktop.DBus.Properties", "GetAll",
                                       g_variant_new("(s)", ACCEL_INTERFACE), G_VARIANT_TYPE("(a{sv})"),
                                       G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS, app->cancellable,
                                       on_get_all_done, app);
        gboolean has_accelerometer;
        if (g_variant_lookup(changed, "HasAccelerometer", "b", &has_accelerometer))
                app->claim_failed = FALSE;
        refresh_ui(app);
        update_claim(app);
        update_temperature_polling(app);
}

static void on_signal(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                      const char *member, GVariant *params, gpointer userdata)
{
        TrayApp *app = userdata;

        if (!app->service_present)
                return;

        if (g_str_equal(member, "Sample") && g_variant_is_of_type(params, G_VARIANT_TYPE("(tii)"))) {
                guint64 usec;
                gint32 x, y;
                g_variant_get(params, "(tii)", &usec, &x, &y);
                tray_window_add_sample(app->window, usec, x, y);
        } else if (g_str_equal(member, "Tilt") && g_variant_is_of_type(params, G_VARIANT_TYPE("(dds)"))) {
                double pitch, roll;
                const char *orientation;
                g_variant_get(params, "(dd&s)", &pitch, &roll, &orientation);
                prop_store(app, "Pitch", g_variant_new_double(pitch));
                prop_store(app, "Roll", g_variant_new_double(roll));
                prop_store(app, "Orientation", g_variant_new_string(orientation));
                refresh_ui(app);
        } else if (g_str_equal(member, "Shock") && g_variant_is_of_type(params, G_VARIANT_TYPE("(dts)"))) {
                double magnitude;
                guint64 usec;
                const char *reason;
                g_variant_get(params, "(dt&s)", &magnitude, &usec, &reason);
                tray_notifier_shock(app->notifier, magnitude, reason);
        } else if (g_str_equal(member, "PropertiesChanged") &&
                   g_variant_is_of_type(params, G_VARIANT_TYPE("(sa{sv}as)")))
                on_properties_changed(app, params);
}

static void update_sample_subscription(TrayApp *app)
{
        gboolean want = tray_window_is_visible(app->window);

        if (want == (app->sample_subscription != 0) || !app->bus)
                return;
        if (!want) {
                g_dbus_connection_signal_unsubscribe(app->bus, app->sample_subscription);
                app->sample_subscription = 0;
                g_debug("Unsubscribed from Sample");
                return;
        }
        app->sample_subscription = g_dbus_connection_signal_subscribe(
                app->bus, ACCEL_BUS_NAME, ACCEL_INTERFACE, "Sample", ACCEL_OBJECT, /* arg0= */ NULL,
                G_DBUS_SIGNAL_FLAGS_NONE, on_signal, app, NULL);
        g_debug("Subscribed to Sample");
}

/* --- Service presence ----------------------------------------------------------------------- */

static void on_name_appeared(GDBusConnection *bus, const char *name, const char *owner, gpointer userdata)
{
        TrayApp *app = userdata;

        g_debug("tpacceld appeared as %s", owner);
        if (app->told_gone)
                tray_notifier_service(app->notifier, TRUE, app->bus_description);
        app->told_gone = FALSE;
        app->service_was_present = TRUE;
        g_dbus_connection_call(app->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, "org.freedesktop.DBus.Properties",
                               "GetAll", g_variant_new("(s)", ACCEL_INTERFACE), G_VARIANT_TYPE("(a{sv})"),
                               G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS, app->cancellable,
                               on_get_all_done, app);
}

static void on_name_vanished(GDBusConnection *bus, const char *name, gpointer userdata)
{
        TrayApp *app = userdata;
        gboolean was_present = app->service_present;
        /* Without an accelerometer the service exits when idle (and is started again on demand): that
         * is no news. It leaving while it had one is. */
        gboolean idle_exit = was_present && !prop_bool(app, "HasAccelerometer");

        g_debug("tpacceld is not on the bus%s", idle_exit ? " (idle exit without an accelerometer)" : "");
        if (idle_exit) {
                g_free(app->idle_reason);
                app->idle_reason = g_strdup(prop_string(app, "BackendReason"));
                app->service_idle = TRUE;
        }
        /* Forget everything about the old instance: its claims died with it. */
        g_cancellable_cancel(app->cancellable);
        g_object_unref(app->cancellable);
        app->cancellable = g_cancellable_new();
        app->service_present = FALSE;
        app->n_claims = 0;
        app->claim_in_flight = FALSE;
        g_hash_table_remove_all(app->props);
        if (was_present && !idle_exit) {
                tray_notifier_service(app->notifier, FALSE, app->bus_description);
                app->told_gone = TRUE;
        }
        refresh_ui(app);
        update_temperature_polling(app);
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
        if (!reply)
                g_message(_("Cannot start tpacceld on the %s: %s"), app->bus_description, error->message);
}

/* The user wants to see something: start the service through D-Bus activation if it is not running
 * (it exits when idle without an accelerometer, or was never started). */
static void start_service(TrayApp *app)
{
        if (app->service_present || app->start_in_flight)
                return;
        g_debug("Starting tpacceld through D-Bus activation");
        app->start_in_flight = TRUE;
        g_dbus_connection_call(
                app->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "StartServiceByName", g_variant_new("(su)", ACCEL_BUS_NAME, 0), G_VARIANT_TYPE("(u)"),
                G_DBUS_CALL_FLAGS_NONE, ACCEL_CALL_TIMEOUT_MS, app->cancellable, on_start_done, app);
}

/* --- Actions ---------------------------------------------------------------------------------- */

static void show_error_dialog(const char *title, const char *text)
{
        GtkWidget *dialog =
                gtk_message_dialog_new(NULL, 0, GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", title);

        gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", text);
        g_signal_connect(dialog, "response", G_CALLBACK(gtk_widget_destroy), NULL);
        gtk_widget_show(dialog);
}

static void on_calibrate_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        if (!reply) {
                TrayApp *app = userdata;
                g_autofree char *words = accel_error_describe(error, app->bus_description);
                show_error_dialog(_("Calibration failed"), words);
        }
}

static void action_calibrate(gpointer userdata)
{
        TrayApp *app = userdata;

        g_dbus_connection_call(app->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE, "Calibrate", NULL,
                               G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                               ACCEL_CALL_TIMEOUT_MS, app->cancellable, on_calibrate_done, app);
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

static void action_settings(gpointer userdata)
{
        TrayApp *app = userdata;
        start_service(app);
        tray_settings_present(app->settings);
}

static void action_show_window(gpointer userdata)
{
        TrayApp *app = userdata;
        start_service(app);
        tray_window_present(app->window);
}

static void action_menu_opened(gpointer userdata)
{
        TrayApp *app = userdata;

        g_debug("Menu opened");
        start_service(app);
        fetch_temperature(app);
}

static void action_quit(gpointer userdata)
{
        gtk_main_quit();
}

static void on_window_visibility(gpointer userdata)
{
        TrayApp *app = userdata;
        update_sample_subscription(app);
        update_claim(app);
        update_temperature_polling(app);
}

/* --- Life cycle ------------------------------------------------------------------------------- */

TrayApp *tray_app_new(const TrayOptions *options, GError **error)
{
        static const TrayMenuActions actions = {
                .animate_toggled = action_animate,
                .watch_shocks_toggled = action_watch_shocks,
                .calibrate = action_calibrate,
                .settings = action_settings,
                .show_window = action_show_window,
                .quit = action_quit,
        };
        g_autoptr(TrayApp) app = g_new0(TrayApp, 1);

        app->options = *options;
        app->options.address = g_strdup(options->address);
        app->options.icon_dir = g_strdup(options->icon_dir);
        app->bus_description = accel_bus_describe(options->target, options->address);
        app->props =
                g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_variant_unref);
        app->cancellable = g_cancellable_new();
        app->notifier = tray_notifier_new();
        app->window = tray_window_new(G_CALLBACK(on_window_visibility), app);
        app->settings = tray_settings_new();
        app->menu = tray_menu_new(&actions, app, options->animate_icon, options->watch_shocks);

        app->icon_name = g_strdup(TRAY_ICON_SERVICE_MISSING);
        app->indicator = tray_indicator_new(INDICATOR_ID, app->icon_name, _("ThinkPad Accelerometer"));
        if (options->icon_dir)
                app_indicator_set_icon_theme_path(app->indicator, options->icon_dir);
        app_indicator_set_menu(app->indicator, tray_menu_get_menu(app->menu));
        tray_indicator_on_menu_opened(app->indicator, action_menu_opened, app);
        app_indicator_set_status(app->indicator, APP_INDICATOR_STATUS_ACTIVE);

        app->bus = accel_bus_connect(options->target, options->address, error);
        if (!app->bus)
                return NULL;
        tray_settings_set_bus(app->settings, app->bus);

        /* One match rule per signal shown, none for all of the interface: Sample is subscribed to only
         * while the window is open (update_sample_subscription()). */
        app->tilt_subscription = g_dbus_connection_signal_subscribe(
                app->bus, ACCEL_BUS_NAME, ACCEL_INTERFACE, "Tilt", ACCEL_OBJECT, /* arg0= */ NULL,
                G_DBUS_SIGNAL_FLAGS_NONE, on_signal, app, NULL);
        app->shock_subscription = g_dbus_connection_signal_subscribe(
                app->bus, ACCEL_BUS_NAME, ACCEL_INTERFACE, "Shock", ACCEL_OBJECT, /* arg0= */ NULL,
                G_DBUS_SIGNAL_FLAGS_NONE, on_signal, app, NULL);
        app->properties_subscription = g_dbus_connection_signal_subscribe(
                app->bus, ACCEL_BUS_NAME, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                ACCEL_OBJECT, ACCEL_INTERFACE, G_DBUS_SIGNAL_FLAGS_NONE, on_signal, app, NULL);
        /* AUTO_START: the service is bus-activated; at login nothing else may have started it yet. */
        app->name_watch =
                g_bus_watch_name_on_connection(app->bus, ACCEL_BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                               on_name_appeared, on_name_vanished, app, NULL);

        refresh_ui(app);
        if (options->show_window)
                tray_window_present(app->window);
        update_sample_subscription(app);
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
        if (app->name_watch)
                g_bus_unwatch_name(app->name_watch);
        if (app->tilt_subscription)
                g_dbus_connection_signal_unsubscribe(app->bus, app->tilt_subscription);
        if (app->shock_subscription)
                g_dbus_connection_signal_unsubscribe(app->bus, app->shock_subscription);
        if (app->sample_subscription)
                g_dbus_connection_signal_unsubscribe(app->bus, app->sample_subscription);
        if (app->properties_subscription)
                g_dbus_connection_signal_unsubscribe(app->bus, app->properties_subscription);
        g_clear_object(&app->indicator);
        g_clear_pointer(&app->menu, tray_menu_free);
        g_clear_pointer(&app->settings, tray_settings_free);
        g_clear_pointer(&app->window, tray_window_free);
        g_clear_pointer(&app->notifier, tray_notifier_free);
        g_clear_object(&app->cancellable);
        g_clear_object(&app->bus);
        g_clear_pointer(&app->props, g_hash_table_unref);
        g_free(app->icon_name);
        g_free(app->idle_reason);
        g_free(app->bus_description);
        g_free(app->options.address);
        g_free(app->options.icon_dir);
        g_free(app);
}
