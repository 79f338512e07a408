/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "ctl.h"

ExitStatus ctl_connect(Ctl *ctl)
{
        g_autoptr(GError) error = NULL;

        if (ctl->bus)
                return EXIT_STATUS_OK;

        ctl->bus = accel_bus_connect(ctl->target, ctl->address, &error);
        if (!ctl->bus) {
                g_autofree char *hint = accel_service_missing_hint(ctl->target, ctl->address);
                fprintf(stderr, "tpaccelctl: cannot connect to the %s: %s\n", ctl->bus_description,
                        error->message);
                if (ctl->target == BUS_TARGET_SYSTEM)
                        fprintf(stderr, "tpaccelctl: %s\n", hint);
                return EXIT_STATUS_NO_SERVICE;
        }
        return EXIT_STATUS_OK;
}

GVariant *ctl_call(Ctl *ctl, const char *object, const char *interface, const char *method, GVariant *params,
                   const GVariantType *reply_type, GError **error)
{
        GDBusCallFlags flags = ctl->ask_password ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                                 : G_DBUS_CALL_FLAGS_NONE;

        return g_dbus_connection_call_sync(ctl->bus, ACCEL_BUS_NAME, object, interface, method, params,
                                           reply_type, flags, ACCEL_CALL_TIMEOUT_MS, /* cancellable= */ NULL,
                                           error);
}

GVariant *ctl_get_all(Ctl *ctl, GError **error)
{
        g_autoptr(GVariant) reply = NULL;
        GVariant *props;

        reply = ctl_call(ctl, ACCEL_OBJECT, "org.freedesktop.DBus.Properties", "GetAll",
                         g_variant_new("(s)", ACCEL_INTERFACE), G_VARIANT_TYPE("(a{sv})"), error);
        if (!reply)
                return NULL;
        g_variant_get(reply, "(@a{sv})", &props);
        return props;
}

ExitStatus ctl_report_error(Ctl *ctl, const char *context, const GError *error)
{
        g_autofree char *words = accel_error_describe(error, ctl->bus_description);

        if (accel_error_is_service_missing(error)) {
                g_autofree char *hint = accel_service_missing_hint(ctl->target, ctl->address);
                fprintf(stderr, "tpaccelctl: %s; %s\n", words, hint);
        } else
                fprintf(stderr, "tpaccelctl: %s: %s\n", context, words);
        return accel_error_exit_status(error);
}

ExitStatus ctl_usage_error(const char *format, ...)
{
        va_list ap;
        g_autofree char *message = NULL;

        va_start(ap, format);
        message = g_strdup_vprintf(format, ap);
        va_end(ap);
        fprintf(stderr, "tpaccelctl: %s\nTry 'tpaccelctl --help' for more information.\n", message);
        return EXIT_STATUS_USAGE;
}
