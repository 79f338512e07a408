/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <gio/gio.h>

#include "accel-words.h"
#include "client-i18n.h"
#include "tray-icon.h"
#include "tray-notify.h"

#define NOTIFICATIONS_NAME      "org.freedesktop.Notifications"
#define NOTIFICATIONS_PATH      "/org/freedesktop/Notifications"
#define NOTIFICATIONS_INTERFACE "org.freedesktop.Notifications"

/* The specification's urgencies (hint "urgency", a byte) and the server's own expiry. */
enum { URGENCY_LOW = 0, URGENCY_NORMAL = 1, URGENCY_CRITICAL = 2 };
#define EXPIRES_DEFAULT (-1)

/* One notification updated in place: the server's id of the one shown, and the next one while a Notify
 * is on its way (it replaces that one, so it waits for its id). */
typedef struct Slot {
        TrayNotifier *notifier;
        guint32 id;         /* 0: none shown yet */
        gboolean in_flight; /* a Notify is on its way */
        GVariant *pending;  /* (sssa{sv}i): icon, summary, body, hints, timeout; NULL: nothing waits */
} Slot;

struct TrayNotifier {
        char *icon_dir;
        guint service_timeout_ms;
        GDBusConnection *bus;      /* the session bus, NULL until connected */
        GCancellable *cancellable; /* every call; cancelled when freed */
        Slot shock, parked, service, calibrated, no_host, alarm;
        /* The current burst of shocks: */
        unsigned burst_count;
        gint64 burst_first_usec, burst_last_usec;
        double burst_strongest_g;
        char *burst_strongest_reason;
};

static Slot *slots(TrayNotifier *n, size_t i)
{
        Slot *all[] = {&n->shock, &n->parked, &n->service, &n->calibrated, &n->no_host, &n->alarm};
        return i < G_N_ELEMENTS(all) ? all[i] : NULL;
}

static void send_pending(Slot *slot);

static void on_notify_done(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
        Slot *slot;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return; /* freed: slot is gone */
        slot = userdata;
        slot->in_flight = FALSE;
        if (reply)
                g_variant_get(reply, "(u)", &slot->id);
        else
                g_debug("Cannot show a notification, ignoring: %s", error->message);
        send_pending(slot);
}

/* Sends the slot's pending notification, unless one is on its way (its reply sends it) or the bus is
 * not there yet (on_bus() sends it). */
static void send_pending(Slot *slot)
{
        TrayNotifier *n = slot->notifier;
        g_autoptr(GVariant) pending = NULL;
        const char *icon, *summary, *body;
        g_autoptr(GVariant) hints = NULL;
        gint32 timeout_ms;

        if (!slot->pending || slot->in_flight || !n->bus)
                return;
        pending = g_steal_pointer(&slot->pending);
        g_variant_get(pending, "(&s&s&s@a{sv}i)", &icon, &summary, &body, &hints, &timeout_ms);
        slot->in_flight = TRUE;
        /* Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout) */
        g_dbus_connection_call(
                n->bus, NOTIFICATIONS_NAME, NOTIFICATIONS_PATH, NOTIFICATIONS_INTERFACE, "Notify",
                g_variant_new("(su@s@s@s@as@a{sv}i)", _("ThinkPad Accelerometer"), slot->id,
                              g_variant_new_string(icon), g_variant_new_string(summary),
                              g_variant_new_string(body), g_variant_new_strv(NULL, 0), hints, timeout_ms),
                G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, n->cancellable, on_notify_done, slot);
}

static void on_bus(GObject *source, GAsyncResult *result, gpointer userdata)
{
        g_autoptr(GError) error = NULL;
        GDBusConnection *bus = g_bus_get_finish(result, &error);
        TrayNotifier *n;

        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return;
        n = userdata;
        if (!bus) {
                g_debug("No session bus, no notifications: %s", error->message);
                return;
        }
        n->bus = bus;
        for (size_t i = 0; slots(n, i); i++)
                send_pending(slots(n, i));
}

TrayNotifier *tray_notifier_new(const char *icon_dir, guint service_timeout_ms)
{
        TrayNotifier *n = g_new0(TrayNotifier, 1);

        n->icon_dir = g_strdup(icon_dir);
        n->service_timeout_ms = service_timeout_ms ?: TRAY_SERVICE_NOTIFY_TIMEOUT_MS;
        n->cancellable = g_cancellable_new();
        for (size_t i = 0; slots(n, i); i++)
                slots(n, i)->notifier = n;
        g_bus_get(G_BUS_TYPE_SESSION, n->cancellable, on_bus, n);
        return n;
}

void tray_notifier_free(TrayNotifier *n)
{
        if (!n)
                return;
        g_cancellable_cancel(n->cancellable);
        g_clear_object(&n->cancellable);
        for (size_t i = 0; slots(n, i); i++)
                g_clear_pointer(&slots(n, i)->pending, g_variant_unref);
        g_clear_object(&n->bus);
        g_free(n->burst_strongest_reason);
        g_free(n->icon_dir);
        g_free(n);
}

