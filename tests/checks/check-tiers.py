#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every meson test is in exactly one tier: one of the suites unit, dbus, system, soak, release
(tests/meson.build says what each is). A test in none would run in the default setup whatever it needs
(root, minutes);
a test in two would run twice in scripts/test.sh's sanitizer half. Benchmarks are in no tier.
Usage: check-tiers.py BUILDDIR"""

import json
import subprocess
import sys

TIERS = ('unit', 'dbus', 'system', 'soak', 'release')

tests = json.loads(subprocess.run(['meson', 'introspect', '--tests', sys.argv[1]], check=True,
                                  capture_output=True, text=True).stdout)
bad = []
for t in tests:
    suites = [s.split(':', 1)[-1] for s in t['suite']]
    tiers = [s for s in suites if s in TIERS]
    if len(tiers) != 1:
        bad.append('%s: suites %s, tiers %s' % (t['name'], suites, tiers))
for line in bad:
    print(line)
print('%d tests, %d not in exactly one tier of %s' % (len(tests), len(bad), ', '.join(TIERS)))
sys.exit(1 if bad else 0)
