/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* D-Bus error names of org.thinkpad.Accelerometer (documented in the interface XML). */
#define ACCEL_ERROR_BUSY             "org.thinkpad.Accelerometer.Error.Busy"
#define ACCEL_ERROR_HARDWARE         "org.thinkpad.Accelerometer.Error.HardwareError"
#define ACCEL_ERROR_NOT_SUPPORTED    "org.thinkpad.Accelerometer.Error.NotSupported"
#define ACCEL_ERROR_NO_ACCELEROMETER "org.thinkpad.Accelerometer.Error.NoAccelerometer"
#define ACCEL_ERROR_NOT_CLAIMED      "org.thinkpad.Accelerometer.Error.NotClaimed"
#define ACCEL_ERROR_NOT_SUBSCRIBED   "org.thinkpad.Accelerometer.Error.NotSubscribed"
#define ACCEL_ERROR_NOT_SAVED        "org.thinkpad.Accelerometer.Error.NotSaved"

#include <systemd/sd-bus.h>

#include "config.h"

typedef struct Backend Backend;
typedef struct Context Context;

/* Maps a change context_apply_config() refused to the D-Bus error of the part that refused it: NotSaved
 * naming the state file, the backend's error for a device setting (bus_error_from_backend()), the
 * errno's for motion processing, HardwareError for uinput, NotSupported or InvalidArgs with the reason
 * for the disks. Returns the negative errno sd-bus expects from a handler. */
int bus_error_from_config(sd_bus_error *error, Context *c, const ConfigError *e);

/* Maps a negative errno from the backend to a D-Bus error. what names the operation. */
int bus_error_from_errno(sd_bus_error *error, int r, const char *what);
/* The same for a backend's answer: -EOPNOTSUPP carries the backend's unsupported_reason when it has one. */
int bus_error_from_backend(sd_bus_error *error, Backend *b, int r, const char *what);
/* Registers the error names above with their errno (sd_bus_error_add_map()). Returns 0 or -errno. */
int bus_errors_register(void);
