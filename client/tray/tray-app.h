/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpaccel-tray's context: follows tpacceld on the bus (present or not, restarts), caches its
 * properties, claims the accelerometer only while samples are needed (icon animation on, or the
 * window open), and drives the indicator, its menu, the window, the settings and notifications. */

#include <gtk/gtk.h>

#include "accel-bus.h"

typedef struct TrayApp TrayApp;

typedef struct TrayOptions {
        BusTarget target;
        char *address;
        gboolean show_window; /* open the window at start */
        gboolean animate_icon;
        char *icon_dir; /* extra icon theme directory (uninstalled runs), NULL for none */
} TrayOptions;

/* Connects to the bus and starts following the service. NULL and *error if the bus is unreachable. */
TrayApp *tray_app_new(const TrayOptions *options, GError **error);
void tray_app_free(TrayApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayApp, tray_app_free)
