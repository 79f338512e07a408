# SPDX-License-Identifier: GPL-2.0-or-later
"""Whatever a test process started ends with it, also when meson ends a test that timed out (SIGTERM):
then no tearDown/finally runs, and the children (tpacceld, dbus-daemon, mocks, clients) would be left
running. Importing this module installs it: SIGTERM exits through atexit, which kills every child of
this process and every pid given to also_end() (processes that fork away)."""

import atexit
import os
import signal
import sys

_also = []


def also_end(pid):
    """pid is not our child (it forked away) but is ours to end at exit."""
    _also.append(pid)


def _end_everything_started():
    me = os.getpid()
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me:
            try:
                os.kill(int(name), signal.SIGKILL)
            except OSError:
                pass
    for pid in _also:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass


atexit.register(_end_everything_started)
signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
