/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The words of tpaccel-tray's shock notifications (tray-notify.h), without libnotify: unit-tested. */
#include "client-i18n.h"
#include "tray-notify.h"

const char *tray_notify_shock_words(const char *reason)
{
        /* The service's detector names (org.thinkpad.Accelerometer.xml, docs/MOTION.md); the same words
         * as accel_shock_reason_words() of branch i24-daemon, which can replace this once merged. */
        if (g_strcmp0(reason, "jolt") == 0)
                return _("a knock");
        if (g_strcmp0(reason, "drift") == 0)
                return _("a sudden movement");
        if (g_strcmp0(reason, "freefall") == 0)
                return _("a fall");
        return reason ? reason : "";
}

char *tray_notify_burst_text(unsigned count, gint64 span_usec, double strongest_g, const char *reason)
{
        unsigned seconds = (unsigned) ((span_usec + G_USEC_PER_SEC / 2) / G_USEC_PER_SEC);

        if (count <= 1)
                /* TRANSLATORS: "Felt like a knock, 1.20 g." */
                return g_strdup_printf(_("Felt like %s, %.2f g."), tray_notify_shock_words(reason),
                                       strongest_g);
        if (seconds < 1)
                seconds = 1;
        return g_strdup_printf(
                /* TRANSLATORS: "3 shocks in 6 s; the strongest: a knock, 1.40 g." */
                ngettext("%u shocks in %u s; the strongest: %s, %.2f g.",
                         "%u shocks in %u s; the strongest: %s, %.2f g.", count),
                count, seconds, tray_notify_shock_words(reason), strongest_g);
}
