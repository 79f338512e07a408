/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <gdk/gdkx.h>
#include <libdbusmenu-glib/menuitem.h>
#include <libdbusmenu-glib/server.h>

#include "tray-indicator.h"

/* A panel may announce one opening twice (about-to-show and the "opened" event). */
#define OPENED_DEBOUNCE_USEC (G_USEC_PER_SEC / 2)

#define WATCHER_NAME      "org.kde.StatusNotifierWatcher"
#define WATCHER_PATH      "/StatusNotifierWatcher"
#define WATCHER_INTERFACE "org.kde.StatusNotifierWatcher"

typedef struct TrayIndicator {
        AppIndicator parent;
        void (*opened)(gpointer userdata);
        gpointer opened_userdata;
        gint64 last_opened_usec;

        /* Whether a tray host shows the icon (tray_indicator_on_host_changed()): */
        void (*host_changed)(gboolean shown, gpointer userdata);
        gpointer host_userdata;
        GCancellable *cancellable;
        GDBusConnection *bus;   /* the session bus, where the watcher is; NULL until connected */
        guint watch_id;         /* the watcher's name */
        guint signal_id;        /* its StatusNotifierHost{,Un}Registered */
        gboolean watcher_known; /* the name watch answered (present or not) */
        gboolean watcher_host;  /* the watcher is there and says a host is registered */
        GtkStatusIcon *xembed;  /* the fallback icon (X11 only), NULL if none */
        gboolean host_reported, host_shown;
        guint grace_ms;    /* 0: TRAY_HOST_GRACE_SEC */
        guint grace_timer; /* no host yet: waiting the grace before saying so */
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

static void update_host(TrayIndicator *self);

static void on_embedded(GObject *icon, GParamSpec *pspec, gpointer userdata)
{
        update_host(userdata);
}

/* An XEmbed icon exists on X11 only: elsewhere (Wayland) there is no fallback, and GtkStatusIcon would
 * only log criticals. */
static GtkStatusIcon *fallback(AppIndicator *indicator)
{
        TrayIndicator *self = (TrayIndicator *) indicator;
        GdkDisplay *display = gdk_display_get_default();
        GtkStatusIcon *icon;
        const char *title = app_indicator_get_title(indicator);

        if (!display || !GDK_IS_X11_DISPLAY(display)) {
                g_debug("No StatusNotifierWatcher, and no XEmbed tray outside X11");
                update_host(self);
                return NULL;
        }
        icon = gtk_status_icon_new_from_icon_name(app_indicator_get_icon(indicator));

        /* No gtk_status_icon_set_name(): see tray-indicator.h. The title is a window property that
         * can change on a realized window. */
        if (title) {
                gtk_status_icon_set_title(icon, title);
                gtk_status_icon_set_tooltip_text(icon, title);
        }
        g_signal_connect(icon, "activate", G_CALLBACK(on_activate), indicator);
        g_signal_connect(icon, "popup-menu", G_CALLBACK(on_popup_menu), indicator);
        g_signal_connect_object(indicator, APP_INDICATOR_SIGNAL_NEW_ICON, G_CALLBACK(on_new_icon), icon, 0);
        g_signal_connect(icon, "notify::embedded", G_CALLBACK(on_embedded), self);
        self->xembed = icon;
        update_host(self);
        return icon;
}

static void unfallback(AppIndicator *indicator, GtkStatusIcon *icon)
{
        TrayIndicator *self = (TrayIndicator *) indicator;

        g_signal_handlers_disconnect_by_data(indicator, icon);
        g_signal_handlers_disconnect_by_data(icon, self);
        if (self->xembed == icon)
                self->xembed = NULL;
        gtk_status_icon_set_visible(icon, FALSE);
        g_object_unref(icon);
        update_host(self);
}

static gboolean xembed_shown(TrayIndicator *self)
{
        return self->xembed && gtk_status_icon_is_embedded(self->xembed);
}

G_GNUC_END_IGNORE_DEPRECATIONS

static void tray_indicator_dispose(GObject *object)
{
        TrayIndicator *self = (TrayIndicator *) object;

        if (self->cancellable)
                g_cancellable_cancel(self->cancellable);
        g_clear_object(&self->cancellable);
        g_clear_handle_id(&self->grace_timer, g_source_remove);
        g_clear_handle_id(&self->watch_id, g_bus_unwatch_name);
        if (self->bus && self->signal_id)
                g_dbus_connection_signal_unsubscribe(self->bus, self->signal_id);
        self->signal_id = 0;
        g_clear_object(&self->bus);
        self->host_changed = NULL;
        G_OBJECT_CLASS(tray_indicator_parent_class)->dispose(object);
}

static void tray_indicator_class_init(TrayIndicatorClass *klass)
{
        G_OBJECT_CLASS(klass)->dispose = tray_indicator_dispose;
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

/* --- Whether a tray host shows the icon ---------------------------------------------------------- */

static void report_host(TrayIndicator *self, gboolean shown)
{
        if (self->host_reported && self->host_shown == shown)
                return;
        self->host_reported = TRUE;
        self->host_shown = shown;
        if (self->host_changed)
                self->host_changed(shown, self->host_userdata);
}

static gboolean on_grace_over(gpointer userdata)
{
        TrayIndicator *self = userdata;

        self->grace_timer = 0;
        report_host(self, FALSE);
        return G_SOURCE_REMOVE;
}

/* A host is reported at once; its absence once it has lasted the grace (a panel starting
 * with the session, an XEmbed tray embedding the icon, a panel restarting). */
static void update_host(TrayIndicator *self)
{
        if (!self->watcher_known || !self->host_changed)
                return;
        if (self->watcher_host || xembed_shown(self)) {
                g_clear_handle_id(&self->grace_timer, g_source_remove);
                report_host(self, TRUE);
                return;
        }
        if (self->host_reported && !self->host_shown)
                return;
        if (!self->grace_timer)
                self->grace_timer =
                        self->grace_ms ? g_timeout_add(self->grace_ms, on_grace_over, self)
                                       : g_timeout_add_seconds(TRAY_HOST_GRACE_SEC, on_grace_over, self);
}

static void on_host_registered_read(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        g_autoptr(GVariant) value = NULL;
        TrayIndicator *self;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return; /* disposed */
        self = userdata;
        if (reply)
                g_variant_get(reply, "(v)", &value);
        else
                g_debug("Cannot read the StatusNotifierWatcher's IsStatusNotifierHostRegistered, taking it "
                        "as a host: %s",
                        error->message);
        /* A watcher that cannot say is taken at its word of being there: no false alarm. */
        self->watcher_host = !value || !g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN) ||
                             g_variant_get_boolean(value);
        self->watcher_known = TRUE;
        g_debug("StatusNotifierWatcher: %s", self->watcher_host ? "a host is registered" : "no host");
        update_host(self);
}

static void read_host_registered(TrayIndicator *self)
{
        g_dbus_connection_call(self->bus, WATCHER_NAME, WATCHER_PATH, "org.freedesktop.DBus.Properties",
                               "Get",
                               g_variant_new("(ss)", WATCHER_INTERFACE, "IsStatusNotifierHostRegistered"),
                               G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, self->cancellable,
                               on_host_registered_read, self);
}

static void on_watcher_signal(GDBusConnection *bus, const char *sender, const char *path,
                              const char *interface, const char *member, GVariant *parameters,
                              gpointer userdata)
{
        TrayIndicator *self = userdata;

        /* A host came, or one went (others may remain): ask. */
        if (g_str_equal(member, "StatusNotifierHostRegistered") ||
            g_str_equal(member, "StatusNotifierHostUnregistered"))
                read_host_registered(self);
}

static void on_watcher_appeared(GDBusConnection *bus, const char *name, const char *owner, gpointer userdata)
{
        read_host_registered(userdata);
}

static void on_watcher_vanished(GDBusConnection *bus, const char *name, gpointer userdata)
{
        TrayIndicator *self = userdata;

        g_debug("No StatusNotifierWatcher on the session bus");
        self->watcher_host = FALSE;
        self->watcher_known = TRUE;
        update_host(self);
}

static void on_session_bus(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        GDBusConnection *bus = g_bus_get_finish(result, &error);
        TrayIndicator *self;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        self = userdata;
        if (!bus) {
                g_debug("No session bus, no StatusNotifierWatcher: %s", error->message);
                on_watcher_vanished(NULL, WATCHER_NAME, self);
                return;
        }
        self->bus = bus;
        self->signal_id = g_dbus_connection_signal_subscribe(bus, WATCHER_NAME, WATCHER_INTERFACE, NULL,
                                                             WATCHER_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                             on_watcher_signal, self, NULL);
        self->watch_id =
                g_bus_watch_name_on_connection(bus, WATCHER_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                               on_watcher_appeared, on_watcher_vanished, self, NULL);
}

void tray_indicator_on_host_changed(AppIndicator *indicator, guint grace_ms,
                                    void (*changed)(gboolean shown, gpointer userdata), gpointer userdata)
{
        TrayIndicator *self = (TrayIndicator *) indicator;

        self->grace_ms = grace_ms;
        self->host_changed = changed;
        self->host_userdata = userdata;
        if (changed && !self->cancellable) {
                self->cancellable = g_cancellable_new();
                g_bus_get(G_BUS_TYPE_SESSION, self->cancellable, on_session_bus, self);
        }
        update_host(self);
}

AppIndicator *tray_indicator_new(const char *id, const char *icon_name, const char *title)
{
        AppIndicator *indicator = g_object_new(tray_indicator_get_type(), "id", id, "category", "Hardware",
                                               "icon-name", icon_name, NULL);

        app_indicator_set_title(indicator, title);
        return indicator;
}
