#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The cost of a claim storm: tpacceld on the EC emulator on a private bus; one connection
sends CALLS Claim calls, 64 in flight (the bound grants it 16, the rest is LimitsExceeded), while
another connection measures Properties.Get round trips. Before the bound, 100k claims cost 7.9 s of
daemon CPU and Get p50 went from 0.85 ms to 21 ms. Prints `name: value unit` lines: the answers, the
daemon's CPU per Claim call, Get p50/p99 alone and during the storm, the daemon's RSS after it.
Usage: bench-claims.py PATH/TO/tpacceld [CALLS]"""

import json
import subprocess
import sys
import tempfile
import time

from benchbus import IFACE, NAME, PATH, TESTS_LIB, cpu_seconds, percentile, start_bus_and_daemon, stop_bus_and_daemon
from daemontest import PROPERTIES_IFACE  # tests/lib (benchbus puts it on the path)

# The storm's own process: Claim calls from one connection, 64 in flight, each answer sending the next;
# prints {answer: count} (the D-Bus error name, or 'ok') as JSON.
STORM = r'''
import json, sys
sys.path.insert(0, %r)
from daemontest import Bus, error_name
from gi.repository import GLib
address, total = sys.argv[1], int(sys.argv[2])
accel = Bus(address).proxy(%r, %r, %r)
counts, state = {}, {'sent': 0, 'answered': 0}
loop = GLib.MainLoop()
def answered(name):
    counts[name] = counts.get(name, 0) + 1
    state['answered'] += 1
    if state['sent'] < total:
        send()
    elif state['answered'] == total:
        loop.quit()
def send():
    state['sent'] += 1
    accel.Claim(reply_handler=lambda: answered('ok'), error_handler=lambda e: answered(error_name(e)),
                timeout=120)
for _ in range(min(64, total)):
    send()
loop.run()
print(json.dumps(counts), flush=True)
''' % (TESTS_LIB, NAME, PATH, IFACE)


def rss_kb(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return -1


def get_latencies(props, until=None, count=None):
    values = []
    while (until is None or time.monotonic() < until()) and (count is None or len(values) < count):
        t0 = time.monotonic()
        props.Get(IFACE, 'SamplingRate')
        values.append((time.monotonic() - t0) * 1e6)
    return values


def main():
    tpacceld = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    tmp = tempfile.mkdtemp(prefix='tpaccel-bench-claims-')
    bus_daemon, address, daemon, bus = start_bus_and_daemon(tpacceld, tmp)
    try:
        props = bus.proxy(NAME, PATH, PROPERTIES_IFACE)
        alone = get_latencies(props, count=2000)

        cpu0 = cpu_seconds(daemon.pid)
        storm = subprocess.Popen([sys.executable, '-c', STORM, address, str(calls)], stdout=subprocess.PIPE,
                                 text=True)
        during = get_latencies(props, until=lambda: float('inf') if storm.poll() is None else 0)
        out, _ = storm.communicate()
        cpu = cpu_seconds(daemon.pid) - cpu0
        counts = json.loads(out)

        print('claims_storm_calls: %d calls' % calls)
        print('claims_storm_granted: %d claims' % counts.get('ok', 0))
        print('claims_storm_refused: %d calls' % counts.get('org.freedesktop.DBus.Error.LimitsExceeded', 0))
        other = {k: v for k, v in counts.items() if k not in ('ok', 'org.freedesktop.DBus.Error.LimitsExceeded')}
        print('claims_storm_other_answers: %d calls' % sum(other.values()))
        print('claims_storm_daemon_cpu: %.2f s' % cpu)
        print('claims_storm_daemon_cpu_per_call: %.1f us' % (cpu / calls * 1e6))
        print('claims_get_p50_alone: %d us' % percentile(alone, 50))
        print('claims_get_p99_alone: %d us' % percentile(alone, 99))
        print('claims_get_p50_during_storm: %d us' % percentile(during, 50))
        print('claims_get_p99_during_storm: %d us' % percentile(during, 99))
        print('claims_daemon_rss_after: %d kB' % rss_kb(daemon.pid))
    finally:
        stop_bus_and_daemon(bus_daemon, daemon)
        subprocess.run(['rm', '-rf', tmp])


if __name__ == '__main__':
    main()
