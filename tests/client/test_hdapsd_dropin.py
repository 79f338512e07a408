#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel's drop-in for Debian's hdapsd units (data/hdapsd-tpaccel.conf.in) as systemd reads it, and the
decisions of its ExecCondition= script (data/tpaccel-hdapsd-check) on made-up /sys trees. hdapsd run the
way the drop-in arranges it, on tpacceld's stand-in, is in test_input_devices.py."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from programs import program  # tests/lib

TOP_SRCDIR = os.environ.get("TOP_SRCDIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
TOP_BUILDDIR = os.environ.get("TOP_BUILDDIR", os.path.join(TOP_SRCDIR, "build"))
DROPIN = os.path.join(TOP_BUILDDIR, "data", "hdapsd-tpaccel.conf")
TPACCELD_UNIT = os.path.join(TOP_BUILDDIR, "data", "tpacceld.service")
TPACCELD = program("TPACCELD", TOP_BUILDDIR)
CHECK = os.path.join(TOP_SRCDIR, "data", "tpaccel-hdapsd-check")
HDAPSD_UNITS = "/usr/lib/systemd/system"  # Debian's hdapsd package (/lib is a link to usr/lib)
RAW_PHYS = "hdaps/input1"


class DropinTest(unittest.TestCase):
    def setUp(self):
        self.tmpdir = tempfile.mkdtemp(prefix="tpaccel-hdapsd-dropin-")
        self.addCleanup(shutil.rmtree, self.tmpdir, ignore_errors=True)

    def unit_dir(self, with_dropin=True):
        """A unit directory as the package installs it: Debian's hdapsd units, tpaccel's drop-in for both,
        tpacceld.service; the installed paths (libexecdir) point into the build and source trees."""
        units = os.path.join(self.tmpdir, "units" if with_dropin else "units-without")
        os.makedirs(units)
        for unit in ("hdapsd.service", "hdapsd@.service"):
            shutil.copy(os.path.join(HDAPSD_UNITS, unit), units)
            if with_dropin:
                os.makedirs(os.path.join(units, unit + ".d"))
                with open(DROPIN) as f:
                    text = f.read()
                command = next(line.split("=", 1)[1] for line in text.splitlines()
                               if line.startswith("ExecCondition="))
                self.assertEqual(os.path.basename(command), os.path.basename(CHECK))
                with open(os.path.join(units, unit + ".d", "tpaccel.conf"), "w") as f:
                    f.write(text.replace(command, CHECK))
        with open(TPACCELD_UNIT) as f:
            text = f.read()
        command = next(line.split("=", 1)[1].split()[0] for line in text.splitlines()
                       if line.startswith("ExecStart="))
        with open(os.path.join(units, "tpacceld.service"), "w") as f:
            f.write(text.replace(command, TPACCELD))
        return units

    def analyze(self, units, *args):
        env = dict(os.environ, SYSTEMD_UNIT_PATH=units + ":")  # the trailing ":" keeps the built-in path
        return subprocess.run(["systemd-analyze", "--no-pager"] + list(args), capture_output=True, text=True,
                              env=env, timeout=60)

    def test_units_verify(self):
        """systemd reads the drop-in with both hdapsd units: no unknown key, every command there."""
        for unit in os.listdir(HDAPSD_UNITS):
            self.assertFalse(unit.startswith("hdapsd") and unit.endswith(".d"), "hdapsd has drop-ins here")
        units = self.unit_dir()
        for unit in ("hdapsd.service", "hdapsd@sda.service"):
            r = self.analyze(units, "verify", unit)
            self.assertEqual((r.returncode, r.stderr, r.stdout), (0, "", ""), unit)

    def test_units_protect_kernel_modules(self):
        """The drop-in is applied to both units (ProtectKernelModules= on, as systemd sees it), and only
        through the drop-in (Debian's units alone have it off)."""
        for with_dropin, mark in ((True, "✓"), (False, "✗")):
            units = self.unit_dir(with_dropin)
            for unit in ("hdapsd.service", "hdapsd@sda.service"):
                r = self.analyze(units, "security", "--offline=true", unit)
                line = next((ln for ln in r.stdout.splitlines() if "ProtectKernelModules=" in ln), "")
                self.assertTrue(line.lstrip().startswith(mark), f"{unit} (drop-in: {with_dropin}): {line!r}\n"
                                f"{r.stdout}{r.stderr}")

    def test_dropin_settings(self):
        """hdapsd wants tpacceld, starts after it, is stopped and restarted with it, sees the stand-in as its
        /sys/devices/platform (optional bind) and cannot load modules."""
        with open(DROPIN) as f:
            settings = [line.strip() for line in f if "=" in line and not line.startswith("#")]
        for setting in ("Wants=tpacceld.service", "After=tpacceld.service", "PartOf=tpacceld.service",
                        "ProtectKernelModules=yes",
                        "BindReadOnlyPaths=-/run/tpaccel/hdapsd/platform:/sys/devices/platform"):
            self.assertIn(setting, settings)

    # The ExecCondition= script's decisions (exit 0: start hdapsd; 1: skip it, the reason on stderr).

    def sysroot(self, hdaps=None, events=(), others=()):
        """A made-up / : hdaps None (no hdaps directory), "kernel" or "tpacceld" (the stand-in, with its
        provider file); events: {N: phys} input devices (event N of input 100+N, node in dev/input);
        others: paths of hdapsd's other interfaces below it."""
        root = tempfile.mkdtemp(dir=self.tmpdir)
        hdaps_dir = os.path.join(root, "sys", "devices", "platform", "hdaps")
        if hdaps:
            os.makedirs(hdaps_dir)
            with open(os.path.join(hdaps_dir, "position"), "w") as f:
                f.write("(-498,-439)\n")
            if hdaps == "tpacceld":
                with open(os.path.join(hdaps_dir, "provider"), "w") as f:
                    f.write("tpacceld\n")
        os.makedirs(os.path.join(root, "sys", "class", "input"))
        os.makedirs(os.path.join(root, "dev", "input"))
        for n, phys in dict(events).items():
            device = os.path.join(root, "sys", "devices", "virtual", "input", f"input{100 + n}")
            os.makedirs(os.path.join(device, f"event{n}"))
            with open(os.path.join(device, "phys"), "w") as f:
                f.write(phys + "\n")
            os.symlink(f"../../devices/virtual/input/input{100 + n}/event{n}",
                       os.path.join(root, "sys", "class", "input", f"event{n}"))
            open(os.path.join(root, "dev", "input", f"event{n}"), "w").close()
        for path in others:
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            open(os.path.join(root, path), "w").close()
        return root

    def check(self, root):
        r = subprocess.run([CHECK, root], capture_output=True, text=True, timeout=30)
        return r.returncode, r.stderr

    def test_check_kernel_driver(self):
        """The kernel's hdaps directory: hdapsd as ever (with or without an input device)."""
        self.assertEqual(self.check(self.sysroot("kernel")), (0, ""))
        self.assertEqual(self.check(self.sysroot("kernel", {3: RAW_PHYS})), (0, ""))

    def test_check_standin_with_device(self):
        """tpacceld's stand-in and its raw device among event0..31: start."""
        self.assertEqual(self.check(self.sysroot("tpacceld", {0: "isa0060/serio0/input0", 7: RAW_PHYS})), (0, ""))
        self.assertEqual(self.check(self.sysroot("tpacceld", {31: RAW_PHYS})), (0, ""))

    def test_check_standin_without_device(self):
        """The stand-in without the raw device (only the joystick one): hdapsd would poll a still position."""
        status, err = self.check(self.sysroot("tpacceld", {6: "hdaps/input0"}))
        self.assertEqual(status, 1)
        self.assertIn("hdapsd not started: tpacceld's stand-in for /sys/devices/platform/hdaps is there but its "
                      "input device (phys hdaps/input1) is not", err)

    def test_check_standin_device_beyond_event31(self):
        status, err = self.check(self.sysroot("tpacceld", {32: RAW_PHYS}))
        self.assertEqual(status, 1)
        self.assertIn("tpacceld's hdaps input device is /dev/input/event32, beyond event31", err)

    def test_check_nothing(self):
        """No hdaps directory at all: skip, saying how to turn tpacceld's devices on."""
        status, err = self.check(self.sysroot(None, {7: RAW_PHYS}))
        self.assertEqual(status, 1)
        self.assertIn("no hdaps accelerometer", err)
        self.assertIn("tpaccelctl set input-devices yes", err)

    def test_check_other_interfaces(self):
        """hdapsd's interfaces for other makers' accelerometers are left to hdapsd."""
        for path in ("sys/devices/platform/lis3lv02d/position", "sys/devices/platform/applesmc.768/position",
                     "sys/devices/platform/toshiba_acpi/position", "sys/devices/platform/toshiba_haps/movement",
                     "sys/devices/ams/current", "dev/freefall"):
            self.assertEqual(self.check(self.sysroot(None, others=[path])), (0, ""), path)


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)
