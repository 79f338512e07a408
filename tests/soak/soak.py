#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soak: tpacceld on the EC emulator with every fault kind injected at 1% of transactions, on a
private bus (loopback Unix socket), under load from soak-client (100 subscribed connections in one
process, 1000 property reads/s, claim/release churn, a configuration change every 250 ms).

It runs the same load twice, each on a fresh daemon: a control phase without faults (to see what the
load alone costs) and the fault phase. Readouts are accounted for as follows, on the reference
subscriber (connection 0, which holds a claim for the whole run, so the daemon polls at SamplingRate
throughout):
  missed_ticks    ticks with no Sample, counted from the gaps between consecutive readout times
                  (a gap of k periods is k-1 missed ticks)
  failed_ticks    ticks the daemon reported as failed reads (its "works again after N failures" log)
  busy_ticks      the rest: ticks where the EC was still busy and the daemon kept the cached values
                  without a Sample (a busy or silent fault, or a reply not ready in time)
A tick also passes without a Sample, with no fault at all, when the EC has made no new readout since
the last one ("nothing new yet": the EC's sample clock and the host's timer beat against each other).
No readout is lost then; the control phase measures how often that happens. So:
  fault_eaten     missed_ticks(faults) - control_rate x ticks_expected(faults)
which is a figure: how many ticks the faults cost depends on how loaded the machine is (a tick more
than half a period late starts the schedule over, and a machine busy elsewhere makes late ticks that
the control phase, run at another moment, did not see). So do the RSS figures: Samples queued for 100
subscribers that read slowly raise the high-water mark at whatever moment the load peaks.

