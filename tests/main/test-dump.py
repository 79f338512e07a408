#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld --dump on the emulator: replays a trace exactly (within interpolation and the EC filter),
survives every fault kind (the kinds asked of tpacceld --sim-fault=help), and refuses clearly when there
is no accelerometer."""
import csv
import io
import os
import subprocess
import sys
import tempfile
import unittest

from programs import program  # tests/lib

TPACCELD = program('TPACCELD')
HEADER = ['time_ms', 'x', 'y', 'temperature', 'keyboard', 'mouse']


def dump_command(*args, n=30, trace=None, state_dir=None):
    cmd = [TPACCELD, '--backend=sim', '--dump=%d' % n, '--state-dir=' + state_dir]
    if trace:
        cmd.append('--trace=' + trace)
    return cmd + list(args)


def run_dump(*args, n=30, trace=None, state_dir=None):
    return subprocess.run(dump_command(*args, n=n, trace=trace, state_dir=state_dir), capture_output=True,
                          text=True, timeout=60)


def fault_kinds():
    """The fault kinds, as tpacceld lists them from the emulator's table."""
    p = subprocess.run([TPACCELD, '--sim-fault=help'], capture_output=True, text=True, timeout=60, check=True)
    return p.stdout.split()


class DumpTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.trace = os.path.join(self.tmp.name, 'ramp.csv')
        with open(self.trace, 'w') as f:
            # x ramps by 1 count every 10 ms for 60 s; y holds; keyboard from 0.3 s to 0.5 s.
            f.write('# test trace: a linear ramp on x\ntime_ms,x,y,keyboard,mouse\n')
            f.write('0,-1000,250,0,0\n300,-970,250,0,0\n300.5,-970,250,1,0\n500,-950,250,1,0\n'
                    '500.5,-950,250,0,0\n60000,4950,250,0,0\n')

    def tearDown(self):
        self.tmp.cleanup()

    def rows(self, stdout):
        r = list(csv.reader(io.StringIO(stdout)))
        self.assertEqual(r[0], HEADER)
        return [[float(v) for v in row] for row in r[1:]]

    def test_replays_the_trace(self):
        p = run_dump(n=40, trace=self.trace, state_dir=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = self.rows(p.stdout)
        self.assertEqual(len(rows), 40)
        for t, x, y, temp, kb, mouse in rows:
            self.assertEqual(y, 250)          # held exactly
            self.assertEqual(temp, 38)
            self.assertEqual(mouse, 0)
            self.assertTrue(-1000 <= x <= 4950)
        # x follows the ramp, 1 count per 10 ms: it never goes back in time, and over the whole run it
        # moves as far as the time says. (Single steps are not compared with the read times: a tick's
        # data was requested by the previous tick, so a late tick stretches one step and shrinks the next.)
        for (t0, x0, *_), (t1, x1, *_) in zip(rows, rows[1:]):
            self.assertGreaterEqual(x1, x0)
        span_t = rows[-1][0] - rows[0][0]
        self.assertAlmostEqual(rows[-1][1] - rows[0][1], span_t / 10.0, delta=4)
        self.assertTrue(any(r[4] == 1 for r in rows), 'keyboard activity from the trace is seen')
        self.assertEqual([r[0] for r in rows], sorted(r[0] for r in rows))

    def test_survives_every_fault_kind(self):
        """Every kind the emulator's table has (tpacceld --sim-fault=help), but absent, which is no
        accelerometer at all (test_no_accelerometer_is_refused)."""
        kinds = fault_kinds()
        self.assertIn('absent', kinds)
        # Side by side (each dump reads 25 readouts in real time), each with its own state directory.
        dumps = {}
        for kind in kinds:
            if kind == 'absent':
                continue
            state_dir = os.path.join(self.tmp.name, 'state-' + kind)
            os.mkdir(state_dir)
            cmd = dump_command('--sim-fault=%s:0.2' % kind, n=25, trace=self.trace, state_dir=state_dir)
            dumps[kind] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.addCleanup(dumps[kind].communicate)
            self.addCleanup(dumps[kind].kill)
        for kind, proc in dumps.items():
            with self.subTest(kind=kind):
                stdout, stderr = proc.communicate(timeout=60)
                self.assertEqual(proc.returncode, 0, stderr)
                self.assertEqual(len(self.rows(stdout)), 25)

    def test_pending_configuration_polls_and_powers_off(self):
        """A configuration the EC keeps pending (0x06) is not fatal: --dump polls with the one
        the EC reports, says so, and powers the accelerometer off at exit."""
        with open(os.path.join(self.tmp.name, 'state'), 'w') as f:
            f.write('oversampling_ratio=2\n')  # EC rate 100: not what the emulated EC runs after boot
        p = run_dump('--sim-fault=pending', n=5, state_dir=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(self.rows(p.stdout)), 5)
        self.assertIn('the EC keeps the configuration change pending (0x10 answers 0x06)', p.stderr)
        self.assertIn('polling with the configuration it reports (EC rate 250, filter order 2)', p.stderr)
        self.assertIn('At exit: emulated EC: powered=no', p.stderr)
        # The power-off (0x14 0) worked; only stopping EC sampling (0x10 0 1) met the pending change:
        # the message says that, not that the power-off failed.
        self.assertNotIn('Failed to power the accelerometer off', p.stderr)
        self.assertRegex(p.stderr, r'accelerometer powered off, but stopping EC sampling \(0x10 0 1\) '
                                   r'failed \(emulated EC: powered=no[^)]*\): Device or resource busy')

    def test_fault_kinds_are_listed_alike(self):
        """--sim-fault=help, --help and an unknown kind's error list the same kinds, in one order."""
        kinds = fault_kinds()
        self.assertGreater(len(kinds), 5)
        self.assertEqual(len(set(kinds)), len(kinds))
        p = subprocess.run([TPACCELD, '--help'], capture_output=True, text=True, timeout=60, check=True)
        self.assertIn(', '.join(kinds), ' '.join(p.stdout.split()))
        p = run_dump('--sim-fault=nonsense', n=1, state_dir=self.tmp.name)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown fault kind 'nonsense' (expected %s)" % ', '.join(kinds), p.stderr)
        self.assertEqual(p.stdout, '')

    def test_no_accelerometer_is_refused(self):
        p = run_dump('--sim-fault=absent', n=3, state_dir=self.tmp.name)
        self.assertEqual(p.returncode, 1)
        self.assertIn('no accelerometer', p.stderr)
        self.assertEqual(p.stdout, '')

    def test_bad_trace_names_file_and_line(self):
        bad = os.path.join(self.tmp.name, 'bad.csv')
        with open(bad, 'w') as f:
            f.write('time_ms,x,y,keyboard,mouse\n0,1,2,0,0\n0,1,2,0,0\n')
        p = run_dump(n=1, trace=bad, state_dir=self.tmp.name)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(bad + ':3:', p.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
