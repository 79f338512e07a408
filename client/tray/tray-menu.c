/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tray-menu.h"

struct TrayMenu {
        GtkWidget *menu;
        GtkWidget *tilt, *orientation, *temperature;
        GtkWidget *calibrate, *settings;
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

static void on_animate(GtkCheckMenuItem *item, gpointer userdata)
{
        TrayMenu *m = userdata;
        m->actions.animate_toggled(gtk_check_menu_item_get_active(item), m->userdata);
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

TrayMenu *tray_menu_new(const TrayMenuActions *actions, gpointer userdata, gboolean animate_icon)
{
        TrayMenu *m = g_new0(TrayMenu, 1);
        GtkWidget *animate;

        m->actions = *actions;
        m->userdata = userdata;
        m->menu = g_object_ref_sink(gtk_menu_new());

        m->tilt = readout(m->menu);
        m->orientation = readout(m->menu);
        m->temperature = readout(m->menu);
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), gtk_separator_menu_item_new());

        animate = gtk_check_menu_item_new_with_mnemonic("_Animate icon");
        gtk_check_menu_item_set_active(GTK_CHECK_MENU_ITEM(animate), animate_icon);
        g_signal_connect(animate, "toggled", G_CALLBACK(on_animate), m);
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), animate);
        m->calibrate = action(m, "_Calibrate", G_CALLBACK(on_calibrate));
        m->settings = action(m, "_Settings…", G_CALLBACK(on_settings));
        action(m, "Show _window", G_CALLBACK(on_show_window));
        gtk_menu_shell_append(GTK_MENU_SHELL(m->menu), gtk_separator_menu_item_new());
        action(m, "_Quit", G_CALLBACK(on_quit));

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

void tray_menu_set_readouts(TrayMenu *m, const char *tilt, const char *orientation, const char *temperature)
{
        gtk_menu_item_set_label(GTK_MENU_ITEM(m->tilt), tilt);
        gtk_menu_item_set_label(GTK_MENU_ITEM(m->orientation), orientation);
        gtk_menu_item_set_label(GTK_MENU_ITEM(m->temperature), temperature);
}

void tray_menu_set_service_usable(TrayMenu *m, gboolean usable)
{
        gtk_widget_set_sensitive(m->calibrate, usable);
        gtk_widget_set_sensitive(m->settings, usable);
}
