#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""kill -9 during configuration writes: RUNS times, start tpacceld on the emulator with a state
directory, write configurations in a loop (SetFilterOrder, SetInvert, SetTiltStep,
SetShockSensitivity, SetOversamplingRatio, each persisted), kill -9 the daemon at a random moment,
then check the state file strictly (the daemon's own parser, any warning is an error: state-check)
and that it holds either the last configuration the daemon acknowledged or the one whose call was in
flight, never anything else; restart the daemon and check it serves that configuration.
Prints `name: value unit` lines; exits 1 on any corrupt or unexpected file.
  kill9.py TPACCELD STATE_CHECK [--runs N]"""

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

import soaklib

KILL_AFTER_MIN_S = 0.02
KILL_AFTER_MAX_S = 0.40

# (method, busctl signature, state file key, values, how the file writes a value)
SETTERS = (
    ('SetFilterOrder', 'u', 'filter_order', ['1', '2', '3', '4', '5', '6', '7', '8'], str),
    ('SetInvert', 'b', 'invert', ['true', 'false'], lambda v: '1' if v == 'true' else '0'),
    ('SetTiltStep', 'd', 'tilt_step', ['1', '2.5', '5', '10'], str),
    ('SetShockSensitivity', 'd', 'shock_sensitivity', ['0.5', '1', '2', '4'], str),
    ('SetOversamplingRatio', 'u', 'oversampling_ratio', ['1', '2', '3', '5'], str),
)


def read_state(state_check, path):
    r = subprocess.run([state_check, path], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    conf = {}
    for line in r.stdout.splitlines():
        if line and not line.startswith('#'):
            k, _, v = line.partition('=')
            conf[k] = v
    return conf, None


def same_number(a, b):
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def matches(conf, model):
    return all(k in conf and same_number(conf[k], v) for k, v in model.items())


def writer_loop(address, model, inflight, stop):
    """Sets values until the daemon dies; model holds what was acknowledged, inflight the call in flight."""
    i = 0
    while not stop.is_set():
        method, sig, key, values, fmt = SETTERS[i % len(SETTERS)]
        value = values[(i // len(SETTERS)) % len(values)]
        inflight.clear()
        inflight.update({key: fmt(value)})
        r = soaklib.busctl(address, 'call', soaklib.NAME, soaklib.PATH, soaklib.IFACE, method, sig, value,
                           timeout=5)
        if r.returncode != 0:
            return
        model[key] = fmt(value)
        inflight.clear()
        i += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tpacceld')
    ap.add_argument('state_check')
    ap.add_argument('--runs', type=int, default=50)
    ap.add_argument('--seed', type=int, default=int(time.time()))
    args = ap.parse_args()
    rng = random.Random(args.seed)

    bus = soaklib.Bus()
    state_dir = tempfile.mkdtemp(prefix='tpaccel-kill9-')
    log_path = os.path.join(state_dir, 'daemon.log')
    state_path = os.path.join(state_dir, 'state')
    problems = []
    old_files = new_files = acked_writes = 0
    model = {}
    try:
        for run in range(args.runs):
            daemon = soaklib.start_daemon(args.tpacceld, bus, state_dir, log_path)
            if not soaklib.wait_for_name(bus.address, daemon):
                problems.append('run %d: the daemon did not start after kill -9' % run)
                break
            if model:
                # The restarted daemon serves what the file holds.
                got = soaklib.get_property(bus.address, 'FilterOrder')
                if 'filter_order' in model and got != model['filter_order']:
                    problems.append('run %d: restarted daemon serves FilterOrder %s, the file has %s' %
                                    (run, got, model['filter_order']))
            acked_before = dict(model)
            inflight = {}
            stop = threading.Event()
            writer = threading.Thread(target=writer_loop, args=(bus.address, model, inflight, stop))
            writer.start()
            time.sleep(rng.uniform(KILL_AFTER_MIN_S, KILL_AFTER_MAX_S))
            daemon.send_signal(signal.SIGKILL)
            daemon.wait()
            stop.set()
            writer.join()
            if model != acked_before:
                acked_writes += 1

            if not os.path.exists(state_path):
                if model:
                    problems.append('run %d: no state file after acknowledged writes' % run)
                continue
            conf, error = read_state(args.state_check, state_path)
            if conf is None:
                problems.append('run %d: corrupt state file: %s' % (run, error))
                continue
            newer = dict(model, **inflight)
            if matches(conf, model):
                old_files += 1
            elif inflight and matches(conf, newer):
                new_files += 1
                model.update(inflight)  # the in-flight write reached the disk before the kill
            else:
                problems.append('run %d: the state file holds neither the acknowledged %s nor the in-flight %s: %s'
                                % (run, model, inflight, conf))
                model = {k: conf[k] for k in model if k in conf}
    finally:
        if 'daemon' in locals():
            soaklib.stop_process(daemon, signal.SIGKILL)
        bus.stop()
        if problems:
            with open(log_path, errors='replace') as f:
                sys.stderr.write(f.read()[-4000:])
        subprocess.run(['rm', '-rf', state_dir], check=False)

    print('kill9_seed: %d seed' % args.seed)
    print('kill9_runs: %d runs' % args.runs)
    print('kill9_runs_with_acknowledged_writes: %d runs' % acked_writes)
    print('kill9_file_last_acknowledged: %d runs' % old_files)
    print('kill9_file_in_flight_write: %d runs' % new_files)
    print('kill9_file_corrupt_or_other: %d runs' % len(problems))
    for p in problems:
        print('FAIL: ' + p)
    print('kill9: %s' % ('FAILED' if problems else 'passed'))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
