/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the method handlers of the face share beside the caller's uid (bus-creds.h) and polkit
 * (bus-polkit.h): the accelerometer a method needs, and saving a setter's change first. */

#include <systemd/sd-bus.h>

#include "state-file.h"

typedef struct BusFace BusFace;

/* For a method that needs the accelerometer: 0 when there is one, else sets error to
 * Error.NoAccelerometer with BackendReason (which says "no accelerometer: why") and returns its
 * negative errno. */
int bus_require_accelerometer(BusFace *f, sd_bus_error *error);
/* Writes next to the state file for a setter before it applies a change: on failure sets error to
 * Error.NotSaved naming the file and why, and the caller changes nothing. Returns 0 or -errno. */
int bus_save_config(BusFace *f, const StateConfig *next, sd_bus_error *error);