What the run requires is behaviour, the same on a loaded machine as on an idle one: the daemon stays
up, answers every call, exits 0 on SIGTERM; no call fails without a fault, and with faults only with
the errors a fault explains; every subscriber sees exactly the reference's Samples, none older than the
one before; every read the daemon logged as failed is a missed tick, never a Sample; the faults
were injected and seen (failed reads logged); and once the clients are gone the daemon holds no claim
of theirs (Polling false). Leaks are valgrind.py's: memcheck counts lost bytes, which load does not
change. The thresholds on the figures (CONTROL_MISSED_MAX_FRACTION, the fault-eaten bound, the RSS
growth over the second half, readouts and missed ticks adding up to the counting window) are printed as the benchmark's verdicts (`meson test -C build --benchmark
--suite soak`), and the test does not fail on them.

Prints `name: value unit` lines; exits 1 when a requirement fails.
  soak.py TPACCELD SOAK_CLIENT [--seconds N] [--control-seconds N] [--clients N] [--reads N]
With --benchmark the performance thresholds are checked too (a failed one makes the exit status 1)."""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import soaklib

FAULT_PROBABILITY = 0.01
# The benchmark's thresholds (load moves these figures; the test does not check them).
# Without faults, ticks without a new readout ("nothing new yet") stay rare.
CONTROL_MISSED_MAX_FRACTION = 0.15
TRANSACTIONS_PER_TICK_MAX = 2
# Resident memory may rise while buffers reach their high-water mark (a silent-fault stall with 100
# subscribers queues Samples), but not with time: over the second half of the run it must stay flat.
RSS_SECOND_HALF_GROWTH_MAX_KIB = 256
RSS_SAMPLE_PERIOD_S = 1.0
# How long the daemon may take to hear that the clients' connections closed (a wait, not a verdict).
RELEASE_WAIT_S = 60


def run_phase(args, bus, faults, label, seconds):
    state_dir = tempfile.mkdtemp(prefix='tpaccel-soak-state-')
    log_path = os.path.join(state_dir, 'daemon.log')
    extra = ['--sim-fault=%s:%g' % (k, FAULT_PROBABILITY) for k in faults]
    daemon = soaklib.start_daemon(args.tpacceld, bus, state_dir, log_path, extra)
    try:
        if not soaklib.wait_for_name(bus.address, daemon):
            with open(log_path) as f:
                sys.stderr.write(f.read())
            raise SystemExit('%s: tpacceld did not take the name' % label)
        rate = int(soaklib.get_property(bus.address, 'SamplingRate'))
        time.sleep(1.0)
        client = subprocess.Popen([args.client, bus.address, str(seconds), str(args.clients), str(args.reads),
                                   str(rate)], stdout=subprocess.PIPE, text=True)
        if client.stdout.readline().strip() != 'ready':
            raise SystemExit('%s: soak-client did not start' % label)
        time.sleep(1.0)  # the daemon's memory once the clients are connected and polling runs
        rss_start = soaklib.rss_kib(daemon.pid)
        rss_samples = []
        while client.poll() is None and daemon.poll() is None:
            rss_samples.append(soaklib.rss_kib(daemon.pid))
            time.sleep(RSS_SAMPLE_PERIOD_S)
        out, _ = client.communicate(timeout=seconds + 120)
        if client.returncode != 0:
            raise SystemExit('%s: soak-client failed (%d)' % (label, client.returncode))
        alive = daemon.poll() is None
        rss_end = soaklib.rss_kib(daemon.pid) if alive else 0
        rss_mid = rss_samples[len(rss_samples) // 2] if rss_samples else rss_start
        rss_max = max(rss_samples + [rss_start, rss_end])
        # Still answering after the load? And the clients' claims went with their connections: the daemon
        # hears of each disconnection from the bus, in its own time.
        answers = alive and soaklib.get_property(bus.address, 'HasAccelerometer') == 'true'
        released = False
        deadline = time.monotonic() + RELEASE_WAIT_S
        while answers and not released and time.monotonic() < deadline:
            released = soaklib.get_property(bus.address, 'Polling') == 'false'
            if not released:
                time.sleep(0.1)
    finally:
        rc = soaklib.stop_process(daemon)
    with open(log_path, errors='replace') as f:
        log = f.read()
    subprocess.run(['rm', '-rf', state_dir], check=False)

    figures = {}
    errors = {}
    for line in out.splitlines():
        m = re.match(r'^calls_failed\[(.*)\]: (\d+) calls$', line)
        if m:
            errors[m.group(1)] = int(m.group(2))
            continue
        m = re.match(r'^(\w+): ([\d.]+) (\S+)$', line)
        if m:
            figures[m.group(1)] = float(m.group(2))
    failed_ticks = sum(int(n) for n in re.findall(r'works again after (\d+) failures', log))
    # A failure streak still open when the daemon stopped: its last "(N in a row)" warning is a lower bound.
    open_streak = re.findall(r'Reading the accelerometer failed \((\d+) in a row\)', log)
    if open_streak and log.rfind('failed (') > log.rfind('works again'):
        failed_ticks += int(open_streak[-1])
    window = figures['counting_window']
    expected = window * rate
    missed = figures['reference_missed_ticks']
    return {
        'label': label, 'rate': rate, 'figures': figures, 'errors': errors, 'alive': alive,
        'answers': answers, 'released': released, 'exit_status': rc, 'rss_start': rss_start, 'rss_end': rss_end,
        'rss_mid': rss_mid, 'rss_max': rss_max,
        'failed_ticks': failed_ticks, 'expected': expected, 'missed': missed,
        'busy_ticks': max(0.0, missed - failed_ticks),
        'crashes': len(re.findall(r'(?i)assert|segfault|sanitizer', log)),
    }


def report(p):
    f = p['figures']
    pre = p['label'] + '_'
    print('%sseconds: %.1f s' % (pre, f['seconds']))
    print('%ssubscribed_clients: %d clients' % (pre, f['connections']))
    print('%sproperty_reads: %.0f reads/s' % (pre, f['property_reads_per_second']))
    print('%scalls_made: %d calls' % (pre, f['calls_sent']))
    print('%sreads_skipped_busy: %d calls' % (pre, f['reads_skipped']))
    print('%scalls_answered: %d calls' % (pre, f['calls_answered']))
    print('%scalls_ok: %d calls' % (pre, f['calls_ok']))
    print('%scalls_unanswered: %d calls' % (pre, f['calls_unanswered']))
    for name, n in sorted(p['errors'].items()):
        print('%scalls_failed_%s: %d calls' % (pre, name.replace('.', '_'), n))
    print('%sticks_expected: %.0f ticks' % (pre, p['expected']))
    print('%sreadouts_seen: %d readouts' % (pre, f['reference_samples']))
    print('%sticks_missed: %d ticks' % (pre, p['missed']))
    print('%sticks_failed_logged: %d ticks' % (pre, p['failed_ticks']))
    print('%sticks_without_new_readout: %d ticks' % (pre, p['busy_ticks']))
    print('%smax_readout_gap: %.1f ms' % (pre, f['reference_max_gap']))
    print('%ssubscribers_differing: %d clients' % (pre, f['subscribers_differing_from_reference']))
    print('%ssamples_per_subscriber_min: %d readouts' % (pre, f['samples_per_subscriber_min']))
    print('%ssamples_per_subscriber_max: %d readouts' % (pre, f['samples_per_subscriber_max']))
    print('%sreadouts_out_of_order: %d readouts' % (pre, f['samples_out_of_order']))
    print('%srss_start: %d KiB' % (pre, p['rss_start']))
    print('%srss_mid: %d KiB' % (pre, p['rss_mid']))
    print('%srss_end: %d KiB' % (pre, p['rss_end']))
    print('%srss_max: %d KiB' % (pre, p['rss_max']))
    print('%sdaemon_stayed_up: %d bool' % (pre, 1 if p['alive'] and p['answers'] else 0))
    print('%sdaemon_exit_status_on_sigterm: %s code' % (pre, p['exit_status']))


def check(p, fault_phase=False):
    """The behaviour the run requires: true on a loaded machine as on an idle one."""
    f = p['figures']
    problems = []
    if not (p['alive'] and p['answers']):
        problems.append('the daemon did not stay up')
    if p['exit_status'] != 0:
        problems.append('the daemon exited with %s on SIGTERM' % p['exit_status'])
    if f['calls_unanswered'] != 0:
        problems.append('%d calls got no answer' % f['calls_unanswered'])
    if f['calls_still_pending'] != 0 or f['calls_answered'] != f['calls_sent']:
        problems.append('answered %d of %d calls' % (f['calls_answered'], f['calls_sent']))
    if f['subscribers_differing_from_reference'] != 0:
        problems.append('%d subscribers saw other Samples than the reference' %
                        f['subscribers_differing_from_reference'])
    if f['samples_out_of_order'] != 0:
        problems.append('%d Samples older than the one before' % f['samples_out_of_order'])
    if p['answers'] and not p['released']:
        problems.append('Polling still true %d s after the clients went: a claim outlived its connection' %
                        RELEASE_WAIT_S)
    if p['failed_ticks'] > p['missed']:
        problems.append('%d reads logged as failed but only %d ticks without a Sample' %
                        (p['failed_ticks'], p['missed']))
    if not fault_phase:
        if p['errors']:
            problems.append('calls failed without any fault: %s' % p['errors'])
    else:
        if p['failed_ticks'] == 0:
            problems.append('no read failed: the faults were not injected or not seen')
        unexpected = {k: v for k, v in p['errors'].items()
                      if k not in ('org.thinkpad.Accelerometer.Error.Busy',
                                   'org.thinkpad.Accelerometer.Error.HardwareError')}
        if unexpected:
            problems.append('calls failed with errors the faults do not explain: %s' % unexpected)
    return ['%s: %s' % (p['label'], m) for m in problems]


def fault_eaten_bound(p):
    return p['expected'] * (1 - (1 - FAULT_PROBABILITY) ** (TRANSACTIONS_PER_TICK_MAX * len(soaklib.FAULT_KINDS)))


def check_performance(p, fault_phase=False):
    """The benchmark's thresholds: figures that load moves."""
    f = p['figures']
    problems = []
    # Missed ticks are counted from the gaps between Samples in whole periods; late ticks (a schedule
    # started over) leave fractions of a period that the count rounds away, more of them the busier the
    # machine (2% short under stress-ng --cpu 2).
    if f['reference_samples'] + p['missed'] < p['expected'] * 0.98:
        problems.append('%d readouts + %d missed ticks do not add up to the %d expected' %
                        (f['reference_samples'], p['missed'], p['expected']))
    if p['rss_end'] - p['rss_mid'] > RSS_SECOND_HALF_GROWTH_MAX_KIB:
        problems.append('RSS grew from %d KiB at half time to %d KiB at the end' % (p['rss_mid'], p['rss_end']))
    if not fault_phase:
        if p['missed'] > p['expected'] * CONTROL_MISSED_MAX_FRACTION:
            problems.append('%d ticks without a new readout and no fault' % p['missed'])
    else:
        bound = fault_eaten_bound(p)
        if p['fault_eaten'] > bound + 3 * bound ** 0.5:  # three standard deviations of a Poisson count
            problems.append('%d ticks missed beyond the control rate, more than the faults can eat (%.0f)' %
                            (p['fault_eaten'], bound))
    return ['%s: %s' % (p['label'], m) for m in problems]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tpacceld')
    ap.add_argument('client')
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--control-seconds', type=float, default=10)
    ap.add_argument('--clients', type=int, default=100)
    ap.add_argument('--reads', type=int, default=1000)
    ap.add_argument('--benchmark', action='store_true', help='check the performance thresholds too')
    args = ap.parse_args()

    bus = soaklib.Bus()
    try:
        control = run_phase(args, bus, (), 'control', args.control_seconds)
        faults = run_phase(args, bus, soaklib.FAULT_KINDS, 'faults', args.seconds)
        control['fault_eaten'] = 0
        control_rate = control['missed'] / control['expected']
        faults['fault_eaten'] = max(0.0, faults['missed'] - control_rate * faults['expected'])
    finally:
        bus.stop()
    print('fault_probability_per_kind: %g fraction' % FAULT_PROBABILITY)
    print('fault_kinds: %d kinds' % len(soaklib.FAULT_KINDS))
    report(control)
    report(faults)
    print('control_nothing_new_rate: %.4f fraction' % control_rate)
    print('faults_ticks_fault_eaten: %.0f ticks' % faults['fault_eaten'])
    print('faults_ticks_fault_eaten_bound: %.0f ticks' % fault_eaten_bound(faults))
    for p in (control, faults):
        print('%s_rss_second_half_growth: %d KiB' % (p['label'], p['rss_end'] - p['rss_mid']))
    problems = check(control) + check(faults, fault_phase=True)
    slow = check_performance(control) + check_performance(faults, fault_phase=True)
    for m in problems:
        print('FAIL: ' + m)
    for m in slow:
        print('%s: %s' % ('FAIL' if args.benchmark else 'figure beyond the benchmark\'s threshold', m))
    if args.benchmark:
        problems += slow
    print('soak: %s' % ('FAILED' if problems else 'passed'))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
