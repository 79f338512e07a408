#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The poll while the bus is slow: tpacceld at 50 Hz on the EC emulator, its readouts read from an
AcquireStream() fd (which does not go through the bus), while claims churn (each cycle a new connection:
Claim, Release, close; or SubscribeSamples, close), the bus slow in one of two ways:

  - delayed: tpacceld reaches the bus through tests/lib/slowbus.py, which sends each of the bus driver's
    answers DELAY seconds late (a bus driver slow to answer, deterministically);
  - busy: FLOODERS connections pipeline Introspect calls to tpacceld and never read their answers, which
    keeps dbus-daemon busy queueing them (the way issue reports made it slow).

Prints `name: value unit` lines per case: the longest gap between consecutive readouts (their time
stamps), the readouts, and the churn cycles done. At 50 Hz the gap is 20 ms when nothing stalls the loop.
Usage: bench-slow-bus.py PATH/TO/tpacceld [SECONDS] [DELAY] [FLOODERS]"""

import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

from benchbus import IFACE, NAME, PATH, TESTS_LIB, stop_process, wait_for_name
from daemontest import Bus
from privatebus import start_bus, write_bus_conf
from slowbus import SlowBus, _unix_path

RECORD = struct.Struct('=QiiII')
RATE_STEP = 20  # a flooder's calls per 10 ms

# The churn's own process: METHOD on a new connection each cycle (then Release for Claim), until killed;
# prints the cycles done on SIGTERM.
CHURN = r'''
import signal, sys
sys.path.insert(0, %r)
from daemontest import Bus
address, method = sys.argv[1], sys.argv[2]
n, errors = 0, {}
def done(*_):
    print(n, ' '.join(k + '=' + str(v) for k, v in errors.items()), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
while True:
    con = Bus(address)
    try:
        con.call(%r, %r, %r, method, timeout=60)
        if method == 'Claim':
            con.call(%r, %r, %r, 'Release', timeout=60)
        n += 1
    except Exception as e:
        key = str(e).split(':')[1] if ':' in str(e) else str(e)
        errors[key] = errors.get(key, 0) + 1
    con.close()
''' % (TESTS_LIB, NAME, PATH, IFACE, NAME, PATH, IFACE)


def _message(serial, dest, path, iface, member):
    """A method call without a body, little-endian."""
    fields = b''
    for code, sig, value in ((1, b'o', path), (2, b's', iface), (3, b's', member), (6, b's', dest)):
        fields += b'\0' * (-len(fields) % 8)
        v = value.encode()
        fields += bytes([code, 1]) + sig + b'\0' + struct.pack('<I', len(v)) + v + b'\0'
    head = b'l\x01\x00\x01' + struct.pack('<III', 0, serial, len(fields)) + fields
    return head + b'\0' * (-len(head) % 8)


def flooder(address):
    """A connection that pipelines Introspect calls to tpacceld and never reads (a child process)."""
    pid = os.fork()
    if pid:
        return pid
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(_unix_path(address))
        s.sendall(b'\0AUTH EXTERNAL ' + str(os.getuid()).encode().hex().encode() + b'\r\n')
        s.recv(4096)
        s.sendall(b'BEGIN\r\n')
        s.sendall(_message(1, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'Hello'))
        s.setblocking(False)
        serial = 2
        while True:
            try:
                s.send(_message(serial, NAME, PATH, 'org.freedesktop.DBus.Introspectable', 'Introspect'))
                serial += 1
                if serial % RATE_STEP == 0:
                    time.sleep(0.01)  # at most RATE_STEP calls per 10 ms: busy, not wedged
            except BlockingIOError:
                time.sleep(0.001)
    finally:
        os._exit(0)


def longest_gap(fd, seconds):
    stamps, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            data = os.read(fd, 4096)
            if not data:
                break
            stamps.append(RECORD.unpack(data)[0])
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    return (max(gaps) / 1000 if gaps else float('inf')), len(stamps)


def run_case(tpacceld, tmp, how, method, seconds, delay, flooders):
    conf = write_bus_conf(os.path.join(tmp, 'bus.conf'), 'unix:dir=' + tmp)
    bus_daemon, address = start_bus(conf, stderr=subprocess.DEVNULL)
    slow = SlowBus(address, tmp) if how == 'delayed' else None
    daemon = subprocess.Popen([tpacceld, '--address=' + (slow.address if slow else address), '--backend=sim',
                               '--sensor-proxy=no', '--state-dir=' + tmp], stderr=subprocess.DEVNULL)
    pids, churn = [], None
    try:
        bus = Bus(address)
        wait_for_name(bus, daemon)
        fd, _ = bus.call(NAME, PATH, IFACE, 'AcquireStream')
        if slow:
            slow.delay(delay)
        else:
            pids = [flooder(address) for _ in range(flooders)]
            time.sleep(1)  # the flood builds up
        churn = subprocess.Popen([sys.executable, '-c', CHURN, address, method], stdout=subprocess.PIPE, text=True)
        gap_ms, n = longest_gap(fd, seconds)
        churn.terminate()
        cycles = churn.communicate(timeout=90)[0].strip() or '?'
        os.close(fd)
        bus.close()
        label = '%s-%s' % (how, method)
        print('%s.longest_readout_gap: %.0f ms' % (label, gap_ms))
        print('%s.readouts: %d in %d s' % (label, n, seconds))
        print('%s.churn_cycles: %s' % (label, cycles), flush=True)
    finally:
        for pid in pids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        if churn and churn.poll() is None:
            churn.kill()
            churn.wait()
        if slow:
            slow.delay(0)
            slow.release()
        stop_process(daemon, timeout=30)
        if slow:
            slow.close()
        stop_process(bus_daemon)


def main():
    tpacceld = sys.argv[1]
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    delay = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    flooders = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    print('setup: 50 Hz, %d s per case, driver answers %.1f s late (delayed), %d Introspect flooders (busy)'
          % (seconds, delay, flooders))
    for how in sys.argv[5].split(',') if len(sys.argv) > 5 else ('delayed', 'busy'):
        for method in ('Claim', 'SubscribeSamples'):
            with tempfile.TemporaryDirectory(prefix='tpaccel-bench-slow-bus-') as tmp:
                run_case(tpacceld, tmp, how, method, seconds, delay, flooders)


if __name__ == '__main__':
    main()
