/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The tray's AppIndicator, with its own fallback for panels that have an XEmbed tray (trayer,
 * stalonetray) instead of a StatusNotifierWatcher. libayatana-appindicator's fallback calls
 * gtk_status_icon_set_name() on the icon it just made, which is then embedded already: GTK unrealizes
 * and re-realizes the icon's window while a frame is pending, and GDK reports
 * "gdk_window_thaw_toplevel_updates: assertion ... failed" at every start. Ours leaves the name out. */

#include <libayatana-appindicator/app-indicator.h>

/* A new indicator (category Hardware) showing icon_name, titled title. */
AppIndicator *tray_indicator_new(const char *id, const char *icon_name, const char *title);
