#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Who may drive the EC: one process per machine holds the EC lock, the refused one makes no
port access; --backend=ioperm/devport apply auto's safety checks unless --force; ReadRow serves only rows
that read. On a private system bus with dbusmock's polkitd (tests/lib/daemontest.py's fixture) and on fake
machines (tests/lib/fake_hdaps.py). Each test method is its own meson test (FILE/METHOD; tests/lib/list-tests.py)."""

import fcntl
import os
import pwd
import subprocess

from daemontest import (ACCESS_DENIED, CONFIGURE, EC_RAW, TIMEOUT, TPACCELD, TpaccelTestBase, error_message,
                        row)
from fake_hdaps import FakeMachine
import testmain  # tests/lib

PORT_LOG_HEADER = 'time_us,dir,port,value\n'


class EcAccessTest(TpaccelTestBase):
    def setUp(self):
        super().setUp()
        self.lock = os.path.join(self.state_dir, 'ec.lock')

    def run_tpacceld(self, *args, state='second'):
        """Runs a second tpacceld to completion with its own state directory; returns CompletedProcess."""
        state_dir = os.path.join(self.state_dir, state)
        os.makedirs(state_dir, exist_ok=True)
        return subprocess.run([TPACCELD, '-v', '--state-dir=' + state_dir] + list(args), capture_output=True,
                              text=True, timeout=TIMEOUT * 2)

    def port_log(self, name):
        return os.path.join(self.state_dir, name)

    def read(self, path):
        with open(path) as f:
            return f.read()

    # The EC lock

    def test_second_daemon_is_refused_naming_the_holder(self):
        self.start_polkit()
        self.start_daemon('--lock-file=' + self.lock)
        self.assertEqual(self.read(self.lock), '%d\n' % self.daemon.pid, 'the holder wrote its PID')
        log = self.port_log('second.csv')
        p = self.run_tpacceld('--backend=sim', '--lock-file=' + self.lock, '--port-log=' + log)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn('the EC is in use: PID %d (tpacceld) holds the lock %s' % (self.daemon.pid, self.lock),
                      p.stderr)
        self.assertEqual(self.read(log), PORT_LOG_HEADER, 'the refused daemon made no port access')
        self.assertIn('0 port accesses', p.stderr)
        self.assertNotIn('Serving', p.stderr, 'refused before the bus')
        self.assertNotIn('Accelerometer ready', p.stderr, 'refused before the hdaps init')
        # The first one runs on, undisturbed.
        self.assertIsNone(self.daemon.poll())
        self.accel.Claim()
        self.assertGreater(len(self.collect_samples(1.0)), 30)
        self.assertEqual(self.read(self.lock), '%d\n' % self.daemon.pid)

    def test_dump_is_refused_while_a_daemon_holds_the_lock(self):
        self.start_polkit()
        self.start_daemon('--lock-file=' + self.lock)
        log = self.port_log('dump.csv')
        p = self.run_tpacceld('--backend=sim', '--dump=5', '--lock-file=' + self.lock, '--port-log=' + log)
        self.assertEqual(p.returncode, 1)
        self.assertIn('PID %d (tpacceld)' % self.daemon.pid, p.stderr)
        self.assertEqual(p.stdout, '', 'no readouts')
        self.assertEqual(self.read(log), PORT_LOG_HEADER)

    def test_lock_is_released_at_exit(self):
        self.start_polkit()
        self.start_daemon('--lock-file=' + self.lock)
        first = self.daemon.pid
        self.assertEqual(self.stop_daemon(), 0)
        log = self.port_log('after.csv')
        p = self.run_tpacceld('--backend=sim', '--dump=3', '--lock-file=' + self.lock, '--port-log=' + log)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 4)
        self.assertNotEqual(self.read(log), PORT_LOG_HEADER)
        self.assertNotEqual(self.read(self.lock), '%d\n' % first, 'the new holder wrote its own PID')

    def test_lock_file_is_private_and_its_holder_named_by_the_kernel(self):
        # The lock file is 0600, so another user cannot open it to hold a lock that blocks every
        # later start; a refusal names the holder from /proc/locks, not the PID written in the file.
        self.start_polkit()
        self.start_daemon('--lock-file=' + self.lock)
        self.assertEqual(os.stat(self.lock).st_mode & 0o7777, 0o600)
        if os.geteuid() == 0:
            os.chmod(self.state_dir, 0o755)  # only the file's mode keeps nobody out
            p = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                                'flock', '--nonblock', '--shared', self.lock, 'true'],
                               capture_output=True, text=True, timeout=TIMEOUT)
            self.assertNotEqual(p.returncode, 0, 'nobody could lock the EC lock file')
            self.assertIn('Permission denied', p.stderr)
        with open(self.lock, 'w') as f:
            f.write('1\n')  # a stale or forged PID
        p = self.run_tpacceld('--backend=sim', '--dump=1', '--lock-file=' + self.lock)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn('the EC is in use: PID %d (tpacceld) holds the lock' % self.daemon.pid, p.stderr)
        self.assertNotIn('PID 1 ', p.stderr)

    def test_auto_takes_the_machine_lock_before_the_ports(self):
        # A ThinkPad with free ports: auto would try the ports, so it takes the machine's lock first; here
        # the default lock is below --sysroot. This test holds it, as another program would.
        machine = FakeMachine(os.path.join(self.state_dir, 'root'))
        machine.thinkpad()
        machine.dev_port()
        lock = machine.path('run/tpaccel/ec.lock')
        os.makedirs(os.path.dirname(lock))
        with open(lock, 'w') as holder:
            fcntl.flock(holder, fcntl.LOCK_EX)
            holder.write('%d\n' % os.getpid())
            holder.flush()
            log = self.port_log('auto.csv')
            p = self.run_tpacceld('--sysroot=' + machine.root, '--dump=1', '--port-log=' + log)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn('PID %d' % os.getpid(), p.stderr)
            self.assertIn(lock, p.stderr)
            self.assertEqual(self.read(log), PORT_LOG_HEADER)
            # As a service too: refused, not "no accelerometer".
            p = self.run_tpacceld('--sysroot=' + machine.root)
            self.assertEqual(p.returncode, 1)
            self.assertIn('the EC is in use', p.stderr)
            self.assertNotIn('serving HasAccelerometer=false', p.stderr)

    # --backend=ioperm|devport: auto's checks, --force

    def test_direct_backends_apply_the_safety_checks(self):
        cases = (
            ('not a ThinkPad', lambda m: m.other_laptop(),
             'neither the ThinkPad EC OEM string nor a known HDAPS model'),
            ('ports owned', lambda m: (m.thinkpad(), m.claim_ports('thinkpad_ec'), m.load_module('thinkpad_ec')),
             'the EC ports are in use by thinkpad_ec'),
            ('kernel driver', lambda m: m.thinkpad().mainline(),
             "the kernel's mainline hdaps driver is loaded and owns the EC ports"),
        )
        for n, (what, setup, check) in enumerate(cases):
            for backend in ('devport', 'ioperm'):
                with self.subTest(machine=what, backend=backend):
                    machine = FakeMachine(os.path.join(self.state_dir, 'root%d%s' % (n, backend)))
                    setup(machine)
                    machine.dev_port()
                    log = self.port_log('%d%s.csv' % (n, backend))
                    p = self.run_tpacceld('--backend=' + backend, '--sysroot=' + machine.root, '--dump=1',
                                          '--port-log=' + log)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.assertIn('--backend=%s refused: ' % backend, p.stderr)
                    self.assertIn(check, p.stderr)
                    self.assertIn('--force', p.stderr)
                    self.assertEqual(self.read(log), PORT_LOG_HEADER, 'no port access')
                    self.assertFalse(os.path.exists(machine.path('run/tpaccel/ec.lock')), 'not even the lock')

    def test_force_overrides_and_says_which_check(self):
        machine = FakeMachine(os.path.join(self.state_dir, 'root'))
        machine.other_laptop()
        machine.dev_port()
        log = self.port_log('forced.csv')
        p = self.run_tpacceld('--backend=devport', '--force', '--sysroot=' + machine.root, '--dump=1',
                              '--port-log=' + log)
        self.assertNotIn('refused', p.stderr)
        self.assertIn('--force overrides the safety checks: DMI has neither', p.stderr)
        # The ports were driven (here /dev/port is a plain file, so no EC answers), under the machine's lock.
        self.assertIn('in,0x1604,', self.read(log))
        lock = machine.path('run/tpaccel/ec.lock')
        self.assertTrue(os.path.isfile(lock))
        self.assertEqual(os.stat(os.path.dirname(lock)).st_mode & 0o7777, 0o755)
        self.assertRegex(self.read(lock), r'^[0-9]+\n$')

        p = self.run_tpacceld('--backend=sim', '--force')
        self.assertEqual(p.returncode, 2)
        self.assertIn('--force only applies to --backend=ioperm and --backend=devport', p.stderr)
        p = self.run_tpacceld('--backend=kernel', '--lock-file=' + self.lock)
        self.assertEqual(p.returncode, 2)
        self.assertIn('--lock-file=%s: the kernel backend makes no port access' % self.lock, p.stderr)

    def test_lock_directory_handed_to_user(self):
        # Started as root with --user (D-Bus activation without systemd): the lock's directory that tpacceld
        # created belongs to the user it switches to, so that a later start as that user (the unit) can
        # open the lock.
        if os.geteuid() != 0:
            self.skipTest('needs root: switches to the user nobody')
        nobody = pwd.getpwnam('nobody')
        machine = FakeMachine(os.path.join(self.state_dir, 'root'))
        machine.thinkpad()
        machine.dev_port()
        p = self.run_tpacceld('--backend=devport', '--sysroot=' + machine.root, '--dump=1', '--user=nobody')
        self.assertIn('Running as user nobody', p.stderr)
        lock = machine.path('run/tpaccel/ec.lock')
        self.assertEqual(os.stat(os.path.dirname(lock)).st_uid, nobody.pw_uid)
        self.assertEqual(os.stat(lock).st_uid, nobody.pw_uid)
        self.assertEqual(os.stat(machine.path('run')).st_uid, 0, 'only the lock directory itself')

    # ReadRow serves only rows that read

    def test_write_like_read_rows_refused_and_polling_goes_on(self):
        self.start_polkit([CONFIGURE, EC_RAW])
        self.start_daemon()
        self.accel.Claim()
        self.assertGreater(len(self.collect_samples(0.5)), 10)
        before = {k: self.get(k) for k in ('SamplingRate', 'FilterOrder', 'Polling')}
        writes = (
            (0x0003, row(0x14, 0x00), '0x14', 'powers the accelerometer on or off'),
            (0x0001, row(0x14), '0x14', 'powers'),
            (0x000F, row(0x10, 0xFA, 0x00, 0x02), '0x10', 'reconfigures the accelerometer'),
            (0x0007, row(0x17, 0x83, 0x01), '0x17', 'fake-data mode'),
            (0x0001, row(0x0B), '0x0B', 'hangs the EC firmware'),
            (0x0001, row(0x42), '0x42', 'not on the list of rows known to only read'),
        )
        for mask, args, name, why in writes:
            with self.subTest(row=name, why=why):
                e = self.assertDBusError(ACCESS_DENIED, self.ec.ReadRow, mask, args,
                                         0xFFFF)
                self.assertIn('Row %s ' % name, error_message(e))
                self.assertIn(why, error_message(e))
        # Polling went on: the accelerometer was neither powered off nor reconfigured.
        samples = self.collect_samples(1.0)
        self.assertGreater(len(samples), 30, 'Sample signals keep coming at about 50 Hz')
        self.assertEqual({k: self.get(k) for k in before}, before)
        self.assertIsNone(self.daemon.poll())

    def test_refused_rows_never_reach_polkit(self):
        # Refused even for a caller without the raw-access authorization: the allow-list comes first.
        self.start_polkit([])
        self.start_daemon()
        e = self.assertDBusError(ACCESS_DENIED, self.ec.ReadRow, 3, row(0x14, 0), 0xFFFF)
        self.assertIn('only rows that only read', error_message(e))
        e = self.assertDBusError(ACCESS_DENIED, self.ec.ReadRow, 1, row(0x13), 3)
        self.assertNotIn('only rows that only read', error_message(e), 'a readable row goes to polkit')

    def test_readable_rows_served(self):
        self.start_polkit([EC_RAW])
        self.start_daemon()
        # The 2006 patch series' self-test row (battery 0 status), mask 0x8001, TWR15 0.
        data = self.ec.ReadRow(0x8001, row(0x01), 0xFFFF)
        self.assertEqual((len(data), data[0]), (16, 0x01))
        # Mode latch, check, configuration read as the 2006 patch series sends them.
        self.assertEqual(self.ec.ReadRow(1, row(0x13), 3)[1], 1)
        data = self.ec.ReadRow(3, row(0x17, 0x81), 0xF)
        self.assertEqual(tuple(data[1:4]), (0x00, 0x60, 0x00))
        data = self.ec.ReadRow(3, row(0x17, 0x82), 0x1F)
        self.assertEqual(data[2] | data[3] << 8, 250, 'EC rate 50 Hz x 5')
        self.assertEqual(data[4], 2, 'filter order')


if __name__ == '__main__':
    testmain.main()
