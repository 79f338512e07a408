/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The indicator's menu: live readouts (tilt, orientation, temperature), then Animate icon, Watch for
 * shocks, Alarm when moved while locked, Calibrate, Settings, Show window and Quit, each forwarded to a
 * callback. */

#include <gtk/gtk.h>

typedef struct TrayMenuActions {
        void (*animate_toggled)(gboolean active, gpointer userdata);
        void (*watch_shocks_toggled)(gboolean active, gpointer userdata);
        void (*alarm_toggled)(gboolean active, gpointer userdata);
        void (*calibrate)(gpointer userdata);
        void (*settings)(gpointer userdata);
        void (*show_window)(gpointer userdata);
        void (*quit)(gpointer userdata);
} TrayMenuActions;

typedef struct TrayMenu TrayMenu;

/* boxed_toggles: show the toggles (Animate icon, Watch for shocks, the alarm) as plain items whose label
 * starts with a box, empty or ticked ("☐"/"☑"), for panels that draw a check item's state only when it is on
 * (GNOME Shell's AppIndicator extension): a user there sees that the option exists and is off. */
TrayMenu *tray_menu_new(const TrayMenuActions *actions, gpointer userdata, gboolean animate_icon,
                        gboolean watch_shocks, gboolean alarm, gboolean boxed_toggles);
void tray_menu_free(TrayMenu *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayMenu, tray_menu_free)

GtkMenu *tray_menu_get_menu(TrayMenu *m);

/* The readout lines, each cut to a sensible width (whole in its tooltip), hidden when empty; the actions
 * that need the service are insensitive while it is missing. */
void tray_menu_set_readouts(TrayMenu *m, const char *tilt, const char *orientation, const char *temperature);
void tray_menu_set_service_usable(TrayMenu *m, gboolean usable);

/* The alarm's toggle shows on, changed elsewhere (Settings); its callback is not called. */
void tray_menu_set_alarm(TrayMenu *m, gboolean on);

/* text cut to max_chars characters, the last one an ellipsis, when it is longer. */
char *tray_menu_ellipsize(const char *text, size_t max_chars);
