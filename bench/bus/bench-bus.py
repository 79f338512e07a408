#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld on the EC emulator, on a private system bus, measured side by side in one run:
  - Sample latency: readout (the signal's time_usec, CLOCK_MONOTONIC, stamped when the host has the
    EC's reply) to receipt by each subscriber (p50, p99 over all subscribers' samples), with 1 and with
    50 subscribers, each subscriber its own process (sample-latency listen: C, sd-bus), as real clients
  - the floor of the same path without tpacceld: a reference sender (sample-latency emit) stamping
    and sending at 50 Hz to the same subscribers; tpacceld's own share is the difference
  - daemon CPU per sample at 50 Hz with 1 and with 50 subscribers (/proc/PID/schedstat: CPU time in ns)
  - daemon wakeups per second with no claim (context switches in /proc/PID/status)
  - the 1-minute load average before the run: the latency floors hold on a quiet machine only
The benchmark process itself only sleeps while measuring (no main loop spinning next to the clients).
Prints `name: value unit` lines. Usage: bench-bus.py PATH/TO/tpacceld PATH/TO/sample-latency [SECONDS]"""

import os
import subprocess
import sys
import tempfile
import time

from benchbus import (IFACE, NAME, PATH, collect, cpu_seconds, ctxt_switches, percentile, start_bus_and_daemon, start_clients,
                      stop_bus_and_daemon)


def main():
    tpacceld = sys.argv[1]
    latency_client = sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    load_average = os.getloadavg()[0]
    tmp = tempfile.mkdtemp(prefix='tpaccel-bench-')
    bus_daemon, address, daemon, bus = start_bus_and_daemon(tpacceld, tmp)
    try:
        accel = bus.proxy(NAME, PATH, IFACE)
        accel.SetSamplingRate(50)

        # Wakeups with no claim.
        time.sleep(0.5)
        before = ctxt_switches(daemon.pid)
        time.sleep(seconds)
        idle_wakeups = (ctxt_switches(daemon.pid) - before) / seconds

        results = {}
        listen_s = seconds + 3  # covers the warm-up, the measurement and the release
        for n_subscribers in (1, 50):
            # tpacceld
            procs = start_clients(latency_client, 'listen', address, n_subscribers, listen_s)
            started = time.monotonic()
            accel.Claim()
            time.sleep(0.5)
            cpu0 = cpu_seconds(daemon.pid)
            time.sleep(seconds)
            cpu = cpu_seconds(daemon.pid) - cpu0
            accel.Release()
            if time.monotonic() - started > listen_s:
                raise RuntimeError('the listeners stopped before the measurement ended')
            latencies = [v for c in collect(procs, 'Sample') for v in c]

            # The reference sender on the same bus to the same number of subscribers (tpacceld not polling).
            procs = start_clients(latency_client, 'listen', address, n_subscribers, seconds + 1)
            subprocess.run([latency_client, 'emit', address, str(seconds), '50'], check=True,
                           stdout=subprocess.DEVNULL)
            floor = [v for c in collect(procs, 'reference Sample') for v in c]
            results[n_subscribers] = (latencies, floor, cpu, 50 * seconds)

        print('bus_load_average_before: %.2f' % load_average)
        for n in (1, 50):
            latencies, floor, cpu, expected = results[n]
            suffix = '%d_%s' % (n, 'subscriber' if n == 1 else 'subscribers')
            for name, values in (('sample_latency', latencies), ('floor_latency', floor)):
                print('bus_%s_p50_%s: %d us' % (name, suffix, percentile(values, 50)))
                print('bus_%s_p99_%s: %d us' % (name, suffix, percentile(values, 99)))
            print('bus_cpu_per_sample_%s: %.1f us' % (suffix, cpu / expected * 1e6))
        print('bus_idle_wakeups: %.2f per_s' % idle_wakeups)
    finally:
        stop_bus_and_daemon(bus_daemon, daemon)
        subprocess.run(['rm', '-rf', tmp])


if __name__ == '__main__':
    main()
