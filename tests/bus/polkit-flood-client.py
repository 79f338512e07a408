#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One flooding client for test-polkit-flood.sh and test-bus-limits.sh: keeps IN_FLIGHT SetFilterOrder calls
in flight on each of CONNECTIONS connections (default 1) for SECONDS (each answer sends the next call),
then prints the answers counted by error name as JSON.
Usage: polkit-flood-client.py ADDRESS IN_FLIGHT SECONDS [CONNECTIONS]"""

import json
import sys

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

NAME = IFACE = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'
address, in_flight, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
connections = int(sys.argv[4]) if len(sys.argv) > 4 else 1
buses = [Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    for _ in range(connections)]
counts = {}
outstanding = [0]
stopping = [False]
loop = GLib.MainLoop()


def answered(bus, name):
    counts[name] = counts.get(name, 0) + 1
    outstanding[0] -= 1
    if stopping[0]:
        if outstanding[0] == 0:
            loop.quit()
    else:
        send(bus)


def done(bus, result):
    try:
        bus.call_finish(result)
        name = 'ok'
    except GLib.Error as e:
        name = Gio.DBusError.get_remote_error(e) or '%s:%d' % (e.domain, e.code)
    answered(bus, name)


def send(bus):
    outstanding[0] += 1
    bus.call(NAME, PATH, IFACE, 'SetFilterOrder', GLib.Variant('(u)', (3,)), None, Gio.DBusCallFlags.NONE,
             120000, None, done)


def stop():
    stopping[0] = True
    if outstanding[0] == 0:
        loop.quit()
    return False


for bus in buses:
    for _ in range(in_flight):
        send(bus)
GLib.timeout_add(int(seconds * 1000), stop)
GLib.timeout_add(int((seconds + 60) * 1000), loop.quit)  # never hang: unanswered calls stay counted
loop.run()
counts['unanswered'] = outstanding[0]
print(json.dumps(counts), flush=True)
