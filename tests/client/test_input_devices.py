#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The hdaps input devices through uinput (SetInputDevices), tested through a stand-in for /dev/uinput
(uinput-shim.c, preloaded into tpacceld): the device descriptions and the event stream are checked
against tp_smapi's devices and what hdapsd's evdev reader needs (phys "hdaps/input1", ABS_X/ABS_Y frames
ended by SYN_REPORT). This machine has no /dev/uinput, so the real kernel path is not exercised here."""
import os
import signal
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clienttest import ACCEL, ACCEL_PATH, TOP_BUILDDIR, ClientTestCase, wait_until  # noqa: E402

from gi.repository import GLib  # noqa: E402

SHIM = os.path.join(TOP_BUILDDIR, "tests", "client", "libuinput-shim.so")
INPUT_EVENT = struct.Struct("qqHHi")  # struct input_event on 64-bit: timeval, type, code, value
EV_SYN, EV_ABS, ABS_X, ABS_Y, SYN_REPORT = 0, 3, 0, 1, 0
JOYSTICK = ["UI_SET_EVBIT 3", "UI_SET_EVBIT 0",
            "UI_SET_ABSBIT 0", "UI_ABS_SETUP code=0 min=-256 max=256 fuzz=4 flat=4",
            "UI_SET_ABSBIT 1", "UI_ABS_SETUP code=1 min=-256 max=256 fuzz=4 flat=4",
            "UI_SET_PHYS hdaps/input0",
            "UI_DEV_SETUP bus=0x0019 vendor=0x1014 product=0x5054 version=0x6801 "
            "name=ThinkPad HDAPS joystick emulation",
            "UI_DEV_CREATE"]
RAW = ["UI_SET_EVBIT 3", "UI_SET_EVBIT 0",
       "UI_SET_ABSBIT 0", "UI_ABS_SETUP code=0 min=-32768 max=32767 fuzz=0 flat=0",
       "UI_SET_ABSBIT 1", "UI_ABS_SETUP code=1 min=-32768 max=32767 fuzz=0 flat=0",
       "UI_SET_PHYS hdaps/input1",
       "UI_DEV_SETUP bus=0x0019 vendor=0x1014 product=0x5054 version=0x4801 "
       "name=ThinkPad HDAPS accelerometer data",
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

    def start_with_shim(self):
        self.env["LD_PRELOAD"] = SHIM
        self.env["UINPUT_SHIM_DIR"] = self.shim_dir
        try:
            self.start_daemon("rest.csv", loop=True)
        finally:
            del self.env["LD_PRELOAD"], self.env["UINPUT_SHIM_DIR"]

    def log(self, n):
        with open(os.path.join(self.shim_dir, f"uinput{n}.log")) as f:
            return f.read().splitlines()

    def set_input_devices(self, on):
        self.bus.call(ACCEL, ACCEL_PATH, ACCEL, "SetInputDevices", (on,), "(b)")

    def test_devices_and_event_stream(self):
        self.start_with_shim()
        self.assertIs(self.bus.accel_property("InputDevices"), False)
        self.assertEqual(self.log(0), ["open /dev/uinput"], "a device was made before it was enabled")
        self.assertIs(self.bus.accel_property("Claimed"), False)

        self.set_input_devices(True)
        self.assertIs(self.bus.accel_property("InputDevices"), True)
        self.assertEqual(self.log(0)[1:], JOYSTICK)
        self.assertEqual(self.log(1)[1:], RAW)
        wait_until(lambda: self.bus.accel_property("Claimed"), what="polling to run for the input devices")
        time.sleep(2.0)
        raw = frames(os.path.join(self.shim_dir, "uinput1.events"))
        joystick = frames(os.path.join(self.shim_dir, "uinput0.events"))
        self.assertGreater(len(raw), 40, "fewer frames than readouts at 50 Hz")
        self.assertEqual(len(raw), len(joystick))
        rest = self.bus.accel_property("RestPosition")
        for (x, y), (jx, jy) in zip(raw[5:], joystick[5:]):
            self.assertLessEqual(abs(x + 498) + abs(y + 439), 10, (x, y))  # rest.csv, raw counts
            self.assertEqual((jx, jy), (x - rest[0], y - rest[1]))

        with open(os.path.join(self.tmpdir, "state", "state")) as f:
            self.assertIn("input_devices=1\n", f.read())
        self.set_input_devices(False)
        self.assertEqual(self.log(0)[-1], "UI_DEV_DESTROY")
        self.assertEqual(self.log(1)[-1], "UI_DEV_DESTROY")
        wait_until(lambda: self.bus.accel_property("Claimed") is False, what="polling to stop")

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
        wait_until(lambda: self.bus.accel_property("Claimed"), what="polling to run after a restart")

    def test_sighup_applies_input_devices(self):
        self.start_with_shim()
        state = os.path.join(self.tmpdir, "state", "state")
        with open(state, "w") as f:
            f.write("sampling_rate=50\ninput_devices=1\n")
        self.daemon.send_signal(signal.SIGHUP)
        wait_until(lambda: self.bus.accel_property("InputDevices"), what="the reload to enable the devices")
        self.assertEqual(self.log(0)[1:], JOYSTICK)
        self.assertEqual(self.log(1)[1:], RAW)
        wait_until(lambda: self.bus.accel_property("Claimed"), what="polling to run for the input devices")
        with open(state, "w") as f:
            f.write("sampling_rate=50\n")
        self.daemon.send_signal(signal.SIGHUP)
        wait_until(lambda: self.bus.accel_property("InputDevices") is False, what="the reload to disable them")
        self.assertEqual(self.log(0)[-1], "UI_DEV_DESTROY")
        self.assertEqual(self.log(1)[-1], "UI_DEV_DESTROY")
        wait_until(lambda: self.bus.accel_property("Claimed") is False, what="polling to stop")
        self.assertIsNone(self.daemon.poll(), "SIGHUP must not end the daemon")

    def test_unsaved_change_is_refused(self):
        # As every setter (issue 13.6): a change that cannot be saved is not made, no device is created.
        os.makedirs(os.path.join(self.tmpdir, "state", "state"))  # the state file cannot be written
        self.start_with_shim()
        with self.assertRaisesRegex(GLib.Error, r"NotSaved.*not made: cannot write the state file "
                                                r".*/state: Is a directory"):
            self.set_input_devices(True)
        self.assertIs(self.bus.accel_property("InputDevices"), False)
        self.assertEqual(self.log(0), ["open /dev/uinput"], "a device was made for an unsaved change")
        self.assertEqual(self.log(1), ["open /dev/uinput"], "a device was made for an unsaved change")
        self.assertIs(self.bus.accel_property("Claimed"), False)

    def test_without_uinput(self):
        self.start_daemon("rest.csv")
        if os.path.exists("/dev/uinput") and os.access("/dev/uinput", os.W_OK):
            self.set_input_devices(True)
            self.assertIs(self.bus.accel_property("InputDevices"), True)
            self.set_input_devices(False)
            return
        with self.assertRaisesRegex(GLib.Error, "NotSupported.*/dev/uinput could not be opened"):
            self.set_input_devices(True)
        self.assertIs(self.bus.accel_property("InputDevices"), False)
        self.assertIs(self.bus.accel_property("Claimed"), False)


if __name__ == "__main__":
    unittest.main(verbosity=2)
