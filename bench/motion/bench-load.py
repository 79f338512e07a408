#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Shock detection under CPU load: tpacceld on the emulator replays the desk-knock and
drop traces while CPU hogs (stress-ng --cpu, nice 0) keep every core busy, once per scheduling variant
of the daemon. A client holds a sample stream (a claim at the full SamplingRate, 50 Hz: the rate armed
disk protection polls at) and records every readout's time_usec and every Shock signal. Prints, per
variant and trace, the poll period's p50/p99/max (the gaps between consecutive readouts), the readouts
with the missed flag, and whether each shock the trace expects ("# expect: shock at_ms=T") was caught:
a Shock signal within [T, T + 0.5 s] of the trace's start. The floor (docs/evidence/BENCHMARKS.md): p99 <= 1.2x
the period and every event caught.

  bench-load.py TPACCELD [--hogs N] [--variants default,nice-5,...] [--runs R] [--floor-variant rr1]

Variants: "default" (nice 0, as the unit ran before), "nice-5" / "nice-10" (the unit's Nice=), "rr1"
(SCHED_RR priority 1, the unit's). Needs root for the negative nice values and SCHED_RR. Not a test: it
prints figures; its exit status is 1 when the unit's variant is below the floor."""

import argparse
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bus'))
from benchbus import (IFACE, NAME, PATH, percentile, start_bus, stop_process, wait_for_name,  # noqa: E402
                      write_bus_conf)
from daemontest import Bus, dispatch_pending  # noqa: E402  (tests/lib, on the path through benchbus: GIO)

TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'traces')
TRACE_NAMES = ('desk-knock.csv', 'drop-30cm.csv')
RECORD = struct.Struct('=QiiII')
FLAG_MISSED = 8
RATE_HZ = 50  # the default SamplingRate, the full rate of armed protection
LATE_SLACK_S = 0.5  # a trace event -> the readout reporting it (test_motion.py's bound)
FLOOR_P99_FACTOR = 1.2
VARIANTS = {
    'default': [],
    'nice-5': ['nice', '-n', '-5'],
    'nice-10': ['nice', '-n', '-10'],
    'nice-20': ['nice', '-n', '-20'],
    'rr1': ['chrt', '--rr', '1'],
}


def expected_shocks(path):
    """at_ms of each '# expect: shock at_ms=T' line, and the trace's duration in seconds."""
    at, last = [], 0.0
    with open(path) as f:
        for line in f:
            m = re.match(r'# expect: shock at_ms=(\d+)', line)
            if m:
                at.append(int(m.group(1)))
            elif line[:1].isdigit():
                last = float(line.split(',')[0])
    return at, last / 1000


def run_one(tpacceld, prefix, trace, hogs, tmp):
    """One replay under load; returns a dict of figures."""
    expect_ms, duration_s = expected_shocks(trace)
    conf = write_bus_conf(os.path.join(tmp, 'bus.conf'), 'unix:dir=' + tmp)
    procs = []
    try:
        hog = None
        if hogs > 0:
            hog = subprocess.Popen(['stress-ng', '--cpu', str(hogs), '--cpu-method', 'int64', '--quiet'],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(hog)
            time.sleep(1.0)  # the hogs running on every core before the daemon starts
        bus_daemon, address = start_bus(conf, stderr=subprocess.DEVNULL)
        procs.append(bus_daemon)
        bus = Bus(address)
        t0 = time.monotonic()
        daemon = subprocess.Popen(prefix + [tpacceld, '--session', '--address=' + address, '--backend=sim',
                                            '--trace=' + trace, '--state-dir=' + tmp],
                                  stderr=subprocess.DEVNULL)
        procs.append(daemon)
        wait_for_name(bus, daemon)
        t0_max = time.monotonic()
        shocks = []
        bus.subscribe_signal(lambda magnitude, time_usec, reason: shocks.append((time_usec / 1e6, reason)),
                             IFACE, 'Shock', path=PATH)
        accel = bus.proxy(NAME, PATH, IFACE)
        fd, _ = accel.AcquireStream()
        records = []
        end = t0_max + duration_s + 1.0
        while time.monotonic() < end:
            dispatch_pending()
            if select.select([fd], [], [], 0.05)[0]:
                data = os.read(fd, RECORD.size)
                if len(data) == RECORD.size:
                    records.append(RECORD.unpack(data))
        dispatch_pending()
        os.close(fd)
        bus.close()
        times = [r[0] for r in records]
        gaps = [(b - a) / 1000 for a, b in zip(times, times[1:])]
        caught = []
        for at_ms in expect_ms:
            lo, hi = t0 + at_ms / 1000, t0_max + at_ms / 1000 + LATE_SLACK_S
            caught.append(any(lo <= t <= hi for t, _ in shocks))
        return {'readouts': len(records), 'p50': percentile(gaps, 50), 'p99': percentile(gaps, 99),
                'max': max(gaps), 'missed': sum(1 for r in records if r[3] & FLAG_MISSED),
                'expected': len(expect_ms), 'caught': sum(caught), 'shocks': len(shocks),
                'load': os.getloadavg()[0]}
    finally:
        for p in reversed(procs):
            stop_process(p, timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('tpacceld')
    parser.add_argument('--hogs', type=int, default=(os.cpu_count() or 1) + 1,
                        help='CPU hogs (default: one per core and one more)')
    parser.add_argument('--variants', default='default,nice-5')
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--floor-variant', default='rr1',
                        help="the unit's variant: the exit status is 1 if it is below the floor")
    args = parser.parse_args()
    if not shutil.which('stress-ng') and args.hogs > 0:
        sys.exit('bench-load: stress-ng is not installed')
    period_ms = 1000 / RATE_HZ
    print('bench-load: %d CPU hogs on %d cores, poll period %.0f ms, floor p99 <= %.0f ms and every shock '
          'caught' % (args.hogs, os.cpu_count() or 1, period_ms, period_ms * FLOOR_P99_FACTOR))
    failed = False
    for variant in args.variants.split(','):
        for run in range(args.runs):
            for name in TRACE_NAMES:
                with tempfile.TemporaryDirectory(prefix='bench-load-') as tmp:
                    f = run_one(args.tpacceld, VARIANTS[variant], os.path.join(TRACES, name), args.hogs, tmp)
                ok = f['p99'] <= period_ms * FLOOR_P99_FACTOR and f['caught'] == f['expected']
                failed |= not ok and variant == args.floor_variant
                print('%s run %d %s: period p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d readouts, %d missed; '
                      'shocks caught %d of %d (%d signals); load %.1f; %s' %
                      (variant, run + 1, name, f['p50'], f['p99'], f['max'], f['readouts'], f['missed'],
                       f['caught'], f['expected'], f['shocks'], f['load'], 'ok' if ok else 'BELOW THE FLOOR'),
                      flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
