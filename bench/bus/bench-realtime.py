#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What tpacceld's real-time priority costs normal processes under bus floods, and what it buys under
CPU hogs, side by side in one run: tpacceld on the emulator at SCHED_RR 1 (the unit's policy, with its
budget of bus work: service/bus/bus-pump.h) and at SCHED_OTHER.

Slowdown: tpacceld and a normal CPU-bound process (a counting loop at nice -10, and at SCHED_OTHER the
daemon too, so that other work on a shared machine weighs little) share core 0; the bus daemon and the
flood clients (tests/bus/bus-flood.py) are on core 1. The loop's count per second alone, divided
by its count under each flood, is its slowdown (1.0x: the flood costs it nothing); the daemon's CPU
share during the flood beside it. Floods:
  none    no flood: the control (the spread of the figure on this machine)
  churn   Claim/Release, ClaimAtRate/Release, AcquireStream/close, SubscribeSamples/Unsubscribe on 4
          connections
  busy    a busy bus daemon (2 connections pipelining Introspect, never reading) and Claim/Release churn
  big     two connections sending 1 MiB calls
Tick gaps: CPU hogs (stress-ng --cpu on every core, nice 0) while a 50 Hz claim reads its stream: the
poll period's p99 and longest gap, and readouts flagged missed.

  bench-realtime.py TPACCELD [--seconds S]    (default 8 per measurement)
Needs root (SCHED_RR, taskset). Not a test: it prints figures (docs/evidence/HARDENING.md, "Real-time
priority"); on a machine shared with other work, compare the two columns of one run, not runs."""

import argparse
import json
import os
import select
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchbus import NAME, PATH, IFACE, percentile, start_bus, stop_process, wait_for_name, write_bus_conf  # noqa: E402
from daemontest import Bus  # noqa: E402  (tests/lib, on the path through benchbus: GIO)

FLOOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'bus', 'bus-flood.py')
RECORD = struct.Struct('=QiiII')
FLAG_MISSED = 8
PYTHON = '/usr/bin/python3'
FLOODS = {
    'none': [],  # the control: how much two counts of the same machine differ with no flood
    'churn': [('churn', 'Claim'), ('churn', 'ClaimAtRate'), ('churn', 'AcquireStream'),
              ('churn', 'SubscribeSamples')],
    'busy': [('jam', '2'), ('churn', 'Claim')],
    'big': [('big', '1'), ('big', '1')],
}
# At SCHED_OTHER the daemon runs at the counter's nice value, -10: the weight of other work on a shared
# machine (nice 0 and above) is then a tenth or less, and the counter and the daemon share core 0 as two
# normal processes alone would.
NICE = ['nice', '-n', '-10']
VARIANTS = {'rr1': ['chrt', '--rr', '1'], 'other': NICE}
# The normal process: counts for SECONDS on core 0, prints the count per second.
COUNTER = ('import os, sys, time\nos.sched_setaffinity(0, {0})\nn, end = 0, time.monotonic() + float(sys.argv[1])\n'
           'while time.monotonic() < end:\n    for _ in range(10000): n += 1\nprint(n / float(sys.argv[1]))\n')


def count_rate(seconds):
    out = subprocess.run(NICE + [PYTHON, '-c', COUNTER, str(seconds)], check=True, capture_output=True,
                         text=True).stdout
    return float(out)


