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

/* Calls opened(userdata) when the panel opens the indicator's menu: the dbusmenu root's about-to-show
 * or "opened" event (StatusNotifierItem panels), or the menu mapped (XEmbed fallback). Call after
 * app_indicator_set_menu(). Bursts (a panel may send both) are reported once. */
void tray_indicator_on_menu_opened(AppIndicator *indicator, void (*opened)(gpointer userdata),
                                   gpointer userdata);
