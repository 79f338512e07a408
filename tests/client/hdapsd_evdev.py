# SPDX-License-Identifier: GPL-2.0-or-later
"""The real hdapsd (Debian's /usr/sbin/hdapsd, 20141203) reading tpacceld's raw input device, for
test_input_devices.py.

hdapsd's evdev mode (src/hdapsd.c, src/input-helper.c of hdapsd 20141203): it takes the hdaps interface
when /sys/devices/platform/hdaps/position opens, reads that position once, opens /dev/input/event0..31
and keeps the first whose EVIOCGPHYS is "hdaps/input1" (else it falls back to polling sysfs), then blocks
in read() for struct input_event: EV_ABS ABS_X/ABS_Y set the position, EV_SYN ends a readout, the first
event's timestamp is the readout's time. Each readout goes through its velocity/acceleration test; on a
park it writes 5000 (ms, kernel >= 2.6.27) to /sys/block/DISK/device/unload_heads, rewrites it every
0.1 s while the motion lasts and writes 0 one second after the last park decision, printing "parking" and
"un-parking".

Two ways to give it tpacceld's device:
  * no /dev/uinput (the development machines, CI): tpacceld writes to the uinput stand-in
    (uinput-shim.c), whose events file is a FIFO here; InputCore does what the kernel's input core does
    between a uinput writer and an evdev reader (drops events of types and axes the device did not
    enable, values the fuzz filter leaves unchanged, empty frames) and writes whole frames to an evdev
    node in a umockdev testbed, whose ioctls (EVIOCGPHYS, EVIOCGNAME, EVIOCGID, EVIOCGBIT, EVIOCGABS)
    umockdev answers from the description tpacceld gave uinput (the shim's log). hdapsd runs under
    umockdev's preload, which also gives it the fake hdaps platform device and disk in sysfs.
  * /dev/uinput (a real kernel): tpacceld makes the devices; hdapsd runs in a private mount namespace
    whose /sys/devices/platform and /sys/block are the fake ones (bind mounts), with the real /dev/input.
"""
import os
import re
import shlex
import struct
import threading
import time

HDAPSD = "/usr/sbin/hdapsd"
UMOCKDEV_PRELOAD = "libumockdev-preload.so.0"
INPUT_EVENT = struct.Struct("qqHHi")  # struct input_event on 64-bit: timeval, type, code, value
INPUT_ABSINFO = struct.Struct("6i")  # value, minimum, maximum, fuzz, flat, resolution
INPUT_ID = struct.Struct("4H")  # bustype, vendor, product, version
EV_SYN, EV_ABS, SYN_REPORT = 0, 3, 0
EVDEV_MAJOR, EVDEV_MINOR_BASE = 13, 64  # drivers/input/evdev.c: /dev/input/eventN is 13:64+N
EVDEV_STRING_BUF = 1024  # the buffer hdapsd's input-helper.c hands EVIOCGPHYS and EVIOCGNAME
EVDEV_BITS_BUF = 8  # bytes asked for by EVIOCGBIT: one long's worth covers EV_* and ABS_X..ABS_Y
DISK = "sda"
UNLOAD_HEADS = f"sys/block/{DISK}/device/unload_heads"
HDAPS_SYSFS = "sys/devices/platform/hdaps"
DROPIN_RUNTIME_DIR = "/run/tpaccel"  # tpacceld.service's RuntimeDirectory=tpaccel


