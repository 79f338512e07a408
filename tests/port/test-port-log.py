#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld --port-log=FILE on the emulator, with --dump: a well-formed CSV of every port access whose
transactions follow the handshake of docs/PROTOCOL.md; bad paths fail before any port access."""
import csv
import os
import re
import subprocess
import tempfile
import unittest

from programs import program  # tests/lib

TPACCELD = program('TPACCELD')
HEADER = ['time_us', 'dir', 'port', 'value']
STR3, TWR0, TWR15 = 0x1604, 0x1610, 0x161F
MWMF, SWMF, OBF3B = 0x20, 0x10, 0x40


def read_log(path):
    """The log's rows as (time_us, dir, port, value) with ints; checks each field's documented form."""
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    assert rows[0] == HEADER, rows[0]
    out = []
    for n, (t, d, port, value) in enumerate(rows[1:], start=2):
        assert re.fullmatch(r'[0-9]+', t), 'line %d: time_us %r' % (n, t)
        assert d in ('in', 'out'), 'line %d: dir %r' % (n, d)
        assert re.fullmatch(r'0x[0-9a-f]{4}', port), 'line %d: port %r' % (n, port)
        assert re.fullmatch(r'0x[0-9a-f]{2}', value), 'line %d: value %r' % (n, value)
        out.append((int(t), d, int(port, 16), int(value, 16)))
    return out


def transactions(rows):
    """Splits the accesses into requests: [{'args': {i: byte}, 'reply': {i: byte}}], in order."""
    result, cur = [], None
    for _, d, port, value in rows:
        if port == STR3:
            continue
        i = port - TWR0
        if d == 'out':
            if i == 0:
                cur = {'args': {0: value}, 'reply': {}}
                result.append(cur)
            elif cur is not None:
                cur['args'][i] = value
        elif cur is not None:
            cur['reply'][i] = value
    return result


def command(t):
    """(arg0, sub-command or argument 1 where it selects the command, or None)."""
    a = t['args']
    return (a[0], a.get(1)) if a[0] in (0x14, 0x17) else (a[0], None)


def is_subsequence(needle, haystack):
    it = iter(haystack)
    return all(any(x == y for y in it) for x in needle)


class PortLogTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, 'ports.csv')

    def tearDown(self):
        self.tmp.cleanup()

    def run_daemon(self, *args, n=20):
        cmd = [TPACCELD, '--backend=sim', '--dump=%d' % n, '--state-dir=' + self.tmp.name]
        return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=60)

    def test_dump_log_is_well_formed_csv(self):
        p = self.run_daemon('--port-log=' + self.log, n=20)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 1 + 20, 'the dump itself is unchanged')
        rows = read_log(self.log)
        self.assertGreater(len(rows), 20 * 5)
        times = [r[0] for r in rows]
        self.assertEqual(times, sorted(times), 'time_us is monotonic')
        self.assertLess(times[0], 1000 * 1000, 'time_us counts from the start')
        self.assertTrue(all(0x1600 <= r[2] <= 0x161F for r in rows), 'only the EC ports')
        self.assertIn('Port log %s: %d port accesses' % (self.log, len(rows)), p.stderr)

    def test_first_transaction_follows_the_handshake(self):
        # docs/PROTOCOL.md "Request" and "Read": STR3 idle, TWR0, STR3 = MWMF, TWR1..14 by the mask, TWR15;
        # STR3 polled until the reply is ready (OBF3B|SWMF), then TWR0, the data, TWR15 ends it.
        self.assertEqual(self.run_daemon('--port-log=' + self.log, n=3).returncode, 0)
        rows = [(d, port, value) for _, d, port, value in read_log(self.log)]
        self.assertEqual(rows[0], ('in', STR3, 0x00), 'the EC is idle before the first request')
        self.assertEqual(rows[1][:2], ('out', TWR0))
        self.assertEqual(rows[2], ('in', STR3, MWMF), 'the EC accepted TWR0')
        i = 3
        while rows[i][:2] != ('out', TWR15):
            self.assertEqual(rows[i][0], 'out')
            self.assertTrue(TWR0 < rows[i][1] < TWR15, rows[i])
            i += 1
        i += 1
        while rows[i][1] == STR3 and rows[i][2] != OBF3B | SWMF:
            self.assertEqual(rows[i][0], 'in')
            self.assertEqual(rows[i][2] & ~0xF0, 0, 'STR3 only shows the protocol bits')
            i += 1
        self.assertEqual(rows[i], ('in', STR3, OBF3B | SWMF), 'a reply becomes ready')
        # The request's SWMF wait may already see the reply; the read then checks STR3 once more
        # before TWR0 (the 2006 patch series: read_data tests STR3 first), so "ready" may be read twice.
        i += 1
        while rows[i][1] == STR3:
            self.assertEqual(rows[i], ('in', STR3, OBF3B | SWMF), 'the reply stays ready until read')
            i += 1
        self.assertEqual(rows[i][:2], ('in', TWR0), 'reading TWR0 starts the read')
        j = i + 1
        while rows[j][1] != TWR15:
            self.assertEqual(rows[j][0], 'in')
            j += 1
        self.assertEqual(rows[j][:2], ('in', TWR15), 'reading TWR15 ends it')

    def test_init_and_shutdown_order(self):
        # docs/PROTOCOL.md "Accelerometer commands": mode, check, power on, config, then a prefetch of the
        # readout; shutdown: power off, then config (0, 1).
        self.assertEqual(self.run_daemon('--port-log=' + self.log, n=5).returncode, 0)
        ts = transactions(read_log(self.log))
        cmds = [command(t) for t in ts]
        self.assertTrue(is_subsequence([(0x13, None), (0x17, 0x81), (0x14, 1), (0x10, None), (0x11, None)], cmds),
                        cmds[:12])
        self.assertGreaterEqual(cmds.count((0x11, None)), 5, 'one readout request per readout at least')
        self.assertEqual(cmds[-2], (0x14, 0), 'powered off at exit')
        last = ts[-1]['args']
        self.assertEqual((last[0], last.get(1), last.get(2), last.get(3)), (0x10, 0, 0, 1), 'EC sampling stopped')
        for t in ts:
            self.assertNotEqual(t['args'][0], 0x0B, 'never the row that hangs old EC firmware')

    def test_missing_directory_fails_before_any_port_access(self):
        bad = os.path.join(self.tmp.name, 'no', 'such', 'ports.csv')
        p = self.run_daemon('--port-log=' + bad, '-v')
        self.assertEqual(p.returncode, 1)
        self.assertIn('--port-log=%s: cannot create the file: No such file or directory' % bad, p.stderr)
        self.assertEqual(p.stdout, '')
        self.assertNotIn('Backend', p.stderr, 'no backend was opened')
        self.assertFalse(os.path.exists(bad))

    def test_directory_is_refused(self):
        p = self.run_daemon('--port-log=' + self.tmp.name)
        self.assertEqual(p.returncode, 1)
        self.assertIn('--port-log=%s: cannot create the file: Is a directory' % self.tmp.name, p.stderr)
        self.assertEqual(p.stdout, '')

    def test_kernel_backend_has_no_ports(self):
        p = subprocess.run([TPACCELD, '--backend=kernel', '--port-log=' + self.log], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn('--port-log=%s: the kernel backend makes no port access' % self.log, p.stderr)
        self.assertFalse(os.path.exists(self.log))


if __name__ == '__main__':
    unittest.main(verbosity=2)
