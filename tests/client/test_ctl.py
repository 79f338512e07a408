#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccelctl against the real tpacceld on the EC emulator, on a private bus."""
import json
import math
import os
import pty
import pwd
import re
import signal
import subprocess
import time
import unittest
import xml.etree.ElementTree as ET

from clienttest import ACCEL, PYTHON, TOP_BUILDDIR, TOP_SRCDIR, TPACCELCTL, ClientTestCase, trace_from, wait_until
from gi.repository import GLib
from locales import locale_env  # tests/lib


def xml_keys():
    """tpaccelctl's key of every property of the interface XML but deprecated ones: HasAccelerometer is
    has-accelerometer."""
    root = ET.parse(os.path.join(TOP_SRCDIR, 'data', 'org.thinkpad.Accelerometer.xml')).getroot()
    return [re.sub(r'(?<!^)([A-Z])', r'-\1', p.get('name')).lower() for p in root.iter('property')
            if not any(a.get('name') == 'org.freedesktop.DBus.Deprecated' for a in p.findall('annotation'))]


KEYS = xml_keys()
USAGE, DENIED, NO_SERVICE, INVALID, NO_ACCELEROMETER = 2, 3, 4, 5, 6
READINGS = ["position", "rest-position", "temperature", "keyboard-activity", "mouse-activity", "pitch", "roll",
            "orientation", "vibration-level"]
POLKIT = "org.freedesktop.PolicyKit1"
UNPRIVILEGED = "nobody"


