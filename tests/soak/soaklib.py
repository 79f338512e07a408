# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared pieces of the soak, kill -9, valgrind and privilege checks: a private dbus-daemon on a Unix
socket in a temporary directory (loopback only), tpacceld started on it, /proc readers. Everything
started here is stopped by PID."""

import os
import signal
import subprocess
import tempfile
import time

import endchildren  # noqa: F401  (tests/lib: SIGTERM at a timeout still ends the bus and the daemon)
from privatebus import start_bus, write_bus_conf  # tests/lib

NAME = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'
IFACE = 'org.thinkpad.Accelerometer'
FAULT_KINDS = ('busy', 'silent', 'bad-status', 'retval', 'pending', 'absent')

class Bus:
    """A private bus (tests/lib/bus.conf.in, open to every uid: the daemon may switch user)."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='tpaccel-soak-bus-')
        os.chmod(self.dir, 0o755)
        conf = write_bus_conf(os.path.join(self.dir, 'bus.conf'), 'unix:dir=' + self.dir, bus_type='session')
        self.proc, self.address = start_bus(conf)
        for name in os.listdir(self.dir):
            if name.startswith('dbus-'):
                os.chmod(os.path.join(self.dir, name), 0o777)

    def stop(self):
        stop_process(self.proc)
        subprocess.run(['rm', '-rf', self.dir], check=False)


def stop_process(proc, sig=signal.SIGTERM, timeout=15):
    if proc is None or proc.poll() is not None:
        return proc.returncode if proc else None
    proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return proc.returncode


def start_daemon(tpacceld, bus, state_dir, log_path, extra=(), wrapper=(), session=True):
    cmd = list(wrapper) + [tpacceld, '--address=' + bus.address, '--backend=sim', '--state-dir=' + state_dir]
    if session:
        cmd.append('--session')
    cmd += list(extra)
    log = open(log_path, 'a')
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return proc


def wait_for_name(address, proc, timeout=60):
    """Polls with busctl until the name has an owner or proc exited; True when owned."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        r = subprocess.run(['busctl', '--address=' + address, 'status', NAME], capture_output=True)
        if r.returncode == 0:
            return True
        time.sleep(0.05)
    return False


def busctl(address, *args, timeout=30):
    return subprocess.run(['busctl', '--address=' + address, '--timeout=%d' % timeout] + list(args),
                          capture_output=True, text=True, timeout=timeout + 5)


def get_property(address, prop):
    r = busctl(address, 'get-property', NAME, PATH, IFACE, prop)
    if r.returncode != 0:
        raise RuntimeError('get-property %s: %s' % (prop, r.stderr.strip()))
    return r.stdout.strip().split(' ', 1)[1]


def proc_status(pid):
    fields = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            k, _, v = line.partition(':')
            fields[k] = v.strip()
    return fields


def rss_kib(pid):
    return int(proc_status(pid)['VmRSS'].split()[0])
