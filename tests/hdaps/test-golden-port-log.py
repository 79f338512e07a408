#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The golden sequences of docs/PROTOCOL.md on the port log of a real `tpacceld --dump` run on the emulator:
the run starts with the EC self-test ("read") and the init sequence ("init"), access by access. The
emulator runs in real time, so how many STR3 polls a wait takes varies: a run of STR3 reads counts as
one poll on both sides, and the values STR3 showed are not compared (test-golden.c compares them
exactly, on a replaying port). Everything else, direction, port, and every value written or read from
a TWR, must be equal."""
import csv
import os
import re
import subprocess
import tempfile
import unittest

from programs import program  # tests/lib

TPACCELD = program('TPACCELD')
PROTOCOL = os.path.join(os.environ['TOP_SRCDIR'], 'docs', 'PROTOCOL.md')
STR3 = 0x1604


def golden(name):
    """The block "```golden NAME" as [(dir, port, value)], delays dropped."""
    with open(PROTOCOL) as f:
        text = f.read()
    m = re.search(r'^```golden %s\n(.*?)^```' % re.escape(name), text, re.M | re.S)
    assert m, 'docs/PROTOCOL.md has no golden block %r' % name
    out = []
    for line in m.group(1).splitlines():
        words = line.split('#')[0].split()
        if not words or words[0] == 'delay':
            continue
        out.append((words[0], int(words[1], 16), int(words[2], 16)))
    return out


def normalize(accesses):
    """STR3 runs -> one ('in', STR3, None); other accesses unchanged."""
    out = []
    for d, port, value in accesses:
        if port == STR3 and d == 'in':
            if out and out[-1] == ('in', STR3, None):
                continue
            out.append(('in', STR3, None))
        else:
            out.append((d, port, value))
    return out


class GoldenPortLogTest(unittest.TestCase):
    def test_dump_starts_with_the_self_test_and_the_init_sequence(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, 'ports.csv')
            p = subprocess.run([TPACCELD, '--backend=sim', '--dump=3', '--state-dir=' + tmp, '--port-log=' + log],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(log, newline='') as f:
                rows = list(csv.reader(f))
        self.assertEqual(rows[0], ['time_us', 'dir', 'port', 'value'])
        got = normalize([(d, int(port, 16), int(value, 16)) for _, d, port, value in rows[1:]])
        # Between two transactions the 2006 patch series' host reads STR3 twice in a row (after the read,
        # then before the next request): one poll run on both sides after normalizing.
        want = normalize(golden('read') + golden('init'))
        self.assertEqual(got[:len(want)], want,
                         '\n'.join('%-28s %s' % (g, w) for g, w in zip(got[:len(want)], want) if g != w))


if __name__ == '__main__':
    unittest.main(verbosity=2)
