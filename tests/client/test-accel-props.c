/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clients' property table (client/common/accel-props.c) against the interface XML, as the
 * generated proxy carries it: one row per property but deprecated aliases, in the XML's order, setters
 * that exist and take the property's type, and old key names that still resolve. */
#include <gio/gio.h>

#include "accel-generated.h"
#include "accel-props.h"

static gboolean is_deprecated(const GDBusPropertyInfo *info)
{
        const char *value =
                g_dbus_annotation_info_lookup(info->annotations, "org.freedesktop.DBus.Deprecated");
        return g_strcmp0(value, "true") == 0;
}

static void test_table_matches_xml(void)
{
        GDBusInterfaceInfo *iface = tpaccel_accelerometer_interface_info();
        size_t n, row = 0, deprecated = 0;
        const AccelProperty *table = accel_properties(&n);

        for (GDBusPropertyInfo **p = iface->properties; *p; p++) {
                if (is_deprecated(*p)) {
                        deprecated++;
                        for (size_t i = 0; i < n; i++)
                                g_assert_cmpstr(table[i].dbus_name, !=, (*p)->name);
                        continue;
                }
                g_assert_cmpuint(row, <, n);
                g_assert_cmpstr(table[row].dbus_name, ==, (*p)->name);
                g_assert_cmpstr(accel_property_signature(&table[row]), ==, (*p)->signature);
                g_assert_true(accel_property_by_key(table[row].key) == &table[row]);
                row++;
        }
        g_assert_cmpuint(row, ==, n);
        g_assert_cmpuint(deprecated, ==, 1); /* Claimed, Polling's old name */
}

static void test_setters_take_the_property_type(void)
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
                g_assert_nonnull(method);
                g_assert_nonnull(method->in_args[0]);
                g_assert_null(method->in_args[1]);
                g_assert_cmpstr(method->in_args[0]->signature, ==, accel_property_signature(&table[i]));
        }
        g_assert_cmpuint(settable, ==, 9);
}

static void test_old_key_names(void)
{
        const AccelProperty *polling = accel_property_by_key("polling");

        g_assert_nonnull(polling);
        g_assert_cmpstr(polling->dbus_name, ==, "Polling");
        g_assert_true(accel_property_by_key("claimed") == polling);
        g_assert_null(accel_property_by_key("Polling"));
        g_assert_null(accel_property_by_key("no-such-key"));
}

int main(int argc, char **argv)
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/accel-props/table-matches-xml", test_table_matches_xml);
        g_test_add_func("/accel-props/setters-take-the-property-type", test_setters_take_the_property_type);
        g_test_add_func("/accel-props/old-key-names", test_old_key_names);
        return g_test_run();
}
