/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The project's D-Bus error names and the errno <-> name map. */

#include <errno.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-face.h"

static const sd_bus_error_map accel_error_map[] = {
        SD_BUS_ERROR_MAP(ACCEL_ERROR_BUSY, EBUSY),
        SD_BUS_ERROR_MAP(ACCEL_ERROR_HARDWARE, EIO),
        SD_BUS_ERROR_MAP(ACCEL_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(ACCEL_ERROR_NO_ACCELEROMETER, ENODEV),
        SD_BUS_ERROR_MAP(ACCEL_ERROR_NOT_CLAIMED, ENOLINK),
        SD_BUS_ERROR_MAP_END,
};

int bus_errors_register(void)
{
        int r = sd_bus_error_add_map(accel_error_map);
        return r < 0 ? r : 0;
}

int bus_error_from_errno(sd_bus_error *error, int r, const char *what)
{
        switch (r) {
        case -EINVAL:
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "%s: the EC refused the value as out of range", what);
        case -EBUSY:
                return sd_bus_error_setf(
                        error, ACCEL_ERROR_BUSY,
                        "%s: the EC is busy or a configuration change is pending; try again", what);
        case -EOPNOTSUPP:
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED,
                                         "%s: not supported by this backend", what);
        case -ENODEV:
                return sd_bus_error_setf(error, ACCEL_ERROR_NO_ACCELEROMETER,
                                         "%s: there is no accelerometer on this machine", what);
        case -ENOMEM:
                return sd_bus_error_set_errno(error, r);
        default:
                return sd_bus_error_setf(error, ACCEL_ERROR_HARDWARE,
                                         "%s: the EC answered off protocol (%s)", what, strerror(-r));
        }
}

int bus_error_from_backend(sd_bus_error *error, Backend *b, int r, const char *what)
{
        if (r == -EOPNOTSUPP && b && b->unsupported_reason)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED, "%s is not supported: %s", what,
                                         b->unsupported_reason);
        return bus_error_from_errno(error, r, what);
}

int bus_error_from_config(sd_bus_error *error, Context *c, const ConfigError *e)
{
        switch (e->part) {
        case CONFIG_PART_SAVE:
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SAVED,
                                         "The change was not made: cannot write the state file %s: %s",
                                         c->state_path, strerror(-e->error));
        case CONFIG_PART_DEVICE:
                return bus_error_from_backend(error, c->backend, e->error, e->setting);
        case CONFIG_PART_MOTION:
                return bus_error_from_errno(error, e->error, e->setting);
        case CONFIG_PART_INPUT_DEVICES:
                return sd_bus_error_setf(error, ACCEL_ERROR_HARDWARE,
                                         "Creating the hdaps input devices through uinput failed: %s",
                                         strerror(-e->error));
        case CONFIG_PART_DISKS:
                if (e->error == -EOPNOTSUPP)
                        return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SUPPORTED,
                                                 "Disk protection is not available");
                if (e->error == -ENOMEM)
                        return sd_bus_error_set_errno(error, e->error);
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s",
                                         e->message ?: strerror(-e->error));
        default:
                return sd_bus_error_set_errno(error, e->error);
        }
}
