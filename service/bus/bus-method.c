/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the method handlers share (bus-method.h). */
#include <string.h>

#include "bus-errors.h"
#include "bus-face.h"
#include "bus-method.h"

int bus_require_accelerometer(BusFace *f, sd_bus_error *error)
{
        Context *c = f->context;

        if (c->has_accelerometer)
                return 0;
        return sd_bus_error_setf(error, ACCEL_ERROR_NO_ACCELEROMETER, "%s",
                                 c->backend_reason ?: "there is no accelerometer");
}

int bus_save_config(BusFace *f, const StateConfig *next, sd_bus_error *error)
{
        int r = context_save_config(f->context, next);
        if (r < 0)
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SAVED,
                                         "The change was not made: cannot write the state file %s: %s",
                                         f->context->state_path, strerror(-r));
        return 0;
}
