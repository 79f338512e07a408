#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Integration tests of tpacceld on a private system bus (python-dbusmock), on the EC emulator.

Each test method is its own meson test, tpacceld_test/METHOD (tests/lib/list-tests.py lists them); run
one by hand with
  TOP_BUILDDIR=build TOP_SRCDIR=. PYTHONPATH=tests/lib /usr/bin/python3 tests/bus/tpacceld_test.py TpaccelTest.test_dump
The harness is tests/lib/daemontest.py. The daemon runs as a child with -v; its log is printed when a test
fails."""

import os
import signal
import subprocess
import sys
import time
import unittest
import xml.etree.ElementTree as ET

from gi.repository import GLib

# The base class and the constants live in tests/lib/daemontest.py.
from daemontest import (ACCESS_DENIED, BUSY, CALIBRATE, CONFIGURE, EC_IFACE, EC_PATH, EC_RAW, IFACE,  # noqa: F401
                        INTROSPECTABLE_IFACE, INVALID_ARGS, NAME, NOT_CLAIMED, NOT_SAVED, PATH, PROPERTIES_IFACE,
                        TIMEOUT, TOP_BUILDDIR, TOP_SRCDIR, TPACCELD, TRACES, TpaccelTestBase, error_message,
                        error_name, row)


class TpaccelTest(TpaccelTestBase):
    # Interface

    def test_introspection_matches_xml(self):
        self.start_polkit()
        self.start_daemon()
        for path, iface, xml_file in ((PATH, IFACE, 'org.thinkpad.Accelerometer.xml'),
                                      (EC_PATH, EC_IFACE, 'org.thinkpad.EmbeddedController.xml')):
            want = self.members(ET.parse(os.path.join(TOP_SRCDIR, 'data', xml_file)).getroot(), iface)
            got_xml = self.bus.proxy(NAME, path, INTROSPECTABLE_IFACE).Introspect()
            got = self.members(ET.fromstring(got_xml), iface)
            self.assertEqual(sorted(got), sorted(want), 'introspection of %s differs from %s' % (path, xml_file))

    @staticmethod
    def members(root, iface):
        out = []
        for i in root.iter('interface'):
            if i.get('name') != iface:
                continue
            for m in i:
                if m.tag == 'property':
                    out.append(('property', m.get('name'), m.get('type'), m.get('access')))
                elif m.tag in ('method', 'signal'):
                    args = tuple((a.get('name'), a.get('type'), a.get('direction', 'out' if m.tag == 'signal' else 'in'))
                                 for a in m.iter('arg'))
                    out.append((m.tag, m.get('name'), args))
        return out

    def test_every_property_readable_with_type(self):
        self.start_polkit()
        self.start_daemon()
        root = ET.parse(os.path.join(TOP_SRCDIR, 'data', 'org.thinkpad.Accelerometer.xml')).getroot()
        props = [(p.get('name'), p.get('type')) for p in root.iter('property')]
        self.assertGreater(len(props), 30)
        for name, sig in props:
            p = subprocess.run(['busctl', '--address=' + self.bus_address, '--json=short', 'get-property',
                                NAME, PATH, IFACE, name], capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(p.returncode, 0, '%s: %s' % (name, p.stderr))
            self.assertIn('"type":"%s"' % sig, p.stdout, name)
        all_props = self.props.GetAll(IFACE)
        self.assertEqual(sorted(all_props.keys()), sorted(n for n, _ in props))
        self.assertEqual(all_props['Backend'], 'simulated')
        self.assertTrue(all_props['HasAccelerometer'])
        self.assertEqual(all_props['SamplingRate'], 50)
        self.assertEqual(all_props['Temperature'], 38)
        self.assertEqual(all_props['ProtectionState'], 'off')
        self.assertFalse(all_props['Polling'])

    # The traces' sensor noise is clipped to +-2 counts (their header): two readouts of a still machine
    # differ by at most twice that.
    NOISE_SPAN = 4

    def test_position_on_demand_without_claim(self):
        # With nothing claimed, each read of Position is a readout of its own, fresh: it follows the
        # trace (x between the level -498 and the roll's -387, a cycle every 15 s) while nothing polls.
        # Those readouts leave the rest position alone: it is taken once (at initialization, or by the
        # first readout when that one failed). That the rest is the laptop at start, not at the first
        # read, is tests/daemon/test-readout.c's.
        self.start_polkit()
        self.start_daemon('--trace=' + os.path.join(TRACES, 'slow-roll-45.csv'), '--trace-loop')
        x0, y0 = self.get('Position')
        self.assertNotEqual((x0, y0), (0, 0), 'no readout')
        rest = tuple(self.get('RestPosition'))
        self.assertNotEqual(rest, (0, 0), 'no rest position')
        self.assertEventually(lambda: abs(self.get('Position')[0] - x0) > 10 * self.NOISE_SPAN, timeout=2 * TIMEOUT,
                              message='Position stayed at x %d while the trace rolled: no fresh readout on demand' % x0)
        self.assertFalse(self.get('Polling'))
        self.assertEqual(self.get('LastPolled'), 0, 'a read on demand went through polling')
        self.assertEqual(tuple(self.get('RestPosition')), rest, 'a later readout moved the rest position')

    # Claims and polling

    def test_claim_release_two_clients(self):
        self.start_polkit()
        self.start_daemon()
        a, b = self.new_connection(), self.new_connection()
        acc_a = a.proxy(NAME, PATH, IFACE)
        acc_b = b.proxy(NAME, PATH, IFACE)
        acc_a.Claim()
        acc_b.Claim()
        acc_b.Claim()
        self.assertTrue(self.get('Polling'))
        acc_a.Release()
        self.assertEventually(lambda: self.get('Polling'))
        acc_b.Release()
        time.sleep(0.1)
        self.assertTrue(self.get('Polling'), 'B still holds one of its two claims')
        acc_b.Release()
        self.assertEventually(lambda: not self.get('Polling'))
        self.assertDBusError(NOT_CLAIMED, acc_a.Release)
        a.close()
        b.close()

    def test_claimed_is_the_deprecated_alias_of_polling(self):
        # Claimed is Polling's old name: marked deprecated where a D-Bus tool looks (the XML and the
        # daemon's introspection), always equal, and changed in the same PropertiesChanged.
        self.start_polkit()
        self.start_daemon()
        xml_root = ET.parse(os.path.join(TOP_SRCDIR, 'data', 'org.thinkpad.Accelerometer.xml')).getroot()
        got_root = ET.fromstring(self.introspectable.Introspect())
        for root, where in ((xml_root, 'the XML'), (got_root, 'the introspection')):
            deprecated = {p.get('name') for i in root.iter('interface') if i.get('name') == IFACE
                          for p in i.iter('property')
                          for a in p.iter('annotation')
                          if a.get('name') == 'org.freedesktop.DBus.Deprecated' and a.get('value') == 'true'}
            self.assertEqual(deprecated, {'Claimed'}, where)
        changes = []
        self.bus.subscribe_signal(lambda i, c, inv: changes.append(dict(c)), PROPERTIES_IFACE, 'PropertiesChanged',
                                  path=PATH)
        for want in (True, False):
            if want:
                self.accel.Claim()
            else:
                self.accel.Release()
            self.assertEventually(lambda: any('Polling' in c for c in changes))
            p = self.props.GetAll(IFACE)
            self.assertEqual((p['Polling'], p['Claimed']), (want, want))
            carried = [c for c in changes if 'Polling' in c or 'Claimed' in c]
            self.assertEqual([(c['Polling'], c['Claimed']) for c in carried], [(want, want)])
            changes.clear()

    def test_client_death_stops_polling_and_timer(self):
        self.start_polkit()
        self.start_daemon()
        claimer = subprocess.Popen([sys.executable, '-c', '''
import sys, time
from daemontest import Bus
bus = Bus(sys.argv[1])  # held: the claim lasts as long as the connection
bus.call("%s", "%s", "%s", "Claim")
print("claimed", flush=True)
time.sleep(600)
''' % (NAME, PATH, IFACE), self.bus_address], stdout=subprocess.PIPE, text=True)
        self.extra.append(claimer)
        self.assertEqual(claimer.stdout.readline().strip(), 'claimed')
        self.assertTrue(self.get('Polling'))
        before = self.ctxt_switches()
        time.sleep(0.5)
        self.assertGreater(self.ctxt_switches() - before, 10, 'polling wakes the daemon')
        claimer.kill()
        claimer.wait()
        self.assertEventually(lambda: not self.get('Polling'))
        time.sleep(0.2)
        before = self.ctxt_switches()
        time.sleep(2)
        self.assertEqual(self.ctxt_switches() - before, 0, 'no timer: the daemon must not wake up at all')

    def test_sample_rate_matches_sampling_rate(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        self.accel.Claim()
        for rate in (50, 100):
            self.accel.SetSamplingRate(rate)
            self.assertEqual(self.get('SamplingRate'), rate)
            time.sleep(0.2)
            samples = self.collect_samples(1.5)
            self.assertGreater(len(samples), 5)
            span = (samples[-1][0] - samples[0][0]) / 1e6
            measured = (len(samples) - 1) / span
            expected = min(rate, 50)  # the Sample signal is decimated to 50 per second (AcquireStream has all)
            self.assertAlmostEqual(measured, expected, delta=expected * 0.15,
                                   msg='%d Hz wanted, %.1f Hz measured' % (expected, measured))
            now_us = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
            self.assertLess(abs(now_us - samples[-1][0]), 2_000_000, 'time_usec is CLOCK_MONOTONIC')
        self.accel.Release()

    def test_sample_only_while_subscribed(self):
        # Formerly Sample was broadcast for every readout, waking the bus daemon although nobody asked.
        self.start_polkit()
        self.start_daemon()
        self.accel.Claim()
        self.assertEqual(self.collect_samples(0.6, subscribe=False), [], 'no Sample without a subscription')
        self.assertGreater(len(self.collect_samples(5, at_least=11)), 10, 'Sample while subscribed')
        self.collect_samples(0.3, subscribe=False)  # those sent before the Unsubscribe arrived
        self.assertEqual(self.collect_samples(0.6, subscribe=False), [], 'none after UnsubscribeSamples')
        self.assertDBusError('org.thinkpad.Accelerometer.Error.NotSubscribed', self.accel.UnsubscribeSamples)

        # Two subscriptions of one connection: one Unsubscribe leaves the other.
        self.subscribe_samples()
        self.subscribe_samples()
        self.unsubscribe_samples()
        self.assertGreater(len(self.collect_samples(5, subscribe=False, at_least=11)), 10, 'one subscription left')
        self.unsubscribe_samples()

        # A subscriber leaving the bus ends its subscription.
        other = self.new_connection()
        self.subscribe_samples(other)
        self.assertGreater(len(self.collect_samples(5, subscribe=False, at_least=11)), 10, "another's subscription")
        other.close()
        time.sleep(0.2)
        self.collect_samples(0.3, subscribe=False)  # those sent before it left
        self.assertEqual(self.collect_samples(0.6, subscribe=False), [], 'the subscriber left the bus')
        self.accel.Release()

        # Subscribing claims nothing.
        self.assertEventually(lambda: not self.get('Polling'))
        self.subscribe_samples()
        self.assertEqual(self.collect_samples(0.5, subscribe=False), [])
        self.assertFalse(self.get('Polling'), 'a subscription alone does not poll')
        self.unsubscribe_samples()

    def test_claim_at_rate_polls_at_the_highest_claim(self):
        self.start_polkit()
        self.start_daemon()
        self.assertEqual(self.get('EffectiveRate'), 0)
        self.assertIn('nothing claims', self.get('EffectiveRateReason'))
        a, b = self.new_connection(), self.new_connection()
        acc_a = a.proxy(NAME, PATH, IFACE)
        acc_b = b.proxy(NAME, PATH, IFACE)
        acc_a.ClaimAtRate(5)
        self.assertEqual(self.get('EffectiveRate'), 5)
        self.assertIn(a.get_unique_name(), self.get('EffectiveRateReason'))
        self.assertEqual(self.get('SamplingRate'), 50, 'SamplingRate stays the configured rate')
        # The ticks per second at each rate are the daemon core's (tests/daemon/test-poller.c, in
        # virtual time); here the claims of two clients and what the properties say.
        acc_b.Claim()  # plain Claim: the configured SamplingRate
        self.assertEqual(self.get('EffectiveRate'), 50)
        self.assertIn(b.get_unique_name(), self.get('EffectiveRateReason'))
        acc_b.Release()
        self.assertEqual(self.get('EffectiveRate'), 5)
        self.assertIn(a.get_unique_name(), self.get('EffectiveRateReason'))
        # A client leaving the bus drops its claims: B claims 20 Hz, then disconnects.
        acc_b.ClaimAtRate(20)
        self.assertEqual(self.get('EffectiveRate'), 20)
        b.close()
        self.assertEventually(lambda: self.get('EffectiveRate') == 5)
        acc_a.Release()
        self.assertEventually(lambda: not self.get('Polling'))
        self.assertEqual(self.get('EffectiveRate'), 0)
        a.close()

    def ec_rate(self):
        """The EC's own rate (0x17/0x82 [2..3]), asked through ReadRow once no change is pending
        ([1] bit 1)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            data = self.ec.ReadRow(0x0003, row(0x17, 0x82), 0x801F)
            self.assertEqual(data[15], 0, 'RETVAL')
            if not data[1] & 0x02 or time.monotonic() > deadline:
                return data[2] | data[3] << 8
            time.sleep(0.01)

    def test_claim_at_rate_release_drops_the_latest_claim(self):
        self.start_polkit([CONFIGURE, EC_RAW])
        self.start_daemon()
        self.accel.ClaimAtRate(4)
        self.accel.ClaimAtRate(25)
        self.assertEqual(self.get('EffectiveRate'), 25)
        self.assertEqual(self.ec_rate(), 25 * 5, 'the EC samples at EffectiveRate x OversamplingRatio')
        self.accel.Release()
        self.assertEqual(self.get('EffectiveRate'), 4)
        self.assertEqual(self.ec_rate(), 4 * 5)
        # SetSamplingRate below a claim caps it; the configured rate stays SamplingRate.
        self.accel.ClaimAtRate(40)
        self.accel.SetSamplingRate(30)
        self.assertEqual(self.get('EffectiveRate'), 30)
        self.assertEqual(self.get('SamplingRate'), 30)
        self.assertEqual(self.get('OversamplingRatio'), 5)
        self.accel.Release()
        self.assertEqual(self.get('EffectiveRate'), 4)
        self.assertEqual(self.get('OversamplingRatio'), 5, 'the EC rate follows: still 5 x 4 Hz')
        self.accel.Release()
        self.assertEqual(self.get('EffectiveRate'), 0)
        self.assertEqual(self.ec_rate(), 30 * 5, 'nobody polls: back to SamplingRate x OversamplingRatio')

    def test_claim_at_rate_refuses_bad_rates(self):
        self.start_polkit()
        self.start_daemon()
        for rate in (0, 1001, 2**32 - 1):
            with self.assertRaises(GLib.Error) as cm:
                self.accel.ClaimAtRate(rate)
            self.assertEqual(error_name(cm.exception), INVALID_ARGS)
            self.assertIn('rate %u Hz is out of range 1..1000' % rate, error_message(cm.exception))
        self.assertFalse(self.get('Polling'), 'a refused claim changes nothing')
        self.assertEqual(self.get('EffectiveRate'), 0)
        self.assertDBusError(NOT_CLAIMED, self.accel.Release)
        # Above the configured SamplingRate is valid, and capped at it (a 4 Hz tray on a machine
        # configured to 2 Hz still claims).
        self.accel.ClaimAtRate(200)
        self.assertEqual(self.get('EffectiveRate'), 50)
        self.assertIn('(the full SamplingRate)', self.get('EffectiveRateReason'))
        self.accel.Release()

    # polkit (mock)

    def test_config_denied_changes_nothing(self):
        self.start_polkit()
        self.start_daemon()
        saved = self.state_text()
        for method, arg, prop, old in (('SetSamplingRate', 100, 'SamplingRate', 50),
                                       ('SetOversamplingRatio', 2, 'OversamplingRatio', 5),
                                       ('SetFilterOrder', 4, 'FilterOrder', 2),
                                       ('SetFakeDataMode', True, 'FakeDataMode', False),
                                       ('SetInvert', True, 'Invert', False),
                                       ('SetInputDevices', True, 'InputDevices', False),
                                       ('SetShockSensitivity', 2.0, 'ShockSensitivity', 1.0),
                                       ('SetTiltStep', 5.0, 'TiltStep', 1.0),
                                       ('Pause', 10, 'PausedUntil', 0)):
            self.assertDBusError(ACCESS_DENIED, getattr(self.accel, method), arg)
            self.assertEqual(self.get(prop), old, method)
        self.assertDBusError(ACCESS_DENIED, self.accel.Calibrate)
        rc, out = self.gdbus(IFACE + '.SetSamplingRate', '100')
        self.assertNotEqual(rc, 0)
        self.assertIn('GDBus.Error:' + ACCESS_DENIED, out)
        self.assertEqual(self.state_text(), saved, 'nothing persisted')
        # The diagnosis is open to everyone, polkit or not.
        self.assertIn('"has-accelerometer": true', self.accel.Diagnose('json', timeout=60))

    def test_config_allowed(self):
        self.start_polkit([CONFIGURE, CALIBRATE])
        self.start_daemon()
        changed = []
        self.bus.subscribe_signal(lambda i, c, inv: changed.extend(c.keys()), PROPERTIES_IFACE, 'PropertiesChanged',
                                  path=PATH)
        self.accel.SetSamplingRate(100)
        self.accel.SetOversamplingRatio(2)
        self.accel.SetFilterOrder(4)
        self.accel.SetInvert(True)
        self.accel.SetFakeDataMode(True)
        self.accel.SetFakeDataMode(False)
        self.accel.SetShockSensitivity(2.5)
        self.accel.SetTiltStep(5.0)
        self.accel.Calibrate()
        rc, out = self.gdbus(IFACE + '.SetFilterOrder', '3')
        self.assertEqual(rc, 0, out)
        p = self.props.GetAll(IFACE)
        self.assertEqual((p['SamplingRate'], p['OversamplingRatio'], p['FilterOrder']), (100, 2, 3))
        self.assertTrue(p['Invert'])
        self.assertEqual(p['AxisCode'], 1)
        self.assertEqual((p['ShockSensitivity'], p['TiltStep']), (2.5, 5.0))
        self.assertEventually(lambda: {'SamplingRate', 'OversamplingRatio', 'FilterOrder', 'Invert',
                                       'ShockSensitivity', 'TiltStep', 'FakeDataMode'} <= set(changed),
                              message='PropertiesChanged for every change, got %s' % changed)

    def test_calibrate_allowed_only_with_its_action(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        self.assertDBusError(ACCESS_DENIED, self.accel.Calibrate)
        self.set_allowed([CALIBRATE])
        self.accel.Calibrate()
        self.assertDBusError(ACCESS_DENIED, self.accel.SetSamplingRate, 20)

    def test_no_polkit_fails_closed(self):
        self.start_daemon()
        # The reply says what the check got (the bus's answer, not a guess such as "unavailable").
        self.assertDBusError(ACCESS_DENIED, self.accel.SetSamplingRate, 20,
                             message_re=r'polkit check failed: org\.freedesktop\.DBus\.Error\.(ServiceUnknown|'
                                        r'NameHasNoOwner): .*org\.freedesktop\.PolicyKit1')
        self.assertEqual(self.get('SamplingRate'), 50)

    def test_no_polkit_failure_log_is_rate_limited(self):
        # Without polkitd every call fails closed; the log says so once per uid per 10 s, with a count,
        # not once per call. (That the next line after the interval counts the calls not logged is the
        # limiter's: tests/shared/test-log-limit.c.)
        self.start_daemon()
        start = time.monotonic()
        for _ in range(50):
            self.assertDBusError(ACCESS_DENIED, self.accel.SetSamplingRate, 20,
                                 message_re=r'polkit check failed')
        elapsed = time.monotonic() - start
        lines = [l for l in self.daemon_log().splitlines() if 'polkit check of' in l]
        self.assertGreaterEqual(len(lines), 1)
        self.assertLessEqual(len(lines), 1 + int(elapsed / 10) + 1, lines)
        self.assertRegex(lines[0], r'\(1 failed check\(s\) of uid %d since the last message, at most one per 10 s\)'
                         % os.getuid())
        self.assertEqual(self.get('SamplingRate'), 50)

    def test_session_mode_same_uid_needs_no_polkit(self):
        self.start_daemon('--session', '--address=' + self.bus_address)
        self.accel.SetSamplingRate(20)
        self.assertEqual(self.get('SamplingRate'), 20)

    def test_polkit_flags_follow_interactive_header(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        p = subprocess.run(['busctl', '--address=' + self.bus_address, 'call', NAME, PATH, IFACE,
                            'SetFilterOrder', 'u', '3'], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)
        rc, out = self.gdbus(IFACE + '.SetFilterOrder', '4')
        self.assertEqual(rc, 0, out)
        # The mock logs to its stdout which we discarded; check the effect instead: both succeeded.
        self.assertEqual(self.get('FilterOrder'), 4)

    # Bad input

    def test_long_arguments_are_quoted_short(self):
        # An error quotes at most 16 characters of a caller's string, ours (Diagnose's format)
        # and those sd-bus would echo whole by itself (Properties' interface and property names, an unknown
        # object's path), so that a 1 MiB argument does not come back as a 1 MiB error.
        self.start_daemon()
        long = 'x' * (1 << 20)
        cases = [
            (INVALID_ARGS, self.accel.Diagnose, (long,),
             r'^Unknown report format "x{16}\.\.\." '),
            (INVALID_ARGS, self.props.GetAll, (long,), r"^The interface name 'x{16}\.\.\.' is too long \(1048576 "),
            (INVALID_ARGS, self.props.Get, (IFACE, long), r"^The property name 'x{16}\.\.\.' is too long"),
            (INVALID_ARGS, self.props.Get, (long, 'Position'), r"^The interface name 'x{16}\.\.\.' is too long"),
            (INVALID_ARGS, self.props.Set, (long, 'Position', GLib.Variant('i', 1)), r"^The interface name 'x{16}\.\.\.'"),
        ]
        for name, method, args, message_re in cases:
            with self.assertRaises(GLib.Error) as cm:
                method(*args)
            message = error_message(cm.exception)
            self.assertLess(len(message), 200, '%d characters: %s' % (len(message), message[:200]))
            self.assertEqual(error_name(cm.exception), name, message)
            self.assertRegex(message, message_re)
        # (sd-bus drops a message with a path over 64 KiB unanswered; up to there it would echo it.)
        far = self.bus.proxy(NAME, '/' + 'x' * 60000, INTROSPECTABLE_IFACE)
        e = self.assertDBusError('org.freedesktop.DBus.Error.UnknownObject', far.Introspect,
                                 message_re=r"^Unknown object '/x{15}\.\.\.'")
        self.assertLess(len(error_message(e)), 200)
        # Names of the right length still get sd-bus' own answers, and the service goes on.
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownInterface', self.props.GetAll, 'org.example.Nope')
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownProperty', self.props.Get, IFACE, 'Nope')
        self.assertEqual(self.get('HasAccelerometer'), True)

    def test_bad_arguments(self):
        self.start_polkit([CONFIGURE, CALIBRATE, EC_RAW])
        self.start_daemon()
        range_cases = [
            ('SetSamplingRate', 0, r'1\.\.1000'),
            ('SetSamplingRate', 1001, r'1\.\.1000'),
            ('SetOversamplingRatio', 0, r'1\.\.1310'),
            ('SetOversamplingRatio', 70000, r'1\.\.1310'),
            ('SetFilterOrder', 0, r'1\.\.8'),
            ('SetFilterOrder', 9, r'1\.\.8'),
            ('SetShockSensitivity', 0.01, r'0\.1\.\.10'),
            ('SetShockSensitivity', float('nan'), r'0\.1\.\.10'),
            ('SetShockSensitivity', 10.0000001, r'^ShockSensitivity 10\.0000001 is out of range 0\.1\.\.10$'),
            ('SetTiltStep', 46.0, r'0\.1\.\.45'),
            ('SetTiltStep', -1.0, r'0\.1\.\.45'),
            ('Pause', 3601, r'3600'),
            ('SetProtectedDisks', ['../etc'], r'not a block device name'),
            ('SetProtectedDisks', ['sda', 'sda'], r'twice'),
            ('SetProtectedDisks', ['nosuchdisk0'], r'nosuchdisk0'),
        ]
        before = self.props.GetAll(IFACE)
        for method, arg, msg in range_cases:
            self.assertDBusError(INVALID_ARGS, getattr(self.accel, method), arg, message_re=msg)
        # A 100 KB disk name is cut in the reply, not echoed back whole.
        e = self.assertDBusError(INVALID_ARGS, self.accel.SetProtectedDisks, ['x' * 100000],
                                 message_re=r"^'x{16}\.\.\.' is not a block device name")
        self.assertLess(len(error_message(e)), 200)
        # Wrong types and counts, through the raw connection so nothing is converted for us.
        for method, sig, args in (('SetSamplingRate', 's', ['fast']), ('SetSamplingRate', 'i', [-5]),
                                  ('SetSamplingRate', '', []), ('SetInvert', 'u', [1]),
                                  ('SetTiltStep', 'u', [3]), ('SetProtectedDisks', 's', ['sda']),
                                  ('Pause', 'uu', [1, 2]), ('Claim', 'u', [1])):
            self.assertDBusError(INVALID_ARGS, self.bus.call, NAME, PATH, IFACE, method, sig, args)
        for sig, args, msg in (('qayq', [1, row(0x13, length=15), 0xffff], r'exactly 16 bytes'),
                               ('qayq', [1, row(0x13, length=17), 0xffff], r'exactly 16 bytes'),
                               ('qayq', [0xfffe, row(0x13), 0xffff], r'bit 0'),
                               ('qay', [1, row(0x13)], None), ('uayq', [1, row(0x13), 1], None)):
            self.assertDBusError(INVALID_ARGS, self.bus.call, NAME, EC_PATH, EC_IFACE, 'ReadRow',
                                 sig, args, message_re=msg)
        self.assertDBusError('org.freedesktop.DBus.Error.UnknownMethod', self.bus.call, NAME, PATH,
                             IFACE, 'NoSuchMethod', '', [])
        rc, out = self.gdbus(IFACE + '.SetFilterOrder', '9')
        self.assertIn('GDBus.Error:' + INVALID_ARGS, out)
        self.assertIn('1..8', out)
        self.assertIsNone(self.daemon.poll(), 'the daemon survives bad input')
        after = self.props.GetAll(IFACE)
        for k in ('SamplingRate', 'OversamplingRatio', 'FilterOrder', 'ShockSensitivity', 'TiltStep',
                  'ProtectedDisks', 'PausedUntil', 'Invert'):
            self.assertEqual(after[k], before[k], k)

    def test_burst_of_calls_from_many_clients(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        script = '''
import sys
from gi.repository import GLib
from daemontest import Bus
bus = Bus(sys.argv[1])
for i in range(40):
    for m, s, a in (("Claim", "", []), ("SetFilterOrder", "u", [99]), ("SetSamplingRate", "s", ["x"]),
                    ("Release", "", []), ("Release", "", [])):
        try:
            bus.call("%s", "%s", "%s", m, s, a)
        except GLib.Error:
            pass
''' % (NAME, PATH, IFACE)
        procs = [subprocess.Popen([sys.executable, '-c', script, self.bus_address]) for _ in range(8)]
        self.extra += procs
        for p in procs:
            self.assertEqual(p.wait(60), 0)
        self.assertIsNone(self.daemon.poll())
        self.assertEventually(lambda: not self.get('Polling'))
        self.assertEqual(self.get('FilterOrder'), 2)

    # EmbeddedController.ReadRow

    def test_read_row_denied_allowed_and_battery_row_refused(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        self.assertDBusError(ACCESS_DENIED, self.ec.ReadRow, 1, row(0x13), 0xffff)
        self.set_allowed([EC_RAW])
        data = self.ec.ReadRow(1, row(0x13), 0x0003)
        self.assertEqual(len(data), 16)
        self.assertEqual((data[0], data[1], data[15]), (0x13, 0x01, 0x00), 'mode latch 1, RETVAL 0')
        self.assertDBusError(ACCESS_DENIED, self.ec.ReadRow, 1, row(0x0B), 0xffff,
                             message_re='0x0B')
        rc, out = self.gdbus(EC_IFACE + '.ReadRow', '1', '[0x0b,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]', '0xffff',
                             path=EC_PATH)
        self.assertIn('GDBus.Error:' + ACCESS_DENIED, out)
        self.assertIsNone(self.daemon.poll())

    def test_read_row_flood_does_not_starve_poller(self):
        # Session semantics (same uid, no polkit round trip), so the burst reaches the queue at once.
        self.start_daemon('--session', '--address=' + self.bus_address)
        self.accel.Claim()
        results = {'ok': 0, 'busy': 0, 'other': []}

        def reply(_data):
            results['ok'] += 1

        def error(e):
            if error_name(e) == BUSY:
                results['busy'] += 1
            else:
                results['other'].append(error_name(e))
        flood = self.new_connection()
        ec = flood.proxy(NAME, EC_PATH, EC_IFACE)
        for _ in range(100):
            ec.ReadRow(1, row(0x13), 3, reply_handler=reply, error_handler=error)
        samples = self.collect_samples(1.0)
        self.assertEventually(lambda: results['ok'] + results['busy'] + len(results['other']) == 100)
        self.assertEqual(results['other'], [])
        # How many are Busy depends on how the calls and the queue interleave (the bound itself:
        # test_slow_bus/test_read_rows_past_the_client_queue_are_busy).
        self.assertGreater(results['ok'], 0)
        self.assertGreater(len(samples), 30, 'the poller keeps its rate during the flood')
        # Another client is still served.
        self.assertEqual(self.ec.ReadRow(1, row(0x13), 3)[1], 1)
        flood.close()

    # Lifecycle and persistence

    def test_sigterm_powers_off_and_exits_0(self):
        self.start_polkit()
        self.start_daemon()
        self.accel.Claim()
        self.assertTrue(self.get('Polling'))
        self.assertEqual(self.stop_daemon(signal.SIGTERM), 0)
        log = self.daemon_log()
        self.assertRegex(log, r'accelerometer powered off \(emulated EC: powered=no')
        self.assertRegex(log, r'At exit: emulated EC: .* protocol_violations=0')
        self.assertFalse(self.bus.name_has_owner(NAME))

    def test_sigint_exits_0(self):
        self.start_polkit()
        self.start_daemon()
        self.assertEqual(self.stop_daemon(signal.SIGINT), 0)
        self.assertIn('powered=no', self.daemon_log())

    def test_sighup_reloads_and_keeps_running(self):
        # SIGHUP reaches context_reload() and the daemon keeps running; what a reload applies and
        # reports is the daemon core's (tests/daemon/test-reload.c).
        self.start_polkit()
        self.start_daemon()
        self.accel.Claim()
        changed = []
        self.bus.subscribe_signal(lambda i, c, inv: changed.extend(c.keys()), PROPERTIES_IFACE, 'PropertiesChanged',
                                  path=PATH)
        with open(os.path.join(self.state_dir, 'state'), 'w') as f:
            f.write('sampling_rate=25\nfilter_order=6\ntilt_step=3.5\ninvert=1\n')
        self.daemon.send_signal(signal.SIGHUP)
        self.assertEventually(lambda: self.get('SamplingRate') == 25)
        self.assertIsNone(self.daemon.poll(), 'SIGHUP must not end the daemon')
        p = self.props.GetAll(IFACE)
        self.assertEqual((p['FilterOrder'], p['TiltStep'], p['Invert'], p['Polling']), (6, 3.5, True, True))
        self.assertEventually(lambda: {'SamplingRate', 'FilterOrder', 'TiltStep', 'Invert'} <= set(changed))
        # A bad file is reported; the daemon keeps running.
        with open(os.path.join(self.state_dir, 'state'), 'w') as f:
            f.write('sampling_rate=banana\n')
        self.daemon.send_signal(signal.SIGHUP)
        self.assertEventually(lambda: 'Reload: keeping the current configuration' in self.daemon_log())
        self.assertIsNone(self.daemon.poll())
        self.assertEqual(self.stop_daemon(), 0)

    def test_fatal_startup_error_runs_the_shutdown(self):
        self.start_polkit()
        self.start_daemon()
        # A second daemon on the same bus cannot have the name: it exits 1, but powers off first.
        other_dir = os.path.join(self.state_dir, 'other')
        p = subprocess.run([TPACCELD, '-v', '--backend=sim', '--state-dir=' + other_dir], capture_output=True,
                           text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r'Another process \(pid %d\) already serves org\.thinkpad\.Accelerometer on the '
                                   r'system bus: is tpacceld running already\?' % self.daemon.pid)
        self.assertRegex(p.stderr, r'accelerometer powered off \(emulated EC: powered=no')
        self.assertIsNone(self.daemon.poll())

    def test_restart_keeps_configuration(self):
        self.start_polkit([CONFIGURE, CALIBRATE])
        self.start_daemon()
        self.accel.SetSamplingRate(25)
        self.accel.SetOversamplingRatio(3)
        self.accel.SetFilterOrder(6)
        self.accel.SetInvert(True)
        self.accel.SetShockSensitivity(3.25)
        self.accel.SetTiltStep(7.5)
        self.get('Position')  # calibrates
        rest = tuple(self.get('RestPosition'))
        self.assertEqual(self.stop_daemon(), 0)
        with open(os.path.join(self.state_dir, 'state')) as f:
            text = f.read()
        self.assertIn('sampling_rate=25\n', text)
        self.start_daemon()
        p = self.props.GetAll(IFACE)
        self.assertEqual((p['SamplingRate'], p['OversamplingRatio'], p['FilterOrder'], p['Invert']),
                         (25, 3, 6, True))
        self.assertEqual((p['ShockSensitivity'], p['TiltStep']), (3.25, 7.5))
        self.assertEqual(tuple(p['RestPosition']), rest)

    def test_corrupt_state_file_is_reported_and_ignored(self):
        with open(os.path.join(self.state_dir, 'state'), 'w') as f:
            f.write('# ok\nsampling_rate=25\nfilter_order=banana\nbogus_key=1\n')
        self.start_polkit()
        self.start_daemon()
        self.assertEqual(self.get('SamplingRate'), 50, 'defaults used')
        self.assertEqual(self.get('FilterOrder'), 2)
        log = self.daemon_log()
        self.assertRegex(log, r'state:3: filter_order: .banana. is not a number')
        self.assertIn('using the defaults', log)

    def test_unknown_state_key_is_warned(self):
        with open(os.path.join(self.state_dir, 'state'), 'w') as f:
            f.write('sampling_rate=25\nfuture_key=1\n')
        self.start_polkit()
        self.start_daemon()
        self.assertEqual(self.get('SamplingRate'), 25)
        self.assertRegex(self.daemon_log(), r"state:2: unknown key 'future_key'")

    def test_unreadable_state_file_is_reported(self):
        os.mkdir(os.path.join(self.state_dir, 'state'))  # a directory cannot be read as a file
        self.start_polkit()
        self.start_daemon()
        self.assertEqual(self.get('SamplingRate'), 50)
        self.assertIn('Ignoring the state file', self.daemon_log())

    def test_fifo_state_file_does_not_hang_startup(self):
        os.mkfifo(os.path.join(self.state_dir, 'state'))
        self.start_polkit()
        self.start_daemon()
        self.assertEqual(self.get('SamplingRate'), 50)
        self.assertRegex(self.daemon_log(), r'Ignoring the state file.*state: is not a regular file \(a FIFO\)')

    def test_state_file_link_is_not_followed_nor_quoted(self):
        secret = os.path.join(self.state_dir, 'shadow')
        with open(secret, 'w') as f:
            f.write('root:$y$j9T$SALTSALTSALT$HASHHASHHASHHASH:19700:0:99999:7:::\n')
        os.symlink(secret, os.path.join(self.state_dir, 'state'))
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        self.assertEqual(self.get('SamplingRate'), 50)
        self.assertIn('is a symbolic link, not following it', self.daemon_log())
        # The same text as a regular file: refused with a short excerpt, never the whole line.
        self.stop_daemon()
        os.unlink(os.path.join(self.state_dir, 'state'))
        os.rename(secret, os.path.join(self.state_dir, 'state'))
        self.start_daemon()
        log = self.daemon_log()
        self.assertIn("got 'root:$y$j9T$SALT...'", log)
        self.assertNotIn('HASH', log)
        # A file owned by another user is refused. (At start a daemon started as root first takes the
        # state directory's files over, privileges.c; a reload does not.) Giving a file away needs root.
        if os.geteuid() != 0:
            return
        with open(os.path.join(self.state_dir, 'state'), 'w') as f:
            f.write('sampling_rate=25\n')
        os.chown(os.path.join(self.state_dir, 'state'), 65534, 65534)
        self.daemon.send_signal(signal.SIGHUP)
        self.assertEventually(lambda: 'is owned by uid 65534' in self.daemon_log())
        self.assertIn('Reload: keeping the current configuration', self.daemon_log())
        self.assertEqual(self.get('SamplingRate'), 50)

    def test_unsaved_change_is_refused(self):
        os.mkdir(os.path.join(self.state_dir, 'state'))  # the state file cannot be written
        self.start_polkit([CONFIGURE, EC_RAW])
        self.start_daemon()
        before = self.props.GetAll(IFACE)
        for method, arg in (('SetFilterOrder', 4), ('SetSamplingRate', 100),
                            ('SetInvert', True), ('SetShockSensitivity', 2.0),
                            ('SetTiltStep', 5.0)):
            self.assertDBusError(NOT_SAVED, getattr(self.accel, method), arg,
                                 message_re=r'not made: cannot write the state file .*/state: Is a directory')
        after = self.props.GetAll(IFACE)
        for k in ('SamplingRate', 'FilterOrder', 'Invert', 'ShockSensitivity', 'TiltStep', 'AxisCode'):
            self.assertEqual(after[k], before[k], k)
        # The EC's own configuration (0x17/0x82: [2..3] EC rate, [4] filter order) did not change either.
        data = self.ec.ReadRow(3, row(0x17, 0x82), 0x1f)
        self.assertEqual((data[2] | data[3] << 8, data[4]), (50 * 5, 2))
        # A change that needs no saving (FakeDataMode is not persisted) still works.
        self.accel.SetFakeDataMode(True)
        self.assertTrue(self.get('FakeDataMode'))

    def test_unsaved_calibration_is_refused(self):
        # Calibrate, like the setters, answers NotSaved when the state file cannot be written,
        # and RestPosition stays, in memory and after a restart.
        state = os.path.join(self.state_dir, 'state')
        self.start_polkit([CALIBRATE])
        self.start_daemon()
        self.assertTrue(os.path.exists(state))  # the rest position read at start is saved
        rest = tuple(self.get('RestPosition'))
        os.rename(state, state + '.saved')
        os.mkdir(state)  # the state file cannot be written
        self.assertDBusError(NOT_SAVED, self.accel.Calibrate,
                             message_re=r'not made: cannot write the state file .*/state: Is a directory')
        for _ in range(5):
            time.sleep(0.3)
            self.get('Position')  # readouts that a calibration would take as the rest position
        self.assertEqual(tuple(self.get('RestPosition')), rest)

        # The file can be written when Calibrate is called, not when the readout takes the rest position
        # (polling at 1 Hz, the file replaced by a directory in between): not made either, and said so.
        os.rmdir(state)
        os.rename(state + '.saved', state)
        self.accel.ClaimAtRate(1)
        self.accel.Calibrate()
        os.rename(state, state + '.saved')
        os.mkdir(state)
        self.assertEventually(lambda: 'Calibration not made' in self.daemon_log(), timeout=5)
        self.assertEqual(tuple(self.get('RestPosition')), rest)
        self.assertEqual(self.stop_daemon(), 0)

        os.rmdir(state)
        os.rename(state + '.saved', state)
        self.start_daemon()
        self.assertEqual(tuple(self.get('RestPosition')), rest)

    def test_racing_setters_validated_when_applied(self):
        # Each call alone is valid (1000 x 5 and 50 x 100 fit 65535); together they would not. Both pass
        # the check at call time; the one applied second is checked against the first one's result.
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        results = []
        loop = GLib.MainLoop()

        def done(name, err=None):
            results.append((name, err))
            if len(results) == 2:
                loop.quit()
        self.accel.SetSamplingRate(1000, reply_handler=lambda: done('rate'),
                                   error_handler=lambda e: done('rate', e))
        self.accel.SetOversamplingRatio(100, reply_handler=lambda: done('ratio'),
                                        error_handler=lambda e: done('ratio', e))
        GLib.timeout_add_seconds(TIMEOUT, loop.quit)
        loop.run()
        self.assertEqual(len(results), 2)
        errors = [e for _, e in results if e]
        self.assertEqual(len(errors), 1, results)
        self.assertEqual(error_name(errors[0]), INVALID_ARGS)
        self.assertRegex(error_message(errors[0]), r'(SamplingRate 1000 x ratio must not exceed|x OversamplingRatio 100 exceeds) 65535')
        self.assertLessEqual(self.get('SamplingRate') * self.get('OversamplingRatio'), 65535)

    def test_change_while_waiting_for_polkit_is_seen_when_applied(self):
        # The handler runs again from the top when polkit answers: a call valid when it came in (50 Hz x
        # 100 fits 65535) is checked against what another call changed while polkit decided (1000 Hz).
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        self.hold_polkit_answers(True)
        ratio = self.call_async('SetOversamplingRatio', 100)
        self.wait_polkit_held()
        self.hold_polkit_answers(False)
        self.accel.SetSamplingRate(1000)  # valid against ratio 5, answered at once
        self.assertEqual(ratio, [], 'still waiting for polkit')
        self.polkit_obj.ReleaseHangingCalls()
        e = self.wait_result(ratio)
        self.assertIsNotNone(e, 'the ratio call must be refused')
        self.assertEqual(error_name(e), INVALID_ARGS, error_message(e))
        self.assertRegex(error_message(e), r'OversamplingRatio 100 is out of range 1\.\.65 '
                         r'\(SamplingRate 1000 x ratio must not exceed 65535\)')
        self.assertEqual((self.get('SamplingRate'), self.get('OversamplingRatio')), (1000, 5))
        # One question per call: the re-run took the verdict kept for its message, it did not ask again.
        checks = [c for c in self.polkit_obj.GetCalls() if c[1] == 'CheckAuthorization']
        self.assertEqual(len(checks), 2, checks)

    # Suspend

    def test_logind_prepare_for_sleep(self):
        logind_obj = self.start_logind()
        self.start_polkit()
        self.start_daemon()
        manager = self.bus.proxy('org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager')
        self.assertEventually(lambda: any(i[1] == 'tpacceld' and i[3] == 'delay'
                                          for i in manager.ListInhibitors()), message='delay inhibitor taken')
        self.accel.Claim()
        self.assertTrue(self.get('Polling'))
        logind_obj.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [GLib.Variant('b', True)])
        self.assertEventually(lambda: self.get('Suspended'))
        self.assertFalse(self.get('Polling'), 'no polling while asleep')
        self.assertEventually(lambda: not any(i[1] == 'tpacceld' for i in manager.ListInhibitors()),
                              message='the lock is released before sleep')
        self.assertIn('Going to sleep: powering the accelerometer off', self.daemon_log())
        logind_obj.EmitSignal('org.freedesktop.login1.Manager', 'PrepareForSleep', 'b', [GLib.Variant('b', False)])
        self.assertEventually(lambda: not self.get('Suspended'))
        self.assertTrue(self.get('Polling'), 'polling resumes for the claimant')
        self.assertEventually(lambda: any(i[1] == 'tpacceld' for i in manager.ListInhibitors()),
                              message='the lock is taken again after resume')
        self.assertGreater(len(self.collect_samples(0.5)), 5)

    def test_without_logind_warns_and_runs(self):
        self.start_polkit()
        self.start_daemon()
        self.assertEventually(lambda: 'logind is not available' in self.daemon_log())
        self.assertFalse(self.get('Suspended'))
        self.accel.Claim()
        self.assertGreater(len(self.collect_samples(0.5)), 5)

    # Backends

    def test_no_accelerometer(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon(backend='auto')
        p = self.props.GetAll(IFACE)
        self.assertFalse(p['HasAccelerometer'])
        self.assertEqual(p['Backend'], '')
        self.assertIn('no accelerometer', p['BackendReason'])
        self.assertDBusError('org.thinkpad.Accelerometer.Error.NoAccelerometer', self.accel.Claim)
        self.assertDBusError('org.thinkpad.Accelerometer.Error.NoAccelerometer', self.accel.SetSamplingRate,
                             20)
        self.assertEqual(tuple(self.get('Position')), (0, 0))

    def test_emulated_accelerometer_absent(self):
        self.start_polkit()
        self.start_daemon('--sim-fault=absent')
        self.assertFalse(self.get('HasAccelerometer'))
        self.assertIn('initializing the accelerometer failed', self.get('BackendReason'))

    def test_ec_refusing_configuration(self):
        self.start_polkit([CONFIGURE, EC_RAW])
        self.start_daemon('--sim-fault=pending:1')
        # A configuration the EC keeps pending does not fail init. The emulated EC already runs
        # the default configuration after boot (EC rate 250, order 2): the device polls with it
        # (test-hdaps.c test_pending_configuration_degrades covers a configuration the EC does not run).
        self.assertTrue(self.get('HasAccelerometer'), 'init polls with the configuration the EC reports')
        self.assertIn('already runs it (EC rate 250, filter order 2)', self.daemon_log())
        self.assertIn('the EC keeps the configuration change pending (0x10 answers 0x06)', self.get('BackendReason'))
        self.assertDBusError(BUSY, self.accel.SetSamplingRate,
                             20)
        self.assertEqual(self.get('SamplingRate'), 50, 'nothing changes on an EC refusal')
        data = self.ec.ReadRow(1, row(0x13), 3)
        self.assertEqual(data[1], 1, 'raw EC access still works')

    def test_ec_busy_maps_to_busy_error(self):
        self.start_polkit([EC_RAW])
        self.start_daemon('--sim-fault=busy:1')
        self.assertFalse(self.get('HasAccelerometer'))
        self.assertDBusError(BUSY, self.ec.ReadRow, 1, row(0x13),
                             3)
        self.assertIsNone(self.daemon.poll())

    def test_oversampling_and_filter_order_read_from_the_ec(self):
        self.start_polkit([CONFIGURE])
        self.start_daemon()
        self.assertIn('EC configuration read back (0x17/0x82): EC rate 250, filter order 2', self.daemon_log())
        self.accel.SetOversamplingRatio(3)
        self.accel.SetFilterOrder(4)
        self.assertEqual(self.get('OversamplingRatio'), 3)
        self.assertEqual(self.get('FilterOrder'), 4)
        log = self.daemon_log()
        # Each change is read back from the EC (waiting out its "change pending").
        self.assertIn('EC configuration read back (0x17/0x82): EC rate 150, filter order 2', log)
        self.assertIn('EC configuration read back (0x17/0x82): EC rate 150, filter order 4', log)

    def test_ec_self_test_failure_is_the_reason(self):
        # An EC that does not answer (every request left silent for 10 ms, far beyond the transport's
        # wait) fails thinkpad_ec's self-test, which runs before anything else, and BackendReason says
        # so. (bad-status shows only until the reply is ready, so a slow host, e.g. under ASan, may
        # never see it.)
        self.start_polkit()
        self.start_daemon('--sim-fault=silent:1')
        self.assertFalse(self.get('HasAccelerometer'))
        reason = self.get('BackendReason')
        self.assertIn('the EC self-test (battery status row 0x01', reason)
        self.assertIn('Input/output error', reason)

    def test_failing_ec_stops_polling(self):
        # The contract of HardwareState and LastError: the EC stops answering 1 s after start: a few
        # failed ticks ("failing"), then polling stops ("stopped", logged once), reported by
        # PropertiesChanged. The re-initialization back-off and the recovery are the daemon core's:
        # tests/daemon/test-poller.c, in virtual time.
        self.start_polkit()
        self.start_daemon('--sim-fault=silent@1-3600')
        self.assertEqual(self.get('HardwareState'), 'ok')
        self.assertEqual(self.get('LastError'), '')
        states = []
        m = self.bus.subscribe_signal(
            lambda iface, changed, inval: states.append(str(changed['HardwareState']))
            if 'HardwareState' in changed else None,
            PROPERTIES_IFACE, 'PropertiesChanged', path=PATH)
        self.accel.Claim()
        self.assertEventually(lambda: self.get('HardwareState') == 'stopped')
        self.assertFalse(self.get('Polling'), 'polling stopped')
        self.assertIn('not polling: the hardware failed', self.get('EffectiveRateReason'))
        self.assertIn('reading the accelerometer failed', self.get('LastError'))
        self.assertEventually(lambda: states[:2] == ['failing', 'stopped'])
        m.remove()
        self.assertEqual(self.daemon_log().count('polling stopped'), 1)

    # Command line

    def test_dump(self):
        p = subprocess.run([TPACCELD, '--backend=sim', '--dump=10', '--state-dir=' + self.state_dir],
                           capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], 'time_ms,x,y,temperature,keyboard,mouse')
        self.assertEqual(len(lines), 11)
        times = [float(line.split(',')[0]) for line in lines[1:]]
        self.assertEqual(times[0], 0.0)
        self.assertAlmostEqual(times[-1] / 9, 20.0, delta=4.0, msg='50 Hz')
        p = subprocess.run([TPACCELD, '--backend=sim', '--sim-fault=absent', '--dump=3',
                            '--state-dir=' + self.state_dir], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 1)
        self.assertIn('no accelerometer', p.stderr)

    def test_bad_options_exit_2(self):
        for args, word in ((['--bogus'], '--bogus'), (['--backend=x'], '--backend=x'), (['--dump=0'], '--dump'),
                           (['--dump=abc'], '--dump'), (['--dump=+5'], '--dump'), (['--dump= 5'], '--dump'),
                           (['--exit-idle-time=+5'], '--exit-idle-time'),
                           (['--exit-idle-time=0x10'], '--exit-idle-time'),
                           (['--sim-fault=melt', '--backend=sim'], 'melt'),
                           (['--sim-fault=busy:0x1', '--backend=sim'], '0x1'),
                           (['--trace=x.csv'], '--trace'), (['--system', '--session'], '--session'),
                           (['--state-dir'], '--state-dir'), (['extra'], 'extra')):
            p = subprocess.run([TPACCELD] + args, capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(word, p.stderr, args)
        p = subprocess.run([TPACCELD, '--help'], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0)
        self.assertIn('--backend=KIND', p.stdout)
        p = subprocess.run([TPACCELD, '--version'], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertRegex(p.stdout, r'^tpacceld \d+\.\d+')

    def test_bad_trace_file(self):
        bad = os.path.join(self.state_dir, 'bad.csv')
        with open(bad, 'w') as f:
            f.write('nonsense\n')
        p = subprocess.run([TPACCELD, '--backend=sim', '--trace=' + bad, '--dump=1', '--state-dir=' + self.state_dir],
                           capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 1)
        self.assertIn('bad.csv:1', p.stderr)


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
