#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A client of tpacceld's sample stream for the shell tests (test-real-polkitd.sh): calls AcquireStream()
on the system bus ($DBUS_SYSTEM_BUS_ADDRESS), as whoever runs it, and checks what the interface
documents (data/org.thinkpad.Accelerometer.xml): a SOCK_SEQPACKET AF_UNIX fd and record_size 24; each
read() one whole record { uint64 time_usec; int32 x, y; uint32 flags, reserved }; time_usec the
CLOCK_MONOTONIC time of the readout, strictly increasing, at about 1/SamplingRate apart; reserved 0; no
flag bit beyond bit 3; bit 3 (missed) not on the first record. Exits 1 naming what was wrong, 0 with
one summary line.
  stream-client.py [RECORDS]   (default 20)"""

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
RECORD = struct.Struct('=QiiII')  # the documented record, native endian
DOCUMENTED_RECORD_SIZE = 24
FLAGS_KNOWN = 0xF
FLAG_MISSED = 8
USEC_PER_SEC = 1000000
# The readouts' spacing may stray from 1/SamplingRate by this factor on a loaded machine, not more.
INTERVAL_SLACK = 2.0
# A record may predate the call by a readout already on its way: this much before the call is plausible.
BEFORE_CALL_USEC = USEC_PER_SEC


def fail(message):
    print('stream-client: FAIL: ' + message, file=sys.stderr)
    sys.exit(1)


def monotonic_usec():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def read_records(fd, count, timeout):
    """count records from fd, each read() exactly one; fails on EOF, a short read or the timeout."""
    records = []
    end = time.monotonic() + timeout
    while len(records) < count:
        left = end - time.monotonic()
        ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            fail('%d of %d records in %.1f s: the daemon sends nothing (or too little)' %
                 (len(records), count, timeout))
        data = os.read(fd, 4096)
        if not data:
            fail('the daemon closed the stream after %d records' % len(records))
        if len(data) != RECORD.size:
            fail('a read() returned %d bytes, not one %d-byte record' % (len(data), RECORD.size))
        records.append((monotonic_usec(), RECORD.unpack(data)))
    return records


def check_records(records, called_usec, rate):
    period_usec = USEC_PER_SEC / rate
    previous = None
    for i, (read_usec, (time_usec, x, y, flags, reserved)) in enumerate(records):
        if time_usec < called_usec - BEFORE_CALL_USEC or time_usec > read_usec:
            fail('record %d: time_usec %d is not a CLOCK_MONOTONIC time between the call (%d) and its read '
                 '(%d)' % (i, time_usec, called_usec, read_usec))
        if previous is not None and time_usec <= previous:
            fail('record %d: time_usec %d does not increase (previous %d)' % (i, time_usec, previous))
        if reserved != 0:
            fail('record %d: reserved is %d, not 0' % (i, reserved))
        if flags & ~FLAGS_KNOWN:
            fail('record %d: undocumented flag bits 0x%x' % (i, flags))
        if i == 0 and flags & FLAG_MISSED:
            fail('the first record has the missed flag')
        previous = time_usec
    times = [record[0] for _, record in records]
    intervals = [b - a for a, b in zip(times, times[1:])]
    mean_usec = sum(intervals) / len(intervals)
    if not period_usec / INTERVAL_SLACK <= mean_usec <= period_usec * INTERVAL_SLACK:
        fail('records %.1f ms apart on average, SamplingRate %u Hz wants %.1f ms' %
             (mean_usec / 1000, rate, period_usec / 1000))
    return mean_usec, min(intervals), max(intervals)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    if count < 2:
        fail('RECORDS must be at least 2, got %d' % count)
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    rate = bus.call_sync(NAME, PATH, 'org.freedesktop.DBus.Properties', 'Get',
                         GLib.Variant('(ss)', (IFACE, 'SamplingRate')), None, Gio.DBusCallFlags.NONE, -1,
                         None).unpack()[0]
    called_usec = monotonic_usec()
    try:
        reply, fds = bus.call_with_unix_fd_list_sync(NAME, PATH, IFACE, 'AcquireStream', None, None,
                                                     Gio.DBusCallFlags.NONE, -1, None, None)
    except GLib.Error as e:
        fail('AcquireStream refused: %s' % e.message)
    handle, size = reply.unpack()
    fd = fds.get(handle)
    del fds  # closes the list's own copy: the fd above is the only one
    if size != DOCUMENTED_RECORD_SIZE or size != RECORD.size:
        fail('record_size %d, the interface documents %d' % (size, DOCUMENTED_RECORD_SIZE))
    with socket.socket(fileno=os.dup(fd)) as s:
        if s.family != socket.AF_UNIX or s.type != socket.SOCK_SEQPACKET:
            fail('the fd is a %s %s socket, not AF_UNIX SOCK_SEQPACKET' % (s.family, s.type))
    records = read_records(fd, count, timeout=2 + 3 * count / rate)
    mean_usec, shortest_usec, longest_usec = check_records(records, called_usec, rate)
    os.close(fd)
    print('stream-client: uid %d: %d records of %d bytes at %u Hz, time_usec %d..%d, %.1f ms apart '
          '(%.1f..%.1f), flags %s' %
          (os.getuid(), count, size, rate, records[0][1][0], records[-1][1][0], mean_usec / 1000,
           shortest_usec / 1000, longest_usec / 1000, ','.join('%x' % r[3] for _, r in records)))


if __name__ == '__main__':
    main()
