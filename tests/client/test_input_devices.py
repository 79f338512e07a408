#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The hdaps input devices through uinput (SetInputDevices), tested through a stand-in for /dev/uinput
(uinput-shim.c, preloaded into tpacceld): the device descriptions and the event stream are checked
against tp_smapi's devices and what hdapsd's evdev reader needs (phys "hdaps/input1", ABS_X/ABS_Y frames
ended by SYN_REPORT), the sysfs stand-in hdapsd needs and the namespace of its drop-in. The real hdapsd
parking on tpacceld's raw device during a drop is test_hdapsd_parks.py's (the `system` tier)."""
import os
import re
import shlex
import signal
import subprocess
import struct
import time

import hdapsd_evdev
from clienttest import ACCEL, ACCEL_PATH, TOP_BUILDDIR, TOP_SRCDIR, ClientTestCase, wait_until

from gi.repository import GLib
import testmain  # tests/lib

SHIM = os.path.join(TOP_BUILDDIR, "tests", "client", "libuinput-shim.so")
# The hdapsd unit drop-in as built (data/hdapsd-tpaccel.conf.in) and its ExecCondition= script.
DROPIN = os.path.join(TOP_BUILDDIR, "data", "hdapsd-tpaccel.conf")
CHECK = os.path.join(TOP_SRCDIR, "data", "tpaccel-hdapsd-check")
INPUT_EVENT = struct.Struct("qqHHi")  # struct input_event on 64-bit: timeval, type, code, value
EV_SYN, EV_ABS, ABS_X, ABS_Y, SYN_REPORT = 0, 3, 0, 1, 0
JOYSTICK = ["UI_SET_EVBIT 3", "UI_SET_EVBIT 0",
            "UI_SET_ABSBIT 0", "UI_ABS_SETUP code=0 min=-256 max=256 fuzz=4 flat=4",
            "UI_SET_ABSBIT 1", "UI_ABS_SETUP code=1 min=-256 max=256 fuzz=4 flat=4",
            "UI_SET_PHYS hdaps/input0",
            "UI_DEV_SETUP bus=0x0019 vendor=0x1014 product=0x5054 version=0x6801 "
            "name=ThinkPad HDAPS joystick emulation",
            "UI_DEV_CREATE"]
REST_POSITION = (-498, -439)  # rest.csv's, raw counts
SAMPLING_RATE = 50  # tpacceld's default
RAW_NAME = "ThinkPad HDAPS accelerometer data"
RAW = ["UI_SET_EVBIT 3", "UI_SET_EVBIT 0",
       "UI_SET_ABSBIT 0", "UI_ABS_SETUP code=0 min=-32768 max=32767 fuzz=0 flat=0",
       "UI_SET_ABSBIT 1", "UI_ABS_SETUP code=1 min=-32768 max=32767 fuzz=0 flat=0",
       "UI_SET_PHYS hdaps/input1",
       "UI_DEV_SETUP bus=0x0019 vendor=0x1014 product=0x5054 version=0x4801 "
       "name=" + RAW_NAME,
       "UI_DEV_CREATE"]


def frames(path):
    """The (x, y) frames of an events file, checking the structure hdapsd's reader relies on."""
    with open(path, "rb") as f:
        data = f.read()
    events = [INPUT_EVENT.unpack_from(data, i) for i in range(0, len(data) - len(data) % INPUT_EVENT.size,
                                                               INPUT_EVENT.size)]
    out = []
    for i in range(0, len(events) - 2, 3):
        (_, _, t1, c1, x), (_, _, t2, c2, y), (_, _, t3, c3, _) = events[i:i + 3]
        assert (t1, c1, t2, c2, t3, c3) == (EV_ABS, ABS_X, EV_ABS, ABS_Y, EV_SYN, SYN_REPORT), events[i:i + 3]
        out.append((x, y))
    return out


