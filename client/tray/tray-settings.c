/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "accel-alarm.h"
#include "accel-bus.h"
#include "accel-sound.h"
#include "client-i18n.h"
#include "tray-refusal.h"
#include "tray-settings.h"

/* Ranges of the interface (data/org.thinkpad.Accelerometer.xml); the service checks them again. */
#define SAMPLING_RATE_MIN     1
#define SAMPLING_RATE_MAX     1000
#define FILTER_ORDER_MIN      1
#define FILTER_ORDER_MAX      8
#define SENSITIVITY_MIN       0.1
#define SENSITIVITY_MAX       10.0
#define SENSITIVITY_STEP      0.1
#define SENSITIVITY_DIGITS    1
#define SPIN_PAGE_MULTIPLIER  10
#define SETTINGS_MIN_WIDTH_PX 420

struct TraySettings {
        GtkWidget *dialog;
        GtkWidget *info_bar;
        GtkWidget *error_label;
        GtkWidget *rate;
        GtkWidget *filter;
        GtkWidget *sensitivity;
        GtkWidget *invert;
        GtkWidget *controls; /* the grid of them */
        GtkWidget *alarm, *alarm_volume, *alarm_note;
        GDBusConnection *bus;
        char *unavailable; /* why the settings cannot be changed now (shown in the bar); NULL: they can */
        TraySettingsValues values;
        gboolean alarm_enabled;
        guint alarm_volume_percent;
        char *alarm_problem; /* "" when none */
        TraySettingsAlarmActions alarm_actions;
        gpointer alarm_userdata;
        gboolean updating; /* setting widgets from values: not a user change */
        GCancellable *cancellable;
};

/* Why the alarm cannot guard, else what it does. */
static void show_alarm_note(TraySettings *s)
{
        g_autofree char *usual = g_strdup_printf(
                _("Armed %u s after the session locks. A movement then plays a warning; unless the session "
                  "is unlocked within %u s, a loud alarm follows until it is. Mind headphones: it is loud."),
                ALARM_ARMING_MS_DEFAULT / 1000, ALARM_GRACE_MS_DEFAULT / 1000);

        gtk_label_set_text(GTK_LABEL(s->alarm_note),
                           s->alarm_problem && s->alarm_problem[0] ? s->alarm_problem : usual);
}

static void show_values(TraySettings *s)
{
        s->updating = TRUE;
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(s->rate), s->values.sampling_rate);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(s->filter), s->values.filter_order);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(s->sensitivity), s->values.shock_sensitivity);
        gtk_switch_set_active(GTK_SWITCH(s->invert), s->values.invert);
        gtk_switch_set_active(GTK_SWITCH(s->alarm), s->alarm_enabled);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(s->alarm_volume), s->alarm_volume_percent);
        s->updating = FALSE;
        show_alarm_note(s);
}

/* The bar's line; "" hides it, and the dialog goes back to its natural height (it kept the bar's). */
static void show_error(TraySettings *s, const char *text)
{
        gboolean was_shown = gtk_widget_get_visible(s->info_bar);

        gtk_label_set_text(GTK_LABEL(s->error_label), text);
        gtk_widget_set_visible(s->info_bar, text[0] != '\0');
        if (was_shown && text[0] == '\0')
                gtk_window_resize(GTK_WINDOW(s->dialog), SETTINGS_MIN_WIDTH_PX, 1);
}

/* The controls take changes only with a bus and the service there; the bar says why not. */
static void update_sensitivity(TraySettings *s)
{
        g_debug("Settings %s%s", s->unavailable ? "unavailable: " : "available", s->unavailable ?: "");
        gtk_widget_set_sensitive(s->controls, s->bus != NULL && !s->unavailable);
        show_error(s, s->unavailable ?: "");
}

static void on_call_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        TraySettings *s = userdata;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);

        if (reply) {
                show_error(s, "");
                return;
        }
        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;

        g_autofree char *words = tray_refusal_describe(error);
        if (!words)
                words = accel_error_describe(error, _("bus"));
        g_debug("Settings: %s (%s)", words, error->message);
        show_error(s, words);
        show_values(s);
}

