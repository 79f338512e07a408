#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails (and lists, then ends) every process still carrying MARK=VALUE in its environment, except
this one and its ancestors: scripts/test.sh exports a mark unique to its run, so whatever a test
started and left behind (a dbus-daemon, tpacceld, polkitd, a mock) is found, and other runs on the same
machine are not. Waits up to GRACE seconds for processes that are on their way out.
  check-leftovers.py MARK VALUE [GRACE]"""

import os
import signal
import sys
import time

mark = ('%s=%s' % (sys.argv[1], sys.argv[2])).encode()
grace = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0


def ancestors():
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        try:
            with open('/proc/%d/stat' % pid) as f:
                pid = int(f.read().rsplit(')', 1)[1].split()[1])
        except OSError:
            break
    return pids


def marked():
    mine, found = ancestors(), {}
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) in mine:
            continue
        try:
            with open('/proc/%s/environ' % name, 'rb') as f:
                if mark not in f.read().split(b'\0'):
                    continue
            with open('/proc/%s/cmdline' % name, 'rb') as f:
                cmd = f.read().replace(b'\0', b' ').decode(errors='replace').strip()
        except OSError:
            continue
        if cmd:  # zombies have no command line: their parent reaps them
            found[int(name)] = cmd
    return found


deadline = time.monotonic() + grace
left = marked()
while left and time.monotonic() < deadline:
    time.sleep(0.2)
    left = marked()
if not left:
    print('leftover processes: none')
    sys.exit(0)
print('leftover processes: %d still running that the tests started:' % len(left))
for pid, cmd in sorted(left.items()):
    print('  %d %s' % (pid, cmd[:200]))
for pid in left:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
sys.exit(1)
