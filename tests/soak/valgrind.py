#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""valgrind memcheck over a SECONDS-long emulator run of tpacceld on a private bus: every emulator
fault kind at 1%, soak-client load (subscribers, property reads, claim/release churn, a configuration
change every 250 ms), then SIGTERM. Passes when memcheck reports no error and no definite leak
(--error-exitcode, --leak-check=full --errors-for-leak-kinds=definite) and the daemon exits 0.
Prints `name: value unit` lines.
  valgrind.py TPACCELD SOAK_CLIENT [--seconds N]"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import soaklib

VALGRIND_ERROR_EXIT = 99
CLIENTS = 10
READS_PER_SECOND = 200


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tpacceld')
    ap.add_argument('client')
    ap.add_argument('--seconds', type=float, default=30)
    args = ap.parse_args()

    bus = soaklib.Bus()
    state_dir = tempfile.mkdtemp(prefix='tpaccel-valgrind-')
    log_path = os.path.join(state_dir, 'daemon.log')
    vg_log = os.path.join(state_dir, 'valgrind.log')
    wrapper = ['valgrind', '--tool=memcheck', '--error-exitcode=%d' % VALGRIND_ERROR_EXIT, '--leak-check=full',
               '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite', '--track-origins=yes',
               '--log-file=' + vg_log]
    faults = ['--sim-fault=%s:0.01' % k for k in soaklib.FAULT_KINDS]
    daemon = soaklib.start_daemon(args.tpacceld, bus, state_dir, log_path, faults, wrapper=wrapper)
    problems = []
    try:
        if not soaklib.wait_for_name(bus.address, daemon, timeout=120):
            raise SystemExit('tpacceld under valgrind did not take the name')
        rate = int(soaklib.get_property(bus.address, 'SamplingRate'))
        t0 = time.monotonic()
        client = subprocess.run([args.client, bus.address, str(args.seconds), str(CLIENTS), str(READS_PER_SECOND),
                                 str(rate)], capture_output=True, text=True, timeout=args.seconds + 120)
        run_seconds = time.monotonic() - t0
        figures = dict(re.findall(r'^(\w+): ([\d.]+) ', client.stdout, re.M))
        if client.returncode != 0:
            problems.append('soak-client failed: ' + client.stderr.strip())
        if daemon.poll() is not None:
            problems.append('the daemon died under load')
    finally:
        rc = soaklib.stop_process(daemon, timeout=60)
        bus.stop()
    with open(vg_log, errors='replace') as f:
        vg = f.read()
    m = re.search(r'ERROR SUMMARY: (\d+) errors', vg)
    errors = int(m.group(1)) if m else -1
    m = re.search(r'definitely lost: ([\d,]+) bytes', vg)
    definite = int(m.group(1).replace(',', '')) if m else 0
    if rc != 0:
        problems.append('valgrind/tpacceld exited with %s' % rc)
    if errors != 0:
        problems.append('memcheck reported %d errors' % errors)
    if definite != 0:
        problems.append('%d bytes definitely lost' % definite)

    print('valgrind_run: %.1f s' % run_seconds)
    print('valgrind_calls_made: %s calls' % figures.get('calls_sent', '0'))
    print('valgrind_calls_answered: %s calls' % figures.get('calls_answered', '0'))
    print('valgrind_readouts_seen: %s readouts' % figures.get('reference_samples', '0'))
    print('valgrind_errors: %d errors' % errors)
    print('valgrind_definitely_lost: %d bytes' % definite)
    print('valgrind_exit_status: %s code' % rc)
    if problems:
        sys.stderr.write(vg[-6000:])
        with open(log_path, errors='replace') as f:
            sys.stderr.write(f.read()[-3000:])
    subprocess.run(['rm', '-rf', state_dir], check=False)
    for p in problems:
        print('FAIL: ' + p)
    print('valgrind: %s' % ('FAILED' if problems else 'passed'))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
