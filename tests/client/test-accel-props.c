/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clients' property table (client/common/accel-props.c) against the interface XML, as the
 * generated proxy carries it: one row per property but deprecated aliases, in the XML's order, setters
 * that exist and take the property's type, and old key names that still resolve. */
#include <gio/gio.h>

#include "accel-generated.h"
#include "accel-props.h"
#include "test-helpers.h"

static gboolean is_deprecated(const GDBusPropertyInfo *info)
{
        const char *value =
                g_dbus_annotation_info_lookup(info->annotations, "org.freedesktop.DBus.Deprecated");
        return g_strcmp0(value, "true") == 0;
}

TEST(test_table_matches_xml)
{
        GDBusInterfaceInfo *iface = tpaccel_accelerometer_interface_info();
        size_t n, row = 0, deprecated = 0;
        const AccelProperty *table = accel_properties(&n);

        for (GDBusPropertyInfo **p = iface->properties; *p; p++) {
                if (is_deprecated(*p)) {
                        deprecated++;
                        for (size_t i = 0; i < n; i++)
                                CHECK(g_strcmp0(table[i].dbus_name, (*p)->name) != 0);
                        continue;
                }
                CHECK(row < n);
                if (row >= n)
                        break;
                CHECK_STREQ(table[row].dbus_name, (*p)->name);
                CHECK_STREQ(accel_property_signature(&table[row]), (*p)->signature);
                CHECK(accel_property_by_key(table[row].key) == &table[row]);
                row++;
        }
        CHECK_EQ(row, n);
        CHECK_EQ(deprecated, 1); /* Claimed, Polling's old name */
}

TEST(test_setters_take_the_property_type)
{
        GDBusInterfaceInfo *iface = tpaccel_accelerometer_interface_info();
        size_t n, settable = 0;
        const AccelProperty *table = accel_properties(&n);

        for (size_t i = 0; i < n; i++) {
                GDBusMethodInfo *method;

                if (!table[i].set_method)
                        continue;
                settable++;
                method = g_dbus_interface_info_lookup_method(iface, table[i].set_method);
                CHECK(method != NULL);
                if (!method)
                        continue;
                CHECK(method->in_args[0] != NULL);
                if (!method->in_args[0])
                        continue;
                CHECK(method->in_args[1] == NULL);
                CHECK_STREQ(method->in_args[0]->signature, accel_property_signature(&table[i]));
        }
        CHECK_EQ(settable, 9);
}

TEST(test_old_key_names)
{
        const AccelProperty *polling = accel_property_by_key("polling");

        CHECK(polling != NULL);
        if (!polling)
                return;
        CHECK_STREQ(polling->dbus_name, "Polling");
        CHECK(accel_property_by_key("claimed") == polling);
        CHECK(accel_property_by_key("Polling") == NULL);
        CHECK(accel_property_by_key("no-such-key") == NULL);
}

TEST(test_numbers_are_plain_decimal)
{
        const AccelProperty *sensitivity = accel_property_by_key("shock-sensitivity");
        const char *good[] = {"1", "0.5", "-0.5", "+2", "2.5e-1", ".5"};
        const char *bad[] = {"0x10", " 1", "1 ", "inf", "nan", "", "-", "1,5", "0x1p3", "1e"};

        CHECK(sensitivity != NULL);
        if (!sensitivity)
                return;
        for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
                char *argv[] = {(char *) good[i], NULL};
                g_autoptr(GError) error = NULL;
                g_autoptr(GVariant) v = accel_property_parse(sensitivity, argv, 1, &error);
                if (!v)
                        fprintf(stderr, "refused: '%s'\n", good[i]);
                CHECK(v != NULL);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                char *argv[] = {(char *) bad[i], NULL};
                g_autoptr(GError) error = NULL;
                g_autoptr(GVariant) v = accel_property_parse(sensitivity, argv, 1, &error);
                if (v)
                        fprintf(stderr, "accepted: '%s'\n", bad[i]);
                CHECK(v == NULL && error != NULL);
        }
}

/* A reading just below zero is shown as zero, not "-0.0". */
TEST(test_no_negative_zero_shown)
{
        char text[32];
        const AccelProperty *pitch = accel_property_by_key("pitch");
        g_autofree char *formatted = NULL;

        snprintf(text, sizeof(text), "%+.1f", accel_display_round(-0.04, 1));
        CHECK_STREQ(text, "+0.0");
        snprintf(text, sizeof(text), "%+.0f", accel_display_round(-0.4, 0));
        CHECK_STREQ(text, "+0");
        snprintf(text, sizeof(text), "%+.1f", accel_display_round(-0.06, 1));
        CHECK_STREQ(text, "-0.1");
        CHECK(pitch);
        formatted = accel_property_format(pitch, g_variant_new_double(-0.001), FALSE);
        CHECK_STREQ(formatted, "0.00");
}

/* Units as people write them: an angle's degree sign sticks to the number, every other unit is spaced. */
TEST(test_units_spaced_as_written)
{
        g_autofree char *angle =
                accel_property_format(accel_property_by_key("pitch"), g_variant_new_double(30), TRUE);
        g_autofree char *temperature =
                accel_property_format(accel_property_by_key("temperature"), g_variant_new_int32(38), TRUE);
        g_autofree char *rate = accel_property_format(accel_property_by_key("sampling-rate"),
                                                      g_variant_new_uint32(50), TRUE);

        CHECK_STREQ(angle, "30.00°");
        CHECK_STREQ(temperature, "38 °C");
        CHECK_STREQ(rate, "50 Hz");
}

/* An empty model is unknown (as diagnose and monitor say), other empty strings are "(none)". */
TEST(test_unknown_model)
{
        g_autofree char *model =
                accel_property_format(accel_property_by_key("model"), g_variant_new_string(""), TRUE);
        g_autofree char *error =
                accel_property_format(accel_property_by_key("last-error"), g_variant_new_string(""), TRUE);

        CHECK_STREQ(model, "unknown");
        CHECK_STREQ(error, "(none)");
}

int main(void)
{
        RUN(test_table_matches_xml);
        RUN(test_setters_take_the_property_type);
        RUN(test_old_key_names);
        RUN(test_numbers_are_plain_decimal);
        RUN(test_no_negative_zero_shown);
        RUN(test_units_spaced_as_written);
        RUN(test_unknown_model);
        return test_summary();
}