static void call_setter(TraySettings *s, const char *method, GVariant *params)
{
        g_autoptr(GVariant) owned = g_variant_ref_sink(params);

        if (s->updating)
                return;
        if (!s->bus || s->unavailable) {
                show_error(s, s->unavailable ?: _("The accelerometer service is not running"));
                show_values(s);
                return;
        }
        g_dbus_connection_call(s->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE, method, owned,
                               G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                               ACCEL_CALL_TIMEOUT_MS, s->cancellable, on_call_done, s);
}

static void on_rate_changed(GtkSpinButton *spin, gpointer userdata)
{
        call_setter(userdata, "SetSamplingRate",
                    g_variant_new("(u)", (guint32) gtk_spin_button_get_value_as_int(spin)));
}

static void on_filter_changed(GtkSpinButton *spin, gpointer userdata)
{
        call_setter(userdata, "SetFilterOrder",
                    g_variant_new("(u)", (guint32) gtk_spin_button_get_value_as_int(spin)));
}

static void on_sensitivity_changed(GtkSpinButton *spin, gpointer userdata)
{
        call_setter(userdata, "SetShockSensitivity", g_variant_new("(d)", gtk_spin_button_get_value(spin)));
}

static void on_invert_changed(GObject *object, GParamSpec *pspec, gpointer userdata)
{
        call_setter(userdata, "SetInvert", g_variant_new("(b)", gtk_switch_get_active(GTK_SWITCH(object))));
}

static void on_alarm_changed(GObject *object, GParamSpec *pspec, gpointer userdata)
{
        TraySettings *s = userdata;

        if (s->updating || !s->alarm_actions.enabled_changed)
                return;
        s->alarm_actions.enabled_changed(gtk_switch_get_active(GTK_SWITCH(object)), s->alarm_userdata);
}

static void on_alarm_volume_changed(GtkSpinButton *spin, gpointer userdata)
{
        TraySettings *s = userdata;

        if (s->updating || !s->alarm_actions.volume_changed)
                return;
        s->alarm_actions.volume_changed((guint) gtk_spin_button_get_value_as_int(spin), s->alarm_userdata);
}

static GtkWidget *spin(double min, double max, double step, guint digits)
{
        GtkWidget *button = gtk_spin_button_new_with_range(min, max, step);

        gtk_spin_button_set_digits(GTK_SPIN_BUTTON(button), digits);
        gtk_spin_button_set_increments(GTK_SPIN_BUTTON(button), step, step * SPIN_PAGE_MULTIPLIER);
        gtk_spin_button_set_numeric(GTK_SPIN_BUTTON(button), TRUE);
        return button;
}

static void add_row(GtkGrid *grid, int row, const char *title, const char *tip, GtkWidget *control)
{
        GtkWidget *label = gtk_label_new(title);

        gtk_widget_set_halign(label, GTK_ALIGN_END);
        gtk_widget_set_halign(control, GTK_ALIGN_START);
        gtk_widget_set_tooltip_text(control, tip);
        gtk_grid_attach(grid, label, 0, row, 1, 1);
        gtk_grid_attach(grid, control, 1, row, 1, 1);
}

static void build(TraySettings *s);

/* Destroyed by someone else (XDestroyWindow: a window manager's force close): a new dialog, hidden,
 * takes its place, so that the tray never touches the freed widgets and Settings opens again. */
static void on_destroyed(GtkWidget *widget, gpointer userdata)
{
        TraySettings *s = userdata;

        g_signal_handlers_disconnect_by_data(widget, s);
        s->dialog = NULL;
        build(s);
        show_values(s);
}

