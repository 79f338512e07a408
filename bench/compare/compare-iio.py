#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iio-sensor-proxy and tpacceld side by side on the same emulated hdaps device, in one run.

Runs under umockdev-wrapper (compare-iio.sh starts it, with a private bus). One umockdev testbed holds
the mainline hdaps driver's platform device (/devices/platform/hdaps, sysfs position) and its input
device "hdaps" (event7, 13:71) tagged as iio-sensor-proxy's udev rule would tag an accelerometer
(IIO_SENSOR_PROXY_TYPE=input-accel, ID_INPUT_ACCELEROMETER=1). EVIOCGABS on the node is answered live
by this process (UMockdev.IoctlBase); the position attribute is rewritten in place. A motion script
turns the device through four positions, each one an orientation change for iio-sensor-proxy and a
tilt of about 40 degrees for tpacceld, at random intervals (fixed seed, the same for both daemons).

  1. iio-sensor-proxy (Debian 3.0) with a claimer (claimer.py iio) on the bus: latency from each
     change to the claimer's PropertiesChanged, reads = its EVIOCGABS(ABS_X) calls;
  2. tpacceld --backend=kernel at the real /sys path (umockdev redirects it) with a claimer
     (claimer.py tpacceld): latency from each change to the first Tilt signal, reads = Samples.
