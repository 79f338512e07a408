#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""End-to-end tests of Tilt, Shock and disk protection: tpacceld on a private system bus, on the EC
emulator replaying the labelled traces of tests/traces/ (--trace; the trace's time 0 is the daemon's
start), disk protection against a fake sysfs tree (fake_sysfs.py, --sysfs-root).

Each test method is its own meson test (FILE/METHOD; tests/lib/list-tests.py lists them); run one by hand with
  TOP_BUILDDIR=build TOP_SRCDIR=. PYTHONPATH=tests/lib /usr/bin/python3 tests/bus/test_motion.py MotionTest.test_drop_raises_one_shock_and_parks

The traces are synthetic (made by tests/traces/gen-traces.py); their '# expect:' lines give the events."""

import math
import os
import sys
import time
import unittest

from gi.repository import GLib

from daemontest import (ACCESS_DENIED, CONFIGURE, IFACE, INVALID_ARGS, NAME, PATH, PROPERTIES_IFACE, TRACES,
                        TpaccelTestBase, error_message, error_name, trace_from, trace_rest)
from fake_sysfs import FakeSysfs

SHOCK_HOLD_MS_DEFAULT = 1000     # MOTION_SHOCK_HOLD_MS_DEFAULT
SHOCK_MIN_RATE_HZ = 50           # MOTION_SHOCK_MIN_RATE_HZ
DISK_PARK_TIMEOUT_MS = '2000'    # DISK_PARK_TIMEOUT_MS: what a park writes to unload_heads
POLKIT_PENDING_PER_SENDER = 4    # bus-polkit.h: checks in flight per connection
DROP_AT_S = 5.0                  # drop-*.csv: '# expect: shock at_ms=5000'
DROP_LEAD_FROM_MS = 2000         # drop-30cm.csv is in the hands from 1.5 s on: replayed from here, it drops at 3 s
ROTATION_LEAD_FROM_MS = 1000     # rotate-*.csv turn at 2 s: replayed from here, at 1 s
STARTUP_SLACK_S = 1.0            # daemon start -> polling, on a loaded 2-core CI machine
LATE_SLACK_S = 0.5               # a trace event -> the readout (or signal) reporting it, on a loaded machine
SHOCK_REASONS = ('jolt', 'drift', 'freefall')
ORIENTATIONS = ('normal', 'bottom-up', 'left-up', 'right-up', 'undefined')
COUNTS_PER_G = 157.0             # the traces' scale
TILT_EVENT_NOISE_BAND_COUNTS = 4.5  # motion-params.h; docs/MOTION.md "Tilt event"


def trace(name):
    return '--trace=' + os.path.join(TRACES, name)


def tilts_for_turn(step, readouts=40):
    """The Tilt events docs/MOTION.md promises for a 90 degree turn at an even pace over `readouts`
    readouts: one whenever the angle moved by TiltStep and by more than the noise band can move it."""
    def band(sent):
        s = abs(math.sin(math.radians(sent))) + TILT_EVENT_NOISE_BAND_COUNTS / COUNTS_PER_G
        return math.degrees(math.asin(min(1.0, s))) - abs(sent)
    sent, n = 0.0, 0
    for i in range(1, readouts + 1):
        angle = 90.0 * i / readouts
        if abs(angle - sent) >= max(step, band(sent)):
            n, sent = n + 1, angle
    return n


def monotonic_usec():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


class Recorder:
    """Records the accelerometer's signals and PropertiesChanged, in arrival order, each with the test's
    CLOCK_MONOTONIC arrival time in seconds. One connection delivers in the daemon's send order."""

    def __init__(self, con):
        self.events = []  # (arrival_s, kind, payload)
        self.matches = []
        for name in ('Sample', 'Tilt', 'Shock', 'HeadsParked'):
            self.matches.append(con.subscribe_signal(lambda *args, _n=name: self._add(_n, tuple(args)), IFACE,
                                                     name, path=PATH))
        self.matches.append(con.subscribe_signal(
            lambda iface, changed, invalidated: self._add('changed', dict(changed)), PROPERTIES_IFACE,
            'PropertiesChanged', path=PATH))
        con.call(NAME, PATH, IFACE, 'SubscribeSamples')  # Sample is sent only then

    def _add(self, kind, payload):
        self.events.append((time.monotonic(), kind, payload))

    def stop(self):
        for m in self.matches:
            m.remove()
        self.matches = []

    def of(self, kind):
        return [p for _, k, p in self.events if k == kind]

    def timed(self, kind):
        return [(t, p) for t, k, p in self.events if k == kind]

    def changes(self, prop):
        """[(arrival_s, value)] of every PropertiesChanged that carried prop."""
        return [(t, p[prop]) for t, k, p in self.events if k == 'changed' and prop in p]


