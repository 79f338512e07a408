/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The org.thinkpad.Accelerometer object: its properties (read from the core, f->context) and methods
 * (parse, validate, authorize, then the core's functions). */

#include <systemd/sd-bus.h>

typedef struct BusFace BusFace;

/* Exports the object on f->bus with f as its userdata. Returns 0 or a negative errno (logged). */
int bus_accelerometer_register(BusFace *f);
/* The object's vtable (ends with SD_BUS_VTABLE_END), for tests/bus/test-change-table.c. */
const sd_bus_vtable *bus_accelerometer_vtable(void);
