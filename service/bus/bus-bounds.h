/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A filter bounding what sd-bus echoes of a caller's arguments by itself. */

typedef struct BusFace BusFace;

/* Refuses method calls with an object path, or a Properties call with an interface or property name,
 * longer than 255 characters (InvalidArgs/UnknownObject quoting 16), before sd-bus would echo it whole.
 * On f->bus. Returns 0 or a negative errno (logged). */
int bus_bounds_register(BusFace *f);
