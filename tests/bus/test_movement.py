#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""End-to-end tests of movement detection: ClaimMovement/ReleaseMovement, MovementWatched, Moving,
MoveCount and the Moved signal, with tpacceld on a private system bus and the EC emulator replaying a
labelled trace of tests/traces/movement/ (--trace; the trace's time 0 is the daemon's start).

Each test method is its own meson test (FILE/METHOD); run one by hand with
  TOP_BUILDDIR=build TOP_SRCDIR=. PYTHONPATH=tests/lib /usr/bin/python3 tests/bus/test_movement.py MovementTest.test_claim_moved_moving_release

The traces are synthetic (made by tests/traces/gen-traces.py); their '# expect:' lines give the events."""

import os
import sys
import unittest

from gi.repository import GLib

from daemontest import (IFACE, LIMITS_EXCEEDED, NAME, NOT_CLAIMED, PATH, PROPERTIES_IFACE, TRACES, TpaccelTestBase,
                        error_name, trace_from)

NO_ACCELEROMETER = 'org.thinkpad.Accelerometer.Error.NoAccelerometer'
MOVEMENT_RATE_HZ = 10          # poller.h
CLAIMS_PER_CONNECTION_MAX = 16  # claims.h
PICKED_UP = os.path.join(TRACES, 'movement', 'picked-up.csv')
SLID = os.path.join(TRACES, 'movement', 'slid-across-desk.csv')  # 1 s of movement, not picked-up's 3.5 s
# The tests that wait for a movement replay its trace from LIFT_LEAD_FROM_MS on (1.5 s of rest before
# the movement at 6 s instead of 6; the claim comes 0.1-1 s after the daemon's start), looped: should the
# claim come after the first movement's rest (a very loaded machine starts slowly), the next loop moves
# it again 9.5-11.5 s later; the loop's seam is the same rest, no movement.
LIFT_LEAD_FROM_MS = 4500


class MovementTest(TpaccelTestBase):
    def start(self, *args):
        """The daemon replaying args, and a record of Moved and of PropertiesChanged's movement
        properties, in arrival order."""
        self.start_daemon(*args)
        self.events = []
        self.matches = [
            self.bus.subscribe_signal(lambda t, s: self.events.append(('Moved', (t, s))), IFACE, 'Moved',
                                      path=PATH),
            self.bus.subscribe_signal(self._changed, PROPERTIES_IFACE, 'PropertiesChanged', path=PATH),
        ]

    def _changed(self, iface, changed, invalidated):
        for prop in ('MovementWatched', 'Moving', 'MoveCount', 'EffectiveRate'):
            if prop in changed:
                self.events.append((prop, changed[prop]))

    def tearDown(self):
        for m in getattr(self, 'matches', []):
            m.remove()
        super().tearDown()

    def looped(self, trace=PICKED_UP):
        """The daemon's arguments for trace from LIFT_LEAD_FROM_MS on, looped."""
        path = trace_from(trace, LIFT_LEAD_FROM_MS, os.path.join(self.state_dir, 'from-lead.csv'))
        return ('--trace=' + path, '--trace-loop')

    def of(self, kind):
        return [v for k, v in self.events if k == kind]

    def test_nothing_polls_without_a_movement_claim(self):
        self.start('--trace=' + PICKED_UP)
        self.assertFalse(self.get('MovementWatched'))
        self.assertFalse(self.get('Moving'))
        self.assertEqual(self.get('MoveCount'), 0)
        self.assertFalse(self.get('Polling'))
        self.assertEqual(self.get('EffectiveRate'), 0)

    def test_claim_moved_moving_release(self):
        """slid-across-desk.csv: at rest, then slid across the desk for 1 s at its label's time: a movement
        claim polls at the movement rate, Moved comes once, Moving turns true and, once the machine rests
        again, false; releasing stops the polling and MovementWatched turns false. (The same for the lift
        of picked-up.csv, held 3 s in the hands, is the daemon core's: tests/daemon/test-movement-watch.c,
        in virtual time.)"""
        self.start(*self.looped(SLID))
        self.accel.ClaimMovement()
        self.assertTrue(self.get('MovementWatched'))
        self.assertEqual(self.get('EffectiveRate'), MOVEMENT_RATE_HZ)
        self.assertEqual(self.get('EffectiveRateReasonCode'), 'movement')
        self.assertEventually(lambda: self.of('Moved'), timeout=30, message='Moved for the lift')
        self.assertEventually(lambda: False in self.of('Moving'), timeout=30,
                              message='Moving false again once the machine rests')
        moved = self.of('Moved')
        self.assertEqual(len(moved), 1, moved)
        time_usec, strength = moved[0]
        self.assertGreater(time_usec, 0)
        self.assertGreaterEqual(strength, 0.05)  # MOVEMENT_SHIFT_G
        self.assertEqual(self.of('Moving'), [True, False])
        self.assertEqual(self.get('MoveCount'), 1)
        self.assertIn(1, self.of('MoveCount'))

        self.accel.ReleaseMovement()
        self.assertFalse(self.get('MovementWatched'))
        self.assertFalse(self.get('Polling'))
        self.assertEqual(self.get('EffectiveRate'), 0)
        self.assertEventually(lambda: False in self.of('MovementWatched'))
        self.assertEqual(self.get('MoveCount'), 1)  # kept

    def test_release_while_moving_ends_moving(self):
        self.start(*self.looped())
        self.accel.ClaimMovement()
        self.assertEventually(lambda: True in self.of('Moving'), timeout=30)
        self.accel.ReleaseMovement()
        self.assertFalse(self.get('Moving'))
        self.assertEventually(lambda: self.of('Moving') == [True, False])

    def test_movement_claim_goes_with_its_connection(self):
        self.start('--trace=' + PICKED_UP)
        con = self.new_connection()
        con.call(NAME, PATH, IFACE, 'ClaimMovement')
        self.assertTrue(self.get('MovementWatched'))
        self.assertTrue(self.get('Polling'))
        con.close()
        self.assertEventually(lambda: not self.get('MovementWatched'))
        self.assertFalse(self.get('Polling'))

    def test_release_movement_without_claim(self):
        self.start('--trace=' + PICKED_UP)
        self.assertDBusError(NOT_CLAIMED, self.accel.ReleaseMovement)
        self.accel.Claim()  # a plain claim is not a movement claim, nor the other way round
        self.assertDBusError(NOT_CLAIMED, self.accel.ReleaseMovement)
        self.accel.ClaimMovement()
        self.accel.Release()
        self.assertTrue(self.get('MovementWatched'))
        self.assertDBusError(NOT_CLAIMED, self.accel.Release)
        self.accel.ReleaseMovement()
        self.assertFalse(self.get('MovementWatched'))
        self.assertFalse(self.get('Polling'))

    def test_claim_movement_without_accelerometer(self):
        self.start('--sim-fault=absent')
        self.assertFalse(self.get('HasAccelerometer'))
        self.assertDBusError(NO_ACCELEROMETER, self.accel.ClaimMovement,
                             message_re='initializing the accelerometer failed')
        self.assertFalse(self.get('MovementWatched'))
        self.assertFalse(self.get('Polling'))

    def test_movement_claims_are_bounded(self):
        self.start('--trace=' + PICKED_UP)
        con = self.new_connection()
        for _ in range(CLAIMS_PER_CONNECTION_MAX // 2):
            con.call(NAME, PATH, IFACE, 'Claim')
        for _ in range(CLAIMS_PER_CONNECTION_MAX - CLAIMS_PER_CONNECTION_MAX // 2):
            con.call(NAME, PATH, IFACE, 'ClaimMovement')
        with self.assertRaises(GLib.Error) as cm:
            con.call(NAME, PATH, IFACE, 'ClaimMovement')
        self.assertEqual(error_name(cm.exception), LIMITS_EXCEEDED)
        self.assertIn('per-connection', str(cm.exception))

    def test_faster_claim_keeps_its_rate(self):
        """A movement claim beside a faster claim polls at the faster rate, and detection runs on it."""
        self.start(*self.looped())
        self.accel.ClaimAtRate(50)
        self.accel.ClaimMovement()
        self.assertEqual(self.get('EffectiveRate'), 50)
        self.assertEventually(lambda: self.of('Moved'), timeout=30, message='Moved at 50 Hz')
        self.accel.Release()
        self.assertEqual(self.get('EffectiveRate'), MOVEMENT_RATE_HZ)


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
