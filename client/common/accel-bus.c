/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "accel-bus.h"
#include "config.h"
#include "client-i18n.h"

typedef struct ErrorWords {
        const char *dbus_name;
        const char *words;
        ExitStatus status;
} ErrorWords;

static const ErrorWords error_words[] = {
        {"org.freedesktop.DBus.Error.AccessDenied", N_("Permission denied"), EXIT_STATUS_DENIED},
        {"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
         N_("Permission denied (authorization required)"), EXIT_STATUS_DENIED},
        {"org.freedesktop.DBus.Error.AuthFailed", N_("Permission denied"), EXIT_STATUS_DENIED},
        {"org.freedesktop.DBus.Error.InvalidArgs", N_("Invalid value"), EXIT_STATUS_INVALID_VALUE},
        {"org.freedesktop.DBus.Error.NotSupported", N_("Not supported"), EXIT_STATUS_NO_ACCELEROMETER},
        {"org.freedesktop.DBus.Error.FileNotFound", N_("Not found"), EXIT_STATUS_FAILURE},
        {"org.freedesktop.DBus.Error.NoReply", N_("The service did not answer"), EXIT_STATUS_FAILURE},
        {"org.freedesktop.DBus.Error.Timeout", N_("The service did not answer"), EXIT_STATUS_FAILURE},
        {"org.freedesktop.DBus.Error.UnknownMethod",
         N_("The service does not know this call (is it too old?)"), EXIT_STATUS_FAILURE},
        {"org.freedesktop.DBus.Error.UnknownProperty",
         N_("The service does not know this property (is it too old?)"), EXIT_STATUS_FAILURE},
        {ACCEL_ERROR_BASE "Busy", N_("The accelerometer is busy"), EXIT_STATUS_FAILURE},
        {ACCEL_ERROR_BASE "HardwareError", N_("Hardware error"), EXIT_STATUS_FAILURE},
        {ACCEL_ERROR_BASE "NotSupported", N_("Not supported by this backend"), EXIT_STATUS_NO_ACCELEROMETER},
        {ACCEL_ERROR_BASE "NoAccelerometer", N_("No accelerometer"), EXIT_STATUS_NO_ACCELEROMETER},
        {ACCEL_ERROR_BASE "NotClaimed", N_("Not claimed"), EXIT_STATUS_FAILURE},
};

static const char *const service_missing_errors[] = {
        "org.freedesktop.DBus.Error.ServiceUnknown",        "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Spawn.ServiceNotFound", "org.freedesktop.DBus.Error.Spawn.ChildExited",
        "org.freedesktop.DBus.Error.Disconnected",
};

GDBusConnection *accel_bus_connect(BusTarget target, const char *address, GError **error)
{
        switch (target) {
        case BUS_TARGET_SYSTEM:
                return g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, error);
        case BUS_TARGET_SESSION:
                return g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, error);
        case BUS_TARGET_ADDRESS:
                return g_dbus_connection_new_for_address_sync(
                        address,
                        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                        /* observer= */ NULL, /* cancellable= */ NULL, error);
        }
        g_assert_not_reached();
}

char *accel_bus_describe(BusTarget target, const char *address)
{
        switch (target) {
        case BUS_TARGET_SYSTEM:
                return g_strdup(_("system bus"));
        case BUS_TARGET_SESSION:
                return g_strdup(_("session bus"));
        case BUS_TARGET_ADDRESS:
                return g_strdup_printf(_("bus at %s"), address);
        }
        g_assert_not_reached();
}

static const ErrorWords *error_words_find(const char *dbus_name)
{
        if (!dbus_name)
                return NULL;
        for (size_t i = 0; i < G_N_ELEMENTS(error_words); i++)
                if (g_str_equal(error_words[i].dbus_name, dbus_name))
                        return &error_words[i];
        return NULL;
}

gboolean accel_error_is_service_missing(const GError *error)
{
        g_autofree char *name = NULL;

        if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
            g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
            g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CLOSED))
                return TRUE;

        name = g_dbus_error_get_remote_error(error);
        if (!name)
                return FALSE;
        for (size_t i = 0; i < G_N_ELEMENTS(service_missing_errors); i++)
                if (g_str_equal(service_missing_errors[i], name))
                        return TRUE;
        return FALSE;
}

char *accel_error_describe(const GError *error, const char *bus_description)
{
        g_autofree char *name = NULL;
        g_autoptr(GError) stripped = NULL;
        const ErrorWords *words;

        if (accel_error_is_service_missing(error))
                return g_strdup_printf(_("tpacceld is not running on the %s"), bus_description);

        name = g_dbus_error_get_remote_error(error);
        stripped = g_error_copy(error);
        g_dbus_error_strip_remote_error(stripped);
        g_strchomp(stripped->message);

        words = error_words_find(name);
        /* The service's message often says the same already ("no accelerometer: ..."): say it once. */
        if (words && !g_ascii_strncasecmp(stripped->message, words->words, strlen(words->words)))
                return g_strdup(stripped->message);
        if (words)
                return g_strdup_printf("%s: %s", _(words->words), stripped->message);
        if (name)
                return g_strdup_printf("%s (%s)", stripped->message, name);
        return g_strdup(stripped->message);
}

ExitStatus accel_error_exit_status(const GError *error)
{
        g_autofree char *name = NULL;
        const ErrorWords *words;

        if (accel_error_is_service_missing(error))
                return EXIT_STATUS_NO_SERVICE;
        if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
                return EXIT_STATUS_DENIED;
        if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS))
                return EXIT_STATUS_INVALID_VALUE;

        name = g_dbus_error_get_remote_error(error);
        words = error_words_find(name);
        return words ? words->status : EXIT_STATUS_FAILURE;
}

char *accel_service_missing_hint(BusTarget target, const char *address)
{
        switch (target) {
        case BUS_TARGET_SYSTEM:
                return g_strdup_printf(
                        _("start it with: systemctl start tpacceld, or try the demo on the "
                          "session bus: %s --session --backend=sim & tpaccelctl --session status"),
                        TPACCELD_PATH);
        case BUS_TARGET_SESSION:
                return g_strdup_printf(_("start the demo with: %s --session --backend=sim &"),
                                       TPACCELD_PATH);
        case BUS_TARGET_ADDRESS:
                return g_strdup_printf(_("start it with: %s --address=%s --backend=sim &"), TPACCELD_PATH,
                                       address);
        }
        g_assert_not_reached();
}

char *accel_no_bus_hint(BusTarget target, const char *address)
{
        switch (target) {
        case BUS_TARGET_SYSTEM:
                return g_strdup_printf(
                        _("there is no D-Bus system bus on this machine (is dbus installed and "
                          "running? systemctl start dbus); tpacceld serves on it. Without one, "
                          "try the demo on a session bus: dbus-run-session sh -c '%s --session "
                          "--backend=sim & sleep 1; tpaccelctl --session status'"),
                        TPACCELD_PATH);
        case BUS_TARGET_SESSION:
                return g_strdup_printf(
                        _("there is no session bus here (DBUS_SESSION_BUS_ADDRESS); run the demo "
                          "inside one: dbus-run-session sh -c '%s --session --backend=sim & "
                          "sleep 1; tpaccelctl --session status'"),
                        TPACCELD_PATH);
        case BUS_TARGET_ADDRESS:
                return g_strdup_printf(_("nothing listens at %s: start a bus there (dbus-daemon "
                                         "--address=%s) and %s --address=%s on it"),
                                       address, address, TPACCELD_PATH, address);
        }
        g_assert_not_reached();
}