/* The icon as the notification daemon can find it: the name of an installed icon, or the file of an
 * uninstalled one (the daemon does not see the tray's extra theme directory). */
static char *icon(TrayNotifier *n, const char *name)
{
        g_autofree char *file = NULL;

        if (!n->icon_dir)
                return g_strdup(name);
        file = g_strdup_printf("%s/hicolor/scalable/%s/%s.svg", n->icon_dir,
                               g_str_equal(name, TRAY_ICON_APP) ? "apps" : "status", name);
        return g_file_test(file, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer(&file) : g_strdup(name);
}

/* Shows *slot, or updates it in place. transient: not worth keeping in the server's history. */
static void notify(TrayNotifier *n, Slot *slot, const char *summary, const char *body, const char *icon_name,
                   guint8 urgency, gboolean transient, gint32 timeout_ms)
{
        g_autofree char *image = icon(n, icon_name);
        GVariantBuilder hints;

        g_variant_builder_init(&hints, G_VARIANT_TYPE_VARDICT);
        g_variant_builder_add(&hints, "{sv}", "urgency", g_variant_new_byte(urgency));
        g_variant_builder_add(&hints, "{sv}", "category", g_variant_new_string("device"));
        /* The desktop names the application as its menu does (GNOME, KDE: not "tpaccel-tray"). */
        g_variant_builder_add(&hints, "{sv}", "desktop-entry", g_variant_new_string(TRAY_DESKTOP_ID));
        if (transient)
                g_variant_builder_add(&hints, "{sv}", "transient", g_variant_new_boolean(TRUE));
        g_clear_pointer(&slot->pending, g_variant_unref);
        slot->pending =
                g_variant_ref_sink(g_variant_new("(sssa{sv}i)", image, summary, body, &hints, timeout_ms));
        send_pending(slot);
}

void tray_notifier_shock(TrayNotifier *n, double magnitude, const char *reason)
{
        gint64 now = g_get_monotonic_time();
        g_autofree char *body = NULL;

        if (n->burst_count == 0 ||
            now - n->burst_last_usec >= (gint64) TRAY_SHOCK_BURST_GAP_SEC * G_USEC_PER_SEC) {
                n->burst_count = 0;
                n->burst_first_usec = now;
                n->burst_strongest_g = -1;
        }
        n->burst_count++;
        n->burst_last_usec = now;
        if (magnitude > n->burst_strongest_g) {
                n->burst_strongest_g = magnitude;
                g_free(n->burst_strongest_reason);
                n->burst_strongest_reason = g_strdup(reason);
        }
        body = tray_notify_burst_text(n->burst_count, now - n->burst_first_usec, n->burst_strongest_g,
                                      n->burst_strongest_reason);
        notify(n, &n->shock, _("Shock detected"), body, TRAY_ICON_SHOCK, URGENCY_NORMAL, TRUE,
               TRAY_SHOCK_NOTIFY_TIMEOUT_MS);
}

void tray_notifier_heads_parked(TrayNotifier *n, const char *const *disks)
{
        g_autofree char *list = g_strjoinv(", ", (char **) disks);
        g_autofree char *body = g_strdup_printf(
                _("The heads of %s were parked to protect it from the shock; they return by themselves."),
                list);

        /* An action happened: critical, it stays until the user saw it. */
        notify(n, &n->parked, _("Disk heads parked"), body, TRAY_ICON_SHOCK, URGENCY_CRITICAL, FALSE,
               EXPIRES_DEFAULT);
}

void tray_notifier_service(TrayNotifier *n, gboolean present)
{
        const char *summary =
                present ? _("Accelerometer service is back") : _("Accelerometer service stopped");
        const char *body = present ? _("Tilt and shock alerts are on again.")
                                   : _("Tilt and shock alerts are off until it is started again.");

        /* One bubble, replaced: "back" takes the place of "stopped", and is not worth keeping. */
        notify(n, &n->service, summary, body, present ? TRAY_ICON_APP : TRAY_ICON_SERVICE_MISSING,
               present ? URGENCY_LOW : URGENCY_NORMAL, present, n->service_timeout_ms);
}

void tray_notifier_calibrated(TrayNotifier *n)
{
        /* The answer to a click: low urgency, gone by itself. */
        notify(n, &n->calibrated, _("Calibrated"), _("The laptop's position now counts as level."),
               TRAY_ICON_APP, URGENCY_LOW, TRUE, TRAY_CALIBRATED_NOTIFY_TIMEOUT_MS);
}

void tray_notifier_no_tray_host(TrayNotifier *n, const char *summary, const char *body)
{
        /* Worth keeping: it says what to install. */
        notify(n, &n->no_host, summary, body, TRAY_ICON_APP, URGENCY_NORMAL, FALSE, EXPIRES_DEFAULT);
}

void tray_notifier_alarm(TrayNotifier *n, const char *summary, const char *body)
{
        /* What happened while the owner was away, or why the alarm cannot guard: kept until read. */
        notify(n, &n->alarm, summary, body, TRAY_ICON_APP, URGENCY_NORMAL, FALSE, 0 /* never */);
}
