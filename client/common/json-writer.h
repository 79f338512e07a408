/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Minimal JSON output for tpaccelctl --json: GVariant values as JSON. */

#include <glib.h>

/* Appends s as a JSON string literal (quoted, escaped). */
void json_append_string(GString *out, const char *s);

/* Appends value as JSON: booleans, numbers, strings; tuples and arrays as arrays; dictionaries
 * with string keys as objects; variants unwrapped. Non-finite doubles become null. */
void json_append_variant(GString *out, GVariant *value);
