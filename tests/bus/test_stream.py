#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""AcquireStream(): the sample stream, end to end on a private system bus with tpacceld on the EC emulator.

Each test method is its own meson test (FILE/METHOD; tests/lib/list-tests.py lists them); run one by hand with
  TOP_BUILDDIR=build TOP_SRCDIR=. PYTHONPATH=tests/lib /usr/bin/python3 tests/bus/test_stream.py StreamTest.test_fd_and_record_size"""

import os
import re
import select
import socket
import struct
import sys
import threading
import time
import unittest

from daemontest import (CONFIGURE, IFACE, LIMITS_EXCEEDED, NAME, NOT_CLAIMED, PATH, TpaccelTestBase,
                        error_message, trace_from)

RECORD = struct.Struct('=QiiII')  # time_usec, x, y, flags, reserved (native endian)
FLAG_KEYBOARD, FLAG_MOUSE, FLAG_SHOCK_ACTIVE, FLAG_MISSED = 1, 2, 4, 8
STREAMS_PER_SENDER_MAX = 4        # bus-stream.h
STREAMS_PER_UID_MAX = 16          # bus-stream.h, but root
STREAMS_MAX = 128
SAMPLE_SIGNAL_RATE_MAX = 50


def monotonic_usec():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def read_records(fd, seconds=None, until_idle=None, until=None):
    """Reads records from fd for seconds, or until none came for until_idle seconds, or (if given) until
    until(records) is true. Each read() must be one whole record."""
    records = []
    end = time.monotonic() + seconds if seconds is not None else None
    while not (until and until(records)):
        timeout = until_idle if end is None else end - time.monotonic()
        if timeout <= 0:
            break
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            if end is None:
                break
            continue
        data = os.read(fd, 4096)
        if not data:
            break  # EOF: the daemon closed its end
        assert len(data) == RECORD.size, 'a read() returns one record, got %d bytes' % len(data)
        records.append(RECORD.unpack(data))
    return records


class StreamTest(TpaccelTestBase):
    def start(self, *args, rate=None):
        self.start_polkit([CONFIGURE])
        self.start_daemon(*args)
        if rate:
            self.accel.SetSamplingRate(rate)

    def acquire(self, accel=None):
        fd, size = (accel or self.accel).AcquireStream()
        self.assertEqual(size, RECORD.size)
        return fd

    def test_fd_and_record_size(self):
        self.start()
        self.assertFalse(self.get('Claimed'))
        fd = self.acquire()
        try:
            s = socket.socket(fileno=os.dup(fd))
            self.assertEqual(s.type, socket.SOCK_SEQPACKET)
            self.assertEqual(s.family, socket.AF_UNIX)
            s.close()
            self.assertTrue(self.get('Claimed'))
            self.assertEqual(self.get('EffectiveRate'), self.get('SamplingRate'), 'a stream claims the full rate')
            records = read_records(fd, seconds=0.5)
            self.assertGreater(len(records), 5)
            self.assertTrue(all(r[4] == 0 for r in records), 'reserved is 0')
            with self.assertRaises(BrokenPipeError, msg='the stream is read-only'):
                os.write(fd, b'x' * RECORD.size)
        finally:
            os.close(fd)

    def test_records_at_the_rate_with_monotonic_time(self):
        self.start(rate=100)
        fd = self.acquire()
        read_records(fd, seconds=0.3)  # the rate settles
        records = read_records(fd, seconds=2.0)
        now = monotonic_usec()
        os.close(fd)
        times = [r[0] for r in records]
        self.assertEqual(times, sorted(set(times)), 'time_usec strictly increases')
        measured = (len(times) - 1) / ((times[-1] - times[0]) / 1e6)
        self.assertAlmostEqual(measured, 100, delta=15, msg='100 Hz wanted, %.1f Hz measured' % measured)
        self.assertLess(now - times[-1], 1_000_000, 'time_usec is CLOCK_MONOTONIC')
        self.assertGreaterEqual(now, times[-1])

    def test_activity_flags(self):
        # A trace with keyboard only, mouse only, then neither, 1 s each, looped; then a drop.
        path = os.path.join(self.state_dir, 'activity.csv')
        with open(path, 'w') as f:
            f.write('time_ms,x,y,keyboard,mouse\n')
            for ms in range(0, 3000, 10):
                f.write('%d,-498,-439,%d,%d\n' % (ms, ms < 1000, 1000 <= ms < 2000))
        self.start('--trace=' + path, '--trace-loop')

        def runs_of(records):
            runs = []  # [activity flags, first time, last time]
            for t, _, _, flags, _ in records:
                activity = flags & (FLAG_KEYBOARD | FLAG_MOUSE)
                if runs and runs[-1][0] == activity:
                    runs[-1][2] = t
                else:
                    runs.append([activity, t, t])
            return runs

        def long_runs(records):
            return {a for a, first, last in runs_of(records) if last - first >= 500_000}

        fd = self.acquire()
        # Until a run of each came (within a loop and a half of the trace).
        records = read_records(fd, seconds=10.0, until=lambda r: len(long_runs(r)) == 3)
        os.close(fd)
        for want in (FLAG_KEYBOARD, FLAG_MOUSE, 0):
            self.assertIn(want, long_runs(records),
                          'a run of flags %d as long as the trace says: %s' % (want, runs_of(records)))
        both = [r for r in records if r[3] & FLAG_KEYBOARD and r[3] & FLAG_MOUSE]
        self.assertLessEqual(len(both), 4, 'both flags only where a readout spans the change')
        self.assertFalse(any(r[3] & FLAG_SHOCK_ACTIVE for r in records), 'no shock at rest')

    def test_missed_flag_marks_holes(self):
        # The EC has no readout at a third of the ticks. Every record more than
        # 1.5 periods after the one before says a readout was missed, and no other (this client reads in
        # time, and the rule is the daemon's own, on the records' own times).
        self.start('--sim-fault=no-readout:0.3', rate=100)
        fd = self.acquire()
        records = read_records(fd, seconds=2.0)
        os.close(fd)
        self.assertGreater(len(records), 50)
        self.assertFalse(records[0][3] & FLAG_MISSED, 'not on the first record')
        holes = 0
        for a, b in zip(records, records[1:]):
            hole = (b[0] - a[0]) * 100 * 2 > 1_000_000 * 3
            holes += hole
            self.assertEqual(bool(b[3] & FLAG_MISSED), hole, 'record %s after %s' % (b, a))
        self.assertGreater(holes, 10, 'busy ticks leave holes')
        self.assertEventually(lambda: re.search(r'Stream 1 of :\S+ released \(the client closed it\): '
                                                r'\d+ records sent, 0 dropped', self.daemon_log()))

    def test_shock_flag(self):
        # Shock active: from the drop until ShockHoldMs after it, in one run. drop-30cm.csv from 2 s on:
        # the drop at 3 s, the flag's end by 5 s; read until 0.5 s after the flag's end (that the rest of the
        # trace raises nothing is the daemon core's: tests/daemon/test-readout.c replays the whole trace).
        self.start('--trace=' + trace_from('drop-30cm.csv', 2000, os.path.join(self.state_dir, 'drop-at-3s.csv')))

        def half_a_second_after_the_flag(records):
            active = [r[0] for r in records if r[3] & FLAG_SHOCK_ACTIVE]
            return bool(active) and records[-1][0] - active[-1] >= 500_000

        fd = self.acquire()
        records = read_records(fd, seconds=10.0, until=half_a_second_after_the_flag)
        os.close(fd)
        active = [r[0] for r in records if r[3] & FLAG_SHOCK_ACTIVE]
        self.assertTrue(active, 'the drop sets the shock flag')
        hold_us = self.get('ShockHoldMs') * 1000
        span = active[-1] - active[0]
        self.assertGreater(span, hold_us * 0.8)
        self.assertLess(span, hold_us * 2)
        inside = [r for r in records if active[0] <= r[0] <= active[-1]]
        self.assertEqual(len(inside), len(active), 'the shock flag is set in one unbroken run')
        self.assertEqual(self.get('ShockCount'), 1)

    def test_holding_the_fd_keeps_polling_and_closing_releases(self):
        self.start()
        fd = self.acquire()
        self.assertTrue(self.get('Claimed'))
        # Release() is for Claim(): it does not drop the stream's claim.
        self.assertDBusError(NOT_CLAIMED, self.accel.Release)
        self.accel.Claim()
        self.accel.Release()
        time.sleep(0.5)
        self.assertTrue(self.get('Claimed'), 'holding the fd keeps polling')
        self.assertGreater(len(read_records(fd, seconds=0.5)), 10, 'records keep coming')
        os.close(fd)
        self.assertEventually(lambda: not self.get('Claimed'), message='closing the fd releases')
        self.assertEqual(self.get('EffectiveRate'), 0)
        self.assertIn('nothing claims', self.get('EffectiveRateReason'))
        self.assertRegex(self.daemon_log(), r'Stream 1 of :\S+ released \(the client closed it\)')
        time.sleep(0.3)
        self.assertEqual(self.collect_samples(0.5), [], 'polling stopped')

        # Leaving the bus releases the stream even while the fd is still held; the fd then reads EOF.
        con = self.new_connection()
        fd = self.acquire(con.proxy(NAME, PATH, IFACE))
        self.assertEventually(lambda: self.get('Claimed'))
        con.close()
        self.assertEventually(lambda: not self.get('Claimed'), message='leaving the bus releases')
        read_records(fd, until_idle=2.0)  # what was sent, then EOF
        r, _, _ = select.select([fd], [], [], 1.0)
        self.assertTrue(r and os.read(fd, 64) == b'', 'the daemon closed its end')
        os.close(fd)
        self.assertRegex(self.daemon_log(), r'Stream 2 of :\S+ released \(the client left the bus\)')

    def test_client_that_does_not_read_loses_records_counted(self):
        self.start(rate=1000)
        lazy = self.acquire()
        reader = self.acquire()
        try:
            got = []
            deadline = time.monotonic() + 3.0
            slowest = 0
            while time.monotonic() < deadline:
                got += read_records(reader, seconds=0.2)
                t = time.monotonic()
                self.assertEqual(self.get('SamplingRate'), 1000)
                slowest = max(slowest, time.monotonic() - t)
            self.assertLess(slowest, 1.0, 'the daemon answers calls while a client does not read')
            times = [r[0] for r in got]
            self.assertGreater(len(times) / ((times[-1] - times[0]) / 1e6), 500,
                               'the reading client gets records at the rate meanwhile')
            # What the socket buffered, then the first record after the loss, then records flowing again.
            records = read_records(lazy, seconds=0.5)
            self.assertGreater(len(records), 100)
            gap_us, k = max((b[0] - a[0], i + 1) for i, (a, b) in enumerate(zip(records, records[1:])))
            gap_s = gap_us / 1e6
            buffered, after = records[:k], records[k:]
            self.assertGreater(gap_s, 1.0, 'the lost records are a gap')
            self.assertGreater(len(buffered), 10, 'the socket buffered some records')
            self.assertTrue(after[0][3] & FLAG_MISSED, 'the first record after the loss says a readout was missed')
            self.assertGreater(len(after), 100)
            self.assertLess(max(b[0] - a[0] for a, b in zip(after, after[1:])), 200_000, 'records flow again')
        finally:
            os.close(lazy)
            os.close(reader)
        self.assertEventually(lambda: not self.get('Claimed'))
        m = re.search(r'Stream 1 of :\S+ released \(the client closed it\): (\d+) records sent, (\d+) dropped',
                      self.daemon_log())
        self.assertTrue(m, 'the release logs the counts')
        sent, dropped = int(m.group(1)), int(m.group(2))
        self.assertGreaterEqual(sent, len(records))
        self.assertGreater(dropped, gap_s * 1000 * 0.5, 'the gap of %.1f s is counted' % gap_s)

    def test_limits(self):
        self.start()
        fds = [self.acquire() for _ in range(STREAMS_PER_SENDER_MAX)]
        e = self.assertDBusError(LIMITS_EXCEEDED, self.accel.AcquireStream)
        self.assertIn('per-connection bound of %d streams' % STREAMS_PER_SENDER_MAX, error_message(e))
        os.close(fds.pop())
        self.assertEventually(lambda: 'Stream 4 of' in self.daemon_log())
        fds.append(self.acquire())  # closing one frees its place
        cons = []
        # Past the per-user bound only root goes on (it is no user the bound counts) to the total bound.
        if os.geteuid() != 0:
            while len(fds) < STREAMS_PER_UID_MAX:
                con = self.new_connection()
                cons.append(con)
                fds.append(self.acquire(con.proxy(NAME, PATH, IFACE)))
            con = self.new_connection()
            e = self.assertDBusError(LIMITS_EXCEEDED, con.proxy(NAME, PATH, IFACE).AcquireStream)
            self.assertIn('per-user bound of %d streams' % STREAMS_PER_UID_MAX, error_message(e))
            for fd in fds:
                os.close(fd)
            for c in cons + [con]:
                c.close()
            self.assertEventually(lambda: not self.get('Claimed'))
            return
        while len(fds) < STREAMS_MAX:
            con = self.new_connection()
            cons.append(con)
            accel = con.proxy(NAME, PATH, IFACE)
            for _ in range(min(STREAMS_PER_SENDER_MAX, STREAMS_MAX - len(fds))):
                fds.append(self.acquire(accel))
        con = self.new_connection()
        accel = con.proxy(NAME, PATH, IFACE)
        e = self.assertDBusError(LIMITS_EXCEEDED, accel.AcquireStream)
        self.assertIn('total bound of %d streams' % STREAMS_MAX, error_message(e))
        self.assertTrue(self.get('Claimed'))
        for fd in fds:
            os.close(fd)
        for c in cons + [con]:
            c.close()
        self.assertEventually(lambda: not self.get('Claimed'))

    def test_sample_signal_decimated_at_1000_hz(self):
        self.start(rate=1000)
        fd = self.acquire()
        read_records(fd, seconds=0.3)
        got = []
        reader = threading.Thread(target=lambda: got.extend(read_records(fd, seconds=2.0)))
        reader.start()  # reads meanwhile, so that the stream loses nothing
        t0 = monotonic_usec()
        samples = self.collect_samples(1.5)  # 75 Samples at most, of 1500 readouts
        t1 = monotonic_usec()
        reader.join()
        os.close(fd)
        records = [r for r in got if t0 <= r[0] <= t1]
        seconds = (t1 - t0) / 1e6
        self.assertLessEqual(len(samples), SAMPLE_SIGNAL_RATE_MAX * seconds + 2,
                             '%d Sample signals in %.2f s' % (len(samples), seconds))
        self.assertGreater(len(samples), SAMPLE_SIGNAL_RATE_MAX * seconds * 0.5)
        self.assertGreater(len(records), 10 * len(samples), 'the stream has every readout')
        times = {r[0]: (r[1], r[2]) for r in records}
        for t, x, y in samples:
            if t0 <= t <= t1 - 300_000:
                self.assertEqual(times.get(t), (x, y), 'every Sample is one of the readouts')
        gaps = [b[0] - a[0] for a, b in zip(samples, samples[1:])]
        self.assertGreater(min(gaps), 5_000, 'evenly spread, not in bursts: %s' % sorted(gaps)[:5])


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
