#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One flood of test-bus-limits.sh's `floods` check and of bench/bus/bench-realtime.py, as whoever runs
it, against the bus at ADDRESS, until the file STOP exists or SECONDS passed. Then it writes what it saw
as JSON to OUT (written whole, then renamed): the answers counted by error name ("ok" for success) and
what the mode adds.
  jam N        a busy bus daemon: N connections that pipeline Introspect calls to the bus daemon itself
               and never read a reply (the amplifier of a slow bus: dbus-daemon queues every reply)
  churn KIND   on one connection, KIND and its undo in a loop: Claim (Release), ClaimAtRate (Release),
               AcquireStream (the fd closed), SubscribeSamples (UnsubscribeSamples), ClaimAccelerometer
               (net.hadess.SensorProxy's ReleaseAccelerometer)
  big MIB      Diagnose calls with a MIB MiB string argument, one after the other (refused: too long)
  watch RATE   ClaimAtRate(RATE) and a sample stream read throughout: "records", "longest_gap_ms" between
               readouts, "missed" (records flagged missed), "last_ago_s" (how long before the end the last
               record came)
Usage: bus-flood.py ADDRESS MODE ARG SECONDS OUT STOP"""

import json
import os
import select
import socket
import struct
import sys
import time

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

NAME = IFACE = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'
PROXY_NAME = PROXY_IFACE = 'net.hadess.SensorProxy'
PROXY_PATH = '/net/hadess/SensorProxy'
RECORD = struct.Struct('=QiiII')  # AcquireStream's record (data/org.thinkpad.Accelerometer.xml)
FLAG_MISSED = 8
TIMEOUT_MS = 30000

address, mode, arg, seconds, out, stop = sys.argv[1:7]
end = time.monotonic() + float(seconds)
counts, messages, extra = {}, {}, {}


def going():
    return time.monotonic() < end and not os.path.exists(stop)


def count(name, message=None):
    counts[name] = counts.get(name, 0) + 1
    if message is not None:
        messages.setdefault(name, message)


def connect():
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)


def call(bus, method, args=None, name=NAME, path=PATH, iface=IFACE):
    """The reply and its fd list, or None after counting the error."""
    try:
        reply = bus.call_with_unix_fd_list_sync(name, path, iface, method, args, None, Gio.DBusCallFlags.NONE,
                                                TIMEOUT_MS, None, None)
        count('ok')
        return reply
    except GLib.Error as e:
        error = Gio.DBusError.get_remote_error(e) or '%s:%d' % (e.domain, e.code)
        count(error, e.message)
        return None


def field(code, sig, value):
    """One header field (a struct of byte and variant) of a little-endian D-Bus message."""
    text = value.encode()
    return struct.pack('<BB1sx', code, 1, sig.encode()) + struct.pack('<I', len(text)) + text + b'\0'


def method_call(serial, dest, path, iface, member):
    fields = b''
    for f in [field(1, 'o', path), field(2, 's', iface), field(3, 's', member), field(6, 's', dest)]:
        fields += b'\0' * (-len(fields) % 8) + f  # each struct 8-aligned; the array ends with the last
    header = struct.pack('<cBBBII', b'l', 1, 0, 1, 0, serial) + struct.pack('<I', len(fields)) + fields
    return header + b'\0' * (-len(header) % 8)


def raw_connection():
    """A connection that authenticated and said Hello, and will never read."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(address.split('unix:path=', 1)[1].split(',')[0])
    s.sendall(b'\0AUTH EXTERNAL ' + str(os.geteuid()).encode().hex().encode() + b'\r\n')
    if not s.recv(4096).startswith(b'OK'):
        sys.exit('bus-flood: the bus refused EXTERNAL authentication')
    s.sendall(b'BEGIN\r\n')
    s.sendall(method_call(1, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'Hello'))
    s.setblocking(False)
    return s


def jam(n):
    conns = [raw_connection() for _ in range(n)]
    serial, sent = 2, 0
    calls = b''.join(method_call(serial + i, 'org.freedesktop.DBus', '/org/freedesktop/DBus',
                                 'org.freedesktop.DBus.Introspectable', 'Introspect') for i in range(64))
    while going():
        writable = select.select([], conns, [], 0.1)[1]
        for s in writable:
            try:
                s.send(calls)  # serials repeat: the bus daemon answers each all the same
                sent += 64
            except BlockingIOError:
                pass
    extra['sent'] = sent
    conns.clear()


def churn(kind):
    bus = connect()
    undo = {'Claim': 'Release', 'ClaimAtRate': 'Release', 'SubscribeSamples': 'UnsubscribeSamples'}
    while going():
        if kind == 'ClaimAccelerometer':
            if call(bus, 'ClaimAccelerometer', name=PROXY_NAME, path=PROXY_PATH, iface=PROXY_IFACE):
                call(bus, 'ReleaseAccelerometer', name=PROXY_NAME, path=PROXY_PATH, iface=PROXY_IFACE)
        elif kind == 'AcquireStream':
            reply = call(bus, 'AcquireStream')
            if reply:
                for fd in reply[1].steal_fds():
                    os.close(fd)
        elif kind in undo:
            args = GLib.Variant('(u)', (10,)) if kind == 'ClaimAtRate' else None
            if call(bus, kind, args):
                call(bus, undo[kind])
        else:
            sys.exit('bus-flood: unknown churn ' + kind)


def big(mib):
    bus = connect()
    text = 'x' * (mib << 20)
    while going():
        call(bus, 'Diagnose', GLib.Variant('(s)', (text,)))


def watch(rate):
    bus = connect()
    if not call(bus, 'ClaimAtRate', GLib.Variant('(u)', (rate,))):
        sys.exit('bus-flood: ClaimAtRate(%d): %s' % (rate, messages))
    reply = call(bus, 'AcquireStream')
    if not reply:
        sys.exit('bus-flood: AcquireStream: %s' % messages)
    fd = reply[1].steal_fds()[0]
    records, missed, longest, last, last_seen = 0, 0, 0, None, time.monotonic()
    while going():
        if not select.select([fd], [], [], 0.1)[0]:
            continue
        data = os.read(fd, 4096)
        if not data:
            sys.exit('bus-flood: the daemon closed the stream')
        t, _, _, flags, _ = RECORD.unpack(data[:RECORD.size])
        records += 1
        missed += bool(flags & FLAG_MISSED)
        if last is not None:
            longest = max(longest, t - last)
        last, last_seen = t, time.monotonic()
    extra.update(records=records, missed=missed, longest_gap_ms=round(longest / 1000, 1),
                 last_ago_s=round(time.monotonic() - last_seen, 2))


{'jam': jam, 'churn': churn, 'big': big, 'watch': watch}[mode](arg if mode == 'churn' else int(arg))
with open(out + '.tmp', 'w') as f:
    json.dump(dict(counts=counts, messages=messages, **extra), f)
os.rename(out + '.tmp', out)
