#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One client of test-bus-limits.sh: opens CONNECTIONS connections to the bus at ADDRESS and makes
CALLS calls of METHOD (Claim, ClaimAtRate, AcquireStream or SubscribeSamples) on each, one after the other. Then it writes
the answers, counted by error name ("ok" for success), with the first message of each error name, as
JSON to OUT (written whole, then renamed), and holds everything (connections, stream fds, unread) until
the file STOP exists, at most HOLD seconds.
Usage: bus-limits-client.py ADDRESS METHOD CONNECTIONS CALLS HOLD OUT STOP"""

import json
import os
import time
import sys

import dbus

NAME = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'

address, method, connections, calls, hold, out, stop = sys.argv[1:8]
connections, calls, hold = int(connections), int(calls), float(hold)
counts, messages, held = {}, {}, []


def count(name, message=None):
    counts[name] = counts.get(name, 0) + 1
    if message is not None:
        messages.setdefault(name, message)


for _ in range(connections):
    try:
        bus = dbus.bus.BusConnection(address)
    except dbus.exceptions.DBusException as e:
        count('connect:' + e.get_dbus_name(), e.get_dbus_message())
        continue
    held.append(bus)
    accel = dbus.Interface(bus.get_object(NAME, PATH, introspect=False), NAME)
    for _ in range(calls):
        try:
            if method == 'Claim':
                accel.Claim(timeout=30)
            elif method == 'ClaimAtRate':
                accel.ClaimAtRate(dbus.UInt32(10), timeout=30)
            elif method == 'SubscribeSamples':
                accel.SubscribeSamples(timeout=30)
            elif method == 'AcquireStream':
                fd, _size = accel.AcquireStream(timeout=30)
                held.append(fd.take())
            else:
                sys.exit('unknown method ' + method)
            count('ok')
        except dbus.exceptions.DBusException as e:
            count(e.get_dbus_name(), e.get_dbus_message())

with open(out + '.tmp', 'w') as f:
    json.dump({'counts': counts, 'messages': messages}, f)
os.rename(out + '.tmp', out)
end = time.monotonic() + hold
while not os.path.exists(stop) and time.monotonic() < end:
    time.sleep(0.1)
