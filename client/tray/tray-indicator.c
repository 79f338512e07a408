/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <libdbusmenu-glib/menuitem.h>
#include <libdbusmenu-glib/server.h>

#include "tray-indicator.h"

/* A panel may announce one opening twice (about-to-show and the "opened" event). */
#define OPENED_DEBOUNCE_USEC (G_USEC_PER_SEC / 2)

typedef struct TrayIndicator {
        AppIndicator parent;
        void (*opened)(gpointer userdata);
        gpointer opened_userdata;
        gint64 last_opened_usec;
} TrayIndicator;

typedef struct TrayIndicatorClass {
        AppIndicatorClass parent_class;
} TrayIndicatorClass;

static GType tray_indicator_get_type(void);
G_DEFINE_TYPE(TrayIndicator, tray_indicator, APP_INDICATOR_TYPE)

/* GtkStatusIcon is deprecated, and it is what an XEmbed tray needs. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS

static void on_menu_hidden(GtkWidget *menu, gpointer userdata)
{
        gtk_status_icon_set_has_tooltip(GTK_STATUS_ICON(userdata), TRUE);
        g_signal_handlers_disconnect_by_func(menu, on_menu_hidden, userdata);
}

/* The tooltip goes while the menu is open: in an XEmbed tray (trayer) it would cover the menu's first
 * lines. */
static void pop_up_menu(AppIndicator *indicator, GtkStatusIcon *icon)
{
        GtkMenu *menu = app_indicator_get_menu(indicator);

        if (!menu)
                return;
        gtk_status_icon_set_has_tooltip(icon, FALSE);
        g_signal_handlers_disconnect_by_func(menu, on_menu_hidden, icon);
        g_signal_connect_object(menu, "hide", G_CALLBACK(on_menu_hidden), icon, 0);
        gtk_menu_popup_at_pointer(menu, NULL);
}

static void on_activate(GtkStatusIcon *icon, gpointer userdata)
{
        pop_up_menu(userdata, icon);
}

static void on_popup_menu(GtkStatusIcon *icon, guint button, guint time, gpointer userdata)
{
        pop_up_menu(userdata, icon);
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

static void menu_opened(TrayIndicator *self)
{
        gint64 now = g_get_monotonic_time();

        if (!self->opened || (self->last_opened_usec && now - self->last_opened_usec < OPENED_DEBOUNCE_USEC))
                return;
        self->last_opened_usec = now;
        self->opened(self->opened_userdata);
}

static gboolean on_about_to_show(DbusmenuMenuitem *root, gpointer userdata)
{
        menu_opened(userdata);
        return FALSE;
}

static gboolean on_opened_event(DbusmenuMenuitem *root, const char *name, GVariant *value, guint timestamp,
                                gpointer userdata)
{
        menu_opened(userdata);
        return FALSE;
}

static void on_menu_mapped(GtkWidget *menu, gpointer userdata)
{
        menu_opened(userdata);
}

void tray_indicator_on_menu_opened(AppIndicator *indicator, void (*opened)(gpointer userdata),
                                   gpointer userdata)
{
        TrayIndicator *self = (TrayIndicator *) indicator;
        GtkMenu *menu = app_indicator_get_menu(indicator);
        g_autoptr(GObject) server = NULL;
        g_autoptr(GObject) root = NULL;

        self->opened = opened;
        self->opened_userdata = userdata;
        if (menu)
                g_signal_connect(menu, "map", G_CALLBACK(on_menu_mapped), self);
        if (!g_object_class_find_property(G_OBJECT_GET_CLASS(indicator), "dbus-menu-server"))
                return;
        g_object_get(indicator, "dbus-menu-server", &server, NULL);
        if (server)
                g_object_get(server, DBUSMENU_SERVER_PROP_ROOT_NODE, &root, NULL);
        if (!root)
                return;
        g_signal_connect(root, DBUSMENU_MENUITEM_SIGNAL_ABOUT_TO_SHOW, G_CALLBACK(on_about_to_show), self);
        g_signal_connect(root, DBUSMENU_MENUITEM_SIGNAL_EVENT "::" DBUSMENU_MENUITEM_EVENT_OPENED,
                         G_CALLBACK(on_opened_event), self);
}

AppIndicator *tray_indicator_new(const char *id, const char *icon_name, const char *title)
{
        AppIndicator *indicator = g_object_new(tray_indicator_get_type(), "id", id, "category", "Hardware",
                                               "icon-name", icon_name, NULL);

        app_indicator_set_title(indicator, title);
        return indicator;
}