class UinputDevice:
    """What tpacceld told uinput about one device, parsed from the shim's log (uinput-shim.c)."""

    SETUP_RE = re.compile(r"UI_DEV_SETUP bus=0x([0-9a-f]+) vendor=0x([0-9a-f]+) product=0x([0-9a-f]+) "
                          r"version=0x([0-9a-f]+) name=(.*)$")
    ABS_RE = re.compile(r"UI_ABS_SETUP code=(\d+) min=(-?\d+) max=(-?\d+) fuzz=(\d+) flat=(\d+)$")

    def __init__(self, log_lines):
        self.evbits, self.absbits, self.absinfo = set(), set(), {}
        self.phys = self.name = self.id = None
        created = False
        for line in log_lines:
            word, _, arg = line.partition(" ")
            if word == "UI_SET_EVBIT":
                self.evbits.add(int(arg))
            elif word == "UI_SET_ABSBIT":
                self.absbits.add(int(arg))
            elif word == "UI_SET_PHYS":
                self.phys = arg
            elif word == "UI_ABS_SETUP":
                m = self.ABS_RE.match(line)
                self.absinfo[int(m.group(1))] = tuple(int(g) for g in m.groups()[1:])  # min max fuzz flat
            elif word == "UI_DEV_SETUP":
                m = self.SETUP_RE.match(line)
                self.id = tuple(int(g, 16) for g in m.groups()[:4])
                self.name = m.group(5)
            elif word == "UI_DEV_CREATE":
                created = True
        if not created or self.name is None:
            raise ValueError(f"no device was created through uinput: {log_lines}")

    @staticmethod
    def bitmask(bits):
        return sum(1 << b for b in bits)

    def umockdev_record(self, event_nr):
        """The device in umockdev's record format (as umockdev-record writes a kernel input device)."""
        sys_input = f"/devices/virtual/input/input{100 + event_nr}"
        minor = EVDEV_MINOR_BASE + event_nr
        return (f"P: {sys_input}/event{event_nr}\nN: input/event{event_nr}\n"
                f"E: DEVNAME=/dev/input/event{event_nr}\nE: MAJOR={EVDEV_MAJOR}\nE: MINOR={minor}\n"
                f"E: SUBSYSTEM=input\nA: dev={EVDEV_MAJOR}:{minor}\n\n"
                f"P: {sys_input}\nE: NAME=\"{self.name}\"\nE: PHYS=\"{self.phys}\"\n"
                f"E: PRODUCT={'/'.join('%x' % v for v in self.id)}\n"
                f"E: EV={self.bitmask(self.evbits):x}\nE: ABS={self.bitmask(self.absbits):x}\n"
                f"E: SUBSYSTEM=input\nA: name={self.name}\nA: phys={self.phys}\n"
                + "".join(f"A: id/{k}={v:04x}\n" for k, v in zip(("bustype", "vendor", "product", "version"),
                                                                   self.id))
                + f"A: capabilities/ev={self.bitmask(self.evbits):x}\n"
                f"A: capabilities/abs={self.bitmask(self.absbits):x}\n")

    def ioctl_record(self, node):
        """umockdev's ioctl tree for the evdev node: the replies the kernel's evdev gives for this device
        (axis values 0, uinput's initial value; tpacceld sets none)."""

        def string(s):
            data = s.encode() + bytes(1)
            return f"{len(data)} {data.ljust(EVDEV_STRING_BUF, bytes(1)).hex().upper()}"

        def bits(mask):
            return f"1 {mask.to_bytes(EVDEV_BITS_BUF, 'little').hex().upper()}"

        lines = [f"@DEV {node}", f"EVIOCGPHYS(0) {string(self.phys)}", f"EVIOCGNAME(0) {string(self.name)}",
                 f"EVIOCGID 0 {INPUT_ID.pack(*self.id).hex().upper()}",
                 f"EVIOCGBIT(0) {bits(self.bitmask(self.evbits))}",
                 f"EVIOCGBIT({EV_ABS}) {bits(self.bitmask(self.absbits))}"]
        for code, (lo, hi, fuzz, flat) in sorted(self.absinfo.items()):
            lines.append(f"EVIOCGABS({code}) 0 {INPUT_ABSINFO.pack(0, lo, hi, fuzz, flat, 0).hex().upper()}")
        return "\n".join(lines) + "\n"


def defuzz(old, value, fuzz):
    """The kernel's input_defuzz_abs_event() (drivers/input/input.c; C division truncates)."""
    if fuzz:
        if old - int(fuzz / 2) < value < old + int(fuzz / 2):
            return old
        if old - fuzz < value < old + fuzz:
            return int((old * 3 + value) / 4)
        if old - fuzz * 2 < value < old + fuzz * 2:
            return int((old + value) / 2)
    return value


