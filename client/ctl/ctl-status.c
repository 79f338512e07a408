/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl status and get: reading properties. */
#include <stdio.h>

#include "accel-props.h"
#include "json-writer.h"
#include "ctl.h"

static GVariant *lookup(GVariant *props, const AccelProperty *prop)
{
        return g_variant_lookup_value(props, prop->dbus_name, G_VARIANT_TYPE(prop->signature));
}

static void print_json(GVariant *props)
{
        g_autoptr(GString) out = g_string_new("{");
        size_t n;
        const AccelProperty *table = accel_properties(&n);
        gboolean first = TRUE;

        for (size_t i = 0; i < n; i++) {
                g_autoptr(GVariant) value = lookup(props, &table[i]);
                if (!value)
                        continue;
                g_string_append(out, first ? "\n  " : ",\n  ");
                first = FALSE;
                json_append_string(out, table[i].key);
                g_string_append(out, ": ");
                json_append_variant(out, value);
        }
        g_string_append(out, "\n}\n");
        fputs(out->str, stdout);
}

static void print_human(GVariant *props)
{
        size_t n;
        const AccelProperty *table = accel_properties(&n);
        int width = 0;

        for (size_t i = 0; i < n; i++)
                width = MAX(width, (int) g_utf8_strlen(table[i].label, -1));

        for (size_t i = 0; i < n; i++) {
                g_autoptr(GVariant) value = lookup(props, &table[i]);
                g_autofree char *text = value ? accel_property_format(&table[i], value, TRUE)
                                              : g_strdup("(not provided by the service)");
                printf("%*s: %s\n", width, table[i].label, text);
        }
}

ExitStatus ctl_status(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) props = NULL;
        ExitStatus status;

        if (n_args > 0)
                return ctl_usage_error("status takes no arguments, got \"%s\"", args[0]);

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        props = ctl_get_all(ctl, &error);
        if (!props)
                return ctl_report_error(ctl, "cannot read the accelerometer's properties", error);

        if (ctl->json)
                print_json(props);
        else
                print_human(props);
        return EXIT_STATUS_OK;
}

ExitStatus ctl_get(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;
        g_autoptr(GVariant) value = NULL;
        const AccelProperty *prop;
        ExitStatus status;

        if (n_args != 1)
                return ctl_usage_error("get takes exactly one KEY (see 'tpaccelctl get --help')");
        prop = accel_property_by_key(args[0]);
        if (!prop)
                return ctl_usage_error("unknown key \"%s\" (see 'tpaccelctl get --help' for the keys)",
                                       args[0]);

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        reply = ctl_call(ctl, ACCEL_OBJECT, "org.freedesktop.DBus.Properties", "Get",
                         g_variant_new("(ss)", ACCEL_INTERFACE, prop->dbus_name), G_VARIANT_TYPE("(v)"),
                         &error);
        if (!reply) {
                g_autofree char *context = g_strdup_printf("cannot read %s", prop->key);
                return ctl_report_error(ctl, context, error);
        }
        g_variant_get(reply, "(v)", &value);
        if (!g_variant_is_of_type(value, G_VARIANT_TYPE(prop->signature))) {
                fprintf(stderr, "tpaccelctl: %s: the service sent type %s, expected %s\n", prop->key,
                        g_variant_get_type_string(value), prop->signature);
                return EXIT_STATUS_FAILURE;
        }

        if (ctl->json) {
                g_autoptr(GString) out = g_string_new(NULL);
                json_append_variant(out, value);
                printf("%s\n", out->str);
        } else {
                g_autofree char *text = accel_property_format(prop, value, FALSE);
                printf("%s\n", text);
        }
        return EXIT_STATUS_OK;
}
