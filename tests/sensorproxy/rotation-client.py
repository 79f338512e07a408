#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A screen-rotation client written the way GNOME's mutter (meta-orientation-manager.c) uses
net.hadess.SensorProxy: watch the name on the system bus, build a GDBusProxy (flags NONE: GetAll and a
property cache), connect g-properties-changed, call ClaimAccelerometer, then Get AccelerometerOrientation
explicitly and patch the cache. Prints one line per event:
  appeared HasAccelerometer=true
  not claiming: no accelerometer     (HasAccelerometer false: mutter claims only when it is true)
  claimed: <orientation right after the Claim reply>
  orientation: <new orientation>      (from PropertiesChanged)
Usage: rotation-client.py SECONDS   (the system bus is $DBUS_SYSTEM_BUS_ADDRESS when set)"""
import sys

from gi.repository import Gio, GLib

NAME = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy"


def say(*args):
    print(*args, flush=True)


class Client:
    def __init__(self):
        self.proxy = None
        self.last = None
        Gio.bus_watch_name(Gio.BusType.SYSTEM, NAME, Gio.BusNameWatcherFlags.NONE, self.appeared, self.vanished)

    def appeared(self, connection, name, owner):
        Gio.DBusProxy.new(connection, Gio.DBusProxyFlags.NONE, None, NAME, PATH, NAME, None, self.proxy_ready)

    def vanished(self, connection, name):
        if self.proxy:
            say("vanished")
        self.proxy = None

    def proxy_ready(self, source, result):
        self.proxy = Gio.DBusProxy.new_finish(result)
        cached = self.proxy.get_cached_property("AccelerometerOrientation")
        self.last = cached.unpack() if cached else None
        has = self.proxy.get_cached_property("HasAccelerometer")
        say("appeared HasAccelerometer=%s" % ("true" if has and has.unpack() else "false"))
        self.proxy.connect("g-properties-changed", self.properties_changed)
        if not (has and has.unpack()):
            say("not claiming: no accelerometer")
            return
        self.proxy.call("ClaimAccelerometer", None, Gio.DBusCallFlags.NONE, -1, None, self.claimed)

    def claimed(self, proxy, result):
        proxy.call_finish(result)
        # mutter: "iio-sensor-proxy doesn't emit PropertiesChanged signals to clients which don't claim
        # the sensor", so it reads the value once after claiming and patches the cache.
        v = proxy.call_sync("org.freedesktop.DBus.Properties.Get",
                            GLib.Variant("(ss)", (NAME, "AccelerometerOrientation")),
                            Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        proxy.set_cached_property("AccelerometerOrientation", GLib.Variant("s", v))
        self.last = v
        say("claimed: %s" % v)

    def properties_changed(self, proxy, changed, invalidated):
        o = changed.unpack().get("AccelerometerOrientation")
        if o is not None and o != self.last:
            self.last = o
            say("orientation: %s" % o)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    loop = GLib.MainLoop()
    Client()
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
