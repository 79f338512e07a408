/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The tray's motion alarm ("Alarm when moved while locked"): the user's choice (off by default) and volume,
 * kept between sessions in $XDG_CONFIG_HOME/tpaccel/tray.conf, and while it is on, the alarm running
 * (accel-alarm-run.h: armed while the session is locked, the movement claim only then). Off, nothing of it
 * runs: no logind watch, no claim. Its news (the summary after an unlock, a problem) are notifications. */

#include <gio/gio.h>

#include "tray-notify.h"

typedef struct TrayAlarm TrayAlarm;

/* Loads the choice (a file that cannot be read or parsed is logged once and the defaults taken). Runs
 * nothing until tray_alarm_set_bus(). notifier is borrowed and outlives it. */
TrayAlarm *tray_alarm_new(TrayNotifier *notifier);
void tray_alarm_free(TrayAlarm *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrayAlarm, tray_alarm_free)

/* tpacceld's bus; the alarm starts if it is on. */
void tray_alarm_set_bus(TrayAlarm *a, GDBusConnection *bus);

/* The user's choice, saved at once; on starts the alarm (when the bus is set), off stops it. */
void tray_alarm_set_enabled(TrayAlarm *a, gboolean enabled);
gboolean tray_alarm_get_enabled(TrayAlarm *a);

/* The volume in percent (ALARM_VOLUME_MIN..ALARM_VOLUME_MAX), saved at once. */
void tray_alarm_set_volume(TrayAlarm *a, guint percent);
guint tray_alarm_get_volume(TrayAlarm *a);

/* Why the alarm cannot guard now (no LockedHint, no movement claim), "" when it can or is off. */
const char *tray_alarm_get_problem(TrayAlarm *a);

/* Called after every change of the above (the menu and Settings show them). */
void tray_alarm_on_changed(TrayAlarm *a, void (*changed)(gpointer userdata), gpointer userdata);
