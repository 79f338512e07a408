/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The org.thinkpad.Accelerometer properties as the clients name and show them: one table mapping
 * each kebab-case key to its D-Bus property, a label, a unit, and (for settable ones) the method that
 * changes it. The types come from the interface XML (the generated proxy's interface info);
 * test-accel-props checks that the table names every property of the XML but deprecated aliases. */

#include <glib.h>

typedef struct AccelProperty {
        const char *key;        /* kebab-case, as used by "tpaccelctl get/set" and in --json */
        const char *dbus_name;  /* the D-Bus property */
        const char *label;      /* human-readable label for "status" */
        const char *unit;       /* appended in "status", NULL if none */
        const char *set_method; /* the method that sets it, NULL if read-only */
        const char *help;       /* one line for --help and the man page */
        gboolean reading;       /* a readout of the sensor: there is none without an accelerometer */
        gboolean polled;        /* needs polling: while not polling it is as old as LastPolled */
} AccelProperty;

/* label and help are marked with N_(): show them through _(). */

/* The property's D-Bus type, from the interface XML. */
const char *accel_property_signature(const AccelProperty *prop);

/* All properties, in the order of the interface XML. */
const AccelProperty *accel_properties(size_t *ret_n);

/* Looks a key up (or a renamed key's old name, e.g. "claimed" for "polling"); NULL if unknown. */
const AccelProperty *accel_property_by_key(const char *key);

/* value rounded to decimals places for showing, a result of zero being +0: "%+.1f" of -0.04 would show
 * "-0.0", which reads as a reading below zero. */
double accel_display_round(double value, unsigned decimals);

/* The value as text: booleans "yes"/"no", pairs "x y", lists "a,b" ("none" if empty), times as
 * relative seconds where that is clearer. with_unit is for people ("status"): it appends the unit and
 * translates the words; without it ("get") the words stay English for scripts. */
char *accel_property_format(const AccelProperty *prop, GVariant *value, gboolean with_unit);

/* Parses the text a user typed for a settable property (argv may hold several words for lists) into
 * the method's argument tuple. NULL and *error (G_OPTION_ERROR_BAD_VALUE) naming the key and the
 * expected form when the text is malformed; ranges are left to the service. */
GVariant *accel_property_parse(const AccelProperty *prop, char **argv, int argc, GError **error);

/* Parses "yes/no/true/false/on/off/1/0". */
gboolean accel_parse_boolean(const char *text, gboolean *ret);
