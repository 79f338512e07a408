/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The org.thinkpad.Accelerometer object: its properties (read from the core, f->context) and methods
 * (parse, validate, authorize, then the core's functions). */

typedef struct BusFace BusFace;

/* Exports the object on f->bus with f as its userdata. Returns 0 or a negative errno (logged). */
int bus_accelerometer_register(BusFace *f);
