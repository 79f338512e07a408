# SPDX-License-Identifier: GPL-2.0-or-later
"""What the benchmarks share: the private system bus (tests/lib/bus.conf.in) with tpacceld on it, waiting
for a condition or for a bus name's owner, stopping a process (SIGTERM, SIGKILL if it lingers),
per-process CPU time and context switches from /proc, percentiles, and the sample-latency client
processes. The bus benchmarks (bench-bus.py, bench-stream.py, bench-claims.py, bench-memory.py) import it
from beside them; bench/motion, bench/power and bench/compare put this folder on sys.path. Their D-Bus
client is tests/lib/daemontest.py's Bus (GIO), which this module puts on sys.path too."""

import os
import signal
import subprocess
import sys
import time

TESTS_LIB = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'lib'))
sys.path.insert(0, TESTS_LIB)
from daemontest import Bus  # noqa: E402  (tests/lib: the one D-Bus client, GIO)
from privatebus import start_bus, write_bus_conf  # noqa: E402  (tests/lib: the one bus template)

NAME, PATH, IFACE = 'org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', 'org.thinkpad.Accelerometer'


def wait_for(cond, what, timeout=15):
    """Returns once cond() is true (polled every 20 ms); RuntimeError after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise RuntimeError('timed out waiting for ' + what)
        time.sleep(0.02)


def wait_for_name(bus, proc, name=NAME, timeout=20):
    """Returns once name has an owner on bus (a daemontest.Bus); RuntimeError if proc, the process that
    is to own it, exits first, or after timeout seconds."""
    wait_for(lambda: proc.poll() is not None or bus.name_has_owner(name), '%s on the bus' % name, timeout)
    if proc.poll() is not None:
        raise RuntimeError('%s exited with %d before owning %s' % (proc.args[0], proc.returncode, name))


def wait_for_owner_pid(address, proc, name=NAME, timeout=20):
    """wait_for_name on a connection of its own to the bus at address, closed before it returns (the bus
    keeps no client of the benchmark's); returns the pid of name's owner (proc, or what proc forked)."""
    bus = Bus(address)
    try:
        wait_for_name(bus, proc, name, timeout)
        return bus.owner_pid(name)
    finally:
        bus.close()


def stop_process(proc, timeout=5):
    """SIGTERM, then SIGKILL if proc has not ended within timeout seconds; waits for it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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
    """A private system bus (tests/lib/bus.conf.in, its file in tmp) and tpacceld on the emulator on it, its state in
    tmp; returns (dbus-daemon process, bus address, tpacceld process, a daemontest.Bus on the bus) once
    tpacceld owns its name (if it does not, stops both and raises)."""
    conf = write_bus_conf(os.path.join(tmp, 'bus.conf'), 'unix:dir=' + tmp)
    bus_daemon, address = start_bus(conf, stderr=subprocess.DEVNULL)
    daemon = subprocess.Popen([tpacceld, '--session', '--address=' + address, '--backend=sim',
                               '--state-dir=' + tmp], stderr=subprocess.DEVNULL)
    try:
        bus = Bus(address)
        wait_for_name(bus, daemon)
    except BaseException:
        stop_bus_and_daemon(bus_daemon, daemon)
        raise
    return bus_daemon, address, daemon, bus


def stop_bus_and_daemon(bus_daemon, daemon):
    """The twin of start_bus_and_daemon: stops tpacceld, then its bus."""
    stop_process(daemon)
    stop_process(bus_daemon)
