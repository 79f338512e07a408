# SPDX-License-Identifier: GPL-2.0-or-later
"""dbusmock template: a StatusNotifierWatcher, the panel's side of the tray (KDE's, waybar's, GNOME's
AppIndicator extension's). Parameter "host" (default true): whether it says a host is registered
(IsStatusNotifierHostRegistered); a test sets the property and emits StatusNotifierHostRegistered when a
host comes. The methods exist before the mock answers its first call: a tray that sees the name appear
registers at once."""
import dbus

BUS_NAME = "org.kde.StatusNotifierWatcher"
MAIN_OBJ = "/StatusNotifierWatcher"
MAIN_IFACE = "org.kde.StatusNotifierWatcher"
SYSTEM_BUS = False


def load(mock, parameters):
    mock.AddMethod(MAIN_IFACE, "RegisterStatusNotifierItem", "s", "", "")
    mock.AddProperties(MAIN_IFACE, {
        "IsStatusNotifierHostRegistered": dbus.Boolean(parameters.get("host", True)),
        "ProtocolVersion": dbus.Int32(0),
        "RegisteredStatusNotifierItems": dbus.Array([], signature="s"),
    })