class InputDevicesTest(ClientTestCase):
    def setUp(self):
        super().setUp()
        self.assertTrue(os.path.exists(SHIM), f"{SHIM} is not built")
        self.shim_dir = os.path.join(self.tmpdir, "uinput")
        os.makedirs(self.shim_dir)
        # tpacceld's RuntimeDirectory (the unit's /run/tpaccel), where it keeps hdapsd's sysfs stand-in.
        self.runtime_dir = os.path.join(self.tmpdir, "run")
        os.makedirs(self.runtime_dir)
        self.env["RUNTIME_DIRECTORY"] = self.runtime_dir
        self.standin = os.path.join(self.runtime_dir, "hdapsd", "platform")
        self.dropin = hdapsd_evdev.dropin_settings(DROPIN)

    def start_with_shim(self, trace_name="rest.csv", extra=()):
        self.env["LD_PRELOAD"] = SHIM
        self.env["UINPUT_SHIM_DIR"] = self.shim_dir
        try:
            self.start_daemon(trace_name, loop=True, extra=extra)
        finally:
            del self.env["LD_PRELOAD"], self.env["UINPUT_SHIM_DIR"]

    def log(self, n):
        with open(os.path.join(self.shim_dir, f"uinput{n}.log")) as f:
            return f.read().splitlines()

    def set_input_devices(self, on):
        self.bus.call(ACCEL, ACCEL_PATH, ACCEL, "SetInputDevices", "b", (on,))

    def test_devices_and_event_stream(self):
        self.start_with_shim()
        self.assertIs(self.bus.accel_property("InputDevices"), False)
        self.assertEqual(self.log(0), ["open /dev/uinput"], "a device was made before it was enabled")
        self.assertIs(self.bus.accel_property("Polling"), False)

        self.set_input_devices(True)
        self.assertIs(self.bus.accel_property("InputDevices"), True)
        self.assertEqual(self.log(0)[1:], JOYSTICK)
        self.assertEqual(self.log(1)[1:], RAW)
        wait_until(lambda: self.bus.accel_property("Polling"), what="polling to run for the input devices")
        time.sleep(2.0)
        with open(os.path.join(self.tmpdir, "state", "state")) as f:
            self.assertIn("input_devices=1\n", f.read())
        rest = self.bus.accel_property("RestPosition")
        self.set_input_devices(False)
        self.assertEqual(self.log(0)[-1], "UI_DEV_DESTROY")
        self.assertEqual(self.log(1)[-1], "UI_DEV_DESTROY")

        # Read once the devices are gone: each readout writes the joystick's frame, then the raw one, so
        # the files read while they are written may differ by the frame in between.
        raw = frames(os.path.join(self.shim_dir, "uinput1.events"))
        joystick = frames(os.path.join(self.shim_dir, "uinput0.events"))
        self.assertGreater(len(raw), 40, "fewer frames than readouts at 50 Hz")
        self.assertEqual(len(raw), len(joystick))
        for (x, y), (jx, jy) in zip(raw[5:], joystick[5:]):
            self.assertLessEqual(abs(x + 498) + abs(y + 439), 10, (x, y))  # rest.csv, raw counts
            self.assertEqual((jx, jy), (x - rest[0], y - rest[1]))
        wait_until(lambda: self.bus.accel_property("Polling") is False, what="polling to stop")

    def test_setting_persists(self):
        self.start_with_shim()
        self.set_input_devices(True)
        self.stop_daemon()
        self.processes.remove(self.daemon)
        self.assertEqual(self.log(0)[-2:], ["UI_DEV_DESTROY", "close"])
        self.shim_dir = os.path.join(self.tmpdir, "uinput2")
        os.makedirs(self.shim_dir)
        self.start_with_shim()
        self.assertIs(self.bus.accel_property("InputDevices"), True)
        self.assertEqual(self.log(1)[1:], RAW)
        wait_until(lambda: self.bus.accel_property("Polling"), what="polling to run after a restart")

    def test_sighup_applies_input_devices(self):
        self.start_with_shim()
        state = os.path.join(self.tmpdir, "state", "state")
        with open(state, "w") as f:
            f.write("sampling_rate=50\ninput_devices=1\n")
        self.daemon.send_signal(signal.SIGHUP)
        wait_until(lambda: self.bus.accel_property("InputDevices"), what="the reload to enable the devices")
        self.assertEqual(self.log(0)[1:], JOYSTICK)
        self.assertEqual(self.log(1)[1:], RAW)
        wait_until(lambda: self.bus.accel_property("Polling"), what="polling to run for the input devices")
        with open(state, "w") as f:
            f.write("sampling_rate=50\n")
        self.daemon.send_signal(signal.SIGHUP)
        wait_until(lambda: self.bus.accel_property("InputDevices") is False, what="the reload to disable them")
        self.assertEqual(self.log(0)[-1], "UI_DEV_DESTROY")
        self.assertEqual(self.log(1)[-1], "UI_DEV_DESTROY")
        wait_until(lambda: self.bus.accel_property("Polling") is False, what="polling to stop")
        self.assertIsNone(self.daemon.poll(), "SIGHUP must not end the daemon")

    def test_unsaved_change_is_refused(self):
        # As every setter: a change that cannot be saved is not made, no device is created.
        os.makedirs(os.path.join(self.tmpdir, "state", "state"))  # the state file cannot be written
        self.start_with_shim()
        with self.assertRaisesRegex(GLib.Error, r"NotSaved.*not made: cannot write the state file "
                                                r".*/state: Is a directory"):
            self.set_input_devices(True)
        self.assertIs(self.bus.accel_property("InputDevices"), False)
        self.assertEqual(self.log(0), ["open /dev/uinput"], "a device was made for an unsaved change")
        self.assertEqual(self.log(1), ["open /dev/uinput"], "a device was made for an unsaved change")
        self.assertIs(self.bus.accel_property("Polling"), False)

    def condition(self):
        """The drop-in's ExecCondition=, as the script in the source tree."""
        (command,) = self.dropin["ExecCondition"]
        self.assertEqual(os.path.basename(command), os.path.basename(CHECK))
        return [CHECK]

    def standin_file(self, name):
        with open(os.path.join(self.standin, "hdaps", name)) as f:
            return f.read()

    def test_hdapsd_sysfs_standin(self):
        """tpacceld's stand-in for /sys/devices/platform/hdaps, which hdapsd needs before it looks for the
        input device: made with the devices (before any readout: a boot-time hdapsd finds it), the
        driver's formats and modes, the position of a readout, the rate kept current; removed whole with the
        devices and at exit, nothing left behind."""
        self.start_with_shim()
        self.assertFalse(os.path.exists(self.standin), "a stand-in was made before the devices")
        self.set_input_devices(True)
        device = os.path.join(self.standin, "hdaps")
        self.assertEqual(sorted(os.listdir(device)),
                         ["keyboard_activity", "mouse_activity", "position", "provider", "sampling_rate"])
        for name in os.listdir(device):
            self.assertEqual(os.stat(os.path.join(device, name)).st_mode & 0o777, 0o644, name)
        for d in (self.standin, device):
            self.assertEqual(os.stat(d).st_mode & 0o777, 0o755, d)
        self.assertEqual(self.standin_file("provider"), "tpacceld\n")
        self.assertEqual(self.standin_file("sampling_rate"), "50\n")
        self.assertEqual(self.standin_file("keyboard_activity"), "0\n")
        self.assertEqual(self.standin_file("mouse_activity"), "0\n")

        def position():
            m = re.fullmatch(r"\((-?\d+),(-?\d+)\)\n", self.standin_file("position"))
            self.assertIsNotNone(m, "position is not as hdapsd parses it: (%d,%d)")
            return int(m.group(1)), int(m.group(2))
        wait_until(lambda: abs(position()[0] - REST_POSITION[0]) + abs(position()[1] - REST_POSITION[1]) <= 10,
                   what="the stand-in's position to be a readout of rest.csv")
        self.ctl("set", "sampling-rate", "25", check=0)
        wait_until(lambda: self.standin_file("sampling_rate") == "25\n", what="the stand-in's rate to follow")

        self.set_input_devices(False)
        self.assertFalse(os.path.exists(self.standin), "the stand-in outlived the devices")
        self.assertEqual(os.listdir(os.path.dirname(self.standin)), [], "left behind")
        self.set_input_devices(True)
        self.assertEqual(self.standin_file("sampling_rate"), "25\n")
        self.stop_daemon()
        self.processes.remove(self.daemon)
        self.assertFalse(os.path.exists(self.standin), "the stand-in outlived tpacceld")

    def test_hdapsd_sysfs_activity(self):
        """keyboard_activity follows the EC's (typing.csv types from 1 s on): hdapsd's adaptive mode reads it."""
        self.start_with_shim("typing.csv")
        self.set_input_devices(True)
        wait_until(lambda: self.standin_file("keyboard_activity") == "1\n", what="keyboard_activity to be 1")
        self.assertEqual(self.standin_file("mouse_activity"), "0\n")

    def test_hdapsd_sysfs_defers_to_kernel(self):
        """With the kernel's hdaps driver loaded its directory is hdapsd's: no stand-in is made."""
        sysroot = os.path.join(self.tmpdir, "sysroot")
        os.makedirs(os.path.join(sysroot, hdapsd_evdev.HDAPS_SYSFS))
        with open(os.path.join(sysroot, hdapsd_evdev.HDAPS_SYSFS, "position"), "w") as f:
            f.write("(-498,-439)\n")
        self.start_with_shim(extra=[f"--sysroot={sysroot}"])
        self.set_input_devices(True)
        self.assertEqual(self.log(1)[1:], RAW)
        wait_until(lambda: self.bus.accel_property("Claimed"), what="polling to run for the input devices")
        self.assertFalse(os.path.exists(self.standin), "a stand-in was made beside the kernel driver's directory")

    def run_in_dropin_namespace(self, log_name, fake_modprobe):
        """Debian's hdapsd (dry run, disk sda) with the drop-in's mounts over this machine's /sys, modprobe
        replaced by a recorder (fake_modprobe: its log). Returns (exit status or None if still running after
        a few seconds, hdapsd's output)."""
        bindir = os.path.join(self.tmpdir, "bin")
        os.makedirs(bindir, exist_ok=True)
        recorder = os.path.join(bindir, "modprobe")
        with open(recorder, "w") as f:
            f.write(f"#!/bin/sh\necho \"$*\" >> {shlex.quote(fake_modprobe)}\nexit 1\n")
        os.chmod(recorder, 0o755)
        extra = [(recorder, path, True) for path in ("/usr/sbin/modprobe", "/sbin/modprobe")
                 if os.path.exists(path)]
        mounts = hdapsd_evdev.dropin_mounts(self.dropin, self.runtime_dir) + extra
        conf = os.path.join(self.tmpdir, "hdapsd.conf")
        argv = hdapsd_evdev.namespace_argv(mounts, ["stdbuf", "-oL", hdapsd_evdev.HDAPSD, "-c", conf, "-d",
                                                    hdapsd_evdev.DISK, "-t"])
        hdapsd_evdev.hdapsd_argv(conf)  # writes the empty config file
        env = dict(self.env, PATH=bindir + os.pathsep + self.env.get("PATH", "/usr/bin:/bin"))
        proc = self.spawn(argv, log_name, env=env)
        log = os.path.join(self.tmpdir, log_name)

        def settled():
            with open(log, errors="replace") as f:
                text = f.read()
            return proc.poll() is not None or "input device" in text
        wait_until(settled, what="hdapsd to choose its interface")
        status = proc.poll()
        proc.kill()
        proc.wait()
        with open(log, errors="replace") as f:
            return status, f.read()

    def test_dropin_namespace_hdapsd_never_modprobes(self):
        """In the drop-in's mount namespace with tpacceld's stand-in, Debian's hdapsd takes the hdaps
        interface without running modprobe; the drop-in's condition refuses to start it here, where the
        stand-in's input device does not exist (uinput is the stand-in's). Without the stand-in (devices
        off) the optional bind is skipped and hdapsd runs modprobe: what ProtectKernelModules= is for."""
        self.assertTrue(os.access(hdapsd_evdev.HDAPSD, os.X_OK), f"{hdapsd_evdev.HDAPSD} is missing (hdapsd)")
        self.start_with_shim()
        self.set_input_devices(True)
        mounts = hdapsd_evdev.dropin_mounts(self.dropin, self.runtime_dir)
        self.assertEqual(mounts, [(self.standin, "/sys/devices/platform", True)])
        check = subprocess.run(hdapsd_evdev.namespace_argv(mounts, self.condition()), capture_output=True,
                               text=True, timeout=30)
        self.assertEqual(check.returncode, 1, check)
        self.assertIn("tpacceld's stand-in for /sys/devices/platform/hdaps is there but its input device "
                      "(phys hdaps/input1) is not", check.stderr)

        calls = os.path.join(self.tmpdir, "modprobe-calls")
        status, log = self.run_in_dropin_namespace("hdapsd-standin.log", calls)
        self.assertIn("Selected interface: HDAPS", log)
        self.assertIn("Could not find hdaps input device", log)  # here; the check above keeps it from starting
        self.assertFalse(os.path.exists(calls), "hdapsd ran modprobe beside tpacceld's stand-in")

        self.set_input_devices(False)
        self.assertEqual(hdapsd_evdev.dropin_mounts(self.dropin, self.runtime_dir), [])
        status, log = self.run_in_dropin_namespace("hdapsd-nothing.log", calls)
        self.assertIn("Could not find a suitable interface", log)
        with open(calls) as f:
            self.assertIn("hdaps", f.read().split(), "the modprobe recorder saw no modprobe hdaps")

    def test_without_uinput(self):
        self.start_daemon("rest.csv")
        if os.path.exists("/dev/uinput") and os.access("/dev/uinput", os.W_OK):
            self.set_input_devices(True)
            self.assertIs(self.bus.accel_property("InputDevices"), True)
            self.set_input_devices(False)
            return
        with self.assertRaisesRegex(GLib.Error, "FileNotFound.*/dev/uinput does not exist"):
            self.set_input_devices(True)
        self.assertIs(self.bus.accel_property("InputDevices"), False)
        self.assertIs(self.bus.accel_property("Polling"), False)


if __name__ == "__main__":
    testmain.main()
