/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "client-i18n.h"
#include "tray-refusal.h"

/* GLib 2.74 has no GDBusError for it. */
#define INTERACTIVE_AUTHORIZATION_REQUIRED "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

char *tray_refusal_describe(const GError *error)
{
        g_autofree char *name = g_dbus_error_get_remote_error(error);

        /* polkit wanted a password, and nobody could ask for it: no authentication agent runs. */
        if (g_strcmp0(name, INTERACTIVE_AUTHORIZATION_REQUIRED) == 0)
                return g_strdup(_("Not changed: this needs an administrator's password, and no password "
                                  "prompt could be shown (your desktop's authentication agent is not "
                                  "running). Start it, or change the setting in a terminal with "
                                  "\"tpaccelctl set\", which asks for the password there."));
        /* polkit said no: the password was wrong or cancelled, or the policy does not allow it. */
        if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
                return g_strdup(_("Not changed: you are not allowed to change the accelerometer's "
                                  "settings. Enter an administrator's password when asked, or ask an "
                                  "administrator to change it."));
        return NULL;
}
