/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Talking to tpacceld from a client: which bus, the well-known names, and turning D-Bus errors into
 * plain words and exit statuses. */

#include <gio/gio.h>

#define ACCEL_BUS_NAME   "org.thinkpad.Accelerometer"
#define ACCEL_OBJECT     "/org/thinkpad/Accelerometer"
#define ACCEL_INTERFACE  "org.thinkpad.Accelerometer"
#define EC_OBJECT        "/org/thinkpad/EmbeddedController"
#define EC_INTERFACE     "org.thinkpad.EmbeddedController"
#define ACCEL_ERROR_BASE "org.thinkpad.Accelerometer.Error."

/* How long a method call may take: polkit may prompt the user, so this is generous. */
#define ACCEL_CALL_TIMEOUT_MS (120 * 1000)

typedef enum BusTarget {
        BUS_TARGET_SYSTEM,
        BUS_TARGET_SESSION,
        BUS_TARGET_ADDRESS,
} BusTarget;

/* Exit statuses of tpaccelctl, documented in tpaccelctl(1). */
typedef enum ExitStatus {
        EXIT_STATUS_OK = 0,
        EXIT_STATUS_FAILURE = 1,         /* the service or the bus reported an error */
        EXIT_STATUS_USAGE = 2,           /* bad command line: unknown command or key, malformed value */
        EXIT_STATUS_DENIED = 3,          /* the service (polkit) refused the call */
        EXIT_STATUS_NO_SERVICE = 4,      /* tpacceld is not running, left the bus, or no bus to talk to */
        EXIT_STATUS_INVALID_VALUE = 5,   /* the service rejected a value as out of range */
        EXIT_STATUS_NO_ACCELEROMETER = 6 /* no accelerometer here, or the backend cannot do that */
} ExitStatus;

/* Connects to the chosen bus (address is used for BUS_TARGET_ADDRESS only). NULL and *error set on
 * failure. */
GDBusConnection *accel_bus_connect(BusTarget target, const char *address, GError **error);

/* A short description of the bus for messages: "system bus", "session bus", "bus at ADDR". */
char *accel_bus_describe(BusTarget target, const char *address);

/* True when the error says nobody owns (or can be started for) org.thinkpad.Accelerometer. */
gboolean accel_error_is_service_missing(const GError *error);

/* The D-Bus error turned into words plus the service's message, e.g. "Permission denied: ...".
 * bus_description names the bus in the "service missing" text. */
char *accel_error_describe(const GError *error, const char *bus_description);

/* The exit status that goes with an error. */
ExitStatus accel_error_exit_status(const GError *error);

/* What to tell a user when the service is missing: how to start it for this bus. */
char *accel_service_missing_hint(BusTarget target, const char *address);

/* What to tell a user when the bus itself cannot be reached (no dbus-daemon listening): there is no
 * bus to start tpacceld on, so "systemctl start tpacceld" would not help. */
char *accel_no_bus_hint(BusTarget target, const char *address);
