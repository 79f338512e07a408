#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld never waits for the bus: with a bus driver slow to say who a caller is (tests/lib/slowbus.py,
a proxy that holds org.freedesktop.DBus's answers to tpacceld until the test releases them), readouts keep
coming while claims wait for their sender's uid, and the ordering rules of service/bus/bus-creds.h hold.

Each test method is its own meson test (FILE/METHOD; tests/lib/list-tests.py lists them); run one by hand with
  TOP_BUILDDIR=build TOP_SRCDIR=. PYTHONPATH=tests/lib /usr/bin/python3 tests/bus/test_slow_bus.py SlowBusTest.test_readouts_continue_while_claims_wait_for_the_bus"""

import os
import select
import struct
import sys
import time
import unittest

from daemontest import (BUSY, CONFIGURE, EC_IFACE, EC_PATH, IFACE, LIMITS_EXCEEDED, NAME, NO_SERVER, NOT_CLAIMED, PATH,
                        TIMEOUT, TpaccelTestBase, error_message, error_name, row)
from gi.repository import GLib
from slowbus import SlowBus

RECORD = struct.Struct('=QiiII')  # the stream's record (bus-stream.h)
CREDS_WAITING_PER_SENDER = 32  # bus-creds.h
EC_QUEUE_PER_CLIENT_MAX = 8  # bus-ec.c
READOUTS_DURING_STALL = 10  # readouts that must come while a call waits for the bus (0 when the loop waits)


class SlowBusTest(TpaccelTestBase):
    def setUp(self):
        super().setUp()
        self.slow = SlowBus(self.bus_address, self.state_dir)
        self.addCleanup(self.slow.close)

    def start(self, *args):
        # Without the sensor proxy, whose start-up (its own connection, after the main name) is still
        # made of synchronous calls: the test holds the bus driver's answers as soon as the name is seen.
        self.start_daemon('--address=' + self.slow.address, '--sensor-proxy=no', *args)

    def call_on(self, con, method):
        """method() on con's connection without waiting: a list that gets None or the GLib.Error."""
        return self.call_async(method, iface=con.proxy(NAME, PATH, IFACE))

    def wait_readouts(self, fd, n):
        """Waits (dispatching the test's bus) until n more records came on the stream fd; returns how many
        came, fewer only after TIMEOUT seconds without them."""
        got, deadline = 0, time.monotonic() + TIMEOUT
        ctx = GLib.main_context_default()
        while got < n and time.monotonic() < deadline:
            ctx.iteration(False)
            ready, _, _ = select.select([fd], [], [], 0.01)
            if ready:
                if not os.read(fd, 4096):
                    break
                got += 1
        return got

    def hold_and_wait(self, n=1):
        self.assertTrue(self.slow.wait_held(n), 'the bus driver answered %d question(s) of tpacceld' % n)

    def test_readouts_continue_while_claims_wait_for_the_bus(self):
        """Claim and SubscribeSamples of new connections churn while the bus driver does not answer who
        they are: the stream's readouts keep coming meanwhile, and each call is answered once the bus
        answers."""
        self.start()
        fd, size = self.accel.AcquireStream()
        self.assertEqual(size, RECORD.size)
        self.addCleanup(os.close, fd)
        self.assertEqual(self.wait_readouts(fd, 3), 3, 'readouts before the stall')
        self.slow.hold(True)
        for round_, method in enumerate(['Claim', 'SubscribeSamples', 'Claim', 'SubscribeSamples']):
            con = self.new_connection()
            result = self.call_on(con, method)
            self.hold_and_wait(1)
            self.assertEqual(self.wait_readouts(fd, READOUTS_DURING_STALL), READOUTS_DURING_STALL,
                             'readouts stopped while %s (round %d) waited for the bus' % (method, round_))
            self.assertEqual(result, [], '%s was answered before the bus said who called' % method)
            self.slow.release()
            self.assertIsNone(self.wait_result(result))
            con.close()  # its claim or subscription goes with it
        self.slow.hold(False)
        self.assertIsNone(self.daemon.poll(), 'tpacceld is running')

    def test_release_overtaking_its_claims_lookup_waits_behind_it(self):
        """Claim, then Release before the bus said who calls: the Release waits behind the Claim; both
        succeed, in order, and no claim remains."""
        self.start()
        self.assertFalse(self.get('Polling'))
        con = self.new_connection()
        self.slow.hold(True)
        claim = self.call_on(con, 'Claim')
        release = self.call_on(con, 'Release')
        self.hold_and_wait(1)
        con.call(NAME, PATH, 'org.freedesktop.DBus.Peer', 'Ping')  # both calls reached tpacceld
        self.assertEqual((claim, release), ([], []), 'answered before the bus said who called')
        self.slow.release()
        self.assertIsNone(self.wait_result(claim))
        self.assertIsNone(self.wait_result(release))
        self.assertFalse(self.get('Polling'), 'the claim outlived its Release')
        self.assertDBusError(NOT_CLAIMED, con.proxy(NAME, PATH, IFACE).Release)

    def test_polkit_check_waits_for_the_uid_then_for_polkit(self):
        """A polkit-checked call first waits for its sender's uid, then for polkit: answered and applied
        once both said yes."""
        self.start_polkit([CONFIGURE])
        self.start()
        con = self.new_connection()
        self.slow.hold(True)
        call = self.call_async('SetFilterOrder', 3, iface=con.proxy(NAME, PATH, IFACE))
        self.hold_and_wait(1)
        self.assertEqual(call, [], 'answered before the bus said who called')
        self.slow.release()
        self.assertIsNone(self.wait_result(call))
        self.assertEqual(self.get('FilterOrder'), 3)

    def test_sender_gone_while_its_lookup_waits_records_nothing(self):
        """A client that leaves while the bus is asked who it is: its Claim is dropped unanswered,
        nothing is recorded whatever the bus answers after."""
        self.start()
        con = self.new_connection()
        name = con.get_unique_name()
        self.slow.hold(True)
        self.call_on(con, 'Claim')
        self.hold_and_wait(1)
        con.close()  # its NameOwnerChanged passes the held answer
        self.assertEventually(lambda: 'left the bus while 1 call(s) of it waited' in self.daemon_log(),
                              message='tpacceld saw %s leave' % name)
        self.slow.release()
        self.slow.hold(False)
        other = self.new_connection()  # answered after the held answer: tpacceld took that one first
        other.proxy(NAME, PATH, IFACE).Claim()
        other.proxy(NAME, PATH, IFACE).Release()
        self.assertFalse(self.get('Polling'), 'the claim of a client that had left was recorded')

    def test_shutdown_answers_the_calls_waiting_for_the_bus(self):
        """SIGTERM while a Claim waits for its sender's uid: the daemon exits at once and the Claim gets
        NoServer, not a timeout."""
        self.start()
        con = self.new_connection()
        self.slow.hold(True)
        claim = self.call_on(con, 'Claim')
        self.hold_and_wait(1)
        self.assertEqual(self.stop_daemon(), 0)
        e = self.wait_result(claim)
        self.assertIsNotNone(e)
        self.assertEqual(error_name(e), NO_SERVER, error_message(e))
        self.assertIn('shutting down', error_message(e))

    def test_calls_waiting_for_the_bus_are_bounded(self):
        """Past CREDS_WAITING_PER_SENDER calls of one connection waiting for its uid, the next is refused
        at once with Busy (a queue that drains: try again) and changes nothing."""
        self.start()
        con = self.new_connection()
        self.slow.hold(True)
        waiting = [self.call_on(con, 'Claim') for _ in range(CREDS_WAITING_PER_SENDER)]
        self.hold_and_wait(1)
        refused = self.call_on(con, 'Claim')
        e = self.wait_result(refused)
        self.assertEqual(error_name(e), BUSY, error_message(e))
        self.assertIn('waiting for the bus', error_message(e))
        self.assertEqual([r for r in waiting if r], [], 'a waiting call was answered before the bus')
        self.slow.release()
        results = [self.wait_result(r) for r in waiting]
        ok = [r for r in results if r is None]
        self.assertEqual(len(ok), 16, 'CLAIMS_PER_CONNECTION_MAX claims are taken, the rest refused')
        self.assertTrue(all(error_name(r) == LIMITS_EXCEEDED for r in results if r is not None))

    def test_read_rows_past_the_client_queue_are_busy(self):
        """ReadRow calls that waited for their sender's uid run again together: the first
        EC_QUEUE_PER_CLIENT_MAX join the client's EC queue and are served, the rest are answered Busy.
        Session semantics: the same uid is allowed without polkit (whose bound of checks in flight is
        lower)."""
        self.start('--session')
        con = self.new_connection()
        self.slow.hold(True)
        calls = [self.call_async('ReadRow', 1, row(0x13), 3, iface=con.proxy(NAME, EC_PATH, EC_IFACE))
                 for _ in range(20)]
        self.hold_and_wait(1)
        # Answered by sd-bus at once, after the calls sent before it on this connection were read.
        con.call(NAME, PATH, 'org.freedesktop.DBus.Peer', 'Ping')
        self.slow.release()
        results = [self.wait_result(c) for c in calls]
        self.assertEqual([r is None for r in results], [True] * EC_QUEUE_PER_CLIENT_MAX + [False] * 12)
        self.assertEqual({error_name(r) for r in results if r is not None}, {BUSY})
        self.assertIn('at most %d per client' % EC_QUEUE_PER_CLIENT_MAX, error_message(results[-1]))


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
