/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Desktop notifications of tpaccel-tray (libnotify): one notification, updated in place, for shocks
 * (at most one per TRAY_SHOCK_NOTIFY_INTERVAL_SEC), and one for the service going away or coming back.
 * A missing notification daemon is not an error: the failure is logged at debug level. */

#include <glib.h>

#define TRAY_SHOCK_NOTIFY_INTERVAL_SEC 10

typedef struct TrayNotifier TrayNotifier;

TrayNotifier *tray_notifier_new(void);
void tray_notifier_free(TrayNotifier *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayNotifier, tray_notifier_free)

/* A Shock signal arrived. Shown unless one was shown less than the interval ago (then counted and
 * mentioned in the next one). */
void tray_notifier_shock(TrayNotifier *n, double magnitude, const char *reason);

/* The service left (present FALSE) or came back (TRUE). */
void tray_notifier_service(TrayNotifier *n, gboolean present, const char *bus_description);
