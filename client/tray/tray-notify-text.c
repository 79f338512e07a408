/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The words of tpaccel-tray's shock notifications (tray-notify.h), without libnotify: unit-tested. */
#include "accel-words.h"
#include "client-i18n.h"
#include "tray-notify.h"

char *tray_notify_burst_text(unsigned count, gint64 span_usec, double strongest_g, const char *reason)
{
        unsigned seconds = (unsigned) ((span_usec + G_USEC_PER_SEC / 2) / G_USEC_PER_SEC);

        if (count <= 1)
                /* TRANSLATORS: "Felt like a knock, 1.20 g." */
                return g_strdup_printf(_("Felt like %s, %.2f g."), accel_shock_reason_words(reason),
                                       strongest_g);
        if (seconds < 1)
                seconds = 1;
        return g_strdup_printf(
                /* TRANSLATORS: "3 shocks in 6 s; the strongest: a knock, 1.40 g." */
                ngettext("%u shocks in %u s; the strongest: %s, %.2f g.",
                         "%u shocks in %u s; the strongest: %s, %.2f g.", count),
                count, seconds, accel_shock_reason_words(reason), strongest_g);
}
