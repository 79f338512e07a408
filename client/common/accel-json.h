/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpaccelctl --json: GVariant values as JSON through json-glib (json_gvariant_serialize(): booleans,
 * numbers, strings; tuples and arrays as arrays; a{s*} as objects; variants unwrapped; a maybe without
 * a value as null). JSON has no NaN or infinity: a double that is not finite becomes null. */

#include <json-glib/json-glib.h>

/* value as a new JSON node (free it with json_node_unref()). */
JsonNode *accel_json_from_variant(GVariant *value);

/* node as JSON text: pretty (indented over lines) or on one line; no trailing newline. Free it. */
char *accel_json_to_string(JsonNode *node, gboolean pretty);
