#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld on the EC emulator, on a private system bus, measured side by side in one run:
  - Sample latency: readout (the signal's time_usec, CLOCK_MONOTONIC) to receipt by a client (p50, p99)
  - daemon CPU per sample at 50 Hz with 1 and with 50 subscribers (/proc/PID/schedstat: CPU time in ns)
  - daemon wakeups per second with no claim (context switches in /proc/PID/status over 5 s)
The latency client is sample-latency (C, sd-bus), so the client's own overhead stays small.
Prints `name: value unit` lines. Usage: bench-bus.py PATH/TO/tpacceld PATH/TO/sample-latency [SECONDS]"""

import os
import subprocess
import sys
import tempfile
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME, PATH, IFACE = 'org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', 'org.thinkpad.Accelerometer'

BUS_CONF = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
    <allow own="*"/></policy>
  <limit name="max_connections_per_user">1000</limit>
</busconfig>
'''


def cpu_seconds(pid):
    """Time spent on the CPU by all threads (schedstat: ns resolution, unlike utime/stime's ticks)."""
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
            total += int(f.read().split()[0])
    return total / 1e9


def ctxt_switches(pid):
    n = 0
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')):
                n += int(line.split()[1])
    return n


def pump(seconds):
    ctx = GLib.main_context_default()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not ctx.iteration(False):
            time.sleep(0.0005)


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main():
    tpacceld = sys.argv[1]
    latency_client = sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    tmp = tempfile.mkdtemp(prefix='tpaccel-bench-')
    conf = os.path.join(tmp, 'bus.conf')
    with open(conf, 'w') as f:
        f.write(BUS_CONF)
    bus_daemon = subprocess.Popen(['dbus-daemon', '--config-file=' + conf, '--nofork', '--print-address=1'],
                                  stdout=subprocess.PIPE, text=True)
    address = bus_daemon.stdout.readline().strip()
    daemon = subprocess.Popen([tpacceld, '--session', '--address=' + address, '--backend=sim',
                               '--state-dir=' + tmp], stderr=subprocess.DEVNULL)
    try:
        bus = dbus.bus.BusConnection(address)
        for _ in range(500):
            if bus.name_has_owner(NAME):
                break
            time.sleep(0.01)
        accel = dbus.Interface(bus.get_object(NAME, PATH, introspect=False), IFACE)
        accel.SetSamplingRate(dbus.UInt32(50))

        # Wakeups with no claim.
        time.sleep(0.5)
        before = ctxt_switches(daemon.pid)
        time.sleep(seconds)
        idle_wakeups = (ctxt_switches(daemon.pid) - before) / seconds

        results = {}
        for n_subscribers in (1, 50):
            # Subscriber 1 is the C client; the others are plain connections with a Sample match.
            conns = [dbus.bus.BusConnection(address) for _ in range(n_subscribers - 1)]
            matches = [c.add_signal_receiver(lambda t, x, y: None, signal_name='Sample', dbus_interface=IFACE,
                                             path=PATH) for c in conns]
            client = subprocess.Popen([latency_client, address, str(seconds + 0.5)], stdout=subprocess.PIPE,
                                      text=True)
            assert client.stdout.readline().strip() == 'ready'
            accel.Claim()
            pump(0.5)
            cpu0 = cpu_seconds(daemon.pid)
            pump(seconds)
            cpu = cpu_seconds(daemon.pid) - cpu0
            n, p50, p99 = (int(v) for v in client.stdout.readline().split())
            client.wait()
            accel.Release()
            for m in matches:
                m.remove()
            for c in conns:
                c.close()
            results[n_subscribers] = (n, p50, p99, cpu, 50 * seconds)
            pump(0.2)

        for n in (1, 50):
            count, p50, p99, cpu, expected = results[n]
            suffix = 'subscriber' if n == 1 else 'subscribers'
            print('bus_sample_latency_p50_%d_%s: %d us' % (n, suffix, p50))
            print('bus_sample_latency_p99_%d_%s: %d us' % (n, suffix, p99))
            print('bus_cpu_per_sample_%d_%s: %.1f us' % (n, suffix, cpu / expected * 1e6))
        print('bus_idle_wakeups: %.2f per_s' % idle_wakeups)
    finally:
        daemon.terminate()
        daemon.wait()
        bus_daemon.terminate()
        bus_daemon.wait()
        subprocess.run(['rm', '-rf', tmp])


if __name__ == '__main__':
    main()
