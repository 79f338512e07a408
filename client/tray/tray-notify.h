/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Desktop notifications of tpaccel-tray (libnotify): one for shocks, one for parked disk heads and one
 * for the service going away or coming back, each updated in place. Shocks are news, not alarms:
 * normal urgency and a timeout (TRAY_SHOCK_NOTIFY_TIMEOUT_MS), so that they go away by themselves;
 * only a park of the disk heads, where the machine did something, is critical. Shocks less than
 * TRAY_SHOCK_BURST_GAP_SEC apart are one burst, shown as one notification updated in place ("3 shocks
 * in 6 s"); a shock after a quiet gap starts a new one. A missing notification daemon is not an error:
 * the failure is logged at debug level. */

#include <glib.h>

#define TRAY_SHOCK_BURST_GAP_SEC          10
#define TRAY_SHOCK_NOTIFY_TIMEOUT_MS      8000
#define TRAY_CALIBRATED_NOTIFY_TIMEOUT_MS 4000

typedef struct TrayNotifier TrayNotifier;

/* icon_dir: the directory holding hicolor/ when the icons are not installed (the demo), NULL when they
 * are: notification daemons get icon files from there, not names they cannot resolve. */
TrayNotifier *tray_notifier_new(const char *icon_dir);
void tray_notifier_free(TrayNotifier *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayNotifier, tray_notifier_free)

/* A Shock signal arrived, with the service's magnitude (g) and reason ("jolt", "drift", "freefall"). */
void tray_notifier_shock(TrayNotifier *n, double magnitude, const char *reason);

/* The disk heads of disks (a NULL-terminated list) were parked. */
void tray_notifier_heads_parked(TrayNotifier *n, const char *const *disks);

/* The service left (present FALSE) or came back (TRUE). */
void tray_notifier_service(TrayNotifier *n, gboolean present);

/* Calibrate (from the menu) succeeded. */
void tray_notifier_calibrated(TrayNotifier *n);

/* The motion alarm's news (tray-alarm.h): the summary after an unlock, or why it cannot guard. */
void tray_notifier_alarm(TrayNotifier *n, const char *summary, const char *body);

/* The body of a burst's notification: count shocks over span_usec, the strongest of strongest_g and
 * the reason words of that one. Newly allocated. */
char *tray_notify_burst_text(unsigned count, gint64 span_usec, double strongest_g, const char *reason);
