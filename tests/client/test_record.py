#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccelctl record: the record/replay round trip against the real tpacceld on the EC emulator (private
bus), and its error handling."""
import math
import os
import signal
import subprocess
import time
import unittest

from clienttest import TPACCELCTL, ClientTestCase, wait_until

USAGE, NO_SERVICE = 2, 4

# The replayed motion: one slow circle per PERIOD_MS around a rest position, keyboard used in a span.
PERIOD_MS = 4000
REST_X, REST_Y, AMP_X, AMP_Y = -498, -439, 150, 100
KEYBOARD_FROM_MS, KEYBOARD_TO_MS = 1000, 1500
ACTIVITY_REMEMBER_MS = 100  # HDAPS_ACTIVITY_REMEMBER_MS: KeyboardActivity stays on this long
# What the EC filter (order 2 at 250 Hz), the trace interpolation and integer counts may move a readout
# away from the trace at the best fixed delay: a few counts. A readout delayed by a stall of the loaded
# test machine (its timestamp is the read, its data the prefetch a tick earlier) is off by more; such
# rows must still lie on the trace within STALL_MS before their time.
TOLERANCE = 4
STALL_MS = 300
GOOD_FRACTION = 0.9


def circle(t_ms):
    a = 2 * math.pi * (t_ms % PERIOD_MS) / PERIOD_MS
    return REST_X + AMP_X * math.sin(a), REST_Y + AMP_Y * math.cos(a)


def read_trace(path):
    header, rows, seen_columns = [], [], False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header.append(line)
            elif line == "time_ms,x,y,keyboard,mouse":
                seen_columns = True
            elif line:
                t, x, y, k, m = line.split(",")
                rows.append((float(t), int(x), int(y), int(k), int(m)))
    return header, seen_columns, rows


class RecordTest(ClientTestCase):
    def write_circle_trace(self):
        path = os.path.join(self.tmpdir, "circle.csv")
        with open(path, "w") as f:
            f.write("# a circle, for the record/replay round trip\ntime_ms,x,y,keyboard,mouse\n")
            for t in range(0, PERIOD_MS + 1, 5):
                x, y = circle(t)
                k = 1 if KEYBOARD_FROM_MS <= t < KEYBOARD_TO_MS else 0
                f.write(f"{t},{round(x)},{round(y)},{k},0\n")
        return path

    def record(self, *args):
        return subprocess.run([TPACCELCTL, "--session", "record"] + list(args), capture_output=True, text=True,
                              env=self.env, timeout=60)

    def test_record_round_trip(self):
        self.start_daemon(self.write_circle_trace(), loop=True)
        # Invert makes the daemon's axis code 1 (both axes negated): the file must still hold raw counts.
        self.ctl("set", "invert", "yes", check=0)
        out_path = os.path.join(self.tmpdir, "recorded.csv")
        # One period of the circle: every phase of it, the keyboard span's too, whenever the recording starts.
        res = self.record(f"--seconds={PERIOD_MS // 1000}", out_path)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertRegex(res.stdout, r"Recorded \d+ readouts over [\d.]+ s into ")
        self.assertFalse(self.bus.accel_property("Polling"), "the claim was not released")

        header, seen_columns, rows = read_trace(out_path)
        self.assertTrue(seen_columns, "no column line")
        text = "\n".join(header)
        self.assertIn("axis code 1 (invert yes)", text)
        self.assertRegex(text, r"rate 50 Hz")
        self.assertRegex(text, r"# backend: simulated")
        self.assertRegex(text, r"\d{4}-\d\d-\d\dT")
        self.assertGreater(len(rows), 100, "too few readouts in 4 s at 50 Hz")
        times = [r[0] for r in rows]
        self.assertEqual(times, sorted(set(times)), "times are not increasing")

        # The replay's clock starts with the daemon, the recording's with its first readout: find the delay.
        def error_at(offset):
            return sum(abs(x - cx) + abs(y - cy) for t, x, y, _, _ in rows for cx, cy in [circle(t + offset)])
        best = min(range(0, PERIOD_MS, 2), key=error_at)
        good = 0
        for t, x, y, _, _ in rows:
            cx, cy = circle(t + best)
            if abs(x - cx) <= TOLERANCE and abs(y - cy) <= TOLERANCE:
                good += 1
                continue
            late = [circle(t + best - d) for d in range(0, STALL_MS, 1)]
            self.assertTrue(any(abs(x - lx) <= TOLERANCE and abs(y - ly) <= TOLERANCE for lx, ly in late),
                            f"row at {t} ms ({x}, {y}) is on the trace nowhere near its time (delay {best} ms)")
        self.assertGreaterEqual(good / len(rows), GOOD_FRACTION,
                                f"only {good} of {len(rows)} rows match the trace within {TOLERANCE} counts")

        # Keyboard activity shows up in the rows whose trace time is in the span (plus what is remembered).
        typing = [r for r in rows if r[3]]
        self.assertTrue(typing, "the keyboard span was not recorded")
        for t, *_ in typing:
            phase = (t + best) % PERIOD_MS
            self.assertTrue(KEYBOARD_FROM_MS - STALL_MS <= phase <= KEYBOARD_TO_MS + ACTIVITY_REMEMBER_MS + STALL_MS,
                            f"keyboard activity recorded at trace time {phase:.0f} ms")

        # The recording replays: the daemon accepts it as a trace.
        self.stop_daemon()
        self.processes.remove(self.daemon)
        self.start_daemon(out_path)
        self.assertEqual(self.bus.accel_property("Backend"), "simulated")

    def test_record_full_rate(self):
        # Above 50 Hz every readout must still be written (the Sample signal is decimated to 50 a second),
        # and --seconds=2 holds 2 s of readouts, not more.
        self.start_daemon("slow-roll-45.csv", loop=True)
        self.ctl("set", "sampling-rate", "200", check=0)
        out_path = os.path.join(self.tmpdir, "fast.csv")
        res = self.record("--seconds=2", out_path)
        self.assertEqual(res.returncode, 0, res.stderr)
        header, seen_columns, rows = read_trace(out_path)
        self.assertTrue(seen_columns, "no column line")
        self.assertRegex("\n".join(header), r"# rate 200 Hz")
        # Decimated to the Sample signal's 50 a second, 2 s would be about 100 rows 20 ms apart. The rows
        # are the readouts themselves, 5 ms apart; how many of the 400 the daemon made in time is the
        # machine's load, not the recorder's behaviour, so the count is only held well above decimation.
        self.assertGreater(len(rows), 200, f"{len(rows)} rows in 2 s at 200 Hz")
        self.assertLessEqual(len(rows), 420, f"{len(rows)} rows in 2 s at 200 Hz")
        steps = sorted(b[0] - a[0] for a, b in zip(rows, rows[1:]))
        self.assertAlmostEqual(steps[len(steps) // 2], 5.0, delta=0.5, msg="median time step")
        self.assertLess(rows[-1][0] - rows[0][0], 2100, "the rows span more than --seconds=2")
        self.assertRegex(res.stdout, rf"Recorded {len(rows)} readouts over [\d.]+ s into ")

    def test_record_marks_missed_readouts(self):
        # A busy EC misses readouts: each gap is a comment before its row, counted at the end and on stderr.
        self.start_daemon(extra=("--sim-fault=busy:0.3",))
        self.ctl("set", "sampling-rate", "200", check=0)
        out_path = os.path.join(self.tmpdir, "gaps.csv")
        res = self.record("--seconds=1", out_path)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(out_path) as f:
            gaps = sum(1 for line in f if line == "# readouts were missed before the next row\n")
        self.assertGreater(gaps, 0, "no gap marked with a busy EC")
        header, _, rows = read_trace(out_path)
        self.assertIn(f"# readouts were missed before {gaps} of the rows", header)
        self.assertRegex(res.stderr, rf"readouts were missed before {gaps} rows")
        self.assertLess(rows[-1][0], 1000)

    def test_record_until_interrupted(self):
        self.start_daemon("rest.csv", loop=True)
        out_path = os.path.join(self.tmpdir, "rest.csv")
        proc = subprocess.Popen([TPACCELCTL, "--session", "record", out_path], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env)
        try:
            self.assertTrue(proc.stdout.readline().startswith("Recording to "))
            wait_until(lambda: self.bus.accel_property("Polling"), what="the claim")
            time.sleep(1.0)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        self.assertRegex(out, r"Recorded \d+ readouts")
        _, seen_columns, rows = read_trace(out_path)
        self.assertTrue(seen_columns)
        self.assertGreater(len(rows), 10)
        for t, x, y, _, _ in rows:  # rest.csv: about (-498, -439)
            self.assertLessEqual(abs(x + 498) + abs(y + 439), 10, (t, x, y))
        wait_until(lambda: self.bus.accel_property("Polling") is False, what="the claim to be released")

    def test_record_errors(self):
        self.start_daemon("rest.csv")
        existing = os.path.join(self.tmpdir, "existing.csv")
        with open(existing, "w") as f:
            f.write("keep me\n")
        cases = [((), USAGE, "record needs a FILE"),
                 (("a.csv", "b.csv"), USAGE, 'got "b.csv" too'),
                 (("--seconds=0", "x.csv"), USAGE, '--seconds: "0" is not a whole number'),
                 (("--seconds=soon", "x.csv"), USAGE, '--seconds: "soon"'),
                 ((existing,), USAGE, "never overwritten"),
                 ((os.path.join(self.tmpdir, "no", "dir.csv"),), 1, "cannot create")]
        for args, status, message in cases:
            with self.subTest(args=args):
                res = self.record(*args)
                self.assertEqual(res.returncode, status, res.stderr)
                self.assertIn(message, res.stderr)
        with open(existing) as f:
            self.assertEqual(f.read(), "keep me\n")
        self.assertFalse(os.path.exists(os.path.join(self.tmpdir, "x.csv")))
        self.assertEqual(self.ctl("status", "--seconds=3")[0], USAGE)

    def test_record_no_service(self):
        out_path = os.path.join(self.tmpdir, "none.csv")
        res = self.record(out_path)
        self.assertEqual(res.returncode, NO_SERVICE, res.stderr)
        self.assertFalse(os.path.exists(out_path), "a file was left behind")


if __name__ == "__main__":
    unittest.main(verbosity=2)
