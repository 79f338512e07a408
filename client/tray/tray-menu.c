/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "client-i18n.h"
#include "tray-menu.h"

/* Longer readout lines (a backend reason can be hundreds of characters) are cut with an ellipsis and
 * shown whole in their tooltip, so that the menu stays on screen. */
#define READOUT_MAX_CHARS 60

struct TrayMenu {
        GtkWidget *menu;
        GtkWidget *tilt, *orientation, *temperature;
        GtkWidget *calibrate, *settings, *alarm;
        gboolean boxed_toggles, animate_on, watch_on, alarm_on;
        gboolean setting_alarm; /* tray_menu_set_alarm(): not the user's click */
        TrayMenuActions actions;
        gpointer userdata;
};

static GtkWidget *readout(GtkWidget *menu)
{
        GtkWidget *item = gtk_menu_item_new_with_label("");

        gtk_widget_set_sensitive(item, FALSE);
        gtk_menu_shell_append(GTK_MENU_SHELL(menu), item);
        return item;
}

static GtkWidget *action(TrayMenu *m, const char *label, GCallback callback)
{
        GtkWidget *item = gtk_menu_item_new_with_mnemonic(label);

        g_signal_connect(item, "activate", callback, m);
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), item);
        return item;
}

static const char ANIMATE_LABEL[] = N_("_Animate icon");
static const char WATCH_LABEL[] = N_("_Watch for shocks (full rate, more power)");
static const char ALARM_LABEL[] = N_("Alarm when _moved while locked");

static void set_boxed_label(GtkWidget *item, const char *label, gboolean on)
{
        g_autofree char *text = g_strconcat(on ? "☑ " : "☐ ", _(label), NULL);
        gtk_menu_item_set_label(GTK_MENU_ITEM(item), text);
}

/* A toggle was activated: its new state, kept in *on; a boxed one turns its box over. */
static gboolean toggled(TrayMenu *m, GtkMenuItem *item, const char *label, gboolean *on)
{
        if (m->boxed_toggles) {
                *on = !*on;
                set_boxed_label(GTK_WIDGET(item), label, *on);
        } else
                *on = gtk_check_menu_item_get_active(GTK_CHECK_MENU_ITEM(item));
        return *on;
}

static void on_animate(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;

        m->actions.animate_toggled(toggled(m, item, ANIMATE_LABEL, &m->animate_on), m->userdata);
}

static void on_watch_shocks(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;

        m->actions.watch_shocks_toggled(toggled(m, item, WATCH_LABEL, &m->watch_on), m->userdata);
}

static void on_alarm(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;

        if (m->setting_alarm)
                return;
        m->actions.alarm_toggled(toggled(m, item, ALARM_LABEL, &m->alarm_on), m->userdata);
}

/* A toggle: a check item, or a plain item with a box in its label (boxed_toggles). */
static GtkWidget *toggle(TrayMenu *m, const char *label, gboolean on, GCallback callback)
{
        GtkWidget *item;

        if (m->boxed_toggles) {
                item = gtk_menu_item_new_with_mnemonic("");
                set_boxed_label(item, label, on);
                g_signal_connect(item, "activate", callback, m);
        } else {
                item = gtk_check_menu_item_new_with_mnemonic(_(label));
                gtk_check_menu_item_set_active(GTK_CHECK_MENU_ITEM(item), on);
                g_signal_connect(item, "toggled", callback, m);
        }
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), item);
        return item;
}

static void on_calibrate(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;
        m->actions.calibrate(m->userdata);
}

static void on_settings(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;
        m->actions.settings(m->userdata);
}

static void on_show_window(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;
        m->actions.show_window(m->userdata);
}

static void on_quit(GtkMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;
        m->actions.quit(m->userdata);
}

TrayMenu *tray_menu_new(const TrayMenuActions *actions, gpointer userdata, gboolean animate_icon,
                        gboolean watch_shocks, gboolean alarm, gboolean boxed_toggles)
{
        TrayMenu *m = g_new0(TrayMenu, 1);

        m->actions = *actions;
        m->userdata = userdata;
        m->boxed_toggles = boxed_toggles;
        m->animate_on = animate_icon;
        m->watch_on = watch_shocks;
        m->alarm_on = alarm;
        m->menu = g_object_ref_sink(gtk_menu_new());

        m->tilt = readout(m->menu);
        m->orientation = readout(m->menu);
        m->temperature = readout(m->menu);
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), gtk_separator_menu_item_new());

        toggle(m, ANIMATE_LABEL, animate_icon, G_CALLBACK(on_animate));
        toggle(m, WATCH_LABEL, watch_shocks, G_CALLBACK(on_watch_shocks));
        m->alarm = toggle(m, ALARM_LABEL, alarm, G_CALLBACK(on_alarm));
        m->calibrate = action(m, _("_Calibrate"), G_CALLBACK(on_calibrate));
        m->settings = action(m, _("_Settings…"), G_CALLBACK(on_settings));
        action(m, _("Show _window"), G_CALLBACK(on_show_window));
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), gtk_separator_menu_item_new());
        action(m, _("_Quit"), G_CALLBACK(on_quit));

        gtk_widget_show_all(m->menu);
        return m;
}

void tray_menu_free(TrayMenu *m)
{
        if (!m)
                return;
        gtk_widget_destroy(m->menu);
        g_object_unref(m->menu);
        g_free(m);
}

GtkMenu *tray_menu_get_menu(TrayMenu *m)
{
        return GTK_MENU(m->menu);
}

char *tray_menu_ellipsize(const char *text, size_t max_chars)
{
        g_autofree char *head = NULL;

        if ((size_t) g_utf8_strlen(text, -1) <= max_chars)
                return g_strdup(text);
        head = g_utf8_substring(text, 0, (glong) max_chars - 1);
        g_strchomp(head);
        return g_strconcat(head, "…", NULL);
}

static void set_readout(GtkWidget *item, const char *text)
{
        g_autofree char *label = tray_menu_ellipsize(text, READOUT_MAX_CHARS);

        gtk_menu_item_set_label(GTK_MENU_ITEM(item), label);
        gtk_widget_set_tooltip_text(item, g_str_equal(label, text) ? NULL : text);
        gtk_widget_set_visible(item, text[0] != '\0');
}

void tray_menu_set_readouts(TrayMenu *m, const char *tilt, const char *orientation, const char *temperature)
{
        set_readout(m->tilt, tilt);
        set_readout(m->orientation, orientation);
        set_readout(m->temperature, temperature);
}

void tray_menu_set_service_usable(TrayMenu *m, gboolean usable)
{
        gtk_widget_set_sensitive(m->calibrate, usable);
        gtk_widget_set_sensitive(m->settings, usable);
}

void tray_menu_set_alarm(TrayMenu *m, gboolean on)
{
        if (m->alarm_on == on)
                return;
        m->alarm_on = on;
        m->setting_alarm = TRUE;
        if (m->boxed_toggles)
                set_boxed_label(m->alarm, ALARM_LABEL, on);
        else
                gtk_check_menu_item_set_active(GTK_CHECK_MENU_ITEM(m->alarm), on);
        m->setting_alarm = FALSE;
}
