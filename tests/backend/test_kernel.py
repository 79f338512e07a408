#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpacceld on the kernel backend and the automatic backend choice, on fake machines (fake_hdaps.py)
given to the daemon with --sysroot, on a private system bus with dbusmock's polkitd (the fixture of
tests/lib/daemontest.py). Each test method is its own meson test (FILE/METHOD; tests/lib/list-tests.py)."""

import os
import shutil
import subprocess
import time
import unittest

from daemontest import (CALIBRATE, CONFIGURE, EC_RAW, IFACE, PATH, PROPERTIES_IFACE, TIMEOUT, TpaccelTestBase,
                        error_message, row)
from fake_hdaps import FakeMachine

NOT_SUPPORTED = 'org.thinkpad.Accelerometer.Error.NotSupported'
NO_ACCEL = 'org.thinkpad.Accelerometer.Error.NoAccelerometer'
WATCH_SECONDS = 2 + 1  # backend-watch.h's interval, plus slack


def axis(code, x, y):
    """hdaps-models.h: swap first, then bit 0 negates both, then bit 1 negates X."""
    if code & 4:
        x, y = y, x
    if code & 1:
        x, y = -x, -y
    if code & 2:
        x = -x
    return x, y


class KernelTest(TpaccelTestBase):
    def setUp(self):
        super().setUp()
        self.machine = FakeMachine(os.path.join(self.state_dir, 'root'))

    def start(self, *args, backend='auto', **kwargs):
        self.start_daemon('--sysroot=' + self.machine.root, *args, backend=backend, **kwargs)

    def changed_properties(self):
        """Collects PropertiesChanged on the accelerometer object into a list of dicts."""
        seen = []
        self.bus.subscribe_signal(lambda iface, changed, inval: seen.append(dict(changed)), PROPERTIES_IFACE,
                                  'PropertiesChanged', path=PATH)
        return seen

    # Properties

    def test_mainline_properties(self):
        # A T60 (model axis code 1: -X,-Y); the driver negates X itself (invert=1).
        self.machine.thinkpad(model='ThinkPad T60').mainline(position=(100, -50), invert=1, temp=41)
        self.start_polkit()
        self.start()
        p = self.props.GetAll(IFACE)
        self.assertTrue(p['HasAccelerometer'])
        self.assertEqual(p['Backend'], 'kernel')
        self.assertIn("kernel's mainline hdaps driver is loaded", p['BackendReason'])
        self.assertEqual(p['Model'], 'ThinkPad T60')
        self.assertEqual(p['AxisCode'], 1)
        # hardware = (-100, -50) (undo the driver's X negation); then the model's code 1.
        self.assertEqual(tuple(p['Position']), axis(1, -100, -50))
        self.assertEqual(p['Temperature'], 41)
        self.assertEqual(p['Polling'], False)
        self.assertIn('Backend kernel: auto:', self.daemon_log())

    def test_tp_smapi_properties(self):
        # hdapsd's recorded tp_smapi snapshot: position (-498,-439), invert 5 (-Y,-X), on an X220 (code 4).
        self.machine.thinkpad(model='ThinkPad X220').tp_smapi(position=(-498, -439), invert=5, temp=34)
        self.start_polkit()
        self.start()
        self.assertEqual(self.get('Backend'), 'kernel')
        self.assertIn('tp_smapi', self.get('BackendReason'))
        self.assertEqual(self.get('AxisCode'), 4)
        # invert 5 maps hardware (hx, hy) to (-hy, -hx): hardware = (439, 498).
        self.assertEqual(tuple(self.get('Position')), axis(4, 439, 498))
        self.assertEqual(self.get('Temperature'), 34)
        # The daemon's configuration was applied to the driver's attributes.
        self.assertEqual(self.machine.get_attr('sampling_rate'), str(self.get('SamplingRate')))
        self.assertEqual(self.machine.get_attr('oversampling_ratio'), str(self.get('OversamplingRatio')))
        self.assertEqual(self.machine.get_attr('running_avg_filter_order'), str(self.get('FilterOrder')))

    def test_activity_while_claimed(self):
        self.machine.thinkpad().tp_smapi()
        self.start_polkit()
        self.start()
        self.accel.Claim()
        self.assertFalse(self.get('KeyboardActivity'))
        self.machine.attr('keyboard_activity', '1')
        self.assertEventually(lambda: self.get('KeyboardActivity'))
        self.assertFalse(self.get('MouseActivity'))
        self.machine.attr('keyboard_activity', '0')
        self.machine.attr('mouse_activity', '1')
        self.assertEventually(lambda: self.get('MouseActivity') and not self.get('KeyboardActivity'))

    # Signals

    def test_samples_and_tilt_while_claimed(self):
        self.machine.thinkpad(model='ThinkPad T60').tp_smapi(position=(0, 0), invert=1)
        self.start_polkit()
        self.start()
        tilts = []
        self.bus.subscribe_signal(lambda p, r, o: tilts.append((float(p), float(r), str(o))), IFACE, 'Tilt',
                                  path=PATH)
        self.assertEqual(self.collect_samples(0.5), [], 'no Sample without a claim')
        self.accel.Claim()
        self.assertTrue(self.get('Polling'))
        samples = self.collect_samples(1.0)
        self.assertGreater(len(samples), 30, 'about 50 Hz')
        self.assertLess(len(samples), 70)
        self.assertTrue(all((x, y) == (0, 0) for _, x, y in samples))
        self.assertTrue(all(b[0] > a[0] for a, b in zip(samples, samples[1:])), 'timestamps increase')

        # Tilt by about 30 degrees (157 counts per g): the driver reports it, Tilt follows.
        self.machine.set_position(-80, 0)
        self.assertEventually(lambda: len(tilts) > 0)
        samples = self.collect_samples(0.3)
        self.assertTrue(samples and all((x, y) == axis(1, -1 * -80, 0) or (x, y) == (80, 0)
                                        for _, x, y in samples[-3:]), samples[-3:])
        pitch, roll = self.get('Pitch'), self.get('Roll')
        self.assertGreater(max(abs(pitch), abs(roll)), 15, (pitch, roll))
        self.accel.Release()
        self.assertEventually(lambda: not self.get('Polling'))

    def test_tp_smapi_raw_input_device_while_claimed(self):
        # tp_smapi's raw input device is read while polling runs; sysfs position is not.
        self.machine.thinkpad(model='ThinkPad T60').tp_smapi(position=(5, 5), invert=0)
        fd = self.machine.raw_input_device()
        self.addCleanup(os.close, fd)
        self.start_polkit()
        self.start()
        self.accel.Claim()
        self.assertEventually(lambda: self.collect_samples(0.1)[-1:] and
                              self.collect_samples(0.1)[-1][1:] == axis(1, 5, 5))
        self.machine.set_position(999, 999)  # what a sysfs read would see: must not show up
        self.machine.send_position(fd, 100, -40)
        self.assertEventually(lambda: self.collect_samples(0.1)[-1][1:] == axis(1, 100, -40))
        self.assertFalse(any(s[1:] == axis(1, 999, 999) for s in self.collect_samples(0.3)))
        self.assertIn('Reading the accelerometer from %s/dev/input/event7' % self.machine.root, self.daemon_log())

        # Without a claim the device is closed (the driver stops polling the EC), and Position is read
        # from sysfs on demand.
        self.accel.Release()
        self.assertEventually(lambda: not self.get('Polling'))
        self.assertEventually(lambda: tuple(self.get('Position')) == axis(1, 999, 999))

    def test_shock_on_kernel_backend(self):
        self.machine.thinkpad().tp_smapi(position=(0, 0), invert=0)
        self.start_polkit()
        self.start()
        shocks = []
        self.bus.subscribe_signal(lambda m, t, r: shocks.append(float(m)), IFACE, 'Shock', path=PATH)
        self.accel.Claim()
        self.collect_samples(1.5)  # the shock detector learns the quiet background
        for i in range(20):  # a hard knock: +-1.5 g swings every 20 ms
            self.machine.set_position(240 if i % 2 else -240, 200 if i % 2 else -200)
            self.collect_samples(0.02)
        self.machine.set_position(0, 0)
        self.assertEventually(lambda: len(shocks) > 0, timeout=5)
        self.assertGreater(self.get('ShockCount'), 0)

    # NotSupported

    def test_mainline_not_supported_answers(self):
        self.machine.thinkpad().mainline()
        self.start_polkit([CONFIGURE, EC_RAW])
        self.start()
        e = self.assertDBusError(NOT_SUPPORTED, self.accel.SetSamplingRate, 25,
                                 message_re='mainline hdaps driver has no sampling_rate')
        self.assertIn('modprobe -r hdaps', error_message(e))
        self.assertIn('blacklist', error_message(e))
        self.assertDBusError(NOT_SUPPORTED, self.accel.SetOversamplingRatio, 2,
                             message_re='no oversampling_ratio')
        self.assertDBusError(NOT_SUPPORTED, self.accel.SetFilterOrder, 3,
                             message_re='no running_avg_filter_order')
        self.assertDBusError(NOT_SUPPORTED, self.accel.SetFakeDataMode, True, message_re='no fake_data_mode')
        self.assertDBusError(NOT_SUPPORTED, self.ec.ReadRow, 1, row(0x13), 3,
                             message_re='owns the EC ports, so there is no raw EC access')
        # Nothing changed.
        self.assertEqual(self.get('SamplingRate'), 50)
        self.assertEqual(self.get('OversamplingRatio'), 5)
        self.assertEqual(self.get('FilterOrder'), 2)
        self.assertFalse(self.get('FakeDataMode'))
        self.assertFalse(os.path.exists(self.machine.path('sys/devices/platform/hdaps/sampling_rate')))

    def test_tp_smapi_configuration_maps_to_attributes(self):
        self.machine.thinkpad().tp_smapi()
        self.start_polkit([CONFIGURE, EC_RAW])
        self.start()
        self.accel.SetSamplingRate(25)
        self.assertEqual(self.machine.get_attr('sampling_rate'), '25')
        self.assertEqual(self.get('SamplingRate'), 25)
        self.accel.SetOversamplingRatio(8)
        self.assertEqual(self.machine.get_attr('oversampling_ratio'), '8')
        self.accel.SetFilterOrder(6)
        self.assertEqual(self.machine.get_attr('running_avg_filter_order'), '6')
        self.assertDBusError(NOT_SUPPORTED, self.accel.SetFakeDataMode, True,
                             message_re="tp_smapi's hdaps has no fake_data_mode since version 0.38")
        self.assertDBusError(NOT_SUPPORTED, self.ec.ReadRow, 1, row(0x13), 3)
        # Bad input is refused before the driver sees it.
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.accel.SetSamplingRate,
                             0)
        self.assertEqual(self.machine.get_attr('sampling_rate'), '25')

    def test_old_tp_smapi_fake_data_mode(self):
        self.machine.thinkpad().tp_smapi(fake_data_mode=False)
        self.start_polkit([CONFIGURE])
        self.start()
        self.accel.SetFakeDataMode(True)
        self.assertEqual(self.machine.get_attr('fake_data_mode'), '1')
        self.assertTrue(self.get('FakeDataMode'))

    def test_invert_and_calibrate(self):
        self.machine.thinkpad(model='ThinkPad T60').mainline(position=(30, 40), invert=0)
        self.start_polkit([CONFIGURE, CALIBRATE])
        self.start()
        before = tuple(self.get('Position'))
        self.assertEqual(before, axis(1, 30, 40))
        self.accel.SetInvert(True)
        self.assertEqual(self.get('AxisCode'), 0)
        self.assertEqual(tuple(self.get('Position')), (30, 40))
        self.machine.attr('calibrate', '(0,0)')
        self.accel.Calibrate()
        self.assertEqual(self.machine.get_attr('calibrate'), '1', 'the driver is recalibrated too')
        self.assertEventually(lambda: tuple(self.get('RestPosition')) == (30, 40))

    # Backend choice, one daemon per path

    def test_choice_kernel_driver_wins(self):
        # The driver is loaded and claims the ports; DMI says ThinkPad; /dev/port would be there.
        self.machine.thinkpad().mainline()
        self.machine.dev_port()
        self.start_polkit()
        self.start()
        self.assertEqual(self.get('Backend'), 'kernel')
        self.assertIn('unload and blacklist the module for the EC features', self.get('BackendReason'))

    def test_choice_ports_claimed_without_hdaps(self):
        self.machine.thinkpad()
        self.machine.claim_ports('thinkpad_ec')
        self.machine.load_module('thinkpad_ec')
        self.machine.dev_port()
        self.start_polkit()
        self.start()
        self.assertFalse(self.get('HasAccelerometer'))
        self.assertEqual(self.get('Backend'), '')
        reason = self.get('BackendReason')
        self.assertIn('in use by thinkpad_ec (ports 1600-161f in /proc/ioports)', reason)
        self.assertIn('load the hdaps module', reason)
        self.assertIn('serving HasAccelerometer=false', self.daemon_log())
        self.assertDBusError(NO_ACCEL, self.accel.Claim)

    def test_choice_not_a_thinkpad(self):
        self.machine.other_laptop()
        self.machine.dev_port()
        self.start_polkit()
        self.start()
        self.assertFalse(self.get('HasAccelerometer'))
        self.assertIn('neither the ThinkPad EC OEM string nor a known HDAPS model', self.get('BackendReason'))
        self.assertIn('no kernel hdaps driver is loaded', self.get('BackendReason'))

    def test_choice_ec_when_ports_free(self):
        # A ThinkPad with free ports: ioperm() (ENOSYS here, EPERM unprivileged) then /dev/port, which
        # here is a plain file: the EC backend is chosen, and its init finds no EC behind it.
        self.machine.thinkpad()
        self.machine.dev_port()
        self.start_polkit()
        self.start()
        reason = self.get('BackendReason')
        self.assertIn('the EC ports are free', reason)
        self.assertIn('so /dev/port is used', reason)
        self.assertIn('Backend ec-devport: auto:', self.daemon_log())

    def test_driver_appears_while_ec_chosen(self):
        # The EC backend was chosen (ports free); then 'modprobe hdaps' takes the ports: switch to it.
        self.machine.thinkpad()
        self.machine.dev_port()
        self.start_polkit()
        self.start()
        self.assertIn('so /dev/port is used', self.get('BackendReason'))
        seen = self.changed_properties()
        self.machine.mainline()
        self.assertEventually(lambda: self.get('HasAccelerometer'), timeout=WATCH_SECONDS + TIMEOUT)
        self.assertEqual(self.get('Backend'), 'kernel')
        self.assertIn('mainline hdaps driver appeared while tpacceld ran', self.get('BackendReason'))
        self.assertEventually(lambda: any(c.get('Backend') == 'kernel' for c in seen))

    def test_choice_no_port_access(self):
        self.machine.thinkpad()  # no dev/port
        self.start_polkit()
        self.start()
        self.assertFalse(self.get('HasAccelerometer'))
        self.assertRegex(self.get('BackendReason'), r'the EC ports are free, but ioperm\(\) on ports .* failed')

    def test_kernel_requested_without_driver(self):
        self.machine.thinkpad()
        self.start_polkit()
        p = subprocess.run([os.environ.get('TPACCELD'), '--backend=kernel', '--sysroot=' + self.machine.root,
                            '--state-dir=' + self.state_dir], capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 1)
        self.assertIn('there is no hdaps device at %s/sys/devices/platform/hdaps' % self.machine.root,
                      p.stdout + p.stderr)
        self.assertIn('load the hdaps or tp_smapi module', p.stdout + p.stderr)

    # Run time

    def test_driver_disappears_and_returns(self):
        self.machine.thinkpad().tp_smapi()
        self.start_polkit()
        self.start()
        seen = self.changed_properties()
        self.accel.Claim()
        self.assertTrue(self.get('Polling'))

        self.machine.remove_driver()  # modprobe -r hdaps thinkpad_ec
        self.assertEventually(lambda: not self.get('HasAccelerometer'), timeout=WATCH_SECONDS + TIMEOUT)
        self.assertEqual(self.get('Backend'), '')
        self.assertFalse(self.get('Polling'))
        reason = self.get('BackendReason')
        self.assertIn('the kernel hdaps driver went away (module unloaded)', reason)
        self.assertIn('no accelerometer', reason)
        self.assertIn('restart tpacceld to try the EC directly', reason)
        self.assertEventually(lambda: any('Backend' in c and 'HasAccelerometer' in c for c in seen))
        self.assertIn('No accelerometer: the kernel hdaps driver went away', self.daemon_log())

        # modprobe hdaps (mainline this time): switched back; the claim still holds, polling resumes.
        self.machine.mainline()
        self.assertEventually(lambda: self.get('HasAccelerometer'), timeout=WATCH_SECONDS + TIMEOUT)
        self.assertEqual(self.get('Backend'), 'kernel')
        self.assertIn('mainline hdaps driver appeared', self.get('BackendReason'))
        self.assertEventually(lambda: self.get('Polling'))
        self.assertGreater(len(self.collect_samples(0.5)), 10)

    def test_umockdev_tp_smapi_at_real_paths(self):
        # No --sysroot: the daemon reads /sys/devices/platform/hdaps, which umockdev-run redirects into
        # its testbed: tp_smapi's device with the values of hdapsd's recorded tests/hdaps.umockdev (2014).
        umockdev_run = shutil.which('umockdev-run')
        self.assertIsNotNone(umockdev_run, 'umockdev-run is needed (scripts/deps.sh installs umockdev)')
        device = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'hdaps-tp_smapi.umockdev')
        p = subprocess.run([umockdev_run, '-d', device, '--', os.environ.get('TPACCELD'), '--backend=kernel',
                            '--dump=3', '--state-dir=' + self.state_dir], capture_output=True, text=True,
                           timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('the kernel backend was requested (tp_smapi hdaps driver)', p.stdout + p.stderr)
        rows = [line.split(',') for line in p.stdout.splitlines()[1:]]
        self.assertEqual(len(rows), 3)
        for _, x, y, temp, kbd, mouse in rows:
            # The axis code depends on this host's DMI; the driver's invert 5 (swap) is undone in any case.
            self.assertEqual(sorted((abs(int(x)), abs(int(y)))), [439, 498])
            self.assertEqual((temp, kbd, mouse), ('34', '1', '1'))

    # Idle exit

    def test_exit_when_idle_without_accelerometer(self):
        self.machine.other_laptop()
        self.start_polkit()
        self.start('--exit-idle-time=2')
        start = time.monotonic()
        for _ in range(3):  # calls keep it up
            self.get('HasAccelerometer')
            time.sleep(1)
        self.assertIsNone(self.daemon.poll(), 'calls keep the daemon up')
        self.assertEqual(self.daemon.wait(TIMEOUT), 0)
        self.assertGreater(time.monotonic() - start, 4)
        log = self.daemon_log()
        self.assertIn('No accelerometer and no calls for 2 s: exiting', log)
        self.assertIn('Exiting (idle: no accelerometer and no calls)', log)  # not "(signal)"
        self.assertNotIn('Exiting (signal)', log)

    def test_bad_options(self):
        for args, message in ((['--exit-idle-time=-1'], '--exit-idle-time=-1: expected seconds'),
                              (['--exit-idle-time=x'], '--exit-idle-time=x: expected seconds'),
                              (['--sysroot='], '--sysroot: the directory name is empty'),
                              (['--backend=kernels'], 'expected auto, ioperm, devport, kernel or sim')):
            p = subprocess.run([os.environ.get('TPACCELD')] + args, capture_output=True, text=True,
                               timeout=TIMEOUT)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(message, p.stderr)


if __name__ == '__main__':
    unittest.main(verbosity=2)
