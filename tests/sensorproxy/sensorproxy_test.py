#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""net.hadess.SensorProxy on tpacceld: the daemon on the EC emulator replaying a rotation trace, under
umockdev-run with a fake thinkpad_acpi tablet-mode switch (tablet-mode.ioctl / laptop-mode.ioctl, and
fold-and-unfold.events for a switch that moves), on the private system bus of tests/bus. Each test method
is its own meson test (FILE/METHOD; tests/lib/list-tests.py lists them)."""

import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

from gi.repository import Gio, GLib

from daemontest import PROPERTIES_IFACE, TIMEOUT, TpaccelTestBase, error_message, error_name

HERE = os.path.dirname(os.path.abspath(__file__))
TOUR = os.path.join(HERE, 'tablet-tour.csv')
TRACES = os.path.join(HERE, '..', 'traces')
CLIENT = os.path.join(HERE, 'rotation-client.py')
SP_NAME = 'net.hadess.SensorProxy'
SP_PATH = '/net/hadess/SensorProxy'
SP_IFACE = 'net.hadess.SensorProxy'
COMPASS_PATH = '/net/hadess/SensorProxy/Compass'
COMPASS_IFACE = 'net.hadess.SensorProxy.Compass'
ACCEL_IFACE = 'org.thinkpad.Accelerometer'
TOUR_TABLET = ['normal', 'left-up', 'normal', 'right-up', 'normal', 'bottom-up', 'normal']


def tour_seconds():
    """How long the tour lasts (its last row's time), and 0.6 s for its last readouts to come."""
    with open(TOUR) as f:
        last = [line for line in f if line[0].isdigit()][-1]
    return float(last.split(',')[0]) / 1000 + 0.6


TOUR_SECONDS = tour_seconds()


def sequence(out):
    """The orientations the rotation client reported, each change once."""
    seen = []
    for line in out.splitlines():
        if line.startswith(('claimed: ', 'orientation: ')):
            v = line.split(': ', 1)[1]
            if not seen or seen[-1] != v:
                seen.append(v)
    return seen


def tour_expectation(mode):
    with open(TOUR) as f:
        for line in f:
            m = re.match(r'# expect: screen-orientation %s (\S+)' % mode, line)
            if m:
                return m.group(1).split(',')
    raise AssertionError('no expectation for %s in %s' % (mode, TOUR))


class SensorProxyTest(TpaccelTestBase):
    def start_proxy_daemon(self, *args, switch='tablet', events=None, trace=TOUR, wait_proxy=True):
        """tpacceld under umockdev-run; switch: 'tablet', 'laptop' or None (no switch device at all)."""
        prefix = []
        if switch:
            prefix = ['umockdev-run', '-d', os.path.join(HERE, 'thinkpad-extra-buttons.umockdev'),
                      '-i', '/dev/input/event5=' + os.path.join(HERE, switch + '-mode.ioctl')]
            if events:
                prefix += ['-e', '/dev/input/event5=' + os.path.join(HERE, events)]
            prefix.append('--')
        cmd = prefix + [os.environ.get('TPACCELD'), '-v', '--state-dir=' + self.state_dir, '--backend=sim']
        if trace:
            cmd.append('--trace=' + trace)
        cmd += list(args)
        self.log = open(self.log_path, 'a')
        self.daemon = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_for_name()
        if wait_proxy:
            self.assertEventually(lambda: self.bus.name_has_owner(SP_NAME) or self.daemon.poll() is not None)
            self.assertIsNone(self.daemon.poll(), 'tpacceld exited at startup')
        if wait_proxy:
            self.sp = self.bus.proxy(SP_NAME, SP_PATH, SP_IFACE)
            self.sp_props = self.bus.proxy(SP_NAME, SP_PATH, PROPERTIES_IFACE)
        self.accel_props = self.bus.proxy('org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer',
                                          PROPERTIES_IFACE)

    def run_client(self, seconds, cmd=None):
        cmd = cmd or ['/usr/bin/python3', CLIENT, str(seconds)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + TIMEOUT)
        return p.stdout + p.stderr

    def run_client_until(self, done, seconds=30):
        """The client's output until done(output) holds, and 0.5 s more for anything that should not
        come; at most `seconds`."""
        p = subprocess.Popen(['/usr/bin/python3', CLIENT, str(seconds)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        out, terminated = [], False
        for line in p.stdout:  # to EOF: the client ends after `seconds` at the latest
            out.append(line)
            if not terminated and done(''.join(out)):
                time.sleep(0.5)
                p.terminate()
                terminated = True
        p.wait(TIMEOUT)
        return ''.join(out)

    def orientations(self, out):
        """The sequence of orientations the client's state went through (its claim reply and its
        PropertiesChanged handler may both report the first value)."""
        self.assertEqual(sum(l.startswith('claimed: ') for l in out.splitlines()), 1, out)
        seen = sequence(out)
        self.assertNotIn('undefined', seen, 'a Get right after the Claim reply must be valid:\n' + out)
        return seen

    # Interface

    def test_all_properties_with_exact_types(self):
        self.start_proxy_daemon()
        typed = self.bus.get_all_variants(SP_NAME, SP_PATH, SP_IFACE)
        got = {k: v.unpack() for k, v in typed.items()}
        want = {'HasAccelerometer': 'b', 'AccelerometerOrientation': 's', 'AccelerometerTilt': 's',
                'HasAmbientLight': 'b', 'LightLevelUnit': 's', 'LightLevel': 'd', 'HasProximity': 'b',
                'ProximityNear': 'b'}
        self.assertEqual(set(got), set(want))
        for name, typ in want.items():
            self.assertEqual(typed[name].get_type_string(), typ, name)
        self.assertEqual(got['HasAccelerometer'], True)
        self.assertEqual(got['AccelerometerOrientation'], 'undefined')  # nobody claimed yet
        self.assertEqual((got['HasAmbientLight'], got['HasProximity'], got['ProximityNear']), (False,) * 3)
        self.assertEqual(got['LightLevelUnit'], 'lux')
        compass = self.bus.get_all_variants(SP_NAME, COMPASS_PATH, COMPASS_IFACE)
        self.assertEqual({k: v.unpack() for k, v in compass.items()}, {'HasCompass': False, 'CompassHeading': -1.0})
        self.assertEqual(compass['HasCompass'].get_type_string(), 'b')
        self.assertEqual(compass['CompassHeading'].get_type_string(), 'd')
        # every method succeeds, present sensor or not
        sp = self.sp
        for m in ('ClaimLight', 'ReleaseLight', 'ClaimProximity', 'ReleaseProximity', 'ReleaseAccelerometer'):
            getattr(sp, m)()
        c = self.bus.proxy(SP_NAME, COMPASS_PATH, COMPASS_IFACE)
        c.ClaimCompass()
        c.ReleaseCompass()

    def test_claim_replies_after_first_reading(self):
        self.start_proxy_daemon()
        con = self.new_connection()
        con.proxy(SP_NAME, SP_PATH, SP_IFACE).ClaimAccelerometer()
        # a Get right after the reply is valid (iio-sensor-proxy 3.6 semantics)
        self.assertEqual(con.proxy(SP_NAME, SP_PATH, PROPERTIES_IFACE).Get(SP_IFACE, 'AccelerometerOrientation'),
                         'normal')
        con.close()

    def test_claims_keep_polling_like_accelerometer_claims(self):
        self.start_proxy_daemon()
        a, b = self.new_connection(), self.new_connection()
        sp_a = a.proxy(SP_NAME, SP_PATH, SP_IFACE)
        accel_b = b.proxy('org.thinkpad.Accelerometer', '/org/thinkpad/Accelerometer', ACCEL_IFACE)
        claimed = lambda: bool(self.accel_props.Get(ACCEL_IFACE, 'Polling'))
        self.assertFalse(claimed())
        sp_a.ClaimAccelerometer()
        sp_a.ClaimAccelerometer()  # twice is one claim, as in iio-sensor-proxy
        self.assertTrue(claimed())
        # Rotation needs 20 Hz (the 250 ms debounce plus 100 ms), not the full SamplingRate.
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'EffectiveRate'), 20)
        self.assertIn(SP_NAME, self.accel_props.Get(ACCEL_IFACE, 'EffectiveRateReason'))
        accel_b.Claim()
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'EffectiveRate'), 50)
        sp_a.ReleaseAccelerometer()
        self.assertTrue(claimed(), 'the org.thinkpad.Accelerometer claim keeps polling on')
        sp_a.ClaimAccelerometer()
        accel_b.Release()
        self.assertTrue(claimed(), 'the net.hadess.SensorProxy claim keeps polling on')
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'EffectiveRate'), 20)
        a.close()  # leaving the bus releases the claim
        self.assertEventually(lambda: not claimed())
        b.close()

    def test_claimers_bounded(self):
        # Each claiming connection is a match rule on the name's connection (dbus-daemon closes it past
        # 512, and the daemon with it): at most 64 (bus-sensorproxy.h), the last 16 for privileged
        # callers like root; the excess is refused naming the bound, claims of the same connection again
        # are no new claimer.
        # Run by another user than root, the per-user bound (8) comes first (test_sensorproxy_limits.py
        # checks it as nobody next to root).
        bound, text = (64, 'bound of 64 claiming connections') if os.geteuid() == 0 else \
            (8, 'per-user bound of 8 claiming connections')
        self.start_proxy_daemon()
        cons, answers = [], {}
        for _ in range(bound + 6):
            con = self.new_connection()
            cons.append(con)
            sp = con.proxy(SP_NAME, SP_PATH, SP_IFACE)
            try:
                sp.ClaimAccelerometer()
                answers['ok'] = answers.get('ok', 0) + 1
            except GLib.Error as e:
                answers[error_name(e)] = answers.get(error_name(e), 0) + 1
                self.assertIn(text, error_message(e))
        self.assertEqual(answers, {'ok': bound, 'org.freedesktop.DBus.Error.LimitsExceeded': 6})
        cons[0].proxy(SP_NAME, SP_PATH, SP_IFACE).ClaimAccelerometer()
        self.assertIsNone(self.daemon.poll())
        for con in cons:
            con.close()
        self.assertEventually(lambda: not self.accel_props.Get(ACCEL_IFACE, 'Polling'))

    # Rotation

    def test_mutter_client_and_monitor_sensor_see_every_rotation_in_tablet_mode(self):
        # Both clients on the one tour: mutter's way (rotation-client.py) and iio-sensor-proxy's own
        # monitor-sensor. (In laptop mode a claim polls nothing and the orientation stays normal:
        # test_laptop_mode_claim_does_not_poll, and tests/daemon/test-screen-orientation.c.)
        self.start_proxy_daemon(switch='tablet')
        monitor = subprocess.Popen(['timeout', str(TOUR_SECONDS), 'monitor-sensor'], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        out = self.run_client(TOUR_SECONDS)
        monitor_out, monitor_err = monitor.communicate(timeout=TOUR_SECONDS + TIMEOUT)
        self.assertIn('appeared HasAccelerometer=true', out)
        self.assertEqual(self.orientations(out), tour_expectation('tablet'), out)
        self.assertEqual(tour_expectation('tablet'), TOUR_TABLET)
        self.assertIn('=== Has accelerometer', monitor_out)
        changes = re.findall(r'Accelerometer orientation changed: (\S+)', monitor_out)
        self.assertEqual(changes, TOUR_TABLET, monitor_out + monitor_err)

    def test_laptop_mode_claim_does_not_poll(self):
        # In laptop mode the screen's orientation is pinned to "normal", yet a desktop's
        # rotation claim (mutter claims whenever rotation is unlocked) kept polling at 20 Hz all day.
        self.start_proxy_daemon(switch='laptop')
        con = self.new_connection()
        sp = con.proxy(SP_NAME, SP_PATH, SP_IFACE)
        sp.ClaimAccelerometer()
        self.assertEqual(self.sp_props.Get(SP_IFACE, 'AccelerometerOrientation'), 'normal',
                         'valid right after the claim, without a readout')
        self.assertEqual(self.sp_props.Get(SP_IFACE, 'AccelerometerTilt'), 'undefined')
        self.assertEqual(tour_expectation('laptop'), ['normal'])
        time.sleep(0.5)
        self.assertFalse(self.accel_props.Get(ACCEL_IFACE, 'Polling'), 'a laptop-mode claim polls nothing')
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'EffectiveRate'), 0)
        self.assertEqual(self.sp_props.Get(SP_IFACE, 'HasAccelerometer'), True)
        sp.ReleaseAccelerometer()
        con.close()

    def test_fold_starts_and_unfold_stops_rotation_polling(self):
        # The switch folds into tablet mode 0.5 s after it is opened and back 4 s later
        # (fold-and-unfold.events); the claim is held throughout.
        self.start_proxy_daemon(switch='laptop', events='fold-and-unfold.events')
        con = self.new_connection()
        sp = con.proxy(SP_NAME, SP_PATH, SP_IFACE)
        sp.ClaimAccelerometer()
        polling = lambda: bool(self.accel_props.Get(ACCEL_IFACE, 'Polling'))
        self.assertEventually(polling, message='folded into a tablet: polling for rotation')
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'EffectiveRate'), 20)
        self.assertEventually(lambda: not polling(), message='back in laptop mode: no polling')
        self.assertEqual(self.sp_props.Get(SP_IFACE, 'AccelerometerOrientation'), 'normal')
        self.assertIn('Folded into a tablet: polling for the screen', self.daemon_log())
        self.assertIn('Back in laptop mode: the screen', self.daemon_log())
        con.close()

    def test_without_switch_device_has_no_accelerometer(self):
        # No tablet-mode switch: the screen never rotates, so there is no accelerometer to rotate by and
        # nothing polls for rotation (a claim at 20 Hz all day for an orientation that is always
        # "normal" was the old behaviour).
        empty = tempfile.mkdtemp(dir=self.state_dir)
        self.start_proxy_daemon('--input-dir=' + empty, switch=None)
        self.assertEqual(self.sp_props.Get(SP_IFACE, 'HasAccelerometer'), False)
        self.assertEqual(self.sp_props.Get(SP_IFACE, 'AccelerometerOrientation'), 'undefined')
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'HasAccelerometer'), True, 'tpaccel itself has one')
        out = self.run_client_until(lambda out: 'not claiming' in out)
        self.assertIn('appeared HasAccelerometer=false', out)
        self.assertIn('not claiming: no accelerometer', out)
        # A client claiming anyway gets success (iio-sensor-proxy's answer for an absent sensor), no polling.
        sp = self.sp
        sp.ClaimAccelerometer()
        time.sleep(0.3)
        self.assertFalse(self.accel_props.Get(ACCEL_IFACE, 'Polling'))
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'EffectiveRate'), 0)
        sp.ReleaseAccelerometer()
        self.assertIn('No tablet-mode switch (SW_TABLET_MODE) in %s: this machine cannot turn into a tablet'
                      % empty, self.daemon_log())
        self.assertIn('net.hadess.SensorProxy says HasAccelerometer false', self.daemon_log())

    def test_switch_events_are_followed(self):
        # The base is rolled right side up from 2.0 to 5.8 s (rotate-right-up); the switch folds into tablet
        # mode at 0.5 s and back into laptop mode at 4.5 s, while the base is still rolled.
        self.start_proxy_daemon(switch='laptop', events='fold-and-unfold.events',
                                trace=os.path.join(TRACES, 'rotate-right-up.csv'))
        out = self.run_client_until(lambda out: len(sequence(out)) == 3)
        self.assertEqual(self.orientations(out), ['normal', 'left-up', 'normal'], out)
        log = self.daemon_log()
        self.assertIn('Tablet-mode switch /dev/input/event5: laptop mode', log)
        self.assertLess(log.index('Tablet-mode switch: tablet mode'), log.index('Tablet-mode switch: laptop mode'))

    # Name

    def test_name_owned_by_iio_sensor_proxy(self):
        squatter = self.new_connection()
        squatter.request_name(SP_NAME, Gio.BusNameOwnerFlags.DO_NOT_QUEUE)
        self.start_proxy_daemon('--sensor-proxy=yes', wait_proxy=False)
        self.assertEventually(lambda: 'is owned by another service' in self.daemon_log())
        log = self.daemon_log()
        self.assertEqual(log.count(SP_NAME + ' is owned by another service'), 1, log)
        self.assertEqual(self.bus.get_name_owner(SP_NAME), squatter.get_unique_name())
        self.assertEqual(self.accel_props.Get(ACCEL_IFACE, 'HasAccelerometer'), True)  # carries on
        squatter.close()

    def test_auto_leaves_a_running_iio_sensor_proxy_alone(self):
        squatter = self.new_connection()
        squatter.request_name(SP_NAME, Gio.BusNameOwnerFlags.DO_NOT_QUEUE)
        self.start_proxy_daemon(wait_proxy=False)
        self.assertEventually(lambda: 'iio-sensor-proxy is running' in self.daemon_log())
        self.assertEqual(self.bus.get_name_owner(SP_NAME), squatter.get_unique_name())
        squatter.close()
        time.sleep(0.3)
        self.assertFalse(self.bus.name_has_owner(SP_NAME), 'auto decides once, at start')

    def test_sensor_proxy_no(self):
        self.start_proxy_daemon('--sensor-proxy=no', wait_proxy=False)
        time.sleep(0.3)
        self.assertFalse(self.bus.name_has_owner(SP_NAME))

    def test_bad_sensor_proxy_option(self):
        for args, msg in ((['--sensor-proxy=maybe'], '--sensor-proxy=maybe: expected auto, yes or no'),
                          (['--input-dir='], '--input-dir: the directory name is empty')):
            p = subprocess.run([os.environ.get('TPACCELD'), '--backend=sim'] + args, capture_output=True,
                               text=True, timeout=TIMEOUT)
            self.assertEqual(p.returncode, 2)
            self.assertIn(msg, p.stderr)


if __name__ == '__main__':
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
