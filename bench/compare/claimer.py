#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A long-lived claimer for compare-iio.py: one bus connection that subscribes, claims, and prints one
line per event with its CLOCK_MONOTONIC receipt time (time.monotonic() in the harness is the same
clock). Each line on its stdin makes it print "samples N" (tpacceld's Sample signals seen so far; 0
for iio), so the harness can count the readouts in its measuring window; it exits when stdin closes.

  claimer.py iio ADDRESS       net.hadess.SensorProxy: ClaimAccelerometer, PropertiesChanged on the
                               claiming connection (iio-sensor-proxy >= 3.1 unicasts to claimers)
  claimer.py tpacceld ADDRESS  org.thinkpad.Accelerometer: Claim, the Tilt signal, Sample counted

Output: "ready" once claimed; "event SECONDS VALUE" per orientation (iio) or Tilt (tpacceld, VALUE is
its orientation); "samples N" per line read from stdin."""

import sys
import time

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

PROXY = ('net.hadess.SensorProxy', '/net/hadess/SensorProxy', 'net.hadess.SensorProxy')
ACCEL = ('org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', 'org.thinkpad.Accelerometer')
CALL_TIMEOUT_MS = 10000


def emit(line):
    sys.stdout.write(line + '\n')
    sys.stdout.flush()


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('iio', 'tpacceld'):
        sys.exit('usage: claimer.py iio|tpacceld BUS_ADDRESS')
    kind, address = sys.argv[1], sys.argv[2]
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    con = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    loop = GLib.MainLoop()
    samples = [0]

    def on_properties_changed(_con, _sender, _path, _iface, _signal, params):
        iface, changed, _invalidated = params.unpack()
        if iface == PROXY[2] and 'AccelerometerOrientation' in changed:
            emit('event %.6f %s' % (time.monotonic(), changed['AccelerometerOrientation']))

    def on_tilt(_con, _sender, _path, _iface, _signal, params):
        emit('event %.6f %s' % (time.monotonic(), params.unpack()[2]))

    def on_sample(*_args):
        samples[0] += 1

    if kind == 'iio':
        name, path, iface = PROXY
        con.signal_subscribe(name, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', path, None,
                             Gio.DBusSignalFlags.NONE, on_properties_changed)
        claim = 'ClaimAccelerometer'
    else:
        name, path, iface = ACCEL
        con.signal_subscribe(name, iface, 'Tilt', path, None, Gio.DBusSignalFlags.NONE, on_tilt)
        con.signal_subscribe(name, iface, 'Sample', path, None, Gio.DBusSignalFlags.NONE, on_sample)
        con.call_sync(name, path, iface, 'SubscribeSamples', None, None, Gio.DBusCallFlags.NONE,
                      CALL_TIMEOUT_MS, None)
        claim = 'Claim'
    con.call_sync(name, path, iface, claim, None, None, Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS, None)
    emit('ready')

    def on_stdin(_fd, _cond):
        if not sys.stdin.readline():
            loop.quit()
            return False
        emit('samples %d' % samples[0])
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT,
                      GLib.IOCondition.IN | GLib.IOCondition.HUP | GLib.IOCondition.ERR, on_stdin)
    loop.run()


if __name__ == '__main__':
    main()