class Daemon:
    """A private bus (core 1) and tpacceld (core 0) under one scheduling variant."""

    def __init__(self, tpacceld, prefix, tmp):
        self.tmp = tmp
        conf = write_bus_conf(os.path.join(tmp, 'bus.conf'), 'unix:dir=' + tmp)
        self.bus_daemon, self.address = start_bus(conf, stderr=subprocess.DEVNULL)
        os.sched_setaffinity(self.bus_daemon.pid, {1})
        self.daemon = subprocess.Popen(['taskset', '-c', '0'] + prefix +
                                       [tpacceld, '--session', '--address=' + self.address, '--backend=sim',
                                        '--state-dir=' + tmp], stderr=subprocess.DEVNULL)
        self.bus = Bus(self.address)
        wait_for_name(self.bus, self.daemon)

    def flood(self, kind, seconds, stop):
        """Starts FLOODS[kind]'s clients on core 1 for seconds; returns their processes."""
        procs = []
        for i, (mode, arg) in enumerate(FLOODS[kind]):
            out = os.path.join(self.tmp, '%s-%d.json' % (kind, i))
            procs.append(subprocess.Popen(['taskset', '-c', '1', PYTHON, FLOOD, self.address, mode, arg,
                                           str(seconds), out, stop], stderr=subprocess.DEVNULL))
        return procs

    def watch(self, seconds):
        """A 50 Hz claim's stream for seconds: the gaps between readouts (ms) and the missed ones."""
        accel = self.bus.proxy(NAME, PATH, IFACE)
        accel.ClaimAtRate(50)
        fd, _ = accel.AcquireStream()
        times, missed, end = [], 0, time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.05)[0]:
                data = os.read(fd, RECORD.size)
                if len(data) == RECORD.size:
                    t, _, _, flags, _ = RECORD.unpack(data)
                    times.append(t)
                    missed += bool(flags & FLAG_MISSED)
        os.close(fd)
        accel.Release()
        gaps = [(b - a) / 1000 for a, b in zip(times, times[1:])]
        return gaps, missed

    def cpu_seconds(self):
        with open('/proc/%d/stat' % self.daemon.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')

    def stop(self):
        self.bus.close()
        stop_process(self.daemon)
        stop_process(self.bus_daemon)


def measure(tpacceld, prefix, seconds):
    figures = {}
    with tempfile.TemporaryDirectory(prefix='tpaccel-bench-rt.') as tmp:
        d = Daemon(tpacceld, prefix, tmp)
        try:
            for kind in FLOODS:
                base = count_rate(seconds)  # just before: other work on the machine changes it
                stop = os.path.join(tmp, 'stop-' + kind)
                procs = d.flood(kind, seconds + 3, stop)
                time.sleep(1.5)  # the flood under way
                cpu0 = d.cpu_seconds()
                rate = count_rate(seconds)
                cpu = d.cpu_seconds() - cpu0
                open(stop, 'w').close()
                for p in procs:
                    stop_process(p, timeout=40)
                figures[kind] = (base / rate, cpu / seconds)
            hogs = subprocess.Popen(['stress-ng', '--cpu', str(os.cpu_count()), '--cpu-method', 'int64', '--quiet'],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                time.sleep(1.0)
                gaps, missed = d.watch(seconds)
            finally:
                stop_process(hogs, timeout=10)
            figures['hogs'] = (percentile(gaps, 99), max(gaps), missed, len(gaps) + 1)
        finally:
            d.stop()
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('tpacceld')
    ap.add_argument('--seconds', type=float, default=8)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit('bench-realtime: needs root (SCHED_RR)')
    results = {v: measure(a.tpacceld, prefix, a.seconds) for v, prefix in VARIANTS.items()}
    print('bench-realtime: %g s per measurement, load average %.1f at the end' % (a.seconds, os.getloadavg()[0]))
    print('%-34s %22s %22s' % ('', 'SCHED_RR 1 (the unit)', 'SCHED_OTHER'))
    for kind in FLOODS:
        print('%-34s %22s %22s' % ('slowdown of a normal process, %s' % kind,
                                   *('%.2fx (daemon %2.0f%% CPU)' % (results[v][kind][0], 100 * results[v][kind][1])
                                     for v in VARIANTS)))
    print('%-34s %22s %22s' % ('CPU hogs: poll period p99 / max', *('%.1f / %.1f ms' % results[v]['hogs'][:2]
                                                                      for v in VARIANTS)))
    print('%-34s %22s %22s' % ('CPU hogs: readouts missed', *('%d of %d' % results[v]['hogs'][2:]
                                                              for v in VARIANTS)))
    print(json.dumps(results))


if __name__ == '__main__':
    main()
