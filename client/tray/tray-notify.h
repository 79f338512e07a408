/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Desktop notifications of tpaccel-tray (org.freedesktop.Notifications on the session bus, every call
 * asynchronous: a notification server that is slow to start or hangs never holds up the tray). One for
 * shocks, one for parked disk heads, one for the service going away or coming back and one for a missing
 * tray host, each updated in place (replaces_id). Every one carries the "desktop-entry" hint
 * (TRAY_DESKTOP_ID), so that desktops name the application as its menu does. Shocks are news, not
 * alarms: normal urgency, a timeout (TRAY_SHOCK_NOTIFY_TIMEOUT_MS) and transient (not kept in the
 * server's history); only a park of the disk heads, where the machine did something, is critical.
 * "Service stopped" expires (TRAY_SERVICE_NOTIFY_TIMEOUT_MS) and "is back" replaces it, transient.
 * Shocks less than TRAY_SHOCK_BURST_GAP_SEC apart are one burst, shown as one notification updated in
 * place ("3 shocks in 6 s"); a shock after a quiet gap starts a new one. A missing notification daemon
 * is not an error: the failure is logged at debug level. */

#include <glib.h>

#define TRAY_SHOCK_BURST_GAP_SEC          10
#define TRAY_SHOCK_NOTIFY_TIMEOUT_MS      8000
#define TRAY_CALIBRATED_NOTIFY_TIMEOUT_MS 4000
#define TRAY_SERVICE_NOTIFY_TIMEOUT_MS    10000

typedef struct TrayNotifier TrayNotifier;

/* icon_dir: the directory holding hicolor/ when the icons are not installed (the demo), NULL when they
 * are: notification daemons get icon files from there, not names they cannot resolve. service_timeout_ms:
 * the service notices' timeout; 0: TRAY_SERVICE_NOTIFY_TIMEOUT_MS (tests only set less). */
TrayNotifier *tray_notifier_new(const char *icon_dir, guint service_timeout_ms);
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

/* No tray host shows the icon: summary and body say what is missing and what to do. Kept until the user
 * dismisses it. */
void tray_notifier_no_tray_host(TrayNotifier *n, const char *summary, const char *body);

/* The motion alarm's news (tray-alarm.h): the summary after an unlock, or why it cannot guard. */
void tray_notifier_alarm(TrayNotifier *n, const char *summary, const char *body);

/* The body of a burst's notification: count shocks over span_usec, the strongest of strongest_g and
 * the reason words of that one. Newly allocated. */
char *tray_notify_burst_text(unsigned count, gint64 span_usec, double strongest_g, const char *reason);
