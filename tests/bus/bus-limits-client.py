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

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

NAME = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'
TIMEOUT_MS = 30000

address, method, connections, calls, hold, out, stop = sys.argv[1:8]
connections, calls, hold = int(connections), int(calls), float(hold)
counts, messages, held = {}, {}, []


def count(name, message=None):
    counts[name] = counts.get(name, 0) + 1
    if message is not None:
        messages.setdefault(name, message)


def error_name_message(e):
    """The D-Bus error name and message of a GLib.Error (GIO's domain:code for a local error)."""
    name = Gio.DBusError.get_remote_error(e)
    if not name:
        return '%s:%d' % (e.domain, e.code), e.message
    prefix = 'GDBus.Error:%s: ' % name
    return name, e.message[len(prefix):] if e.message.startswith(prefix) else e.message


for _ in range(connections):
    try:
        bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
    except GLib.Error as e:
        name, message = error_name_message(e)
        count('connect:' + name, message)
        continue
    held.append(bus)
    for _ in range(calls):
        try:
            if method not in ('Claim', 'ClaimAtRate', 'AcquireStream', 'SubscribeSamples'):
                sys.exit('unknown method ' + method)
            args = GLib.Variant('(u)', (10,)) if method == 'ClaimAtRate' else None
            reply, fds = bus.call_with_unix_fd_list_sync(NAME, PATH, NAME, method, args, None, Gio.DBusCallFlags.NONE,
                                                         TIMEOUT_MS, None, None)
            if method == 'AcquireStream':
                held.append(fds)  # the stream fd, held unread
            count('ok')
        except GLib.Error as e:
            count(*error_name_message(e))

with open(out + '.tmp', 'w') as f:
    json.dump({'counts': counts, 'messages': messages}, f)
os.rename(out + '.tmp', out)
end = time.monotonic() + hold
while not os.path.exists(stop) and time.monotonic() < end:
    time.sleep(0.1)