/* Makes the dialog (not shown). */
static void build(TraySettings *s)
{
        GtkWidget *content, *grid;

        s->dialog = gtk_dialog_new_with_buttons(_("Accelerometer Settings"), NULL, 0, _("_Close"),
                                                GTK_RESPONSE_CLOSE, NULL);
        /* Wide enough for its title in a window manager's title bar (xfwm4 cut it to "Accelerometer
         * Setting:" at the content's natural width). A dialog of the size of its content: tiling window
         * managers and compositors (sway, i3) float a window of a fixed size, or one with a parent,
         * instead of stretching it over the screen. */
        gtk_window_set_type_hint(GTK_WINDOW(s->dialog), GDK_WINDOW_TYPE_HINT_DIALOG);
        gtk_widget_set_size_request(s->dialog, SETTINGS_MIN_WIDTH_PX, -1);
        gtk_window_set_resizable(GTK_WINDOW(s->dialog), FALSE);
        g_signal_connect(s->dialog, "response", G_CALLBACK(gtk_widget_hide), NULL);
        g_signal_connect(s->dialog, "delete-event", G_CALLBACK(gtk_widget_hide_on_delete), NULL);
        g_signal_connect(s->dialog, "destroy", G_CALLBACK(on_destroyed), s);

        content = gtk_dialog_get_content_area(GTK_DIALOG(s->dialog));
        gtk_container_set_border_width(GTK_CONTAINER(content), 12);
        gtk_box_set_spacing(GTK_BOX(content), 8);

        s->info_bar = gtk_info_bar_new();
        gtk_info_bar_set_message_type(GTK_INFO_BAR(s->info_bar), GTK_MESSAGE_ERROR);
        s->error_label = gtk_label_new("");
        gtk_label_set_line_wrap(GTK_LABEL(s->error_label), TRUE);
        gtk_label_set_max_width_chars(GTK_LABEL(s->error_label), 50);
        gtk_container_add(GTK_CONTAINER(gtk_info_bar_get_content_area(GTK_INFO_BAR(s->info_bar))),
                          s->error_label);
        gtk_widget_show(s->error_label);
        gtk_widget_set_no_show_all(s->info_bar, TRUE);
        gtk_box_pack_start(GTK_BOX(content), s->info_bar, FALSE, FALSE, 0);

        s->controls = grid = gtk_grid_new();
        gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
        gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
        gtk_box_pack_start(GTK_BOX(content), grid, TRUE, TRUE, 0);

        s->rate = spin(SAMPLING_RATE_MIN, SAMPLING_RATE_MAX, 1, 0);
        add_row(GTK_GRID(grid), 0, _("Sampling rate (Hz)"), _("Readouts per second"), s->rate);
        s->filter = spin(FILTER_ORDER_MIN, FILTER_ORDER_MAX, 1, 0);
        add_row(GTK_GRID(grid), 1, _("Filter order"), _("Order of the EC's running-average filter"),
                s->filter);
        s->sensitivity = spin(SENSITIVITY_MIN, SENSITIVITY_MAX, SENSITIVITY_STEP, SENSITIVITY_DIGITS);
        add_row(GTK_GRID(grid), 2, _("Shock sensitivity"),
                _("0.1 reacts only to hard shocks, 10 to light taps"), s->sensitivity);
        s->invert = gtk_switch_new();
        add_row(GTK_GRID(grid), 3, _("Invert axes"),
                _("Negate both axes relative to the model's orientation"), s->invert);

        g_signal_connect(s->rate, "value-changed", G_CALLBACK(on_rate_changed), s);
        g_signal_connect(s->filter, "value-changed", G_CALLBACK(on_filter_changed), s);
        g_signal_connect(s->sensitivity, "value-changed", G_CALLBACK(on_sensitivity_changed), s);
        g_signal_connect(s->invert, "notify::active", G_CALLBACK(on_invert_changed), s);

        /* The tray's own: no service needed, outside the controls made insensitive without it. */
        GtkWidget *frame = gtk_frame_new(_("Motion alarm"));
        GtkWidget *alarm_grid = gtk_grid_new();
        gtk_grid_set_column_spacing(GTK_GRID(alarm_grid), 12);
        gtk_grid_set_row_spacing(GTK_GRID(alarm_grid), 6);
        gtk_container_set_border_width(GTK_CONTAINER(alarm_grid), 8);
        gtk_container_add(GTK_CONTAINER(frame), alarm_grid);
        gtk_box_pack_start(GTK_BOX(content), frame, FALSE, FALSE, 0);
        s->alarm = gtk_switch_new();
        add_row(GTK_GRID(alarm_grid), 0, _("Alarm when moved while locked"),
                _("Sound an alarm when the machine is moved while the session is locked"), s->alarm);
        s->alarm_volume = spin(ALARM_VOLUME_MIN, ALARM_VOLUME_MAX, 1, 0);
        add_row(GTK_GRID(alarm_grid), 1, _("Alarm volume (%)"),
                _("Of the sound server's volume; the system's mixer is left alone"), s->alarm_volume);
        s->alarm_note = gtk_label_new("");
        gtk_label_set_line_wrap(GTK_LABEL(s->alarm_note), TRUE);
        gtk_label_set_max_width_chars(GTK_LABEL(s->alarm_note), 50);
        gtk_label_set_xalign(GTK_LABEL(s->alarm_note), 0);
        gtk_grid_attach(GTK_GRID(alarm_grid), s->alarm_note, 0, 2, 2, 1);
        g_signal_connect(s->alarm, "notify::active", G_CALLBACK(on_alarm_changed), s);
        g_signal_connect(s->alarm_volume, "value-changed", G_CALLBACK(on_alarm_volume_changed), s);

        gtk_widget_show_all(content);
        update_sensitivity(s);
}