class MotionTest(TpaccelTestBase):
    def setUp(self):
        super().setUp()
        self.sysfs = FakeSysfs(os.path.join(self.state_dir, 'sys')).standard_disks()

    def start(self, *args, claim=True, allowed=(CONFIGURE,)):
        """polkit allowing `allowed`, the daemon with a fake sysfs, a recorder; returns the monotonic time
        (s) just before the daemon was started, a lower bound of the trace's time 0. self.t0_max is when its
        bus name was up, an upper bound (the emulator starts before the name is requested): on a loaded
        machine the two can be over a second apart, so deadlines for the trace's events count from
        t0_max and the events' earliest times from t0."""
        self.start_polkit(list(allowed))
        t0 = time.monotonic()
        self.start_daemon('--sysfs-root=' + self.sysfs.root, *args)
        self.t0_max = time.monotonic()
        self.rec = Recorder(self.bus)
        if claim:
            self.accel.Claim()
        return t0

    def pump_until(self, deadline):
        """Dispatches signals until the monotonic time deadline (s)."""
        ctx = GLib.main_context_default()
        while time.monotonic() < deadline:
            ctx.iteration(False) or time.sleep(0.002)

    def stop_recording(self):
        """Dispatches what is in flight (a blocking call queues signals without dispatching them), then
        stops the recorder."""
        self.pump_until(time.monotonic() + 0.2)
        self.rec.stop()

    def assertSamplesFlowed(self, seconds):
        n = len(self.rec.of('Sample'))
        self.assertGreater(n, 50 * seconds * 0.7, 'polling ran the whole time (%d samples in %.1f s)' % (n, seconds))

    # Shock (typing, vibration, a car ride, desk knocks at two sensitivities, the flat drop at two
    # sensitivities, the drop at every tick phase, no shock below ShockMinRate are the daemon core's:
    # tests/daemon/test-readout.c, in virtual time)

    def test_drop_raises_one_shock_and_parks(self):
        # One drop for both contracts. The Shock: its signal, ShockActive, ShockCount and LastShock. The
        # park: the HeadsParked signal, Parked, ParkCount and ProtectionState, the disk's unload_heads.
        # Parking on the shock's readout, the re-arms and their rate, the hold before the unpark are the
        # daemon core's (tests/daemon/test-protection.c, in virtual time); protection polls without a claim.
        # The rest position is the level desk's, saved by an earlier run: the replay starts in the hands,
        # DROP_LEAD_FROM_MS into drop-30cm.csv, and the free fall is told from that rest position.
        rest = trace_rest('drop-30cm.csv')
        with open(os.path.join(self.state_dir, 'state'), 'w') as f:
            f.write('rest_position=%d,%d\n' % rest)
        drop_s = DROP_AT_S - DROP_LEAD_FROM_MS / 1000
        t0 = self.start('--trace=' + trace_from('drop-30cm.csv', DROP_LEAD_FROM_MS,
                                                os.path.join(self.state_dir, 'drop.csv')), claim=False)
        self.assertEqual(tuple(self.get('RestPosition')), rest)
        self.protect(['sda'])
        self.assertEqual(self.get('ShockHoldMs'), SHOCK_HOLD_MS_DEFAULT)
        self.assertEqual(self.get('ShockMinRate'), SHOCK_MIN_RATE_HZ)
        self.assertEqual(self.get('ShockCount'), 0)
        self.assertEqual(tuple(self.get('LastShock')), (0, 0.0))
        self.assertEqual(self.get('ParkCount'), 0)
        self.assertFalse(self.get('Parked'))
        self.assertEventually(lambda: len(self.rec.of('HeadsParked')) > 0,
                              timeout=drop_s + STARTUP_SLACK_S + 5, message='the drop parks the heads')
        self.assertEqual(self.sysfs.unload_heads('sda'), DISK_PARK_TIMEOUT_MS,
                         'a park writes the bounded timeout (ms)')
        self.assertTrue(self.get('Parked'))
        self.assertEqual(self.get('ProtectionState'), 'parked')
        self.assertEventually(lambda: any(not v for _, v in self.rec.changes('ShockActive')), timeout=10,
                              message='ShockActive clears after the hold')
        self.assertEventually(lambda: (['sda'], False) in [(list(d), bool(p)) for d, p in self.rec.of('HeadsParked')],
                              timeout=10, message='unparked after the hold')
        self.assertEqual(self.sysfs.unload_heads('sda'), '0', 'unpark writes 0')
        # The landing is over by then; the rest of the trace holds still (that it raises nothing is the
        # daemon core's: tests/daemon/test-readout.c replays the whole trace).
        self.stop_recording()
        flowed_s = time.monotonic() - self.t0_max

        shocks = self.rec.timed('Shock')
        self.assertEqual(len(shocks), 1, 'exactly one Shock for one drop: %s' % shocks)
        arrival, (magnitude, time_usec, reason) = shocks[0]
        self.assertIn(reason, SHOCK_REASONS)
        self.assertEqual(reason, 'freefall', 'a drop from a tilted hand-held position is seen as free fall')
        self.assertGreater(magnitude, 0.05, 'magnitude in g')
        self.assertLess(magnitude, 2.0)
        self.assertGreaterEqual(time_usec / 1e6 - t0, drop_s, 'not before the drop')
        self.assertLess(time_usec / 1e6 - self.t0_max, drop_s + LATE_SLACK_S, 'soon after the drop')
        self.assertLess(arrival - time_usec / 1e6, 0.5, 'time_usec is the CLOCK_MONOTONIC readout time')

        active = self.rec.changes('ShockActive')
        self.assertEqual([v for _, v in active], [True, False], 'ShockActive goes true, then false once')
        self.assertGreaterEqual(active[1][0] - active[0][0], SHOCK_HOLD_MS_DEFAULT / 1000 * 0.9,
                                'ShockActive holds for at least ShockHoldMs')
        self.assertEqual([v for _, v in self.rec.changes('ShockCount')], [1])
        self.assertEqual([tuple(v) for _, v in self.rec.changes('LastShock')], [(time_usec, magnitude)])
        # The Shock signal comes before the property changes it causes.
        kinds = [k for _, k, p in self.rec.events if k == 'Shock' or (k == 'changed' and 'ShockCount' in p)]
        self.assertEqual(kinds, ['Shock', 'changed'])
        self.assertEqual(self.get('ShockCount'), 1)
        self.assertEqual(tuple(self.get('LastShock')), (time_usec, magnitude))
        self.assertFalse(self.get('ShockActive'))
        self.assertSamplesFlowed(flowed_s - STARTUP_SLACK_S)

        parked = self.rec.of('HeadsParked')
        for disks, _flag in parked:
            self.assertEqual(list(disks), ['sda'])
        self.assertEqual([bool(p) for _, p in parked][0], True)
        self.assertEqual(self.get('ParkCount'), 1)
        self.assertFalse(self.get('Parked'))
        self.assertEqual(self.get('ProtectionState'), 'armed')
        self.assertEqual([v for _, v in self.rec.changes('Parked')], [True, False])
        self.assertEqual([v for _, v in self.rec.changes('ParkCount')], [1])
        self.assertEqual([v for _, v in self.rec.changes('ProtectionState')], ['armed', 'parked', 'armed'])
        for name in ('nvme0n1', 'sdc'):
            self.assertEqual(self.sysfs.unload_heads(name), '0', 'unprotected disks are left alone')

    def test_keyboard_activity_is_announced(self):
        # typing.csv types from 1 s on: KeyboardActivity's changes come as PropertiesChanged. (That the
        # typing raises no shock is the daemon core's: tests/daemon/test-readout.c.)
        self.start(trace('typing.csv'))
        self.assertEventually(lambda: True in [v for _, v in self.rec.changes('KeyboardActivity')],
                              timeout=1.0 + STARTUP_SLACK_S + 5, message='the trace does type')
        self.stop_recording()
        self.assertEqual(self.rec.of('Shock'), [])

    # Tilt and orientation (the other rotations, TiltStep 10 and a machine at rest are the daemon
    # core's: tests/daemon/test-readout.c, in virtual time)

    def check_tilt_signals(self, step):
        """Every Tilt: at most one per readout, and each >= step from the previous one or with an
        orientation change. Returns the Tilt orientations."""
        tilts_since_sample = 0
        previous = None
        for _, kind, payload in self.rec.events:
            if kind == 'Sample':
                tilts_since_sample = 0
            if kind != 'Tilt':
                continue
            tilts_since_sample += 1
            self.assertLessEqual(tilts_since_sample, 1, 'at most one Tilt per readout')
            pitch, roll, orientation = float(payload[0]), float(payload[1]), str(payload[2])
            self.assertIn(orientation, ORIENTATIONS)
            self.assertTrue(-90 <= pitch <= 90 and -90 <= roll <= 90, (pitch, roll))
            if previous:
                moved = max(abs(pitch - previous[0]), abs(roll - previous[1]))
                self.assertTrue(moved >= step - 1e-9 or orientation != previous[2],
                                'Tilt %s after %s: moved %.3f deg < TiltStep %g, same orientation' %
                                ((pitch, roll, orientation), previous, moved, step))
            previous = (pitch, roll, orientation)
        return [str(p[2]) for p in self.rec.of('Tilt')]

    @staticmethod
    def collapse(seq):
        out = []
        for s in seq:
            if not out or out[-1] != s:
                out.append(s)
        return out

    def rotation(self, turned_to, axis, step=None):
        # rotate-*.csv from ROTATION_LEAD_FROM_MS on: the turn at 1 s, not 2 (the claim comes by then:
        # STARTUP_SLACK_S)
        lead_s = ROTATION_LEAD_FROM_MS / 1000
        t0 = self.start('--trace=' + trace_from('rotate-%s.csv' % turned_to, ROTATION_LEAD_FROM_MS,
                                                os.path.join(self.state_dir, 'rotate.csv')), claim=step is None)
        if step is not None:
            self.accel.SetTiltStep(step)
            self.accel.Claim()
        step = step or 1.0
        self.assertEqual(self.get('TiltStep'), step)
        # 'undefined' until the first readout after polling starts, then at once from its angles.
        self.assertEventually(lambda: len(self.rec.of('Sample')) > 0)
        self.assertEqual(self.get('Orientation'), 'normal')
        self.pump_until(self.t0_max + 4.0 - lead_s)  # held turned from 2.8 s to 5.8 s of the trace
        turned = self.get('Orientation')
        angle = self.get(axis)
        # Turned back from 5.8 s to 6.6 s, then held level (that it stays so is test-readout.c's).
        self.assertEventually(lambda: len(self.rec.changes('Orientation')) >= 3 and
                              abs(self.get('Pitch')) + abs(self.get('Roll')) < 5, timeout=10,
                              message='turned back to level')
        self.pump_until(time.monotonic() + 0.5)
        self.stop_recording()

        self.assertEqual(turned, turned_to)
        self.assertGreater(abs(angle), 60, '%s while turned: %.1f deg' % (axis, angle))
        self.assertEqual([v for _, v in self.rec.changes('Orientation')], ['normal', turned_to, 'normal'],
                         'the first readout sets it, then it changes exactly twice, no flicker')
        orientations = self.check_tilt_signals(step)
        self.assertEqual(self.collapse(orientations), ['normal', turned_to, 'normal'])
        tilts = self.rec.of('Tilt')
        # Two 90 degree turns of 0.8 s (40 readouts at 50 Hz): a Tilt per TiltStep moved, or per noise band
        # where that is wider (toward 90 degrees), at most one per readout.
        wanted = 2 * tilts_for_turn(step)
        self.assertGreater(len(tilts), wanted * 0.7, 'a Tilt for every TiltStep moved (or every readout)')
        self.assertLess(len(tilts), len(self.rec.of('Sample')))
        # The properties follow the signals.
        pitch, roll, orientation = tilts[-1]
        self.assertEqual(self.get('Orientation'), orientation)
        self.assertAlmostEqual(self.get('Pitch'), pitch, delta=step)
        self.assertAlmostEqual(self.get('Roll'), roll, delta=step)
        self.assertLess(abs(self.get('Pitch')) + abs(self.get('Roll')), 5, 'back to level')
        # Flip latency: each orientation change lands within 0.5 s of the trace's flip time, i.e. the
        # signal arrives no later than 2343 + 500 ms after the trace's time 0 (+ dispatch on a loaded machine).
        flips = self.rec.changes('Orientation')[1:]
        self.assertLess(flips[0][0] - self.t0_max, 2.343 - lead_s + 0.5 + LATE_SLACK_S)
        self.assertGreater(flips[0][0] - t0, 2.0 - lead_s, 'not before the turn')
        return tilts

    def test_rotation_left_up_tilt_and_orientation(self):
        tilts = self.rotation('left-up', 'Roll')
        self.assertLess(min(float(t[1]) for t in tilts), -80, 'roll reaches the turn')

    # Configuration of the motion processing

    def test_tilt_step_and_sensitivity_validated_and_persisted(self):
        self.start(claim=False)
        saved = self.state_text()
        bad = [('SetTiltStep', 0.09), ('SetTiltStep', 45.01), ('SetTiltStep', -1.0), ('SetTiltStep', 0.0),
               ('SetTiltStep', float('inf')), ('SetTiltStep', float('nan')),
               ('SetShockSensitivity', 0.0), ('SetShockSensitivity', 0.099), ('SetShockSensitivity', 10.01),
               ('SetShockSensitivity', -2.0), ('SetShockSensitivity', float('-inf')),
               ('SetShockSensitivity', float('nan'))]
        ranges = {'SetTiltStep': (r'TiltStep .* out of range 0\.1\.\.45 degrees'),
                  'SetShockSensitivity': r'0\.1\.\.10'}
        for method, value in bad:
            self.assertDBusError(INVALID_ARGS, getattr(self.accel, method), value,
                                 message_re=ranges[method])
        self.pump_until(time.monotonic() + 0.2)
        self.assertEqual(self.rec.changes('TiltStep') + self.rec.changes('ShockSensitivity'), [],
                         'a refused value changes nothing')
        self.assertEqual((self.get('TiltStep'), self.get('ShockSensitivity')), (1.0, 1.0))
        self.assertEqual(self.state_text(), saved, 'nothing persisted')

        # The bounds are valid; every change is announced.
        for step, sensitivity in ((0.1, 0.1), (45.0, 10.0), (2.5, 0.75)):
            self.accel.SetTiltStep(step)
            self.accel.SetShockSensitivity(sensitivity)
            self.assertEqual((self.get('TiltStep'), self.get('ShockSensitivity')), (step, sensitivity))
        self.assertEventually(lambda: [v for _, v in self.rec.changes('TiltStep')] == [0.1, 45.0, 2.5] and
                              [v for _, v in self.rec.changes('ShockSensitivity')] == [0.1, 10.0, 0.75])

        # Denied: nothing changes.
        self.set_allowed([])
        self.assertDBusError(ACCESS_DENIED, self.accel.SetTiltStep, 3.0)
        self.assertDBusError(ACCESS_DENIED, self.accel.SetShockSensitivity, 3.0)
        self.assertEqual((self.get('TiltStep'), self.get('ShockSensitivity')), (2.5, 0.75))

        self.assertEqual(self.stop_daemon(), 0)
        with open(os.path.join(self.state_dir, 'state')) as f:
            text = f.read()
        self.assertRegex(text, r'(?m)^tilt_step=2\.5$')
        self.assertRegex(text, r'(?m)^shock_sensitivity=0\.75$')
        self.start_daemon('--sysfs-root=' + self.sysfs.root)
        self.assertEqual((self.get('TiltStep'), self.get('ShockSensitivity')), (2.5, 0.75), 'kept across restart')

    # Disk protection

    def protect(self, disks):
        self.accel.SetProtectedDisks(disks)

    def test_protected_disks_validated(self):
        self.start(claim=False)
        saved = self.state_text()
        cases = [(['nvme0n1'], r"Disk 'nvme0n1' is not rotational"),
                 (['sdc'], r"Disk 'sdc' is removable"),
                 (['sdd'], r"Disk 'sdd' cannot park its heads \(device/unload_heads"),
                 (['sdz'], r"sdz"),
                 (['sda', 'sdd'], r"sdd"),
                 (['sda', 'sda'], r'twice'),
                 (['sda/../sdb'], r'not a block device name'),
                 ([''], r'not a block device name'),
                 (['sd%d' % i for i in range(17)], r'At most 16')]
        for disks, message in cases:
            self.assertDBusError(INVALID_ARGS, self.protect, disks, message_re=message)
        self.pump_until(time.monotonic() + 0.2)
        self.assertEqual(list(self.get('ProtectedDisks')), [], 'a refused list changes nothing')
        self.assertEqual(self.get('ProtectionState'), 'off')
        self.assertFalse(self.get('Polling'))
        self.assertEqual([e for e in self.rec.events if e[1] == 'changed'], [])
        self.assertEqual(self.state_text(), saved, 'nothing persisted')
        for name in ('sda', 'nvme0n1', 'sdc'):
            self.assertEqual(self.sysfs.unload_heads(name), '0', 'nothing written to %s' % name)

        self.set_allowed([])
        self.assertDBusError(ACCESS_DENIED, self.protect, ['sda'])
        self.assertEqual(list(self.get('ProtectedDisks')), [])

    def test_disk_gone_while_waiting_for_polkit_is_refused_unsaved(self):
        # SetProtectedDisks runs again from the top when polkit answers: a disk that was there when the
        # call came in and is gone when it is applied is refused like any bad disk, before anything is
        # saved (the state file is not even rewritten and restored). Rounds beyond the per-connection
        # bound of checks in flight prove that a verdict the re-run did not take is dropped.
        self.start(claim=False)
        self.protect(['sda'])
        # Protection polls; the first readout's rest position is saved too: the file is settled after it.
        self.assertEventually(lambda: 'Rest position is now' in self.daemon_log(), message='rest saved')
        self.get('RestPosition')  # a round trip: the daemon finished saving it (logged before)
        state = os.path.join(self.state_dir, 'state')
        with open(state) as f:
            saved = f.read()
        before = os.stat(state)
        for _ in range(POLKIT_PENDING_PER_SENDER + 1):
            self.sysfs.add_disk('sdb')
            self.hold_polkit_answers(True)
            call = self.call_async('SetProtectedDisks', ['sda', 'sdb'])
            self.wait_polkit_held()
            self.sysfs.remove_disk('sdb')
            self.hold_polkit_answers(False)
            self.polkit_obj.ReleaseHangingCalls()
            e = self.wait_result(call)
            self.assertIsNotNone(e, 'a disk gone while polkit decided is refused')
            self.assertEqual(error_name(e), INVALID_ARGS, error_message(e))
            self.assertRegex(error_message(e), r"Disk 'sdb' not found")
        self.assertEqual(list(self.get('ProtectedDisks')), ['sda'])
        self.assertEqual(self.get('ProtectionState'), 'armed')
        after = os.stat(state)
        self.assertEqual((after.st_ino, after.st_mtime_ns), (before.st_ino, before.st_mtime_ns),
                         'the state file was not written')
        with open(state) as f:
            self.assertEqual(f.read(), saved)

    def test_protection_below_the_minimum_rate_is_warned(self):
        # Shocks need ShockMinRate: armed protection at a lower SamplingRate would park nothing.
        self.start(claim=False)
        self.protect(['sda'])
        self.assertNotIn('no shock will park the heads', self.daemon_log())
        self.accel.SetSamplingRate(SHOCK_MIN_RATE_HZ - 1)
        self.assertEqual(self.get('EffectiveRate'), SHOCK_MIN_RATE_HZ - 1)
        self.assertEventually(lambda: 'Disk protection is armed, but polling runs at %d Hz, below the %d Hz'
                              % (SHOCK_MIN_RATE_HZ - 1, SHOCK_MIN_RATE_HZ) in self.daemon_log())

    def test_protection_arms_polling_without_claim_and_off_stops_it(self):
        self.start(claim=False)
        self.assertFalse(self.get('Polling'))
        self.protect(['sda'])
        self.assertEqual(list(self.get('ProtectedDisks')), ['sda'])
        self.assertEqual(self.get('ProtectionState'), 'armed')
        self.assertTrue(self.get('Polling'), 'protection polls without any claim')
        self.assertEventually(lambda: len(self.rec.of('Sample')) > 10, message='Samples while armed')
        self.assertEqual(self.sysfs.unload_heads('sda'), '0', 'arming parks nothing')
        changed = set().union(*(p.keys() for p in self.rec.of('changed')))
        self.assertLessEqual({'ProtectedDisks', 'ProtectionState', 'Polling'}, changed)

        # Persisted and re-armed at the next start.
        self.assertEqual(self.stop_daemon(), 0)
        with open(os.path.join(self.state_dir, 'state')) as f:
            self.assertRegex(f.read(), r'(?m)^protected_disks=sda$')
        self.start_daemon('--sysfs-root=' + self.sysfs.root)
        self.rec = Recorder(self.bus)
        self.assertEqual(list(self.get('ProtectedDisks')), ['sda'])
        self.assertEqual(self.get('ProtectionState'), 'armed')
        self.assertTrue(self.get('Polling'), 'armed from the state file, polling without a claim')

        # [] turns it off; with nobody claiming, polling stops and the daemon sleeps.
        self.protect([])
        self.assertEqual(list(self.get('ProtectedDisks')), [])
        self.assertEqual(self.get('ProtectionState'), 'off')
        self.assertFalse(self.get('Polling'))
        time.sleep(0.2)
        before = self.ctxt_switches()
        time.sleep(1.5)
        self.assertEqual(self.ctxt_switches() - before, 0, 'no timer: the daemon does not wake up')

        # A claim keeps polling after [] (and [] while claimed does not stop it).
        self.accel.Claim()
        self.protect(['sda'])
        self.protect([])
        self.assertTrue(self.get('Polling'))

    def test_protected_disk_gone_at_start_is_reported(self):
        self.start(claim=False)
        self.protect(['sda'])
        self.assertEqual(self.stop_daemon(), 0)
        self.sysfs.remove_disk('sda')
        self.start_daemon('--sysfs-root=' + self.sysfs.root)
        self.assertEqual(list(self.get('ProtectedDisks')), [])
        self.assertEqual(self.get('ProtectionState'), 'off')
        self.assertFalse(self.get('Polling'))
        self.assertRegex(self.daemon_log(), r"Start-up: ProtectedDisks from the state file refused \(.*'sda'")

    def test_pause_suspends_protection(self):
        # The contract of Pause(): ProtectionState, PausedUntil (CLOCK_MONOTONIC usec), Pause(0). No park
        # while paused, a pause during a park, its polling and its end are the daemon core's
        # (tests/daemon/test-protection.c, in virtual time).
        self.start(claim=False)
        self.protect(['sda'])
        self.accel.Pause(30)
        now = monotonic_usec()
        self.assertEqual(self.get('ProtectionState'), 'paused')
        until = self.get('PausedUntil')
        self.assertAlmostEqual(until / 1e6, now / 1e6 + 30, delta=1.0, msg='PausedUntil is CLOCK_MONOTONIC usec')
        self.assertFalse(self.get('Polling'), 'paused protection does not poll by itself')

        self.accel.Pause(0)
        self.assertEqual(self.get('ProtectionState'), 'armed')
        self.assertEqual(self.get('PausedUntil'), 0)
        self.assertTrue(self.get('Polling'))
        self.stop_recording()
        states = [v for _, v in self.rec.changes('ProtectionState')]
        self.assertEqual(states, ['armed', 'paused', 'armed'])
        self.assertEqual([bool(v) for _, v in self.rec.changes('PausedUntil')], [True, False])


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
