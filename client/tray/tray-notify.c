/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <libnotify/notify.h>

#include "accel-words.h"
#include "client-i18n.h"
#include "tray-icon.h"
#include "tray-notify.h"

#define USEC_PER_SEC G_USEC_PER_SEC

struct TrayNotifier {
        NotifyNotification *shock;
        NotifyNotification *service;
        gint64 last_shock_shown_usec;
        unsigned suppressed_shocks;
};

TrayNotifier *tray_notifier_new(void)
{
        TrayNotifier *n = g_new0(TrayNotifier, 1);

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
        g_clear_object(&n->service);
        g_free(n);
}

static void show(NotifyNotification *notification)
{
        g_autoptr(GError) error = NULL;

        if (!notify_notification_show(notification, &error))
                g_debug("Cannot show a notification, ignoring: %s", error->message);
}

void tray_notifier_shock(TrayNotifier *n, double magnitude, const char *reason)
{
        gint64 now = g_get_monotonic_time();
        g_autofree char *body = NULL;

        if (n->last_shock_shown_usec != 0 &&
            now - n->last_shock_shown_usec < (gint64) TRAY_SHOCK_NOTIFY_INTERVAL_SEC * USEC_PER_SEC) {
                n->suppressed_shocks++;
                return;
        }

        if (n->suppressed_shocks > 0)
                body = g_strdup_printf(ngettext("%.2f g (%s), and %u more since the last alert.",
                                                "%.2f g (%s), and %u more since the last alert.",
                                                n->suppressed_shocks),
                                       magnitude, accel_shock_reason_words(reason), n->suppressed_shocks);
        else
                body = g_strdup_printf("%.2f g (%s).", magnitude, accel_shock_reason_words(reason));
        n->suppressed_shocks = 0;
        n->last_shock_shown_usec = now;

        if (!n->shock) {
                n->shock = notify_notification_new(_("Shock detected"), body, TRAY_ICON_SHOCK);
                notify_notification_set_urgency(n->shock, NOTIFY_URGENCY_CRITICAL);
                notify_notification_set_category(n->shock, "device");
        } else
                (void) notify_notification_update(n->shock, _("Shock detected"), body, TRAY_ICON_SHOCK);
        show(n->shock);
}

void tray_notifier_service(TrayNotifier *n, gboolean present, const char *bus_description)
{
        g_autofree char *body = NULL;
        const char *summary =
                present ? _("Accelerometer service is back") : _("Accelerometer service stopped");

        body = present ? g_strdup_printf(_("tpacceld is running again on the %s."), bus_description)
                       : g_strdup_printf(
                                 _("tpacceld left the %s; tilt and shock alerts are off until it returns."),
                                 bus_description);
        if (!n->service) {
                n->service = notify_notification_new(summary, body,
                                                     present ? TRAY_ICON_APP : TRAY_ICON_SERVICE_MISSING);
                notify_notification_set_category(n->service, "device");
        } else
                (void) notify_notification_update(n->service, summary, body,
                                                  present ? TRAY_ICON_APP : TRAY_ICON_SERVICE_MISSING);
        show(n->service);
}
