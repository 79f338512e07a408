#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Debian's hdapsd, a real program in real time, on tpacceld's raw input device (test_input_devices.py's
set-up) must park on a drop and not at rest: through the uinput stand-in and a umockdev evdev node
everywhere (hdapsd_evdev.py), and on the kernel's uinput where /dev/uinput is writable (skipped
elsewhere). About 11 s a test (the rest hdapsd watches, the drop, its unpark), so in the `system` tier
(tests/client/meson.build), which needs no root for it; what tpacceld gives hdapsd (the devices, their
frames, the sysfs stand-in, the drop-in's namespace) is test_input_devices.py's, in the default one."""
import os
import re
import shutil
import sys
import time
import unittest

import hdapsd_evdev
import test_input_devices
from clienttest import trace, wait_until
from test_input_devices import RAW_NAME, SAMPLING_RATE, SHIM
import testmain  # tests/lib

# hdapsd's run: rest.csv for REST_MS, then DROP_TRACE (its own times shifted by REST_MS; its first
# second is rest too). hdapsd reads the device 0.2-0.5 s after tpacceld started (load average 5), and
# must have watched MIN_REST_WATCHED_MS of the rest before the trace's first motion (REST_MS + 1 s): it
# must be reading within 3 s of tpacceld's start.
REST_MS = 4000
DROP_TRACE = "drop-30cm.csv"
JITTER_GAP_S = 0.5 / SAMPLING_RATE  # frames closer than this are the host's timing, not tpacceld's data
JITTER_LOOKBACK_MS = 100  # the frames hdapsd decided a park on: those that came this long before it
MIN_REST_WATCHED_MS = 2000  # hdapsd must be reading the device this long before the rest ends (100 frames)
DECISION_LAG_MS = 200  # a park may come this long after the motion allowed to cause it (a readout or two)
PARK_WITHIN_MS = 1500  # after the drop starts (hdapsd parks within a readout or two; slack for a loaded host)
UNPARK_WITHIN_MS = 4000  # after the drop starts: 1 s after hdapsd's last park decision (the landing)


def rest_then_drop(path):
    """Writes rest.csv's first REST_MS, then DROP_TRACE shifted by REST_MS, to path. Returns, in the composed
    trace's time, the spans where a shock is allowed (the drop trace's expectations: the lift, the drop and
    landing) and where the drop starts. Outside those spans the machine is still: at rest, or held."""
    rows, allowed, drop = [], [], None
    with open(trace("rest.csv")) as f:
        rows += [line for line in f if line[0].isdigit() and float(line.split(",")[0]) < REST_MS]
    with open(trace(DROP_TRACE)) as f:
        for line in f:
            m = re.match(r"# expect: shock-allowed from_ms=(\d+) to_ms=(\d+)", line)
            if m:
                allowed.append((REST_MS + int(m.group(1)), REST_MS + int(m.group(2))))
            m = re.match(r"# expect: shock at_ms=(\d+) kind=drop", line)
            if m:
                drop = REST_MS + int(m.group(1))
            if line[0].isdigit():
                t, rest = line.split(",", 1)
                rows.append(f"{REST_MS + float(t):g},{rest}")
    with open(path, "w") as f:
        f.write(f"# rest.csv for {REST_MS} ms, then {DROP_TRACE} (test_input_devices.py)\n"
                "time_ms,x,y,keyboard,mouse\n" + "".join(rows))
    return allowed, drop


class HdapsdParksTest(test_input_devices.InputDevicesTest):
    def as_dropin_arranges(self, argv, sysroot="", extra_mounts=(), wrapper=()):
        """argv (hdapsd) the way the drop-in runs it: in a private mount namespace with the drop-in's
        BindReadOnlyPaths= (its /run/tpaccel: self.runtime_dir; its /: sysroot) and extra_mounts, after
        its ExecCondition= has passed there. wrapper: a command prefix for both (umockdev's env)."""
        mounts = hdapsd_evdev.dropin_mounts(self.dropin, self.runtime_dir, sysroot) + list(extra_mounts)
        return hdapsd_evdev.namespace_argv(mounts, list(wrapper) + argv, list(wrapper) + self.condition())

    def run_hdapsd(self, argv, env, node):
        """Starts hdapsd (log hdapsd.log) and waits until it has chosen node as its input device."""
        proc = self.spawn(argv, "hdapsd.log", env=env)
        log = os.path.join(self.tmpdir, "hdapsd.log")

        def chosen():
            with open(log, errors="replace") as f:
                text = f.read()
            if proc.poll() is not None or "Could not find hdaps input device" in text:
                self.fail(f"hdapsd did not take tpacceld's device (it needs phys hdaps/input1):\n{text}")
            return f"Selected HDAPS input device: {node}\n" in text
        wait_until(chosen, what=f"hdapsd to select {node}")
        return proc

    def check_hdapsd_parked_on_drop(self, proc, watcher, given, t0, t_ready, chosen_at, allowed, drop):
        """Waits past the drop; then hdapsd must have read the device through the rest, parked only where the
        trace allows a shock (allowed: spans, trace time), begun a park within PARK_WITHIN_MS of the drop's
        start, and unparked. Times relative to t0 (before tpacceld started) bound the trace's time from
        above, relative to t_ready (tpacceld on the bus) from below. given: the frames hdapsd was given,
        (arrival, event time, values).

        A park while the machine is still is tpacceld's fault unless hdapsd decided it on frames that came
        much closer together than the sampling period: hdapsd divides a count or two of noise by that time,
        twice (its acceleration test), and on a loaded host tpacceld's poll tick can be late and the next one
        on time (the poller keeps its cadence), which the kernel's timestamps (the stand-in's too) then show.
        Such a park is reported on stderr, not failed: it says the host was busy, not that the data was
        wrong."""
        def over():
            # Ends at hdapsd's unpark once the trace is surely past the spans that allow a park (tpacceld
            # was on the bus at t_ready), or at the latest UNPARK_WITHIN_MS after the drop; the asserts
            # below say what went wrong.
            now = time.monotonic()
            if now > t0 + (drop + UNPARK_WITHIN_MS) / 1000:
                return True
            past = now > t_ready + (allowed[-1][1] + DECISION_LAG_MS) / 1000
            changes = list(watcher.changes)
            return past and any(t >= t0 + drop / 1000 and v for t, v in changes) and changes[-1][1] == 0
        wait_until(over, timeout=60, interval=0.1, what="the drop to be over")
        watcher.stop()
        proc.kill()  # hdapsd 20141203 may hang in its SIGTERM handler (bench/motion/hdapsd-replay.py)
        proc.wait()
        with open(os.path.join(self.tmpdir, "hdapsd.log"), errors="replace") as f:
            log = f.read()
        parks = [round((t - t0) * 1000) for t in watcher.parks()]
        late = round((t_ready - t0) * 1000)
        what = (f"unload_heads changes (ms after tpacceld started, value): "
                f"{[(round((t - t0) * 1000), v) for t, v in watcher.changes]}; tpacceld on the bus after {late} ms; "
                f"shocks allowed {allowed}, drop at {drop} ms\nhdapsd:\n{log}")
        self.assertLessEqual((chosen_at - t0) * 1000, allowed[0][0] - MIN_REST_WATCHED_MS,
                             "hdapsd started too late to watch the rest: " + what)
        self.assertTrue(parks, "hdapsd never parked: " + what)
        for park in parks:
            # The trace's time at the park is in [park - late, park]; the decision may follow the motion.
            if any(start <= park and park - late <= end + DECISION_LAG_MS for start, end in allowed):
                continue
            gap = hdapsd_evdev.shortest_gap(given, t0 + (park - JITTER_LOOKBACK_MS) / 1000, t0 + park / 1000)
            self.assertTrue(gap is not None and gap < JITTER_GAP_S,
                            f"hdapsd parked at {park} ms with the machine still, on frames {gap} s apart at the "
                            "closest: " + what)
            sys.stderr.write(f"hdapsd parked at {park} ms with the machine still, on frames {gap * 1000:.1f} ms "
                             f"apart (the sampling period is {1000 / SAMPLING_RATE:.0f} ms): the host delayed "
                             "tpacceld's poll tick\n")
        at_drop = [p for p in parks if p >= drop]
        self.assertTrue(at_drop and at_drop[0] - late <= drop + PARK_WITHIN_MS,
                        f"hdapsd did not park within {PARK_WITHIN_MS} ms of the drop: " + what)
        self.assertEqual(watcher.value(), 0, "hdapsd did not unpark after the drop: " + what)
        self.assertIn("parking\n", log)
        self.assertIn("un-parking\n", log)
        return parks

    def test_hdapsd_parks_on_drop(self):
        """hdapsd on the stand-in's stream, through InputCore, on a umockdev evdev node (hdapsd_evdev.py)."""
        import gi
        gi.require_version("UMockdev", "1.0")
        from gi.repository import UMockdev

        self.assertTrue(os.access(hdapsd_evdev.HDAPSD, os.X_OK), f"{hdapsd_evdev.HDAPSD} is missing (hdapsd)")
        testbed = UMockdev.Testbed.new()
        root = testbed.get_root_dir()
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        cores = [hdapsd_evdev.InputCore(os.path.join(self.shim_dir, f"uinput{n}.events")) for n in (0, 1)]
        for core in cores:
            core.start()
            self.addCleanup(core.close)
        composed = os.path.join(self.tmpdir, "rest-then-drop.csv")
        allowed, drop = rest_then_drop(composed)

        t0 = time.monotonic()
        self.env["LD_PRELOAD"] = SHIM
        self.env["UINPUT_SHIM_DIR"] = self.shim_dir
        try:
            self.start_daemon(composed)
        finally:
            del self.env["LD_PRELOAD"], self.env["UINPUT_SHIM_DIR"]
        t_ready = time.monotonic()
        self.set_input_devices(True)

        # The testbed's evdev nodes, as the kernel would number them: joystick event6, raw data event7.
        for n, core in enumerate(cores):
            device = hdapsd_evdev.UinputDevice(self.log(n))
            node = f"/dev/input/event{6 + n}"
            self.assertTrue(testbed.add_from_string(device.umockdev_record(6 + n)))
            ioctls = os.path.join(self.tmpdir, f"event{6 + n}.ioctl")
            with open(ioctls, "w") as f:
                f.write(device.ioctl_record(node))
            self.assertTrue(testbed.load_ioctl(node, ioctls))
            core.attach(device, root + node)
        # hdapsd's /sys is the testbed's: the drop-in's mounts land there; the disk is the test's.
        hdapsd_evdev.fake_disk(root)
        os.makedirs(os.path.join(root, "sys", "devices", "platform"))
        self.assertTrue(os.path.isfile(os.path.join(self.standin, "hdaps", "position")),
                        "tpacceld made no sysfs stand-in for hdapsd")
        watcher = hdapsd_evdev.ParkWatcher(os.path.join(root, hdapsd_evdev.UNLOAD_HEADS))
        watcher.start()
        self.addCleanup(watcher.stop)
        umockdev = ["env", f"LD_PRELOAD={hdapsd_evdev.UMOCKDEV_PRELOAD}", f"UMOCKDEV_DIR={root}"]
        argv = self.as_dropin_arranges(hdapsd_evdev.hdapsd_argv(os.path.join(self.tmpdir, "hdapsd.conf")),
                                       sysroot=root, wrapper=umockdev)
        proc = self.run_hdapsd(argv, self.env, "/dev/input/event7")
        cores[1].deliver.set()  # hdapsd has the node open: from now on it gets the frames
        chosen_at = time.monotonic()

        self.check_hdapsd_parked_on_drop(proc, watcher, cores[1].frames, t0, t_ready, chosen_at, allowed, drop)
        rest_frames = [f for t, _, f in cores[1].frames if t < t0 + allowed[0][0] / 1000]
        self.assertGreater(len(rest_frames), SAMPLING_RATE * MIN_REST_WATCHED_MS / 1000 / 2,
                           "hdapsd got few frames during the rest (the input core drops only unchanged values)")
        self.assertEqual(cores[1].overruns, 0, "hdapsd did not keep up with the frames")

    def test_hdapsd_parks_on_drop_real_uinput(self):
        """The same on the kernel's uinput and evdev: no stand-in, no InputCore, no umockdev."""
        if not (os.path.exists("/dev/uinput") and os.access("/dev/uinput", os.W_OK)):
            self.skipTest("no writable /dev/uinput here: hdapsd on the kernel's uinput device is not run "
                          "(test_hdapsd_parks_on_drop runs it on the uinput stand-in and a umockdev evdev node)")
        self.assertTrue(os.access(hdapsd_evdev.HDAPSD, os.X_OK), f"{hdapsd_evdev.HDAPSD} is missing (hdapsd)")
        composed = os.path.join(self.tmpdir, "rest-then-drop.csv")
        allowed, drop = rest_then_drop(composed)
        t0 = time.monotonic()
        self.start_daemon(composed)
        t_ready = time.monotonic()
        self.set_input_devices(True)
        node = wait_until(lambda: hdapsd_evdev.real_event_node(RAW_NAME, "hdaps/input1"),
                          what="the kernel's event node for tpacceld's raw device")
        self.assertTrue(os.access(node, os.R_OK), f"{node} is not readable here: hdapsd could not read it")
        sysroot = os.path.join(self.tmpdir, "sysroot")
        hdapsd_evdev.fake_disk(sysroot)
        watcher = hdapsd_evdev.ParkWatcher(os.path.join(sysroot, hdapsd_evdev.UNLOAD_HEADS))
        watcher.start()
        self.addCleanup(watcher.stop)
        argv = self.as_dropin_arranges(hdapsd_evdev.hdapsd_argv(os.path.join(self.tmpdir, "hdapsd.conf")),
                                       extra_mounts=[(os.path.join(sysroot, "sys", "block"), "/sys/block", False)])
        frames = hdapsd_evdev.EvdevFrameLog(node)
        frames.start()
        self.addCleanup(frames.close)
        proc = self.run_hdapsd(argv, self.env, node)
        self.check_hdapsd_parked_on_drop(proc, watcher, frames.frames, t0, t_ready, time.monotonic(), allowed, drop)


def load_tests(loader, tests, pattern):
    """This class's own tests, not the ones it inherits from test_input_devices.py's InputDevicesTest."""
    return unittest.TestSuite([HdapsdParksTest("test_hdapsd_parks_on_drop"),
                               HdapsdParksTest("test_hdapsd_parks_on_drop_real_uinput")])


if __name__ == "__main__":
    testmain.main()
