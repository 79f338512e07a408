/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tray-indicator.h"

typedef struct TrayIndicator {
        AppIndicator parent;
} TrayIndicator;

typedef struct TrayIndicatorClass {
        AppIndicatorClass parent_class;
} TrayIndicatorClass;

static GType tray_indicator_get_type(void);
G_DEFINE_TYPE(TrayIndicator, tray_indicator, APP_INDICATOR_TYPE)

/* GtkStatusIcon is deprecated, and it is what an XEmbed tray needs. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS

static void pop_up_menu(AppIndicator *indicator)
{
        GtkMenu *menu = app_indicator_get_menu(indicator);

        if (menu)
                gtk_menu_popup_at_pointer(menu, NULL);
}

static void on_activate(GtkStatusIcon *icon, gpointer userdata)
{
        pop_up_menu(userdata);
}

static void on_popup_menu(GtkStatusIcon *icon, guint button, guint time, gpointer userdata)
{
        pop_up_menu(userdata);
}

static void on_new_icon(AppIndicator *indicator, gpointer userdata)
{
        gtk_status_icon_set_from_icon_name(GTK_STATUS_ICON(userdata), app_indicator_get_icon(indicator));
}

static GtkStatusIcon *fallback(AppIndicator *indicator)
{
        GtkStatusIcon *icon = gtk_status_icon_new_from_icon_name(app_indicator_get_icon(indicator));
        const char *title = app_indicator_get_title(indicator);

        /* No gtk_status_icon_set_name(): see tray-indicator.h. The title is a window property that
         * can change on a realized window. */
        if (title) {
                gtk_status_icon_set_title(icon, title);
                gtk_status_icon_set_tooltip_text(icon, title);
        }
        g_signal_connect(icon, "activate", G_CALLBACK(on_activate), indicator);
        g_signal_connect(icon, "popup-menu", G_CALLBACK(on_popup_menu), indicator);
        g_signal_connect_object(indicator, APP_INDICATOR_SIGNAL_NEW_ICON, G_CALLBACK(on_new_icon), icon, 0);
        return icon;
}

static void unfallback(AppIndicator *indicator, GtkStatusIcon *icon)
{
        g_signal_handlers_disconnect_by_data(indicator, icon);
        gtk_status_icon_set_visible(icon, FALSE);
        g_object_unref(icon);
}

G_GNUC_END_IGNORE_DEPRECATIONS

static void tray_indicator_class_init(TrayIndicatorClass *klass)
{
        klass->parent_class.fallback = fallback;
        klass->parent_class.unfallback = unfallback;
}

static void tray_indicator_init(TrayIndicator *self)
{
}

AppIndicator *tray_indicator_new(const char *id, const char *icon_name, const char *title)
{
        AppIndicator *indicator = g_object_new(tray_indicator_get_type(), "id", id, "category", "Hardware",
                                               "icon-name", icon_name, NULL);

        app_indicator_set_title(indicator, title);
        return indicator;
}
