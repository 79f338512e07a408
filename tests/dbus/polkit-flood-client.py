#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One flooding client for test-polkit-flood.sh: keeps IN_FLIGHT SetFilterOrder calls in flight on one
connection for SECONDS (each answer sends the next call), then prints the answers counted by error name
as JSON. Usage: polkit-flood-client.py ADDRESS IN_FLIGHT SECONDS"""

import json
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
address, in_flight, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
bus = dbus.bus.BusConnection(address)
accel = dbus.Interface(bus.get_object('org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer',
                                      introspect=False), 'org.thinkpad.Accelerometer')
counts = {}
outstanding = [0]
stopping = [False]
loop = GLib.MainLoop()


def answered(name):
    counts[name] = counts.get(name, 0) + 1
    outstanding[0] -= 1
    if stopping[0]:
        if outstanding[0] == 0:
            loop.quit()
    else:
        send()


def send():
    outstanding[0] += 1
    accel.SetFilterOrder(dbus.UInt32(3), reply_handler=lambda: answered('ok'),
                         error_handler=lambda e: answered(e.get_dbus_name()), timeout=120)


def stop():
    stopping[0] = True
    if outstanding[0] == 0:
        loop.quit()
    return False


for _ in range(in_flight):
    send()
GLib.timeout_add(int(seconds * 1000), stop)
GLib.timeout_add(int((seconds + 60) * 1000), loop.quit)  # never hang: unanswered calls stay counted
loop.run()
counts['unanswered'] = outstanding[0]
print(json.dumps(counts), flush=True)
