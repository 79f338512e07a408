/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpaccel-tray's context: follows tpacceld on the bus through the generated proxy (accel-client.h:
 * present or not, restarts, its properties and the signals shown), claims the accelerometer at the rate it
 * needs (TRAY_ICON_RATE_HZ for the animated icon, the full SamplingRate while the window is seen - shown,
 * mapped, not minimized, not on another workspace - or with watch_shocks, nothing otherwise), subscribes to
 * Sample signals (SubscribeSamples) only while the window is seen, and drives the
 * indicator, its menu, the window, the settings and notifications. */

#include <gtk/gtk.h>

#include "accel-bus.h"

typedef struct TrayApp TrayApp;

/* The animated icon's claim: a tilt shows on the icon within 1/4 s (plus the bus), well within the
 * half second a user notices, at a twelfth of the default SamplingRate's wakeups. */
#define TRAY_ICON_RATE_HZ 4

typedef struct TrayOptions {
        BusTarget target;
        char *address;
        gboolean show_window; /* open the window at start */
        gboolean animate_icon;
        gboolean watch_shocks;     /* hold a full-rate claim so that shocks are detected (more power) */
        char *icon_dir;            /* extra icon theme directory (uninstalled runs), NULL for none */
        gboolean symbolic_icons;   /* the panel wants NAME-symbolic icons (tray_icon_wants_symbolic()) */
        guint temperature_poll_ms; /* 0: every 5 s; tests set less ($TPACCEL_TRAY_TEMPERATURE_POLL_MS) */
        guint host_grace_ms;       /* 0: TRAY_HOST_GRACE_SEC; tests set less ($TPACCEL_TRAY_HOST_GRACE_MS) */
        /* 0: TRAY_SERVICE_NOTIFY_TIMEOUT_MS; tests set less ($TPACCEL_TRAY_SERVICE_NOTICE_MS) */
        guint service_notice_ms;
} TrayOptions;

/* Connects to the bus and starts following the service. NULL and *error if the bus is unreachable. */
TrayApp *tray_app_new(const TrayOptions *options, GError **error);
void tray_app_free(TrayApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayApp, tray_app_free)