TraySettings *tray_settings_new(void)
{
        TraySettings *s = g_new0(TraySettings, 1);

        s->cancellable = g_cancellable_new();
        s->alarm_volume_percent = ALARM_VOLUME_DEFAULT;
        s->alarm_problem = g_strdup("");
        build(s);
        show_values(s);
        return s;
}

void tray_settings_free(TraySettings *s)
{
        if (!s)
                return;
        g_cancellable_cancel(s->cancellable);
        g_clear_object(&s->cancellable);
        g_clear_object(&s->bus);
        g_free(s->unavailable);
        g_free(s->alarm_problem);
        g_signal_handlers_disconnect_by_data(s->dialog, s);
        gtk_widget_destroy(s->dialog);
        g_free(s);
}

void tray_settings_set_bus(TraySettings *s, GDBusConnection *bus)
{
        g_set_object(&s->bus, bus);
        update_sensitivity(s);
}

void tray_settings_set_unavailable(TraySettings *s, const char *why)
{
        if (g_strcmp0(why, s->unavailable) == 0)
                return;
        g_free(s->unavailable);
        s->unavailable = g_strdup(why);
        update_sensitivity(s);
}

void tray_settings_set_values(TraySettings *s, const TraySettingsValues *values)
{
        s->values = *values;
        show_values(s);
}

void tray_settings_present(TraySettings *s, GtkWindow *parent)
{
        gtk_window_set_transient_for(GTK_WINDOW(s->dialog), parent);
        show_error(s, s->unavailable ?: "");
        gtk_window_present(GTK_WINDOW(s->dialog));
}

const char *tray_settings_get_error(TraySettings *s)
{
        return gtk_widget_get_visible(s->info_bar) ? gtk_label_get_text(GTK_LABEL(s->error_label)) : "";
}

void tray_settings_set_alarm_actions(TraySettings *s, const TraySettingsAlarmActions *actions,
                                     gpointer userdata)
{
        s->alarm_actions = *actions;
        s->alarm_userdata = userdata;
}

void tray_settings_set_alarm(TraySettings *s, gboolean enabled, guint volume, const char *problem)
{
        s->alarm_enabled = enabled;
        s->alarm_volume_percent = volume;
        g_free(s->alarm_problem);
        s->alarm_problem = g_strdup(problem ?: "");
        show_values(s);
}
