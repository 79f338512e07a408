/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl --json's values (client/common/accel-json.c): the property types as JSON, and NaN and
 * infinity as null (JSON has neither; json-glib alone writes "nan.0"). */
#include <math.h>

#include "accel-json.h"

static char *to_json(GVariant *value, gboolean pretty)
{
        g_autoptr(GVariant) sunk = g_variant_ref_sink(value);
        g_autoptr(JsonNode) node = accel_json_from_variant(sunk);

        return accel_json_to_string(node, pretty);
}

static void check(const char *gvariant_text, const char *json)
{
        g_autoptr(GError) error = NULL;
        GVariant *value = g_variant_parse(NULL, gvariant_text, NULL, NULL, &error);
        g_autofree char *text = NULL;

        g_assert_no_error(error);
        text = to_json(value, FALSE);
        g_assert_cmpstr(text, ==, json);
}

static void test_types(void)
{
        check("true", "true");
        check("@u 4294967295", "4294967295");
        check("@i -7", "-7");
        check("@t 1733350000000000", "1733350000000000");
        check("@d 0.0", "0.0");
        check("@d 2.5", "2.5");
        check("'a\"b\\\\c\\n'", "\"a\\\"b\\\\c\\n\"");
        check("@(ii) (-3, 4)", "[-3,4]");
        check("@(dd) (1.5, -2.0)", "[1.5,-2.0]");
        check("@as ['sda', 'sdb']", "[\"sda\",\"sdb\"]");
        check("@as []", "[]");
        check("@ay [0x11, 0x00, 0xff]", "[17,0,255]");
        check("@a{sv} {'rate': <@u 50>, 'on': <true>}", "{\"rate\":50,\"on\":true}");
        check("@mi nothing", "null");
}

static void test_non_finite_is_null(void)
{
        g_autofree char *nan_text = to_json(g_variant_new_double(NAN), FALSE);
        g_autofree char *inf_text = to_json(g_variant_new_double(-INFINITY), FALSE);
        g_autofree char *tuple = to_json(g_variant_new("(dd)", NAN, 1.0), FALSE);
        GVariantBuilder b;
        g_autofree char *dict = NULL;

        g_assert_cmpstr(nan_text, ==, "null");
        g_assert_cmpstr(inf_text, ==, "null");
        g_assert_cmpstr(tuple, ==, "[null,1.0]");
        g_variant_builder_init(&b, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&b, "{sv}", "pitch", g_variant_new_double(NAN));
        dict = to_json(g_variant_builder_end(&b), FALSE);
        g_assert_cmpstr(dict, ==, "{\"pitch\":null}");
}

static void test_pretty(void)
{
        g_autofree char *text = to_json(g_variant_new("(ii)", 1, 2), TRUE);

        g_assert_cmpstr(text, ==, "[\n  1,\n  2\n]");
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/accel-json/types", test_types);
        g_test_add_func("/accel-json/non-finite-is-null", test_non_finite_is_null);
        g_test_add_func("/accel-json/pretty", test_pretty);
        return g_test_run();
}
