# SPDX-License-Identifier: GPL-2.0-or-later
"""The end of a Python test file run by meson (one test method a run: tests/lib/list-tests.py)."""
import sys
import unittest


def main():
    """Runs the file's tests as unittest.main does and exits: 0 when they passed, 1 when one failed, and
    77, which meson shows as SKIP rather than OK, when every test run was skipped (the reason is in the
    log)."""
    result = unittest.main(verbosity=2, exit=False).result
    if result.wasSuccessful() and result.testsRun and len(result.skipped) == result.testsRun:
        sys.exit(77)
    sys.exit(0 if result.wasSuccessful() else 1)