class InputCore(threading.Thread):
    """The kernel's part between tpacceld's uinput writes and an evdev reader, for one device: reads the
    events tpacceld writes (the shim's FIFO; stamped at the write, as the input core stamps them), drops
    what the input core drops (event types and axes the device did not enable, a value the fuzz filter
    leaves equal to the last one, a SYN_REPORT ending an empty frame) and writes each frame whole to the
    evdev node while deliver is set (an evdev client sees only what comes after it opened the node).
    Delivered frames are kept in .frames as (monotonic time, event time, {axis: value}).

    Started before tpacceld (which opens the FIFO at start and blocks until it is read); attach() gives it
    the device and the node once tpacceld has made the device, and events wait in the FIFO until then."""

    def __init__(self, source):
        super().__init__(daemon=True)
        self.source = source
        os.mkfifo(source)
        self.attached, self.deliver = threading.Event(), threading.Event()
        self.frames, self.overruns = [], 0
        self.device = self.values = self.node_fd = None

    def attach(self, device, node):
        """node: the evdev node's path, replaced by a FIFO that this thread keeps open for writing (so
        that hdapsd's open never blocks and its read never sees an end)."""
        self.device = device
        self.values = {code: 0 for code in device.absbits}  # uinput starts every axis at 0
        if os.path.lexists(node):
            os.unlink(node)
        os.mkfifo(node)
        self.node_fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
        self.attached.set()

    def run(self):
        pending, changed, data = [], {}, b""
        with open(self.source, "rb", buffering=0) as src:
            self.attached.wait()
            while chunk := src.read(INPUT_EVENT.size * 64):
                data += chunk
                whole = len(data) - len(data) % INPUT_EVENT.size
                for i in range(0, whole, INPUT_EVENT.size):
                    sec, usec, etype, code, value = INPUT_EVENT.unpack_from(data, i)
                    if etype not in self.device.evbits:
                        continue
                    if etype == EV_ABS and code in self.device.absbits:
                        value = defuzz(self.values[code], value, self.device.absinfo[code][2])
                        if value != self.values[code]:
                            self.values[code] = changed[code] = value
                            pending.append(INPUT_EVENT.pack(sec, usec, etype, code, value))
                    elif etype == EV_SYN and code == SYN_REPORT and pending:
                        pending.append(INPUT_EVENT.pack(sec, usec, etype, code, value))
                        self.pass_frame(b"".join(pending), sec + usec / 1e6, changed)
                        pending, changed = [], {}
                data = data[whole:]

    def pass_frame(self, frame, event_time, changed):
        if not self.deliver.is_set():
            return
        try:
            os.write(self.node_fd, frame)  # at most a few events: one atomic pipe write
            self.frames.append((time.monotonic(), event_time, dict(changed)))
        except BlockingIOError:
            self.overruns += 1  # the reader stopped reading: evdev drops too (SYN_DROPPED)
        except (OSError, TypeError):
            pass  # closed meanwhile: the test is over

    def close(self):
        self.deliver.clear()
        if self.node_fd is not None:
            os.close(self.node_fd)
            self.node_fd = None


class EvdevFrameLog(threading.Thread):
    """Reads a kernel evdev node alongside hdapsd (every reader gets every event) and keeps each frame as
    (monotonic time, event time, {axis: value}), like InputCore.frames."""

    def __init__(self, node):
        super().__init__(daemon=True)
        self.fd = os.open(node, os.O_RDONLY)
        self.frames = []

    def run(self):
        changed = {}
        try:
            while data := os.read(self.fd, INPUT_EVENT.size * 64):
                for i in range(0, len(data) - len(data) % INPUT_EVENT.size, INPUT_EVENT.size):
                    sec, usec, etype, code, value = INPUT_EVENT.unpack_from(data, i)
                    if etype == EV_ABS:
                        changed[code] = value
                    elif etype == EV_SYN and code == SYN_REPORT:
                        self.frames.append((time.monotonic(), sec + usec / 1e6, changed))
                        changed = {}
        except OSError:
            pass  # the device went away

    def close(self):
        os.close(self.fd)


def shortest_gap(frames, since, until):
    """The shortest time between consecutive frames' event times among frames that arrived in
    [since, until] (monotonic), or None: what hdapsd divides by in its velocity and acceleration."""
    times = [t for arrived, t, _ in frames if since <= arrived <= until]
    return min((b - a for a, b in zip(times, times[1:])), default=None)


