/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl --json's values (accel-json.h). */
#include <math.h>

#include "accel-json.h"

/* json-glib writes NaN as "nan.0": non-finite doubles become null, in place. */
static void null_non_finite(JsonNode *node)
{
        switch (json_node_get_node_type(node)) {
        case JSON_NODE_VALUE:
                if (json_node_get_value_type(node) == G_TYPE_DOUBLE && !isfinite(json_node_get_double(node)))
                        json_node_init_null(node);
                break;
        case JSON_NODE_ARRAY: {
                JsonArray *array = json_node_get_array(node);
                for (guint i = 0; i < json_array_get_length(array); i++)
                        null_non_finite(json_array_get_element(array, i));
                break;
        }
        case JSON_NODE_OBJECT: {
                JsonObjectIter iter;
                JsonNode *member;
                json_object_iter_init(&iter, json_node_get_object(node));
                while (json_object_iter_next(&iter, NULL, &member))
                        null_non_finite(member);
                break;
        }
        case JSON_NODE_NULL:
                break;
        }
}

JsonNode *accel_json_from_variant(GVariant *value)
{
        JsonNode *node = json_gvariant_serialize(value);

        null_non_finite(node);
        return node;
}

char *accel_json_to_string(JsonNode *node, gboolean pretty)
{
        g_autoptr(JsonGenerator) generator = json_generator_new();

        json_generator_set_root(generator, node);
        json_generator_set_pretty(generator, pretty);
        json_generator_set_indent(generator, 2);
        return json_generator_to_data(generator, NULL);
}
