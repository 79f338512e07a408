# SPDX-License-Identifier: GPL-2.0-or-later
"""What the bus benchmarks (bench-bus.py, bench-stream.py) share: the private system bus's
configuration, per-process CPU time and context switches from /proc, percentiles, and the
sample-latency client processes."""

import os
import subprocess

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


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def start_clients(latency_client, role, address, n, seconds):
    """n sample-latency processes in role (listen, stream, ...); returns them once every one is ready."""
    procs = [subprocess.Popen([latency_client, role, address, str(seconds)], stdout=subprocess.PIPE, text=True)
             for _ in range(n)]
    for p in procs:
        line = p.stdout.readline().strip()
        if line != 'ready':
            raise RuntimeError('sample-latency %s did not start (%r)' % (role, line))
    return procs


def collect(procs, what):
    per_client = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise RuntimeError('sample-latency %s failed with %d' % (what, p.returncode))
        per_client.append([int(v) for v in out.split()])
    if not any(per_client):
        raise RuntimeError('no %s received' % what)
    return per_client


def start_bus_and_daemon(tpacceld, tmp):
    """A private system bus (BUS_CONF, its file in tmp) and tpacceld on the emulator on it, its state in
    tmp; returns (dbus-daemon process, bus address, tpacceld process)."""
    conf = os.path.join(tmp, 'bus.conf')
    with open(conf, 'w') as f:
        f.write(BUS_CONF)
    bus_daemon = subprocess.Popen(['dbus-daemon', '--config-file=' + conf, '--nofork', '--print-address=1'],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = bus_daemon.stdout.readline().strip()
    daemon = subprocess.Popen([tpacceld, '--session', '--address=' + address, '--backend=sim',
                               '--state-dir=' + tmp], stderr=subprocess.DEVNULL)
    return bus_daemon, address, daemon
