#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccelctl diagnose and tpacceld --diagnose on the EC emulator: healthy, each fault kind, no
accelerometer (a fake non-ThinkPad machine), the daemon's Diagnose() method, and the fallback to
tpacceld --diagnose when the service is not running."""
import json
import os
import subprocess
import threading
import unittest

from clienttest import ACCEL, ACCEL_PATH, TPACCELCTL, TPACCELD, ClientTestCase, trace

from gi.repository import GLib

NO_SERVICE = 4
PORT_LOG_HEADER = "time_us,dir,port,value"


def problems_text(report):
    return " | ".join(p["problem"] for p in report["problems"])


class DiagnoseTest(ClientTestCase):
    def standalone_start(self, *args, fmt="json", state="state"):
        """Starts tpacceld --diagnose on the emulator, with tmpdir/state as its state directory; returns
        what standalone_output() and standalone_report() take."""
        argv = [TPACCELD, f"--diagnose={fmt}", f"--state-dir={os.path.join(self.tmpdir, state)}",
                f"--input-dir={self.tmpdir}"] + list(args)
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.communicate)
        self.addCleanup(proc.kill)
        return {"argv": argv, "proc": proc}

    def standalone_output(self, started):
        """Waits for a standalone_start()'s diagnosis to end; its (stdout, stderr), kept in started."""
        if "output" not in started:
            started["output"] = started["proc"].communicate(timeout=60)
        return started["output"]

    def standalone_report(self, started, fmt="json", status=0):
        """The parsed JSON report (or the text) of a standalone_start(). status: the exit status expected, 1
        when the report names a problem."""
        out, err = self.standalone_output(started)
        self.assertEqual(started["proc"].returncode, status, f"{started['argv']}: {err}")
        return json.loads(out) if fmt == "json" else out

    def standalone(self, *args, fmt="json", status=0):
        """tpacceld --diagnose on the emulator; returns the parsed JSON report (or the text). status: the
        exit status expected, 1 when the report names a problem."""
        return self.standalone_report(self.standalone_start(*args, fmt=fmt), fmt=fmt, status=status)

    def check_healthy(self, report):
        self.assertEqual(report["problems"], [], problems_text(report))
        self.assertEqual(report["backend"]["name"], "simulated")
        self.assertIs(report["backend"]["has-accelerometer"], True)
        self.assertEqual(report["ec"]["mode-latch"], "1")
        self.assertEqual(report["ec"]["self-test"], "ok, return code 0x00")
        self.assertRegex(report["ec"]["config"], r"^polling, EC rate 250 Hz, filter order 2$")
        readouts = report["readouts"]
        self.assertEqual(readouts["replies"], 100)
        self.assertEqual(readouts["failed"], 0)
        self.assertGreater(readouts["rate-achieved-hz"], 25)
        self.assertLessEqual(readouts["rate-achieved-hz"], 55)
        self.assertRegex(readouts["x"], r"^mean -49[6-9]\.\d, sd ")  # rest.csv: (-498, -439)
        self.assertRegex(readouts["y"], r"^mean -4(3[7-9]|40|41)\.\d, sd ")
        log = report["port-log"].splitlines()
        self.assertEqual(log[0], PORT_LOG_HEADER)
        # One readout: the 0x11 reply is read (TWR0 in) and the next 0x11 request is written (TWR0 out).
        self.assertIn("in,0x1610,0x11", report["port-log"])
        self.assertIn("out,0x1610,0x11", report["port-log"])
        self.assertLess(len(log), 200, "more than one readout in the port log")

    def test_standalone_healthy(self):
        # The JSON and the text report side by side, each on its own emulator and state directory.
        as_json = self.standalone_start("--backend=sim", f"--trace={trace('rest.csv')}")
        as_text = self.standalone_start("--backend=sim", f"--trace={trace('rest.csv')}", fmt="text", state="state-text")
        self.check_healthy(self.standalone_report(as_json))
        text = self.standalone_report(as_text, fmt="text")
        self.assertIn("\n== Result ==\nNo problem found.\n", text)
        self.assertIn("\n== Port log of one readout ==\n" + PORT_LOG_HEADER + "\n", text)
        self.assertRegex(text, r"\nBackend: +simulated\n")

    def test_standalone_faults(self):
        # Each fault kind of the emulator, and what the report must say about it.
        cases = {
            # A busy EC stays busy for 10 ms of real time in the emulator, so which requests meet it
            # depends on timing: on a loaded machine an init request did, and the report names that
            # busy request instead of counting the diagnosis's attempts. Either way it says busy.
            "busy:0.3": r"busy\) in \d+ of \d+ attempts|EC request 0x[0-9a-f]+/0x[0-9a-f]+ \([a-z ]+\) failed: "
                        r"Device or resource busy",
            "silent:0.2": r"readout transactions failed",
            "bad-status:0.3": r"readout transactions failed",
            "retval:0.3": r"readout transactions failed",
            # A configuration the EC keeps pending does not fail init; the report says so.
            "pending": r"runs, but not as asked: the EC keeps the configuration change pending",
            "absent": r"mode latch is 0",
        }
        # A saved rest position: no readout at init (one would be made without it), so the EC traffic the
        # faults hit is the diagnosis's own. The emulator draws a transaction's faults from a seeded
        # sequence, and busy:0.3 is near the report's threshold (busy in a quarter of the attempts): a few
        # more transactions before the diagnosis make it another draw. Each diagnosis reads 100 readouts in
        # real time: busy:0.3, whose hits depend on timing, runs alone; the others then side by side, each on
        # its own emulator and state directory.
        started = {}

        def start(fault):
            state = "state-" + fault.replace(":", "-")
            os.makedirs(os.path.join(self.tmpdir, state))
            with open(os.path.join(self.tmpdir, state, "state"), "w") as f:
                f.write("rest_position=-498,-439\n")
            started[fault] = self.standalone_start("--backend=sim", f"--trace={trace('rest.csv')}",
                                                   f"--sim-fault={fault}", state=state)

        start("busy:0.3")
        self.standalone_output(started["busy:0.3"])
        for fault in cases:
            if fault not in started:
                start(fault)
        for fault, expected in cases.items():
            with self.subTest(fault=fault):
                report = self.standalone_report(started[fault], status=1)
                self.assertIn(f"injected faults: {fault}", report["backend"]["reason"])
                self.assertRegex(problems_text(report), expected)
                self.assertTrue(all(p["next"] for p in report["problems"]), "a problem without a next step")
        report = self.standalone("--backend=sim", f"--trace={trace('rest.csv')}", "--sim-fault=absent", status=1)
        self.assertEqual(report["ec"]["mode-latch"], "0 (no accelerometer)")
        self.assertIs(report["backend"]["has-accelerometer"], False)

    def test_standalone_no_accelerometer(self):
        root = os.path.join(self.tmpdir, "machine")
        for rel, text in [("proc/ioports", "0000-0cf7 : PCI Bus 0000:00\n"),
                          ("sys/class/dmi/id/board_vendor", "Dell Inc.\n"),
                          ("sys/class/dmi/id/product_version", "Latitude 7490\n"),
                          ("sys/kernel/security/lockdown", "none [integrity] confidentiality\n")]:
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(root, "sys/module/thinkpad_acpi"))
        report = self.standalone(f"--sysroot={root}", status=1)
        self.assertEqual(report["system"]["board-vendor"], "Dell Inc.")
        self.assertIn("none for \"Latitude 7490\"", report["system"]["model-table"])
        self.assertEqual(report["system"]["kernel-modules"], "thinkpad_acpi")
        self.assertRegex(report["system"]["lockdown"], r"^integrity \(forbids ioperm")
        self.assertIs(report["backend"]["has-accelerometer"], False)
        self.assertIsNone(report["port-log"])
        problems = problems_text(report)
        self.assertIn("not recognized as a ThinkPad with HDAPS", problems)
        self.assertIn('Kernel lockdown is "integrity"', problems)

    def test_daemon_fault(self):
        self.start_daemon("rest.csv", loop=True, extra=["--sim-fault=retval:0.3"])
        # Formerly a report listing a PROBLEM exited 0; scripts could not tell it from a healthy one.
        # The text report's caller joins the JSON one's run (test_daemon_callers_join_one_run).
        text = subprocess.Popen([TPACCELCTL, "--session", "diagnose"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env)
        _, out, _ = self.ctl("diagnose", "--json", check=1)
        report = json.loads(out)
        self.assertIn("injected faults: retval:0.3", report["backend"]["reason"])
        self.assertRegex(problems_text(report), r"\d+ of \d+ readout transactions failed")
        self.assertGreater(report["readouts"]["failed-EIO"], 0)
        out, err = text.communicate(timeout=30)
        self.assertEqual(text.returncode, 1, err)
        self.assertIn("\nPROBLEM: ", out)

    def test_daemon_callers_join_one_run(self):
        # A healthy daemon: three callers at once (JSON, text, JSON) join one run and each gets its report.
        self.start_daemon("rest.csv", loop=True)
        results = []

        def run(fmt):
            results.append(subprocess.run([TPACCELCTL, "--session", "diagnose"] + (["--json"] if fmt else []),
                                          capture_output=True, text=True, env=self.env, timeout=60))
        threads = [threading.Thread(target=run, args=(fmt,)) for fmt in (True, False, True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([r.returncode for r in results], [0, 0, 0], [r.stderr for r in results])
        self.assertEqual(sum(r.stdout.startswith("{") for r in results), 2)
        for r in results:
            if r.stdout.startswith("{"):
                self.check_healthy(json.loads(r.stdout))
            else:
                self.assertIn("No problem found.", r.stdout)
        self.assertIs(self.bus.accel_property("Polling"), False, "polling did not stop after the run")
        with self.assertRaisesRegex(GLib.Error, "Unknown report format \"xml\""):
            self.bus.call(ACCEL, ACCEL_PATH, ACCEL, "Diagnose", "s", ("xml",))

    def test_no_service(self):
        wrapper = os.path.join(self.tmpdir, "tpacceld-sim")
        with open(wrapper, "w") as f:
            f.write(f"#!/bin/sh\nexec {TPACCELD} --backend=sim --trace={trace('rest.csv')} "
                    f"--state-dir={self.tmpdir}/state --input-dir={self.tmpdir} \"$@\"\n")
        os.chmod(wrapper, 0o755)
        env = dict(self.env, TPACCELCTL_TPACCELD=wrapper)
        if os.geteuid() == 0:
            # Root without the service: tpaccelctl runs tpacceld --diagnose itself.
            res = subprocess.run([TPACCELCTL, "--session", "diagnose", "--json"], capture_output=True, text=True,
                                 env=env, timeout=60)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertIn("running the checks with", res.stderr)
            self.check_healthy(json.loads(res.stdout))
            user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        else:
            user = []
        # Not root without the service: says how to run the checks, runs nothing.
        res = subprocess.run(user + [TPACCELCTL, "--session", "diagnose"], capture_output=True, text=True, env=env,
                             timeout=60)
        self.assertEqual(res.returncode, NO_SERVICE, res.stderr)
        self.assertIn('run "tpaccelctl diagnose" as root', res.stderr)
        self.assertEqual(res.stdout, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
