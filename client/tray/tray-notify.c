/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <libnotify/notify.h>

#include "accel-words.h"
#include "client-i18n.h"
#include "tray-icon.h"
#include "tray-notify.h"

struct TrayNotifier {
        char *icon_dir;
        NotifyNotification *shock;
        NotifyNotification *parked;
        NotifyNotification *service;
        NotifyNotification *calibrated;
        NotifyNotification *alarm;
        /* The current burst of shocks: */
        unsigned burst_count;
        gint64 burst_first_usec, burst_last_usec;
        double burst_strongest_g;
        char *burst_strongest_reason;
};

TrayNotifier *tray_notifier_new(const char *icon_dir)
{
        TrayNotifier *n = g_new0(TrayNotifier, 1);

        n->icon_dir = g_strdup(icon_dir);
        if (!notify_is_initted())
                (void) notify_init("tpaccel-tray");
        return n;
}

void tray_notifier_free(TrayNotifier *n)
{
        if (!n)
                return;
        /* g_autoptr(NotifyNotification) is not available with libnotify 0.8.1. */
        g_clear_object(&n->shock);
        g_clear_object(&n->parked);
        g_clear_object(&n->service);
        g_clear_object(&n->calibrated);
        g_clear_object(&n->alarm);
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

static void show(NotifyNotification *notification)
{
        g_autoptr(GError) error = NULL;

        if (!notify_notification_show(notification, &error))
                g_debug("Cannot show a notification, ignoring: %s", error->message);
}

/* Shows or updates *slot. */
static void notify(TrayNotifier *n, NotifyNotification **slot, const char *summary, const char *body,
                   const char *icon_name, NotifyUrgency urgency, int timeout_ms)
{
        g_autofree char *image = icon(n, icon_name);

        if (!*slot) {
                *slot = notify_notification_new(summary, body, image);
                notify_notification_set_category(*slot, "device");
        } else
                (void) notify_notification_update(*slot, summary, body, image);
        notify_notification_set_urgency(*slot, urgency);
        notify_notification_set_timeout(*slot, timeout_ms);
        show(*slot);
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
        notify(n, &n->shock, _("Shock detected"), body, TRAY_ICON_SHOCK, NOTIFY_URGENCY_NORMAL,
               TRAY_SHOCK_NOTIFY_TIMEOUT_MS);
}

void tray_notifier_heads_parked(TrayNotifier *n, const char *const *disks)
{
        g_autofree char *list = g_strjoinv(", ", (char **) disks);
        g_autofree char *body = g_strdup_printf(
                _("The heads of %s were parked to protect it from the shock; they return by themselves."),
                list);

        /* An action happened: critical, it stays until the user saw it. */
        notify(n, &n->parked, _("Disk heads parked"), body, TRAY_ICON_SHOCK, NOTIFY_URGENCY_CRITICAL,
               NOTIFY_EXPIRES_DEFAULT);
}

void tray_notifier_service(TrayNotifier *n, gboolean present)
{
        const char *summary =
                present ? _("Accelerometer service is back") : _("Accelerometer service stopped");
        const char *body = present ? _("Tilt and shock alerts are on again.")
                                   : _("Tilt and shock alerts are off until it is started again.");

        notify(n, &n->service, summary, body, present ? TRAY_ICON_APP : TRAY_ICON_SERVICE_MISSING,
               NOTIFY_URGENCY_NORMAL, NOTIFY_EXPIRES_DEFAULT);
}

void tray_notifier_calibrated(TrayNotifier *n)
{
        /* The answer to a click: low urgency, gone by itself. */
        notify(n, &n->calibrated, _("Calibrated"), _("The laptop's position now counts as level."),
               TRAY_ICON_APP, NOTIFY_URGENCY_LOW, TRAY_CALIBRATED_NOTIFY_TIMEOUT_MS);
}

void tray_notifier_alarm(TrayNotifier *n, const char *summary, const char *body)
{
        /* What happened while the owner was away, or why the alarm cannot guard: kept until read. */
        notify(n, &n->alarm, summary, body, TRAY_ICON_APP, NOTIFY_URGENCY_NORMAL, NOTIFY_EXPIRES_NEVER);
}
