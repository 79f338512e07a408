/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The tray's AppIndicator, with its own fallback for panels that have an XEmbed tray (trayer,
 * stalonetray) instead of a StatusNotifierWatcher, on X11 only (Wayland has no XEmbed).
 * libayatana-appindicator's fallback calls gtk_status_icon_set_name() on the icon it just made, which is
 * then embedded already: GTK unrealizes and re-realizes the icon's window while a frame is pending, and GDK
 * reports "gdk_window_thaw_toplevel_updates: assertion ... failed" at every start. Ours leaves the name out.
 */

#include <libayatana-appindicator/app-indicator.h>

/* How long no tray host must last before it is reported: a panel started with the session may come
 * seconds after the tray (a bar exec'd beside it on an old laptop's disk), an XEmbed tray embeds the icon
 * a moment after it is made, a panel restarts. Reported too early, the window would open at every login. */
#define TRAY_HOST_GRACE_SEC 10

/* A new indicator (category Hardware) showing icon_name, titled title. */
AppIndicator *tray_indicator_new(const char *id, const char *icon_name, const char *title);

/* Calls opened(userdata) when the panel opens the indicator's menu: the dbusmenu root's about-to-show
 * or "opened" event (StatusNotifierItem panels), or the menu mapped (XEmbed fallback). Call after
 * app_indicator_set_menu(). Bursts (a panel may send both) are reported once. */
void tray_indicator_on_menu_opened(AppIndicator *indicator, void (*opened)(gpointer userdata),
                                   gpointer userdata);

/* Calls changed(shown, userdata) with whether a tray host shows the icon, once it is known and then at
 * each change: a StatusNotifierWatcher on the session bus that says a host is registered
 * (IsStatusNotifierHostRegistered, and its StatusNotifierHost{,Un}Registered signals), or on X11 an
 * XEmbed tray that embedded the fallback icon. A host is reported at once, its absence after
 * grace_ms (0: TRAY_HOST_GRACE_SEC; tests only set less). Every bus call is asynchronous. changed NULL: no
 * more calls (before the indicator's user goes). */
void tray_indicator_on_host_changed(AppIndicator *indicator, guint grace_ms,
                                    void (*changed)(gboolean shown, gpointer userdata), gpointer userdata);
