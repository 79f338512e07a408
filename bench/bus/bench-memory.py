#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld's memory under hostile calls, the measurement behind the unit's MemoryMax=:
tpacceld on the emulator on a private bus (tests/lib/bus.conf.in, dbus-daemon's default 32 MiB message size
limit, as on the system bus). Prints VmRSS at rest, then VmHWM (peak) and VmRSS after each load:
  streams  16 clients holding AcquireStream() at 1000 Hz without reading, for 3 s
  one by one  CALLS Diagnose(s) calls with a STRING_MIB MiB string, each sent when the last was answered,
           while the claim polls at 50 Hz (the poll's small allocations between two big ones: the case
           that pinned a second big buffer in the heap before tpacceld fixed malloc's mmap threshold)
  flood    CONNECTIONS connections x CALLS calls in flight each, with a STRING_MIB MiB string argument:
           Diagnose(s), Properties.GetAll(s) and Properties.Get(ss) in turn (each refused with a short
           error), all at once, then again, ROUNDS times
  bench-memory.py TPACCELD [CONNECTIONS CALLS STRING_MIB ROUNDS]   (default 4 8 30 3)
Not a test: it prints figures (docs/evidence/HARDENING.md, "Memory")."""

import os
import sys
import tempfile
import time

from gi.repository import GLib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchbus import IFACE, NAME, PATH, start_bus_and_daemon, stop_bus_and_daemon  # noqa: E402
from daemontest import PROPERTIES_IFACE, Bus, error_message, error_name  # noqa: E402  (tests/lib: GIO)


def status_kb(pid, key):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1])
    return 0


def mib(kb):
    return '%.1f MiB' % (kb / 1024)


def flood(address, connections, calls, string_mib):
    big = 'x' * (string_mib << 20)
    conns = [Bus(address) for _ in range(connections)]
    pending = [0]
    loop = GLib.MainLoop()
    errors = {}

    def done(e=None):
        if e is not None:
            errors[error_name(e)] = len(error_message(e))
        pending[0] -= 1
        if pending[0] == 0:
            loop.quit()

    for i, conn in enumerate(conns):
        accel = conn.proxy(NAME, PATH, IFACE)
        props = conn.proxy(NAME, PATH, PROPERTIES_IFACE)
        for j in range(calls):
            pending[0] += 1
            kind = (i * calls + j) % 3
            kw = dict(reply_handler=lambda *a: done(), error_handler=done, timeout=120)
            if kind == 0:
                accel.Diagnose(big, **kw)
            elif kind == 1:
                props.GetAll(big, **kw)
            else:
                props.Get(IFACE, big, **kw)
    GLib.timeout_add_seconds(180, loop.quit)
    loop.run()
    for c in conns:
        c.close()
    return errors


def one_by_one(address, calls, string_mib):
    big = 'x' * (string_mib << 20)
    conn = Bus(address)
    accel = conn.proxy(NAME, PATH, IFACE)
    errors = {}
    for _ in range(calls):
        try:
            accel.Diagnose(big, timeout=120)
        except GLib.Error as e:
            errors[error_name(e)] = len(error_message(e))
    conn.close()
    return errors


def main():
    tpacceld = sys.argv[1]
    connections, calls, string_mib, rounds = (int(v) for v in (sys.argv[2:6] or ['4', '8', '30', '3']))
    with tempfile.TemporaryDirectory(prefix='bench-memory-') as tmp:
        bus_daemon, address, daemon, bus = start_bus_and_daemon(tpacceld, tmp)
        try:
            accel = bus.proxy(NAME, PATH, IFACE)
            accel.Claim()
            time.sleep(1)
            print('rest (one claim, 50 Hz): VmRSS %s, VmHWM %s' %
                  (mib(status_kb(daemon.pid, 'VmRSS')), mib(status_kb(daemon.pid, 'VmHWM'))))

            start = time.monotonic()
            errors = one_by_one(address, calls, string_mib)
            print('one by one (%d calls, %d MiB strings, %.1f s, polling at 50 Hz): VmHWM %s, VmRSS after %s; '
                  'errors (name: message length) %s' %
                  (calls, string_mib, time.monotonic() - start, mib(status_kb(daemon.pid, 'VmHWM')),
                   mib(status_kb(daemon.pid, 'VmRSS')),
                   ', '.join('%s: %d' % (k.rsplit('.', 1)[-1], v) for k, v in sorted(errors.items()))), flush=True)

            # Streams: clients that never read, at the highest rate.
            admin = bus.proxy(NAME, PATH, IFACE)
            admin.SetSamplingRate(1000)
            fds = []
            stream_conns = [Bus(address) for _ in range(16)]
            for c in stream_conns:
                fds.append(c.proxy(NAME, PATH, IFACE).AcquireStream()[0])
            time.sleep(3)
            print('streams (16 unread at 1000 Hz, 3 s): VmHWM %s, VmRSS %s' %
                  (mib(status_kb(daemon.pid, 'VmHWM')), mib(status_kb(daemon.pid, 'VmRSS'))))
            for c in stream_conns:
                c.close()
            for fd in fds:
                os.close(fd)
            admin.SetSamplingRate(50)

            for r in range(rounds):
                start = time.monotonic()
                errors = flood(address, connections, calls, string_mib)
                time.sleep(1)
                print('flood round %d (%d connections x %d calls, %d MiB strings, %.1f s): VmHWM %s, VmRSS after '
                      '%s; errors (name: message length) %s' %
                      (r + 1, connections, calls, string_mib, time.monotonic() - start,
                       mib(status_kb(daemon.pid, 'VmHWM')), mib(status_kb(daemon.pid, 'VmRSS')),
                       ', '.join('%s: %d' % (k.rsplit('.', 1)[-1], v) for k, v in sorted(errors.items()))),
                      flush=True)
            if daemon.poll() is not None:
                print('tpacceld exited with %d' % daemon.returncode)
                return 1
        finally:
            stop_bus_and_daemon(bus_daemon, daemon)
    return 0


if __name__ == '__main__':
    sys.exit(main())
