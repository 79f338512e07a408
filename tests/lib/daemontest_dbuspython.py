# SPDX-License-Identifier: GPL-2.0-or-later
"""(Transitional: the dbus-python harness of the files not yet ported to daemontest.py.) TpaccelTestBase: tpacceld on a private system bus (python-dbusmock's bus, polkitd and logind), on the
EC emulator, for the unittest files of tests/dbus, tests/backend and tests/sensorproxy (and the
constants they share). A test class derives from it and calls start_polkit(), start_daemon(), get(),
assertEventually() and friends; the daemon's log is printed when a test fails."""

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import dbus
import dbus.mainloop.glib
import dbusmock
from gi.repository import GLib

import endchildren  # (tests/lib) SIGTERM ends our children and the forked bus

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)

TOP_SRCDIR = os.environ.get('TOP_SRCDIR', os.path.join(os.path.dirname(__file__), '..', '..'))
TOP_BUILDDIR = os.environ.get('TOP_BUILDDIR', os.path.join(TOP_SRCDIR, 'build'))
TPACCELD = os.environ.get('TPACCELD', os.path.join(TOP_BUILDDIR, 'service', 'tpacceld'))
TRACES = os.path.join(TOP_SRCDIR, 'tests', 'traces')

NAME = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'
IFACE = 'org.thinkpad.Accelerometer'
EC_PATH = '/org/thinkpad/EmbeddedController'
EC_IFACE = 'org.thinkpad.EmbeddedController'
CONFIGURE = 'org.thinkpad.accelerometer.configure'
CALIBRATE = 'org.thinkpad.accelerometer.calibrate'
EC_RAW = 'org.thinkpad.ec.raw'

INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
ACCESS_DENIED = 'org.freedesktop.DBus.Error.AccessDenied'
NOT_SAVED = 'org.thinkpad.Accelerometer.Error.NotSaved'
TIMEOUT = 15  # seconds for any condition to become true


def row(*first, length=16):
    b = list(first) + [0] * (length - len(first))
    return dbus.Array([dbus.Byte(x) for x in b], signature='y')