CPU is utime+stime from /proc/PID/stat (clock ticks) and the scheduler's ns count
(/proc/PID/task/*/schedstat), over the measuring window, per read and per second.

Prints `name: value unit` lines, then a table. Usage:
  compare-iio.py PATH/TO/tpacceld BUS_ADDRESS [STEPS]"""

import errno
import os
import random
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

import gi

gi.require_version('UMockdev', '1.0')
from gi.repository import GLib, UMockdev  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bus'))
from benchbus import stop_process, wait_for_owner_pid  # noqa: E402

IIO_SENSOR_PROXY_PATHS = ('/usr/libexec/iio-sensor-proxy', '/usr/sbin/iio-sensor-proxy')
EVDEV = '/dev/input/event7'
HDAPS_SYSFS = 'sys/devices/platform/hdaps'

# The device as mainline drivers/platform/x86/hdaps.c registers it (notes: iio-sensor-proxy.md §2),
# plus the two properties a local udev rule would add so that iio-sensor-proxy picks it up.
DEVICE = '''P: /devices/platform/hdaps
E: SUBSYSTEM=platform
E: DRIVER=hdaps
E: MODALIAS=platform:hdaps
A: position=(0,-100)
A: calibrate=(0,0)
A: invert=0
A: variance=(0,0)
A: temp1=40
A: temp2=41
A: keyboard_activity=0
A: mouse_activity=0

P: /devices/platform/hdaps/input/input7
E: SUBSYSTEM=input
E: PRODUCT=19/0/0/0
E: NAME="hdaps"
E: PHYS="isa1600/input0"
E: EV=9
E: ABS=3
A: name=hdaps
A: phys=isa1600/input0
A: capabilities/ev=9
A: capabilities/abs=3

P: /devices/platform/hdaps/input/input7/event7
N: input/event7
E: SUBSYSTEM=input
E: DEVNAME=/dev/input/event7
E: MAJOR=13
E: MINOR=71
E: ID_INPUT=1
E: ID_INPUT_ACCELEROMETER=1
E: IIO_SENSOR_PROXY_TYPE=input-accel
A: dev=13:71
'''

# <linux/input.h>: EVIOCGABS(abs) = _IOR('E', 0x40 + abs, struct input_absinfo), 24 bytes.
IOC_READ, IOC_DIRSHIFT, IOC_SIZESHIFT, IOC_TYPESHIFT = 2, 30, 16, 8
ABSINFO = struct.Struct('6i')  # value minimum maximum fuzz flat resolution
ABS_X, ABS_Y, ABS_Z = 0, 1, 2
HDAPS_RANGE, HDAPS_FUZZ = 256, 4  # mainline: input_set_abs_params(-256, 256, 4, 4)


def eviocgabs(axis):
    return (IOC_READ << IOC_DIRSHIFT) | (ABSINFO.size << IOC_SIZESHIFT) | (ord('E') << IOC_TYPESHIFT) | (0x40 + axis)


# Four positions (counts, about 157 per g): each flips iio-sensor-proxy's orientation (its input-accel
# driver takes 256 counts per g and no Z, so any non-zero axis saturates: notes §2) and tilts tpacceld's
# pitch or roll by about 40 degrees: over its TiltStep and its 35 degree orientation threshold.
POSITIONS = ((100, 0), (0, 100), (-100, 0), (0, -100))
START_POSITION = (0, -100)
STEP_MIN_S, STEP_MAX_S = 1.0, 1.5  # longer than iio-sensor-proxy's 700 ms poll, random phase to it
SETTLE_S = 1.5
SEED = 7
START_TIMEOUT_S = 10
STOP_TIMEOUT_S = 5


class AbsHandler(UMockdev.IoctlBase):
    """Answers EVIOCGABS(ABS_X/Y/Z) with the current position (Z: zeroed, as the kernel answers for an
    axis the device lacks); anything else fails with ENOTTY. Counts the ABS_X reads."""

    def __init__(self):
        super().__init__()
        self.x, self.y = START_POSITION
        self.reads = 0
        self.lock = threading.Lock()

    def do_handle_ioctl(self, client):
        request = client.get_request()
        answers = {eviocgabs(ABS_X): ABS_X, eviocgabs(ABS_Y): ABS_Y, eviocgabs(ABS_Z): ABS_Z}
        if request not in answers:
            client.complete(-1, errno.ENOTTY)
            return True
        axis = answers[request]
        with self.lock:
            if axis == ABS_X:
                self.reads += 1
                info = ABSINFO.pack(self.x, -HDAPS_RANGE, HDAPS_RANGE, HDAPS_FUZZ, HDAPS_FUZZ, 0)
            elif axis == ABS_Y:
                info = ABSINFO.pack(self.y, -HDAPS_RANGE, HDAPS_RANGE, HDAPS_FUZZ, HDAPS_FUZZ, 0)
            else:
                info = bytes(ABSINFO.size)
        data = client.get_arg().resolve(0, ABSINFO.size)
        data.update(0, info)
        client.complete(0, 0)
        return True


class Device:
    def __init__(self):
        self.testbed = UMockdev.Testbed.new()
        self.root = self.testbed.get_root_dir()
        self.testbed.add_from_string(DEVICE)
        self.handler = AbsHandler()
        if not self.testbed.attach_ioctl(EVDEV, self.handler):
            raise RuntimeError('cannot attach the EVIOCGABS handler to ' + EVDEV)
        self.position_path = os.path.join(self.root, HDAPS_SYSFS, 'position')

    def set_position(self, x, y):
        """Both views change at once: the ioctl answers, and sysfs position rewritten in place (a daemon
        keeps the file open and preads it)."""
        with self.handler.lock:
            self.handler.x, self.handler.y = x, y
        text = ('(%d,%d)\n' % (x, y)).encode()
        fd = os.open(self.position_path, os.O_WRONLY)
        try:
            os.pwrite(fd, text, 0)
            os.ftruncate(fd, len(text))
        finally:
            os.close(fd)

    def reads(self):
        with self.handler.lock:
            return self.handler.reads


def cpu_ticks(pid):
    """utime + stime of the whole process, in clock ticks."""
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5), counted after the comm


def cpu_ns(pid):
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # the thread ended
    return total


class Claimer:
    def __init__(self, kind, address):
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)  # the client touches no device: keep umockdev out of it
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'claimer.py')
        self.proc = subprocess.Popen([sys.executable, script, kind, address], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.events = []
        self.counts = []
        self.ready = threading.Event()
        self.counted = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.ready.wait(START_TIMEOUT_S):
            raise RuntimeError('claimer.py %s did not claim within %d s' % (kind, START_TIMEOUT_S))

    def _read(self):
        for line in self.proc.stdout:
            words = line.split()
            if words == ['ready']:
                self.ready.set()
            elif words[:1] == ['event']:
                self.events.append((float(words[1]), words[2]))
            elif words[:1] == ['samples']:
                with self.counted:
                    self.counts.append(int(words[1]))
                    self.counted.notify()

    def samples(self):
        with self.counted:
            n = len(self.counts)
            self.proc.stdin.write('count\n')
            self.proc.stdin.flush()
            if not self.counted.wait_for(lambda: len(self.counts) > n, START_TIMEOUT_S):
                raise RuntimeError('the claimer did not answer')
            return self.counts[-1]

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(STOP_TIMEOUT_S)


def run_motion(device, daemon, claimer, count_reads, steps):
    """The motion script; returns the figures of one daemon."""
    rng = random.Random(SEED)
    time.sleep(SETTLE_S)
    ticks0, ns0, reads0, t_start = cpu_ticks(daemon.pid), cpu_ns(daemon.pid), count_reads(), time.monotonic()
    changes = []
    for i in range(steps):
        time.sleep(rng.uniform(STEP_MIN_S, STEP_MAX_S))
        x, y = POSITIONS[i % len(POSITIONS)]
        changes.append(time.monotonic())
        device.set_position(x, y)
    time.sleep(SETTLE_S)
    ticks1, ns1, reads1, t_end = cpu_ticks(daemon.pid), cpu_ns(daemon.pid), count_reads(), time.monotonic()
    if daemon.poll() is not None:
        raise RuntimeError('%s exited with %d during the run' % (daemon.args[0], daemon.returncode))

    events = list(claimer.events)
    latencies, orientation_latencies = [], []
    for i, t0 in enumerate(changes):
        t_next = changes[i + 1] if i + 1 < len(changes) else t_end
        before = [v for t, v in events if t <= t0]
        after = [(t, v) for t, v in events if t0 < t < t_next]
        if after:
            latencies.append((after[0][0] - t0) * 1e3)
        # The first event whose orientation differs from the one before the change (for
        # iio-sensor-proxy every event is one; tpacceld's Tilt also comes for pitch/roll alone).
        turned = [t for t, v in after if not before or v != before[-1]]
        if turned:
            orientation_latencies.append((turned[0] - t0) * 1e3)
    seconds = t_end - t_start
    reads = reads1 - reads0
    sequence = [v for t, v in events if t_start < t < t_end]
    sequence = [v for i, v in enumerate(sequence) if i == 0 or v != sequence[i - 1]]
    tick_s = 1 / os.sysconf('SC_CLK_TCK')
    return {
        'changes': len(changes),
        'events': len(latencies),
        'latencies': latencies,
        'orientation_latencies': orientation_latencies,
        'sequence': sequence,
        'seconds': seconds,
        'reads': reads,
        'cpu_ticks_s': (ticks1 - ticks0) * tick_s,
        'cpu_ns_s': (ns1 - ns0) / 1e9,
    }


def run_iio(device, address, steps):
    binary = next((p for p in IIO_SENSOR_PROXY_PATHS if os.access(p, os.X_OK)), None)
    if not binary:
        raise RuntimeError('iio-sensor-proxy is not installed (%s)' % ' or '.join(IIO_SENSOR_PROXY_PATHS))
    env = dict(os.environ, UMOCKDEV_DIR=device.root, DBUS_SYSTEM_BUS_ADDRESS=address)
    env.pop('G_MESSAGES_DEBUG', None)  # no debug log: it would be counted as the daemon's CPU
    daemon = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    claimer = None
    try:
        wait_for_owner_pid(address, daemon, 'net.hadess.SensorProxy', START_TIMEOUT_S)
        claimer = Claimer('iio', address)
        return run_motion(device, daemon, claimer, device.reads, steps)
    finally:
        if claimer:
            claimer.close()
        stop_process(daemon, STOP_TIMEOUT_S)


def run_tpacceld(device, address, tpacceld, state_dir, steps):
    env = dict(os.environ, UMOCKDEV_DIR=device.root)
    log = open(os.path.join(state_dir, 'tpacceld.log'), 'w')
    daemon = subprocess.Popen([tpacceld, '--session', '--address=' + address, '--backend=kernel',
                               '--sensor-proxy=no', '--state-dir=' + state_dir], env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    claimer = None
    try:
        wait_for_owner_pid(address, daemon, 'org.thinkpad.Accelerometer', START_TIMEOUT_S)
        claimer = Claimer('tpacceld', address)
        return run_motion(device, daemon, claimer, claimer.samples, steps)
    except RuntimeError:
        with open(log.name, errors='replace') as f:
            sys.stderr.write('tpacceld log:\n' + f.read())
        raise
    finally:
        if claimer:
            claimer.close()
        stop_process(daemon, STOP_TIMEOUT_S)
        log.close()


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def figures(name, r):
    """The `name: value unit` lines of one daemon; returns the summary for the table."""
    lat = r['latencies']
    if not lat:
        raise RuntimeError('%s: no event reached the claimer after %d changes' % (name, r['changes']))
    s = {
        'p50': statistics.median(lat), 'mean': statistics.mean(lat), 'p90': percentile(lat, 90),
        'max': max(lat), 'min': min(lat),
        'rate': r['reads'] / r['seconds'],
        'per_read_ticks': r['cpu_ticks_s'] / r['reads'] * 1e6 if r['reads'] else float('nan'),
        'per_read_ns': r['cpu_ns_s'] / r['reads'] * 1e6 if r['reads'] else float('nan'),
        'per_s_ns': r['cpu_ns_s'] / r['seconds'] * 1e3,
        'per_s_ticks': r['cpu_ticks_s'] / r['seconds'] * 1e3,
        'events': r['events'], 'changes': r['changes'],
    }
    print('%s changes with an event: %d of %d' % (name, r['events'], r['changes']))
    for k in ('min', 'p50', 'mean', 'p90', 'max'):
        print('%s event latency %s: %.1f ms' % (name, k, s[k]))
    turned = r['orientation_latencies']
    s['turned'] = len(turned)
    s['turned_p50'] = statistics.median(turned) if turned else float('nan')
    print('%s changes with an orientation change: %d of %d' % (name, len(turned), r['changes']))
    print('%s orientation sequence: %s' % (name, ' '.join(r['sequence'])))
    if turned:
        print('%s orientation change latency p50: %.1f ms' % (name, s['turned_p50']))
        print('%s orientation change latency max: %.1f ms' % (name, max(turned)))
    print('%s reads: %d' % (name, r['reads']))
    print('%s read rate: %.2f /s' % (name, s['rate']))
    print('%s CPU per read (schedstat): %.1f us' % (name, s['per_read_ns']))
    print('%s CPU per read (utime+stime, %d ms ticks): %.1f us' % (name, 1000 // os.sysconf('SC_CLK_TCK'),
                                                                    s['per_read_ticks']))
    print('%s CPU per second (schedstat): %.3f ms/s' % (name, s['per_s_ns']))
    print('%s CPU per second (utime+stime): %.3f ms/s' % (name, s['per_s_ticks']))
    return s


DEFAULT_STEPS = 20


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: compare-iio.py PATH/TO/tpacceld BUS_ADDRESS [STEPS]')
    tpacceld, address = sys.argv[1], sys.argv[2]
    steps = DEFAULT_STEPS
    if len(sys.argv) == 4:
        try:
            steps = int(sys.argv[3])
        except ValueError:
            sys.exit('STEPS: expected a number of position changes, got %r' % sys.argv[3])
        if not 4 <= steps <= 200:
            sys.exit('STEPS: expected 4 to 200 position changes, got %d' % steps)
    if not os.access(tpacceld, os.X_OK):
        sys.exit('%s: not an executable tpacceld' % tpacceld)
    if 'umockdev' not in os.environ.get('LD_PRELOAD', ''):
        sys.exit('run this under umockdev-wrapper (compare-iio.sh does)')

    load_average = os.getloadavg()[0]
    device = Device()
    loop = GLib.MainLoop()
    threading.Thread(target=loop.run, daemon=True).start()  # serves the EVIOCGABS answers
    state_dir = tempfile.mkdtemp(prefix='tpaccel-compare-')
    try:
        device.set_position(*START_POSITION)
        iio = run_iio(device, address, steps)
        device.set_position(*START_POSITION)
        tp = run_tpacceld(device, address, tpacceld, state_dir, steps)
    finally:
        loop.quit()
        shutil.rmtree(state_dir, ignore_errors=True)

    print('load average before the run: %.2f' % load_average)
    a = figures('iio-sensor-proxy', iio)
    b = figures('tpacceld', tp)
    print('ratio event latency p50 (iio-sensor-proxy / tpacceld): %.1f x' % (a['p50'] / b['p50']))
    print('ratio read rate (tpacceld / iio-sensor-proxy): %.1f x' % (b['rate'] / a['rate']))
    print('ratio CPU per read (tpacceld / iio-sensor-proxy, schedstat): %.2f x' % (b['per_read_ns'] / a['per_read_ns']))
    print('ratio CPU per second (tpacceld / iio-sensor-proxy, schedstat): %.2f x' % (b['per_s_ns'] / a['per_s_ns']))
    print()
    print('| figure | iio-sensor-proxy 3.0 | tpacceld | ratio |')
    print('|---|---|---|---|')
    print('| changes that reached the claimer | %d of %d | %d of %d | |' % (a['events'], a['changes'], b['events'],
                                                                          b['changes']))
    print('| change -> signal, p50 / p90 / max | %.0f / %.0f / %.0f ms | %.1f / %.1f / %.1f ms | %.0f x (p50) |'
          % (a['p50'], a['p90'], a['max'], b['p50'], b['p90'], b['max'], a['p50'] / b['p50']))
    print('| changes that turned the orientation, p50 latency | %d, %.0f ms | %d, %.0f ms | |'
          % (a['turned'], a['turned_p50'], b['turned'], b['turned_p50']))
    print('| reads per second | %.2f | %.1f | %.0f x |' % (a['rate'], b['rate'], b['rate'] / a['rate']))
    print('| CPU per read (schedstat) | %.0f us | %.0f us | %.2f x |' % (a['per_read_ns'], b['per_read_ns'],
                                                                      b['per_read_ns'] / a['per_read_ns']))
    print('| CPU per read (utime+stime) | %.0f us | %.0f us | |' % (a['per_read_ticks'], b['per_read_ticks']))
    print('| CPU per second (schedstat) | %.2f ms/s | %.2f ms/s | %.1f x |' % (a['per_s_ns'], b['per_s_ns'],
                                                                             b['per_s_ns'] / a['per_s_ns']))


if __name__ == '__main__':
    main()
