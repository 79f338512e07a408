/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The Settings dialog: sampling rate, filter order, invert and shock sensitivity. Every change calls
 * the service's polkit-guarded method (interactive authorization allowed); a refusal or error is
 * shown in the dialog and the control goes back to the service's value. Below them, the tray's own
 * motion alarm (tray-alarm.h): on or off and its volume, which need no service and stay sensitive. */

#include <gtk/gtk.h>

typedef struct TraySettings TraySettings;

typedef struct TraySettingsValues {
        guint sampling_rate;
        guint filter_order;
        double shock_sensitivity;
        gboolean invert;
} TraySettingsValues;

TraySettings *tray_settings_new(void);
void tray_settings_free(TraySettings *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TraySettings, tray_settings_free)

/* The bus to call on (NULL: none, the controls are insensitive). */
void tray_settings_set_bus(TraySettings *s, GDBusConnection *bus);

/* why: the settings cannot be changed now (the service is not running, there is no accelerometer):
 * the controls are insensitive and the dialog says why; NULL: they can. */
void tray_settings_set_unavailable(TraySettings *s, const char *why);

/* The service's current values (from properties). */
void tray_settings_set_values(TraySettings *s, const TraySettingsValues *values);

/* Shows the dialog (a fixed-size dialog: tiling compositors float it), on top of parent (NULL: none). */
void tray_settings_present(TraySettings *s, GtkWindow *parent);

typedef struct TraySettingsAlarmActions {
        void (*enabled_changed)(gboolean enabled, gpointer userdata);
        void (*volume_changed)(guint percent, gpointer userdata);
} TraySettingsAlarmActions;

/* Where the alarm's controls report the user's changes. */
void tray_settings_set_alarm_actions(TraySettings *s, const TraySettingsAlarmActions *actions,
                                     gpointer userdata);

/* The alarm's current choice; problem: why it cannot guard ("" or NULL: the usual explanation shows). */
void tray_settings_set_alarm(TraySettings *s, gboolean enabled, guint volume, const char *problem);

/* The error line currently shown, "" if none (for tests and logs). */
const char *tray_settings_get_error(TraySettings *s);
