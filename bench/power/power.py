#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What tpaccel costs a laptop's battery: wakeups per second and CPU ms per second of tpacceld, the
tray and the bus daemon, on the EC emulator, per use case and trace. Each case gets a fresh private
bus (dbus-daemon --session), tpacceld --session --backend=sim replaying a trace in a loop, and its
client; after a warm-up, every thread of each process is read twice, a window apart:
  wakeups/s  voluntary + nonvoluntary context switches (/proc/PID/task/*/status) per second
  CPU ms/s   time on the CPU (/proc/PID/task/*/schedstat, ns) per second
Every process on the private bus is tpaccel's (tpacceld and its client), so dbus-daemon's wakeups are
the ones tpaccel causes (signals routed, method calls, match rules).
Cases: the tray's defaults (animated icon), the tray with its window open, the tray with its window
minimized (shown, then unmapped as a window manager does for a minimized window or one on another
workspace), the tray in headless sway with waybar as its tray host (Wayland: its window shown, on
another workspace, closed) and in headless GNOME Shell on Wayland with the AppIndicator extension (shown,
minimized, closed), the tray with --watch-shocks, a movement claim (a theft alarm's client holding
ClaimMovement, subscribed to Moved), a net.hadess.SensorProxy rotation claim (tpacceld under
umockdev-run with a tablet-mode switch in tablet mode, as tests/sensorproxy; the client is
tests/sensorproxy/rotation-client.py), the same claim on a Tablet in laptop mode (the switch off: the
orientation is pinned to normal, so nothing needs polling), disk protection
armed (a fake sysfs disk), a movement claim (a theft alarm's client holding ClaimMovement,
subscribed to Moved), nothing at all, and, for comparison, Debian's iio-sensor-proxy claimed
(claimer.py iio) on bench/compare/compare-iio.py's umockdev hdaps testbed (imported from there). Traces:
rest.csv (still on a desk) and wobble.csv (moving); the testbed cannot replay them: its rest is a fixed
position, its moving is compare-iio.py's motion script (a 40 degree turn every 1-1.5 s, looped).
The tray runs under Xvfb, in trayer's XEmbed tray when trayer is installed.
Prints `name: value unit` lines, a Markdown table and the floors: tray defaults at rest and
the minimized window, tpacceld + tray + dbus-daemon <= 4 wakeups/s; a Tablet in laptop mode with a
rotation claim, 0 polls (EffectiveRate 0).
Usage: power.py BUILDDIR [SECONDS [CASE...]]"""

import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(SRC, 'bench', 'bus'))  # benchbus, which puts tests/lib on the path too
from benchbus import stop_process, wait_for, wait_for_owner_pid  # noqa: E402
from daemontest import Bus  # noqa: E402  (tests/lib: GIO)
from fake_sysfs import FakeSysfs  # noqa: E402  (tests/lib)
from gi.repository import GLib  # noqa: E402
from gnomesession import GnomeSession, missing as gnome_missing  # noqa: E402  (tests/lib)
from programs import read_programs  # noqa: E402  (tests/lib)
from swaysession import SwaySession, missing_programs  # noqa: E402  (tests/lib)

TRACES = os.path.join(SRC, 'tests', 'traces')
SP_DIR = os.path.join(SRC, 'tests', 'sensorproxy')
COMPARE_IIO = os.path.join(SRC, 'bench', 'compare', 'compare-iio.py')
NAME, PATH, IFACE = 'org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', 'org.thinkpad.Accelerometer'
WARMUP = 3.0


def task_figures(pid):
    """{thread id: (context switches, CPU ns)} for every thread of pid."""
    threads = {}
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            switches = 0
            with open('/proc/%d/task/%s/status' % (pid, tid)) as f:
                for line in f:
                    if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')):
                        switches += int(line.split()[1])
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                threads[tid] = (switches, int(f.read().split()[0]))
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return threads


def window_figures(before, after, span):
    """(wakeups/s, CPU ms/s) between two task_figures() readings: per thread, so that a thread that ended
    in between (GLib's worker threads come and go) does not take its whole history off the sum; a
    thread that started counts from 0, one that ended counts nothing after the first reading."""
    switches = cpu = 0
    for tid, (s1, c1) in after.items():
        s0, c0 = before.get(tid, (0, 0))
        switches += s1 - s0
        cpu += c1 - c0
    return switches / span, cpu / span / 1e6


class Case:
    def __init__(self, build, tmp):
        self.build, self.tmp = build, tmp
        self.programs = read_programs(build)  # where meson put tpacceld and the tray
        self.procs = []
        self.env = dict(os.environ)

    def spawn(self, argv, env=None, **kw):
        p = subprocess.Popen(argv, env=env or self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             **kw)
        self.procs.append(p)
        return p

    def busctl(self, *args):
        return subprocess.run(['busctl', '--address=' + self.address] + list(args), capture_output=True,
                              text=True, timeout=10)

    def start_bus(self):
        self.bus = subprocess.Popen(['dbus-daemon', '--session', '--nofork', '--print-address=1'],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.procs.append(self.bus)
        self.address = self.bus.stdout.readline().strip()
        self.env['DBUS_SESSION_BUS_ADDRESS'] = self.address
        self.env['DBUS_SYSTEM_BUS_ADDRESS'] = self.address  # rotation-client.py uses the system bus

    def start_daemon(self, trace, prefix=(), extra=()):
        state = os.path.join(self.tmp, 'state')
        os.makedirs(state, exist_ok=True)
        argv = list(prefix) + [self.programs['TPACCELD'], '--session', '--backend=sim',
                               '--state-dir=' + state, '--trace=' + os.path.join(TRACES, trace), '--trace-loop']
        self.daemon = self.spawn(argv + list(extra))
        # umockdev-run forks the daemon: measure the daemon, not the wrapper.
        self.daemon_pid = wait_for_owner_pid(self.address, self.daemon, NAME, timeout=15)

    def prop(self, name):
        out = self.busctl('get-property', NAME, PATH, IFACE, name).stdout.split(None, 1)
        return out[1].strip().strip('"') if len(out) > 1 else ''

    def start_tray(self, *args):
        xread, xwrite = os.pipe()
        xvfb = self.spawn(['Xvfb', '-displayfd', str(xwrite), '-screen', '0', '1024x768x24', '-nolisten', 'tcp'],
                          pass_fds=[xwrite])
        os.close(xwrite)
        with os.fdopen(xread) as f:
            self.env['DISPLAY'] = ':' + f.readline().strip()
        if xvfb.poll() is not None:
            raise RuntimeError('Xvfb did not start')
        self.tray_host = 'none (no tray host)'
        if shutil.which('trayer'):
            self.spawn(['trayer', '--edge', 'top', '--align', 'right', '--widthtype', 'pixel', '--width', '64',
                        '--height', '24'])
            self.tray_host = 'trayer (XEmbed)'
            time.sleep(1)
        env = dict(self.env, TPACCEL_ICON_DIR=os.path.join(SRC, 'data', 'icons'))
        self.tray = self.spawn([self.programs['TPACCEL_TRAY'], '--session'] + list(args),
                               env=env)

    def unmap_tray_window(self):
        """Unmaps the tray's window from outside, as a window manager does when it minimizes it or
        switches to another workspace."""
        ids = []
        deadline = time.monotonic() + 10
        while not ids and time.monotonic() < deadline:
            ids = subprocess.run(['xdotool', 'search', '--onlyvisible', '--name', 'ThinkPad Accelerometer'],
                                 capture_output=True, text=True, env=self.env).stdout.split()
            time.sleep(0.1)
        if not ids:
            raise RuntimeError("the tray's window did not show")
        subprocess.run(['xdotool', 'windowunmap', ids[0]], check=True, env=self.env, timeout=10)

    def start_sway_tray(self, case):
        """The tray in headless sway with waybar as its tray host (tests/lib/swaysession.py), its window
        shown, then on another workspace or closed as the case says."""
        def spawn(argv, log_name, env):
            return self.spawn(argv, env=env)

        self.sway = SwaySession(spawn, self.env, self.tmp)
        self.sway.start_waybar(self.env)
        self.tray_host = 'waybar on sway'
        env = dict(self.sway.client_env(self.env), TPACCEL_ICON_DIR=os.path.join(SRC, 'data', 'icons'))
        self.tray = self.spawn([self.programs['TPACCEL_TRAY'], '--session', '--show-window'],
                               env=env)
        wait_for(lambda: self.prop('EffectiveRate') == '50', 'the full rate for the window in sway')
        wait_for(lambda: any(w.get('visible') for w in self.sway.windows('tpaccel-tray')), 'the window on screen')
        if case == 'sway-other-workspace':
            self.sway.swaymsg('workspace', '2')
        elif case == 'sway-closed':
            self.sway.swaymsg('[app_id="tpaccel-tray"]', 'kill')
        if case != 'sway-window':
            wait_for(lambda: self.prop('EffectiveRate') == '4', "the icon's rate (%s)" % case)

    def start_gnome_tray(self, case):
        """The tray in headless GNOME Shell on Wayland with the AppIndicator extension
        (tests/lib/gnomesession.py; the private bus serves as its system bus), its window shown, then
        minimized or closed through the shell as the case says."""
        def spawn(argv, log_name, env):
            return self.spawn(argv, env=env)

        self.env['DBUS_SYSTEM_BUS_ADDRESS'] = self.address
        self.gnome = GnomeSession(spawn, Bus(self.address), self.env)
        self.tray_host = 'GNOME Shell %s (AppIndicator)' % self.gnome.version()
        env = dict(self.gnome.client_env(self.env), TPACCEL_ICON_DIR=os.path.join(SRC, 'data', 'icons'))
        self.tray = self.spawn([self.programs['TPACCEL_TRAY'], '--session', '--show-window'],
                               env=env)
        wait_for(lambda: self.prop('EffectiveRate') == '50', 'the full rate for the window in GNOME')
        title = 'ThinkPad Accelerometer'
        wait_for(lambda: self.gnome.window_state(title), 'the window in the shell')
        if case == 'gnome-minimized':
            wait_for(lambda: self.gnome.minimize(title), 'the window minimized')
            time.sleep(5)  # what the tray does within seconds is what is measured
        elif case == 'gnome-closed':
            wait_for(lambda: self.gnome.close(title), 'the window to go')
            wait_for(lambda: self.prop('EffectiveRate') == '4', "the icon's rate (%s)" % case)

    def stop(self):
        for p in reversed(self.procs):
            stop_process(p)
        for session in ('sway', 'gnome'):
            if getattr(self, session, None):
                getattr(self, session).stop()


# A theft alarm's side of a movement claim, as a tray or `tpaccelctl alarm` holds it: ClaimMovement on
# its own connection, Moved and PropertiesChanged subscribed, nothing else.
MOVEMENT_CLIENT = """
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
for member, iface in (('Moved', 'org.thinkpad.Accelerometer'), ('PropertiesChanged', 'org.freedesktop.DBus.Properties')):
    bus.signal_subscribe('org.thinkpad.Accelerometer', iface, member, '/org/thinkpad/Accelerometer', None,
                         Gio.DBusSignalFlags.NONE, lambda *a: None)
bus.call_sync('org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', 'org.thinkpad.Accelerometer',
              'ClaimMovement', None, None, Gio.DBusCallFlags.NONE, -1, None)
GLib.MainLoop().run()
"""


def run_case(build, case, trace, seconds):
    tmp = tempfile.mkdtemp(prefix='tpaccel-power-')
    c = Case(build, tmp)
    try:
        c.start_bus()
        prefix, extra = (), []
        if case.startswith('rotation'):
            switch = 'laptop-mode.ioctl' if case == 'rotation-laptop' else 'tablet-mode.ioctl'
            prefix = ['umockdev-run', '-d', os.path.join(SP_DIR, 'thinkpad-extra-buttons.umockdev'),
                      '-i', '/dev/input/event5=' + os.path.join(SP_DIR, switch), '--']
            extra = ['--sensor-proxy=yes']
        if case == 'protection':
            sysfs = FakeSysfs(os.path.join(tmp, 'sys'))
            sysfs.add_disk('sda')
            extra = ['--sysfs-root=' + sysfs.root]
        c.start_daemon(trace, prefix, extra)
        watched = {'tpacceld': c.daemon_pid, 'dbus-daemon': c.bus.pid}
        if case.startswith('tray'):
            args = {'tray': [], 'tray-window': ['--show-window'], 'tray-minimized': ['--show-window'],
                    'tray-watch-shocks': ['--watch-shocks']}[case]
            c.start_tray(*args)
            watched['tray'] = c.tray.pid
            want = {'tray': '4', 'tray-window': '50', 'tray-minimized': '50', 'tray-watch-shocks': '50'}[case]
            wait_for(lambda: c.prop('EffectiveRate') == want, 'EffectiveRate %s' % want)
            if case == 'tray-minimized':
                c.unmap_tray_window()
                wait_for(lambda: c.prop('EffectiveRate') == '4', "the icon's rate with the window minimized")
        elif case.startswith('sway'):
            c.start_sway_tray(case)
            watched['tray'] = c.tray.pid
        elif case.startswith('gnome'):
            c.start_gnome_tray(case)
            watched['tray'] = c.tray.pid
        elif case.startswith('rotation'):
            client = c.spawn(['/usr/bin/python3', os.path.join(SP_DIR, 'rotation-client.py'),
                              str(int(WARMUP + seconds + 10))])
            watched['client'] = client.pid
            if case == 'rotation':
                wait_for(lambda: c.prop('EffectiveRate') == '20', 'the 20 Hz rotation claim')
            else:
                # In laptop mode the claim may poll nothing and show in no property: give the client
                # the time it needs to claim (it does within a second), then measure.
                time.sleep(2)
                if client.poll() is not None:
                    raise RuntimeError('the rotation client exited')
        elif case == 'movement':
            client = c.spawn(['/usr/bin/python3', '-c', MOVEMENT_CLIENT])
            watched['client'] = client.pid
            wait_for(lambda: c.prop('MovementWatched') == 'true', 'the movement claim')
            wait_for(lambda: c.prop('EffectiveRate') == '10', 'the 10 Hz movement claim')
        elif case == 'protection':
            r = c.busctl('call', NAME, PATH, IFACE, 'SetProtectedDisks', 'as', '1', 'sda')
            if r.returncode != 0:
                raise RuntimeError('SetProtectedDisks: ' + r.stderr)
            wait_for(lambda: c.prop('EffectiveRate') == '50', 'the full rate for disk protection')
        time.sleep(WARMUP)
        rate, reason = c.prop('EffectiveRate'), c.prop('EffectiveRateReason')
        before = {k: task_figures(pid) for k, pid in watched.items()}
        t0 = time.monotonic()
        time.sleep(seconds)
        after = {k: task_figures(pid) for k, pid in watched.items()}
        span = time.monotonic() - t0
        figures = {k: window_figures(before[k], after[k], span) for k in watched}
        return figures, rate, reason, getattr(c, 'tray_host', '')
    finally:
        c.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def tilt_offsets(build, rate, seconds, trace='rotate-left-up.csv', motion_from=2.0):
    """A claimer at rate Hz (0: Claim, the full rate) on a looping turn trace: for each loop, when the
    first Tilt signal arrived, in seconds since the loop started (the trace's time is the emulator's,
    which starts with the daemon)."""
    with open(os.path.join(TRACES, trace)) as f:
        period = max(int(line.split(',')[0]) for line in f if line[:1].isdigit()) / 1000
    tmp = tempfile.mkdtemp(prefix='tpaccel-power-')
    c = Case(build, tmp)
    try:
        c.start_bus()
        t0 = time.monotonic()
        c.start_daemon(trace)
        bus = Bus(c.address)
        tilts = []
        bus.subscribe_signal(lambda *a: tilts.append(time.monotonic() - t0), IFACE, 'Tilt', path=PATH)
        accel = bus.proxy(NAME, PATH, IFACE)
        accel.ClaimAtRate(rate) if rate else accel.Claim()
        loop = GLib.MainLoop()
        GLib.timeout_add(int(seconds * 1000), loop.quit)
        loop.run()
        bus.close()
        offsets = []
        for k in range(int(seconds / period) + 1):
            later = [t - k * period for t in tilts if k * period + motion_from <= t < (k + 1) * period]
            if later:
                offsets.append(min(later))
        return offsets
    finally:
        c.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def load_compare_iio():
    """bench/compare/compare-iio.py as a module (its name has a dash): its testbed and claimer."""
    spec = importlib.util.spec_from_file_location('compare_iio', COMPARE_IIO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_iio_case(build, trace, seconds):
    """iio-sensor-proxy on compare-iio.py's hdaps testbed, claimed by claimer.py iio, on a private bus.
    rest: the device stays at its start position; moving: compare-iio.py's four positions in turn at its
    random 1-1.5 s steps, for as long as the case runs. The rate is iio-sensor-proxy's EVIOCGABS(ABS_X)
    reads per second over the window."""
    cmp = load_compare_iio()
    binary = next((p for p in cmp.IIO_SENSOR_PROXY_PATHS if os.access(p, os.X_OK)), None)
    tmp = tempfile.mkdtemp(prefix='tpaccel-power-')
    c = Case(build, tmp)
    device = cmp.Device()
    loop = GLib.MainLoop()
    threading.Thread(target=loop.run, daemon=True).start()  # serves the EVIOCGABS answers
    stop_motion, claimer = threading.Event(), None

    def motion():
        rng, i = random.Random(cmp.SEED), 0
        while not stop_motion.wait(rng.uniform(cmp.STEP_MIN_S, cmp.STEP_MAX_S)):
            device.set_position(*cmp.POSITIONS[i % len(cmp.POSITIONS)])
            i += 1

    try:
        device.set_position(*cmp.START_POSITION)
        c.start_bus()
        env = dict(c.env, UMOCKDEV_DIR=device.root,
                   LD_PRELOAD=('libumockdev-preload.so.0:' + c.env.get('LD_PRELOAD', '')).rstrip(':'))
        env.pop('G_MESSAGES_DEBUG', None)
        daemon = c.spawn([binary], env=env)
        wait_for_owner_pid(c.address, daemon, 'net.hadess.SensorProxy', cmp.START_TIMEOUT_S)
        claimer = cmp.Claimer('iio', c.address)
        if trace == 'wobble.csv':
            threading.Thread(target=motion, daemon=True).start()
        watched = {'iio-sensor-proxy': daemon.pid, 'client': claimer.proc.pid, 'dbus-daemon': c.bus.pid}
        time.sleep(WARMUP)
        reads0 = device.reads()
        before = {k: task_figures(pid) for k, pid in watched.items()}
        t0 = time.monotonic()
        time.sleep(seconds)
        after = {k: task_figures(pid) for k, pid in watched.items()}
        span = time.monotonic() - t0
        rate = '%.2f' % ((device.reads() - reads0) / span)
        if daemon.poll() is not None:
            raise RuntimeError('iio-sensor-proxy exited during the run')
        figures = {k: window_figures(before[k], after[k], span) for k in watched}
        return figures, rate, 'EVIOCGABS(ABS_X) reads/s', ''
    finally:
        stop_motion.set()
        if claimer:
            claimer.close()
        c.stop()
        loop.quit()
        shutil.rmtree(tmp, ignore_errors=True)


CASES = [('tray', "the tray's defaults (animated icon)"), ('tray-window', 'the tray, window open'),
         ('tray-minimized', 'the tray, window minimized'),
         ('tray-watch-shocks', 'the tray, --watch-shocks'),
         ('sway-window', 'the tray in sway (Wayland), window shown'),
         ('sway-other-workspace', 'the tray in sway (Wayland), window on another workspace'),
         ('sway-closed', 'the tray in sway (Wayland), window closed'),
         ('gnome-window', 'the tray in GNOME Shell (Wayland), window shown'),
         ('gnome-minimized', 'the tray in GNOME Shell (Wayland), window minimized'),
         ('gnome-closed', 'the tray in GNOME Shell (Wayland), window closed'),
         ('rotation', 'a SensorProxy rotation claim'),
         ('rotation-laptop', 'a SensorProxy rotation claim, Tablet in laptop mode'),
         ('protection', 'disk protection armed'), ('movement', 'a movement claim (an alarm armed)'),
         ('idle', 'nothing claims'),
         ('iio', 'iio-sensor-proxy 3.0 claimed (umockdev hdaps)')]
TRACE_NAMES = [('rest.csv', 'rest'), ('wobble.csv', 'moving')]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    only = sys.argv[3:]
    unknown = set(only) - {c for c, _ in CASES}
    if unknown:
        sys.exit('unknown case(s): %s; cases: %s' % (', '.join(sorted(unknown)), ', '.join(c for c, _ in CASES)))
    with open('/proc/loadavg') as f:
        print('load average before: %s' % f.read().split()[0])
    # The icon follows a tilt: the first Tilt of each turn at the tray's 4 Hz against the full 50 Hz.
    full = tilt_offsets(build, 0, max(seconds, 20)) if not only else []
    low = tilt_offsets(build, 4, max(seconds, 20)) if not only else []
    if full and low:
        ref = sorted(full)[len(full) // 2]
        extra = [(o - ref) * 1000 for o in low]
        print('tilt at 4 Hz after tilt at 50 Hz: %s ms (turns: %d; median at 50 Hz %.0f ms after the '
              'motion starts)' % (', '.join('%.0f' % e for e in extra), len(low), (ref - 2.0) * 1000))
        print('tilt latency at 4 Hz over 50 Hz, max: %.0f ms' % max(extra))
    rows = []
    for case, label in CASES:
        if only and case not in only:
            continue
        if case.startswith('tray') and not shutil.which('Xvfb'):
            print('%s: skipped (Xvfb missing)' % case)
            continue
        if case.startswith('sway') and missing_programs():
            print('%s: skipped (%s missing)' % (case, ', '.join(missing_programs())))
            continue
        if case.startswith('gnome') and gnome_missing():
            print('%s: skipped (%s missing)' % (case, ', '.join(gnome_missing())))
            continue
        if case.startswith('rotation') and not shutil.which('umockdev-run'):
            print('%s: skipped (umockdev-run missing)' % case)
            continue
        if case == 'iio':
            try:
                paths = load_compare_iio().IIO_SENSOR_PROXY_PATHS
            except (ImportError, ValueError):  # no gi or no UMockdev typelib
                paths = ()
            if not any(os.access(p, os.X_OK) for p in paths):
                print('%s: skipped (umockdev or iio-sensor-proxy missing)' % case)
                continue
        for trace, tname in TRACE_NAMES:
            if case == 'iio':
                figures, rate, reason, host = run_iio_case(build, trace, seconds)
            else:
                figures, rate, reason, host = run_case(build, case, trace, seconds)
            for proc, (wakeups, cpu) in figures.items():
                print('%s %s %s wakeups: %.1f /s' % (case, tname, proc, wakeups))
                print('%s %s %s cpu: %.2f ms/s' % (case, tname, proc, cpu))
            print('%s %s effective rate: %s Hz (%s)%s' % (case, tname, rate, reason,
                                                         ', tray host ' + host if host else ''))
            rows.append((case, label, tname, rate, figures))
    print()
    print('| case | trace | rate | daemon (tpacceld or iio-sensor-proxy) wakeups/s, CPU ms/s | client wakeups/s, CPU ms/s '
          '| tpacceld + client | dbus-daemon |')
    print('|---|---|---|---|---|---|---|')
    for _, label, tname, rate, f in rows:
        d = f.get('tpacceld') or f['iio-sensor-proxy']
        cl = f.get('tray') or f.get('client')
        b = f['dbus-daemon']
        both = (d[0] + (cl[0] if cl else 0), d[1] + (cl[1] if cl else 0))
        print('| %s | %s | %s Hz | %.1f, %.2f | %s | %.1f, %.2f | %.1f, %.2f |' % (
            label, tname, rate, d[0], d[1], '%.1f, %.2f' % cl if cl else '-', both[0], both[1], b[0], b[1]))
    print_floors(rows)


# The floors the tray's power cost must meet: (case, trace, what, limit). Wakeups are tpacceld + tray +
# dbus-daemon.
WAKEUP_FLOORS = [('tray', 'rest', "tray defaults at rest", 4.0),
                 ('tray-minimized', 'rest', 'tray window minimized, at rest', 4.0),
                 ('sway-other-workspace', 'rest', 'tray window on another sway workspace, at rest', 4.0)]


def print_floors(rows):
    print()
    by_case = {(case, tname): (rate, f) for case, _, tname, rate, f in rows}
    for case, tname, what, limit in WAKEUP_FLOORS:
        if (case, tname) not in by_case:
            continue
        rate, f = by_case[(case, tname)]
        total = sum(f[k][0] for k in ('tpacceld', 'tray', 'dbus-daemon') if k in f)
        print('floor %s: tpacceld + tray + dbus-daemon %.2f wakeups/s (tpacceld %.2f, tray %.2f, dbus-daemon '
              '%.2f), limit %.0f: %s' % (what, total, f['tpacceld'][0], f['tray'][0], f['dbus-daemon'][0], limit,
                                         'met' if total <= limit else 'NOT met'))
    for tname in ('rest', 'moving'):
        if ('rotation-laptop', tname) not in by_case:
            continue
        rate = by_case[('rotation-laptop', tname)][0]
        print('floor tablet in laptop mode with a rotation claim, %s: %s polls/s (EffectiveRate), limit 0: %s'
              % (tname, rate, 'met' if rate == '0' else 'NOT met'))


if __name__ == '__main__':
    main()
