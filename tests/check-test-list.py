#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks that the unittest methods of a test file are exactly the ones a meson.build lists as separate
meson tests (one meson test per behaviour, iio-sensor-proxy style), so none is silently left out.
Usage: check-test-list.py FILE TEST_NAME..."""
import re
import sys

src = open(sys.argv[1]).read()
got = set(re.findall(r"^    def (test_\w+)\(self\)", src, re.M))
want = set(sys.argv[2:])
if got != want:
    sys.exit("%s: not listed in meson.build: %s; listed but missing: %s"
             % (sys.argv[1], sorted(got - want), sorted(want - got)))