class ParkWatcher(threading.Thread):
    """Polls the fake disk's unload_heads every few ms and keeps (monotonic time, value) at each change:
    hdapsd writes 5000 to park and 0 to resume, without truncating ("5000" then "0000")."""

    POLL_S = 0.005

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.changes = path, []
        self.running = True

    def value(self):
        with open(self.path) as f:
            text = f.read().strip()
        return int(text) if text else 0

    def run(self):
        last = self.value()
        while self.running:
            v = self.value()
            if v != last:
                self.changes.append((time.monotonic(), v))
                last = v
            time.sleep(self.POLL_S)

    def stop(self):
        self.running = False
        self.join()

    def parks(self):
        """The times unload_heads went from 0 to a park."""
        out, last = [], 0
        for t, v in self.changes:
            if v and not last:
                out.append(t)
            last = v
        return out


def fake_disk(root):
    """Below root: a rotational disk whose unload_heads hdapsd writes (the test's; hdapsd's view of the
    accelerometer's sysfs directory is tpacceld's stand-in, through the drop-in's mounts)."""
    files = {UNLOAD_HEADS: "0\n", f"sys/block/{DISK}/queue/rotational": "1\n", f"sys/block/{DISK}/removable": "0\n"}
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def dropin_settings(path):
    """The [Unit] and [Service] settings of a unit drop-in as systemd reads them: {key: [values]}."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;[":
                continue
            key, _, value = line.partition("=")
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def dropin_mounts(settings, runtime_dir, sysroot=""):
    """The read-only bind mounts systemd makes for the unit, from its BindReadOnlyPaths= (source[:dest]),
    as (source, destination, read-only): DROPIN_RUNTIME_DIR (tpacceld's RuntimeDirectory) is runtime_dir here and /
    is sysroot; an optional source ("-") that does not exist is left out, as systemd leaves it out."""
    mounts = []
    for value in settings.get("BindReadOnlyPaths", []):
        for entry in value.split():
            optional = entry.startswith("-")
            source, _, dest = entry.lstrip("-").partition(":")
            if not source.startswith(DROPIN_RUNTIME_DIR + "/"):
                raise ValueError(f"BindReadOnlyPaths={entry}: not below {DROPIN_RUNTIME_DIR}")
            source = runtime_dir + source[len(DROPIN_RUNTIME_DIR):]
            if optional and not os.path.exists(source):
                continue
            mounts.append((source, sysroot + (dest or source), True))
    return mounts


def hdapsd_argv(conf):
    """hdapsd on disk sda at its default sensitivity, its output line-buffered; conf: an empty config file
    (the system's /etc/hdapsd.conf must not change the run)."""
    with open(conf, "w"):
        pass
    return ["stdbuf", "-oL", HDAPSD, "-c", conf, "-d", DISK, "-s", "15"]


def namespace_argv(mounts, argv, condition=None):
    """argv in a private mount namespace with mounts ((source, destination, read-only) binds, in order),
    after condition (an argv, like the unit's ExecCondition=) has succeeded in that namespace."""
    steps = [f"mount --bind {shlex.quote(src)} {shlex.quote(dst)}"
             + (f" && mount -o remount,bind,ro {shlex.quote(dst)}" if ro else "") for src, dst, ro in mounts]
    if condition:
        steps.append(shlex.join(condition))
    userns = [] if os.geteuid() == 0 else ["--map-root-user"]
    return ["unshare", "--mount", "--propagation", "private"] + userns + [
        "sh", "-c", " && ".join(steps + ['exec "$@"']), "hdapsd-in-namespace"] + argv


def real_event_node(name, phys):
    """The /dev/input/eventN the kernel made for the input device with this name and phys, or None."""
    base = "/sys/class/input"
    for entry in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if not entry.startswith("event"):
            continue
        try:
            with open(f"{base}/{entry}/device/name") as f1, open(f"{base}/{entry}/device/phys") as f2:
                if f1.read().strip() == name and f2.read().strip() == phys:
                    return f"/dev/input/{entry}"
        except OSError:
            continue
    return None