class CtlTest(ClientTestCase):
    def test_status(self):
        self.start_daemon("rest.csv")
        _, out, _ = self.ctl("status", check=0)
        lines = out.splitlines()
        self.assertEqual(len(lines), len(KEYS), out)
        colons = {line.index(":") for line in lines}
        self.assertEqual(len(colons), 1, "labels are not aligned:\n" + out)
        self.assertIn("Backend: simulated", out)
        self.assertIn("Accelerometer: yes", out)
        self.assertRegex(out, r"Hardware state: ok\n")
        self.assertRegex(out, r"Sampling rate: \d+ Hz")
        self.assertRegex(out, r"Position: -?\d+ -?\d+ counts")

    def test_status_json(self):
        self.start_daemon("rest.csv")
        _, out, _ = self.ctl("status", "--json", check=0)
        data = json.loads(out)
        self.assertEqual(sorted(data), sorted(KEYS))
        self.assertIs(data["has-accelerometer"], True)
        self.assertEqual(data["backend"], "simulated")
        self.assertEqual(len(data["position"]), 2)
        self.assertTrue(all(isinstance(v, int) for v in data["position"]))
        self.assertEqual(data["sampling-rate"], self.bus.accel_property("SamplingRate"))
        self.assertIsInstance(data["pitch"], float)
        self.assertIsInstance(data["protected-disks"], list)
        self.assertEqual(len(data["last-shock"]), 2)
        self.assertIn(data["orientation"], ["normal", "bottom-up", "left-up", "right-up", "undefined"])

    def test_get(self):
        self.start_daemon("rest.csv")
        _, out, _ = self.ctl("get", "sampling-rate", check=0)
        self.assertEqual(out.strip(), str(self.bus.accel_property("SamplingRate")))
        _, out, _ = self.ctl("get", "position", check=0)
        self.assertRegex(out.strip(), r"^-?\d+ -?\d+$")
        _, out, _ = self.ctl("get", "has-accelerometer", check=0)
        self.assertEqual(out.strip(), "yes")
        _, out, _ = self.ctl("get", "--json", "rest-position", check=0)
        self.assertEqual(json.loads(out), list(self.bus.accel_property("RestPosition")))
        # "claimed", the old name of "polling", is still understood.
        for key in ("polling", "claimed"):
            _, out, _ = self.ctl("get", key, check=0)
            self.assertEqual(out.strip(), "no", key)
        # Several keys: a value a line, in the order given; with --json an object of them.
        _, out, _ = self.ctl("get", "sampling-rate", "has-accelerometer", "rest-position", check=0)
        rest = self.bus.accel_property("RestPosition")
        self.assertEqual(out, f"{self.bus.accel_property('SamplingRate')}\nyes\n{rest[0]} {rest[1]}\n")
        _, out, _ = self.ctl("get", "--json", "invert", "rest-position", check=0)
        self.assertEqual(json.loads(out), {"invert": False, "rest-position": list(rest)})

    def write_roll_trace(self, roll_deg, seconds=120):
        """A machine standing still at roll_deg, calibrated level before (the rest position in the state
        file, as after a Calibrate); returns the trace's path."""
        path = os.path.join(self.tmpdir, "roll.csv")
        rest_x, rest_y, counts_per_g = -498, -439, 157
        os.makedirs(os.path.join(self.tmpdir, "state"), exist_ok=True)
        with open(os.path.join(self.tmpdir, "state", "state"), "w") as f:
            f.write(f"rest_position={rest_x},{rest_y}\n")
        x = rest_x + round(counts_per_g * math.sin(math.radians(roll_deg)))
        with open(path, "w") as f:
            f.write("# test trace: a steady roll\ntime_ms,x,y,keyboard,mouse\n")
            for t in range(0, seconds * 1000, 5):
                f.write(f"{t},{x + (t // 5) % 3 - 1},{rest_y},0,0\n")
        return path

    def test_readings_current_without_polling(self):
        # Formerly, with nothing polling, get roll said 0.00 and get orientation "undefined" while the
        # machine stood at a steady 30 degrees; status gave old angles as current ones.
        self.start_daemon(self.write_roll_trace(30))
        time.sleep(1.5)
        self.assertIs(self.bus.accel_property("Polling"), False)
        _, out, _ = self.ctl("get", "roll", check=0)
        self.assertAlmostEqual(float(out), 30.0, delta=2.0)
        _, out, _ = self.ctl("get", "pitch", check=0)
        self.assertAlmostEqual(float(out), 0.0, delta=2.0)
        _, out, _ = self.ctl("get", "orientation", check=0)
        self.assertEqual(out, "normal\n")
        _, out, _ = self.ctl("status", check=0)
        self.assertRegex(out, r"\n *Roll: (29|30|31)\.\d\d°\n")
        self.assertRegex(out, r"\n *Orientation: normal\n")
        # Nothing polled yet: what needs polling says so.
        self.assertRegex(out, r"\n *Vibration level: \d+\.\d\d g \(not polled\)\n")
        self.assertRegex(out, r"\n *Shock active: no \(not polled\)\n")
        self.assertRegex(out, r"\n *Last polled: not polled\n")
        _, out, _ = self.ctl("get", "--help", bus=None, check=0)
        self.assertIn("undefined", out)
        # get prints the value for scripts and says on stderr that it is no reading; the angles need no note.
        _, out, err = self.ctl("get", "vibration-level", check=0)
        self.assertRegex(out, r"^\d+\.\d\d\n$")
        self.assertIn("vibration-level: not a reading: nothing has polled", err)
        _, _, err = self.ctl("get", "roll", check=0)
        self.assertEqual(err, "")

        # After a poll ended: the values that need polling carry their age.
        proc = subprocess.Popen([TPACCELCTL, "--session", "monitor"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=self.env)
        self.processes.append(proc)
        wait_until(lambda: self.bus.accel_property("Polling"), what="polling")
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.wait(10)
        wait_until(lambda: self.bus.accel_property("Polling") is False, what="polling to stop")
        time.sleep(1.2)  # an age of a second and more
        _, out, _ = self.ctl("status", check=0)
        self.assertRegex(out, r"\n *Vibration level: \d+\.\d\d g \(polled [1-9] s ago\)\n")
        self.assertRegex(out, r"\n *Last polled: [1-9]\.\d s ago\n")
        self.assertRegex(out, r"\n *Roll: (29|30|31)\.\d\d°\n", "the angles are read afresh")
        _, out, err = self.ctl("get", "shock-active", check=0)
        self.assertEqual(out, "no\n")
        self.assertRegex(err, r"shock-active: as of the last poll, [1-9] s ago")

    def test_set_every_key(self):
        self.start_daemon("rest.csv")
        cases = [("sampling-rate", "100", "SamplingRate", 100),
                 ("oversampling-ratio", "3", "OversamplingRatio", 3),
                 ("filter-order", "4", "FilterOrder", 4),
                 ("invert", "yes", "Invert", True),
                 ("invert", "no", "Invert", False),
                 ("fake-data-mode", "on", "FakeDataMode", True),
                 ("fake-data-mode", "off", "FakeDataMode", False),
                 ("shock-sensitivity", "2.5", "ShockSensitivity", 2.5),
                 ("tilt-step", "5", "TiltStep", 5.0),
                 ("protected-disks", "none", "ProtectedDisks", [])]
        for key, value, prop, expected in cases:
            with self.subTest(key=key, value=value):
                _, out, _ = self.ctl("set", key, value, check=0)
                self.assertEqual(out, "")
                self.assertEqual(self.bus.accel_property(prop), expected)
                _, out, _ = self.ctl("get", "--json", key, check=0)
                self.assertEqual(json.loads(out), expected)

    def test_set_invalid_value(self):
        self.start_daemon("rest.csv")
        before = self.bus.accel_property("SamplingRate")
        status, out, err = self.ctl("set", "sampling-rate", "5000")
        self.assertEqual(status, INVALID, err)
        self.assertRegex(err, r"^tpaccelctl: cannot set sampling-rate: Invalid value: .*5000")
        self.assertEqual(self.bus.accel_property("SamplingRate"), before)
        status, _, err = self.ctl("set", "filter-order", "9")
        self.assertEqual(status, INVALID, err)
        self.assertIn("Invalid value", err)
        status, _, err = self.ctl("set", "protected-disks", "sdzz")
        self.assertEqual(status, INVALID, err)
        self.assertIn("sdzz", err)
        # A negative number is a value, not an option: the service's range check answers.
        status, _, err = self.ctl("set", "tilt-step", "-0.5")
        self.assertEqual(status, INVALID, err)
        self.assertIn("TiltStep -0.5 is out of range", err)

    def test_usage_errors(self):
        self.start_daemon("rest.csv")
        cases = [((), "no command given"),
                 (("frobnicate",), 'unknown command "frobnicate"'),
                 (("get", "colour"), 'unknown key "colour"'),
                 (("get",), "get takes one KEY or more"),
                 (("get", "pitch", "colour"), 'unknown key "colour"'),
                 (("set", "sampling-rate"), "needs a VALUE"),
                 (("set", "sampling-rate", "fast"), '"fast" is not a non-negative whole number'),
                 (("set", "sampling-rate", "-5"), '"-5" is not a non-negative whole number'),
                 (("set", "sampling-rate", "99999999999999999999"), "is out of range"),
                 (("set", "sampling-rate", "100", "filter-order", "3"), "set changes one key at a time"),
                 (("pause", "-1"), '"-1" is not a number of seconds'),
                 (("set", "invert", "maybe"), '"maybe" is not a boolean'),
                 (("set", "shock-sensitivity", "lots"), '"lots" is not a number'),
                 (("set", "pitch", "3"), "pitch is read-only"),
                 (("set", "protected-disks", "../sda"), "not a block device name"),
                 (("status", "extra"), "status takes no arguments"),
                 (("set", "--json", "invert", "yes"), "--json does not apply to set"),
                 (("status", "--frob"), "--frob"),
                 (("pause", "soon"), '"soon" is not a number of seconds'),
                 (("ec", "read-row", "0x1ff"), "is not a byte"),
                 (("ec", "write-row"), 'unknown ec subcommand "write-row"')]
        sampling_rate = self.bus.accel_property("SamplingRate")
        for args, message in cases:
            with self.subTest(args=args):
                status, out, err = self.ctl(*args)
                self.assertEqual(status, USAGE, err)
                self.assertIn(message, err)
                self.assertEqual(out, "")
        self.assertEqual(self.bus.accel_property("SamplingRate"), sampling_rate)
        status, _, err = self.ctl("--address=nonsense", "status", bus=None)
        self.assertEqual(status, USAGE)
        self.assertIn("is not a D-Bus address", err)
        status, _, err = self.ctl("--system", "status", bus="--session")
        self.assertEqual(status, USAGE)

    def test_help(self):
        _, out, _ = self.ctl("--help", bus=None, check=0)
        for command in ["status", "monitor", "get", "set", "calibrate", "pause", "ec read-row"]:
            self.assertIn(command, out)
        self.assertIn("Exit status", out)
        for command in ["status", "monitor", "get", "set", "calibrate", "pause", "ec"]:
            with self.subTest(command=command):
                _, out, _ = self.ctl(command, "--help", bus=None, check=0)
                self.assertIn("Usage: tpaccelctl", out)
        _, out, _ = self.ctl("set", "--help", bus=None, check=0)
        self.assertIn("shock-sensitivity", out)
        self.assertNotIn("pitch", out)
        # The keys' help in one column: a key too long for it has its help on the next line.
        _, out, _ = self.ctl("get", "--help", bus=None, check=0)
        for line in out.split("Keys (* settable):\n")[1].splitlines():
            if " " in line.strip():
                self.assertRegex(line, r"^  .{19}[* ] \S", line)

    def test_no_service_session(self):
        status, out, err = self.ctl("status")
        self.assertEqual(status, NO_SERVICE, err)
        # tpacceld is not on the PATH (libexec): the hint names it by its installed path.
        self.assertRegex(err, r"tpacceld is not running on the session bus; start the demo with: "
                              r"/\S+/libexec/tpacceld --session")
        self.assertEqual(out, "")

    def test_no_service_system(self):
        status, _, err = self.ctl("set", "invert", "yes", bus="--system")
        self.assertEqual(status, NO_SERVICE, err)
        self.assertIn("tpacceld is not running on the system bus; start it with: systemctl start tpacceld", err)
        self.assertRegex(err, r" /\S+/libexec/tpacceld --session --backend=sim")

    def test_no_bus(self):
        status, _, err = self.ctl("status", bus=f"--address=unix:path={self.tmpdir}/nothing-here")
        self.assertEqual(status, NO_SERVICE, err)
        self.assertIn("cannot connect to the bus at unix:path=", err)

    def test_no_system_bus(self):
        # Formerly, with no system bus at all tpaccelctl said "start it with: systemctl start tpacceld".
        env = dict(self.env, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={self.tmpdir}/no-system-bus")
        status, out, err = self.ctl("status", bus="--system", env=env)
        self.assertEqual(status, NO_SERVICE, err)
        self.assertIn("cannot connect to the system bus", err)
        self.assertIn("there is no D-Bus system bus on this machine", err)
        self.assertNotIn("systemctl start tpacceld", err)
        self.assertRegex(err, r"dbus-run-session sh -c '/\S+/libexec/tpacceld --session")
        self.assertEqual(out, "")

    def test_permission_denied(self):
        # tpacceld on a bus of its own (not the session demo) asks polkit there: the dbusmock polkitd
        # template denies everything until SetAllowed.
        env = dict(self.env)
        polkit = self.start_mock(["--system", "--template", "polkitd"], "org.freedesktop.PolicyKit1",
                                 "polkitd.log")
        self.assertIsNotNone(polkit)
        self.start_daemon("rest.csv", session=False)
        address = f"--address={self.bus.address}"
        before = self.bus.accel_property("SamplingRate")
        status, out, err = self.ctl("set", "sampling-rate", "200", bus=address)
        self.assertEqual(status, DENIED, err)
        self.assertRegex(err, r"^tpaccelctl: cannot set sampling-rate: Permission denied")
        self.assertEqual(self.bus.accel_property("SamplingRate"), before)
        status, _, err = self.ctl("calibrate", bus=address)
        self.assertEqual(status, DENIED, err)
        # Reading stays open to everyone.
        self.ctl("status", bus=address, check=0)

        self.bus.call("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                      "org.freedesktop.DBus.Mock", "SetAllowed", "as", (["org.thinkpad.accelerometer.configure"],))
        self.ctl("set", "sampling-rate", "200", bus=address, check=0)
        self.assertEqual(self.bus.accel_property("SamplingRate"), 200)
        del env

    def test_calibrate(self):
        self.start_daemon("rest.csv")
        _, out, _ = self.ctl("calibrate", check=0)
        self.assertRegex(out, r"^Rest position: -?\d+ -?\d+\n$")
        x, y = (int(v) for v in out.split(":")[1].split())
        self.assertEqual(tuple(self.bus.accel_property("RestPosition")), (x, y))

    def test_pause(self):
        self.start_daemon("rest.csv")
        _, _, err = self.ctl("pause", "30", check=0)
        self.assertIn("no disks are protected", err)  # made, but the user likely thought otherwise
        _, out, _ = self.ctl("get", "--json", "paused-until", check=0)
        self.assertGreater(json.loads(out), 0)
        _, out, _ = self.ctl("get", "paused-until", check=0)
        self.assertRegex(out, r"^in \d+\.\d s$")
        self.ctl("pause", "0", check=0)
        status, _, err = self.ctl("pause", "4000")
        self.assertEqual(status, INVALID, err)

    def test_ec_read_row(self):
        self.start_daemon("rest.csv")
        _, out, _ = self.ctl("ec", "read-row", "0x11", check=0)
        row = out.split()
        self.assertEqual(len(row), 16, out)
        self.assertEqual(row[0], "11")
        self.assertTrue(all(len(b) == 2 for b in row))
        _, out, _ = self.ctl("ec", "read-row", "--json", "0x11", "--data-mask=0x000f", check=0)
        data = json.loads(out)
        self.assertEqual(len(data), 16)
        self.assertEqual(data[0], 0x11)
        _, out, _ = self.ctl("ec", "read-row", "0x11", "--data-mask=0x0002", check=0)
        self.assertEqual(out.split()[2], "--")

    def monitor(self, *args):
        return subprocess.Popen([TPACCELCTL, "--session", "monitor"] + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env)

    def test_monitor(self):
        # A turn to right-up at 2 s (the orientation flips at 2.3 s; slow-roll-45.csv's at about 5 s).
        self.start_daemon("rotate-right-up.csv")
        proc = self.monitor()
        lines = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "orientation right-up" in line:
                break
        self.assertIs(self.bus.accel_property("Polling"), True)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        lines += out.splitlines(keepends=True)
        text = "".join(lines)
        self.assertEqual(proc.returncode, 0, err)
        self.assertTrue(lines[0].startswith("Monitoring "), text)
        self.assertRegex(text, r"\n\d\d:\d\d:\d\d\.\d{3}  tilt +pitch +[-+]\d+\.\d°  roll +\+\d+\.\d°")
        self.assertRegex(text, r"\n\d\d:\d\d:\d\d\.\d{3}  orientation right-up\n")
        self.assertNotIn(" sample ", text)
        self.assertTrue(text.endswith("Released the accelerometer.\n"), text)
        wait_until(lambda: self.bus.accel_property("Polling") is False, what="the claim to be released")

    def test_monitor_samples_and_shock(self):
        self.start_daemon(trace_from("drop-30cm.csv", 2000, os.path.join(self.tmpdir, "drop-at-3s.csv")))
        proc = self.monitor("--samples")
        wait_until(lambda: self.bus.accel_property("ShockCount") > 0, timeout=20, what="a shock")
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, 0, err)
        self.assertRegex(out, r"\n\d\d:\d\d:\d\d\.\d{3}  sample +x +-?\d+  y +-?\d+\n")
        # From the sample stream: the readouts while the shock is active carry its flag.
        self.assertRegex(out, r"\n\d\d:\d\d:\d\d\.\d{3}  sample +x +-?\d+  y +-?\d+  shock\n")
        self.assertRegex(out, r"\n\d\d:\d\d:\d\d\.\d{3}  shock +\d+\.\d\d g \((a knock|a sudden movement|a fall)\)\n")

    def test_monitor_movement(self):
        """monitor watches for movement while it runs: the lift of picked-up.csv prints moved, and the
        machine held still after it moving over; the movement claim goes with it."""
        # picked-up.csv from 1.5 s before the lift (the movement watch knows where it rests after 0.3 s of
        # readouts) to the lift's end at 2 s, then held still there (the sensor's noise only): the movement
        # is over 2 s later, not after the trace's 3 s in the hands and its put-down. Looped: if monitor's
        # claim came late, another lift 20 s later.
        path = trace_from(os.path.join("movement", "picked-up.csv"), 4500, os.path.join(self.tmpdir, "lift.csv"))
        with open(path) as f:
            lines = [line for line in f if not line[0].isdigit() or float(line.split(",")[0]) < 2000]
        x, y = (int(v) for v in lines[-1].split(",")[1:3])
        lines += [f"{t},{x + (t // 5) % 3 - 1},{y},0,0\n" for t in range(2000, 20000, 5)]
        with open(path, "w") as f:
            f.write("".join(lines))
        self.start_daemon(path, loop=True)
        proc = self.monitor()
        self.assertTrue(proc.stdout.readline().startswith("Monitoring "))
        self.assertIs(self.bus.accel_property("MovementWatched"), True)
        wait_until(lambda: self.bus.accel_property("MoveCount") > 0, timeout=30, what="a movement")
        wait_until(lambda: self.bus.accel_property("Moving") is False, timeout=30, what="the machine at rest")
        time.sleep(0.5)  # the lines to come through
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, 0, err)
        self.assertRegex(out, r"\n\d\d:\d\d:\d\d\.\d{3}  moved +0\.\d\d g from where it rested\n")
        self.assertRegex(out, r"\n\d\d:\d\d:\d\d\.\d{3}  moving +over: at rest again\n")
        wait_until(lambda: self.bus.accel_property("MovementWatched") is False, what="the movement claim to go")

    def pipe_to_head(self, *args, lines=3):
        """Runs "tpaccelctl --session ARGS | head -LINES" in bash; returns (tpaccelctl's exit status, the
        lines head printed, tpaccelctl's stderr, seconds taken). Fails if the pipeline does not end."""
        err_path = os.path.join(self.tmpdir, "pipe-stderr.log")
        script = ('"$0" --session "$@" 2>"%s" | head -%d; exit "${PIPESTATUS[0]}"' % (err_path, lines))
        start = time.monotonic()
        res = subprocess.run(["bash", "-c", script, TPACCELCTL] + list(args), capture_output=True, text=True,
                             env=self.env, timeout=20)
        with open(err_path) as f:
            err = f.read()
        return res.returncode, res.stdout, err, time.monotonic() - start

    def test_output_loops_end_when_the_reader_goes(self):
        # Formerly "monitor --samples | head -3" never ended; every write failed with EPIPE, ignored.
        self.start_daemon("rest.csv", loop=True)
        for args in (["monitor", "--samples"], ["monitor"], ["record", "-"]):
            with self.subTest(args=args):
                # monitor without --samples prints only events: the header line and an orientation/tilt
                # line or two come quickly, so read fewer lines there.
                n = 1 if args == ["monitor"] else 3
                status, out, err, seconds = self.pipe_to_head(*args, lines=n)
                self.assertEqual(status, 0, err)
                self.assertEqual(len(out.splitlines()), n, out)
                self.assertLess(seconds, 10, "the pipeline ended promptly")
                self.assertNotIn("failed", err)
                wait_until(lambda: self.bus.accel_property("Polling") is False,
                           what="the claim to go with the process")

    def test_monitor_service_goes_away(self):
        self.start_daemon("rest.csv")
        proc = self.monitor()
        self.assertTrue(proc.stdout.readline().startswith("Monitoring "))
        wait_until(lambda: self.bus.accel_property("Polling"), what="the claim")
        self.stop_daemon()
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, NO_SERVICE, err)
        self.assertIn("tpacceld left the session bus; stopping", err)

    def test_monitor_no_service(self):
        proc = self.monitor()
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, NO_SERVICE, err)
        self.assertIn("tpacceld is not running on the session bus", err)

    def test_status_no_accelerometer(self):
        self.start_daemon(extra=["--sim-fault=absent"])
        _, out, _ = self.ctl("status", check=0)
        self.assertIn("Accelerometer: no", out)
        for label in ["Position", "Rest position", "Temperature", "Pitch", "Roll", "Orientation"]:
            self.assertRegex(out, rf"\n *{label}: no reading\n", out)
        # Settings are still what they are.
        self.assertRegex(out, r"Sampling rate: \d+ Hz")
        _, out, _ = self.ctl("status", "--json", check=0)
        data = json.loads(out)
        for key in READINGS:
            self.assertIsNone(data[key], key)
        self.assertIsInstance(data["sampling-rate"], int)
        status, out, err = self.ctl("get", "temperature")
        self.assertEqual(status, NO_ACCELEROMETER, err)
        self.assertEqual(out, "")
        self.assertIn("temperature: no reading", err)
        status, out, err = self.ctl("get", "sampling-rate", "temperature")  # nothing printed, not half
        self.assertEqual((status, out), (NO_ACCELEROMETER, ""), err)
        self.ctl("get", "sampling-rate", check=0)

    def test_no_accelerometer_said_once(self):
        # --backend=auto here (no ThinkPad, no hdaps driver) gives the reason "no accelerometer: ...".
        self.start_daemon(backend="auto")
        reason = self.bus.accel_property("BackendReason")
        self.assertTrue(reason.startswith("no accelerometer"), reason)
        status, _, err = self.ctl("calibrate")
        self.assertEqual(status, NO_ACCELEROMETER, err)
        self.assertEqual(len(re.findall("no accelerometer", err, re.I)), 1, err)
        self.assertIn(reason, err)
        # The daemon's own Claim error says it once too.
        with self.assertRaises(GLib.Error) as raised:
            self.bus.call(ACCEL, "/org/thinkpad/Accelerometer", ACCEL, "Claim")
        self.assertEqual(len(re.findall("no accelerometer", raised.exception.message, re.I)), 1,
                         raised.exception.message)

    def test_monitor_no_accelerometer(self):
        self.start_daemon(extra=["--sim-fault=absent"])
        proc = self.monitor()
        out, err = proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, NO_ACCELEROMETER, err)
        self.assertEqual(out, "", "monitor announced before it failed")
        self.assertRegex(err, r"^tpaccelctl: nothing to monitor: ")
        self.assertIs(self.bus.accel_property("Polling"), False)

    def as_unprivileged(self, argv):
        """argv run as an unprivileged user when the tests run as root (as CI does)."""
        if os.geteuid() != 0:
            return argv
        user = pwd.getpwnam(UNPRIVILEGED)
        os.chmod(self.tmpdir, 0o755)
        return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"] + argv

    def start_polkit_and_daemon(self):
        self.start_mock(["--system", "--template", "polkitd"], POLKIT, "polkitd.log")
        # pkttyagent registers with the ...WithOptions variant, which the template lacks: record it.
        self.bus.call(POLKIT, "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock", "AddMethod",
                      "sssss", (f"{POLKIT}.Authority", "RegisterAuthenticationAgentWithOptions", "(sa{sv})ssa{sv}",
                                "", ""))
        self.start_daemon("rest.csv", session=False)

    def agent_registrations(self):
        """The subjects pkttyagent registered for."""
        calls = self.bus.call(POLKIT, "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock",
                              "GetMethodCalls", "s", ("RegisterAuthenticationAgentWithOptions",))
        return [args[0] for _, args in calls]

    def test_polkit_hint_without_terminal(self):
        self.start_polkit_and_daemon()
        argv = self.as_unprivileged([TPACCELCTL, f"--address={self.bus.address}", "set", "sampling-rate", "200"])
        res = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=self.env,
                             timeout=30)
        self.assertEqual(res.returncode, DENIED, res.stderr)
        self.assertIn("cannot set sampling-rate: Permission denied", res.stderr)
        self.assertIn("run it as root or allow the action org.thinkpad.accelerometer.configure with a polkit rule",
                      res.stderr)
        self.assertEqual(self.agent_registrations(), [], "an agent was started without a terminal")

    def test_polkit_agent_on_terminal(self):
        self.start_polkit_and_daemon()
        primary, secondary = pty.openpty()
        # A session of its own with the terminal as its controlling one, as in a login shell.
        argv = ["setsid", "--ctty", "--wait"] + self.as_unprivileged(
            [TPACCELCTL, f"--address={self.bus.address}", "calibrate"])
        try:
            res = subprocess.run(argv, stdin=secondary, capture_output=True, text=True, env=self.env, timeout=30)
        finally:
            os.close(secondary)
            os.close(primary)
        self.assertEqual(res.returncode, DENIED, res.stderr)
        # pkttyagent registered for tpaccelctl's process, as systemctl's agent does.
        subjects = self.agent_registrations()
        self.assertEqual(len(subjects), 1, res.stderr)
        self.assertEqual(subjects[0][0], "unix-process")
        self.assertIn("pid", subjects[0][1])
        self.assertIn("org.thinkpad.accelerometer.calibrate", res.stderr)
        # Without logind (as on this bus) polkit never asks the agent; say so plainly instead of
        # "run tpaccelctl in a terminal" to a user who is in one.
        self.assertIn("polkit cannot ask for a password here: there is no login session (logind is not "
                      "running)", res.stderr)
        self.assertNotIn("in a terminal", res.stderr)

    def test_german(self):
        env = dict(locale_env(self.env, "de_DE.UTF-8"), TPACCEL_LOCALEDIR=os.path.join(TOP_BUILDDIR, "po"))
        self.start_daemon(extra=["--sim-fault=absent"])
        _, out, _ = self.ctl("status", check=0, env=env)
        self.assertIn("Beschleunigungssensor: nein", out)
        self.assertRegex(out, r"\n *Temperatur: kein Messwert\n")
        # The service's reasons in German too (from their stable codes), not English.
        self.assertRegex(out, r"\n *Grund für das Backend: der Beschleunigungssensor hat beim Start des Dienstes "
                              r"nicht geantwortet")
        self.assertIn("keine Messung: es gibt keinen Beschleunigungssensor", out)
        self.assertRegex(out, r"\n *Schutz: aus\n")
        colons = {len(line.split(":")[0]) for line in out.splitlines()}
        self.assertEqual(len(colons), 1, "German labels are not aligned:\n" + out)
        _, out, _ = self.ctl("--help", bus=None, check=0, env=env)
        self.assertIn("Aufruf: tpaccelctl", out)
        status, _, err = self.ctl("frobnicate", env=env)
        self.assertEqual(status, USAGE)
        self.assertIn("unbekannter Befehl „frobnicate“", err)
        # Scripts keep what get prints.
        _, out, _ = self.ctl("get", "invert", check=0, env=env)
        self.assertEqual(out, "no\n")
        # The polkit actions' German messages: po-de-policy (po/check-policy.py).
        with open(os.path.join(TOP_BUILDDIR, "client", "tpaccel-tray.desktop")) as f:
            self.assertIn("Name[de]=ThinkPad-Beschleunigungssensor", f.read())

    def test_german_angles_and_orientation(self):
        # Pitch and roll have words of their own, and the orientation is in words too; get stays English.
        # The locale first: compiling it the first time takes longer than the trace holds left-up.
        env = dict(locale_env(self.env, "de_DE.UTF-8"), TPACCEL_LOCALEDIR=os.path.join(TOP_BUILDDIR, "po"))
        self.start_daemon("rotate-left-up.csv")
        wait_until(lambda: "Ausrichtung: linke Seite oben" in self.ctl("status", check=0, env=env)[1],
                   what="the left-up orientation in German")
        _, out, _ = self.ctl("status", check=0, env=env)
        self.assertRegex(out, r"\n *Nickwinkel: ")
        self.assertRegex(out, r"\n *Rollwinkel: ")
        _, out, _ = self.ctl("get", "orientation", check=0, env=env)
        self.assertEqual(out, "left-up\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