class TpaccelTestBase(dbusmock.DBusTestCase):
    @classmethod
    def setUpClass(cls):
        cls.start_system_bus()
        endchildren.also_end(cls.system_bus_pid)  # forked away: ours to end even on SIGTERM
        cls.bus_address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
        cls.dbus_con = cls.get_dbus(system_bus=True)

    @classmethod
    def stop_dbus(cls, pid):
        """Ends the forked-away bus (dbusmock's tearDownClass calls this): dbusmock's own polls in 100 ms
        steps until the pid is gone, 1.5 s per test file run here; a pidfd says it at once."""
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        try:
            os.kill(pid, signal.SIGTERM)
            if not select.select([pidfd], [], [], 5)[0]:
                sys.stderr.write('ERROR: the test bus (pid %d) did not end on SIGTERM, killing it\n' % pid)
                os.kill(pid, signal.SIGKILL)
                select.select([pidfd], [], [], 5)
        except ProcessLookupError:
            pass
        finally:
            os.close(pidfd)

    def setUp(self):
        self.state_dir = tempfile.mkdtemp(prefix='tpacceld-test-')
        self.daemon = None
        self.log_path = os.path.join(self.state_dir, 'daemon.log')
        self.polkitd = None
        self.polkit_obj = None
        self.logind = None
        self.extra = []

    def tearDown(self):
        for p in self.extra:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.stop_daemon()
        for p in (self.polkitd, self.logind):
            if p:
                p.terminate()
                p.wait()
        if self._outcome_failed() and os.path.exists(self.log_path):
            with open(self.log_path, errors='replace') as f:
                sys.stderr.write('---- tpacceld log ----\n' + f.read() + '----\n')
        shutil.rmtree(self.state_dir, ignore_errors=True)

    def _outcome_failed(self):
        result = getattr(self, '_outcome', None)
        if result is None:
            return False
        errors = getattr(result, 'errors', None)
        if errors is None:  # python >= 3.11
            r = getattr(result, 'result', None)
            return bool(r and (r.failures or r.errors))
        return any(e for _, e in errors)

    # Helpers

    def start_polkit(self, allowed=()):
        self.polkitd, self.polkit_obj = self.spawn_server_template('polkitd', {}, stdout=subprocess.DEVNULL)
        self.set_allowed(allowed)

    def set_allowed(self, actions):
        self.polkit_obj.SetAllowed(dbus.Array(list(actions), signature='s'))

    def hold_polkit_answers(self, hold):
        """True: the mock polkitd keeps every CheckAuthorization unanswered until ReleaseHangingCalls()."""
        self.polkit_obj.SimulateHang(dbus.Boolean(hold))

    def wait_polkit_held(self):
        self.assertEventually(lambda: self.polkit_obj.HaveHangingCalls(), message='a polkit check is held')

    def call_async(self, method, *args, iface=None):
        """Starts method(*args) on the accelerometer (or iface) without waiting; returns a list that gets
        None (the reply) or the DBusException when it comes (assertEventually dispatches it)."""
        result = []
        getattr(iface or self.accel, method)(*args, reply_handler=lambda *r: result.append(None),
                                             error_handler=lambda e: result.append(e))
        return result

    def wait_result(self, result):
        self.assertEventually(lambda: result, message='the reply')
        return result[0]

    def start_daemon(self, *args, backend='sim', wait=True):
        cmd = [TPACCELD, '-v', '--state-dir=' + self.state_dir]
        if backend:
            cmd.append('--backend=' + backend)
        cmd += list(args)
        self.log = open(self.log_path, 'a')
        self.daemon = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        if wait:
            self.wait_for_name()
        self.proxy = self.dbus_con.get_object(NAME, PATH, introspect=False)
        self.accel = dbus.Interface(self.proxy, IFACE)
        self.props = dbus.Interface(self.proxy, dbus.PROPERTIES_IFACE)
        self.ec = dbus.Interface(self.dbus_con.get_object(NAME, EC_PATH, introspect=False), EC_IFACE)

    def wait_for_name(self):
        self.assertEventually(lambda: self.dbus_con.name_has_owner(NAME) or self.daemon.poll() is not None)
        self.assertIsNone(self.daemon.poll(), 'tpacceld exited at startup')

    def stop_daemon(self, sig=signal.SIGTERM):
        if not self.daemon:
            return None
        if self.daemon.poll() is None:
            self.daemon.send_signal(sig)
            try:
                self.daemon.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()
        rc = self.daemon.returncode
        self.daemon = None
        self.log.close()
        self.assertNoProtocolViolations()
        return rc

    def assertNoProtocolViolations(self):
        """The strict emulator counts every port access the 2006 patch series' driver would never make;
        tpacceld logs the count at exit ("protocol_violations=N"). Every daemon of the suite must report
        0."""
        log = self.daemon_log()
        counts = [int(n) for n in re.findall(r'protocol_violations=(\d+)', log)]
        self.assertEqual([n for n in counts if n], [], 'the emulator saw protocol violations:\n' +
                         '\n'.join(line for line in log.splitlines() if 'protocol violation' in line))

    def daemon_log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()

    def get(self, prop):
        return self.props.Get(IFACE, prop)

    def assertEventually(self, cond, timeout=TIMEOUT, message=None):
        deadline = time.monotonic() + timeout
        ctx = GLib.main_context_default()
        while time.monotonic() < deadline:
            while ctx.pending():
                ctx.iteration(False)
            if cond():
                return
            time.sleep(0.01)
        self.fail(message or 'condition not met within %d s' % timeout)

    def assertDBusError(self, name, func, *args, message_re=None, **kwargs):
        with self.assertRaises(dbus.exceptions.DBusException) as cm:
            func(*args, **kwargs)
        self.assertEqual(cm.exception.get_dbus_name(), name, cm.exception.get_dbus_message())
        if message_re:
            self.assertRegex(cm.exception.get_dbus_message(), message_re)
        return cm.exception

    def gdbus(self, *args, path=PATH):
        """Runs gdbus call on the test bus; returns (returncode, output)."""
        p = subprocess.run(['gdbus', 'call', '--system', '-d', NAME, '-o', path, '-m'] + list(args),
                           capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout + p.stderr

    def new_connection(self):
        return dbus.bus.BusConnection(self.bus_address)

    def ctxt_switches(self):
        n = 0
        with open('/proc/%d/status' % self.daemon.pid) as f:
            for line in f:
                if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')):
                    n += int(line.split()[1])
        return n

    def subscribe_samples(self, con=None):
        """SubscribeSamples() on con (default: the test's connection): Sample is sent only then."""
        con = con or self.dbus_con
        con.call_blocking(NAME, PATH, IFACE, 'SubscribeSamples', '', [])

    def unsubscribe_samples(self, con=None):
        con = con or self.dbus_con
        con.call_blocking(NAME, PATH, IFACE, 'UnsubscribeSamples', '', [])

    def collect_samples(self, seconds, subscribe=True):
        """The Sample signals of `seconds`, subscribed to for that time (unless subscribe is False)."""
        samples = []
        m = self.dbus_con.add_signal_receiver(lambda t, x, y: samples.append((int(t), int(x), int(y))),
                                              signal_name='Sample', dbus_interface=IFACE, path=PATH)
        if subscribe:
            self.subscribe_samples()
        deadline = time.monotonic() + seconds
        ctx = GLib.main_context_default()
        while time.monotonic() < deadline:
            ctx.iteration(False) or time.sleep(0.001)
        m.remove()
        if subscribe:
            self.unsubscribe_samples()
        return samples
