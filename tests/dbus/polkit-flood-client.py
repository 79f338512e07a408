#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One flooding client for test-polkit-flood.sh and test-bus-limits.sh: keeps IN_FLIGHT SetFilterOrder calls
in flight on each of CONNECTIONS connections (default 1) for SECONDS (each answer sends the next call),
then prints the answers counted by error name as JSON.
Usage: polkit-flood-client.py ADDRESS IN_FLIGHT SECONDS [CONNECTIONS]"""

import json
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
address, in_flight, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
connections = int(sys.argv[4]) if len(sys.argv) > 4 else 1
accels = [dbus.Interface(dbus.bus.BusConnection(address).get_object(
    'org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', introspect=False), 'org.thinkpad.Accelerometer')
    for _ in range(connections)]
counts = {}
outstanding = [0]
stopping = [False]
loop = GLib.MainLoop()


def answered(accel, name):
    counts[name] = counts.get(name, 0) + 1
    outstanding[0] -= 1
    if stopping[0]:
        if outstanding[0] == 0:
            loop.quit()
    else:
        send(accel)


def send(accel):
    outstanding[0] += 1
    accel.SetFilterOrder(dbus.UInt32(3), reply_handler=lambda: answered(accel, 'ok'),
                         error_handler=lambda e: answered(accel, e.get_dbus_name()), timeout=120)


def stop():
    stopping[0] = True
    if outstanding[0] == 0:
        loop.quit()
    return False


for accel in accels:
    for _ in range(in_flight):
        send(accel)
GLib.timeout_add(int(seconds * 1000), stop)
GLib.timeout_add(int((seconds + 60) * 1000), loop.quit)  # never hang: unanswered calls stay counted
loop.run()
counts['unanswered'] = outstanding[0]
print(json.dumps(counts), flush=True)
