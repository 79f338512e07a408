# SPDX-License-Identifier: GPL-2.0-or-later
"""The one Python harness for "a tpacceld on a private bus", on one D-Bus binding: GIO (Gio.DBusConnection
via gi). TpaccelTestBase runs tpacceld on a private system bus (a dbus-daemon of tests/lib/privatebus.py,
one per test class) with python-dbusmock's polkitd and logind (spawned as `python3 -m dbusmock`, so this
process needs no dbus-python), on the EC emulator, for the unittest files of tests/bus, tests/backend and
tests/sensorproxy (and the constants they share); tests/client/clienttest.py's ClientTestCase builds on
Bus and Proxy below. A test class derives from it and calls start_polkit(), start_daemon(), get(),
assertEventually() and friends; the daemon's log is printed when a test fails.

Calls read as on the bus: self.accel.SetSamplingRate(100), self.ec.ReadRow(1, row(0x13), 3),
self.props.GetAll(IFACE). A Proxy takes each method's argument signature from the object's introspection,
so plain Python values are enough; a failed call raises GLib.Error, whose D-Bus error name and message
error_name(e) and error_message(e) give (assertDBusError checks both)."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import gi

gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

import endchildren  # noqa: E402,F401  (tests/lib) SIGTERM ends our children and the bus
from privatebus import start_bus, write_bus_conf  # noqa: E402
from programs import program  # noqa: E402

TOP_SRCDIR = os.environ.get('TOP_SRCDIR', os.path.join(os.path.dirname(__file__), '..', '..'))
TOP_BUILDDIR = os.environ.get('TOP_BUILDDIR', os.path.join(TOP_SRCDIR, 'build'))
TPACCELD = program('TPACCELD', TOP_BUILDDIR)
TRACES = os.path.join(TOP_SRCDIR, 'tests', 'traces')
PYTHON = '/usr/bin/python3'

NAME = 'org.thinkpad.Accelerometer'
PATH = '/org/thinkpad/Accelerometer'
IFACE = 'org.thinkpad.Accelerometer'
EC_PATH = '/org/thinkpad/EmbeddedController'
EC_IFACE = 'org.thinkpad.EmbeddedController'
PROPERTIES_IFACE = 'org.freedesktop.DBus.Properties'
INTROSPECTABLE_IFACE = 'org.freedesktop.DBus.Introspectable'
MOCK_IFACE = 'org.freedesktop.DBus.Mock'
CONFIGURE = 'org.thinkpad.accelerometer.configure'
CALIBRATE = 'org.thinkpad.accelerometer.calibrate'
EC_RAW = 'org.thinkpad.ec.raw'

INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
ACCESS_DENIED = 'org.freedesktop.DBus.Error.AccessDenied'
NOT_SAVED = 'org.thinkpad.Accelerometer.Error.NotSaved'
NOT_CLAIMED = 'org.thinkpad.Accelerometer.Error.NotClaimed'
BUSY = 'org.thinkpad.Accelerometer.Error.Busy'
LIMITS_EXCEEDED = 'org.freedesktop.DBus.Error.LimitsExceeded'
NO_SERVER = 'org.freedesktop.DBus.Error.NoServer'
TIMEOUT = 15  # seconds for any condition to become true
CALL_TIMEOUT_MS = 25000  # libdbus' default reply timeout

# The argument signatures of the standard interfaces and of python-dbusmock's control methods (a mock's
# introspection does not list its template's methods).
STANDARD_SIGNATURES = {
    PROPERTIES_IFACE: {'Get': 'ss', 'GetAll': 's', 'Set': 'ssv'},
    INTROSPECTABLE_IFACE: {'Introspect': ''},
    'org.freedesktop.DBus.Peer': {'Ping': '', 'GetMachineId': ''},
    MOCK_IFACE: {'SetAllowed': 'as', 'SimulateHang': 'b', 'SimulateHangActions': 'as', 'HaveHangingCalls': '',
                 'ReleaseHangingCalls': '', 'GetCalls': '', 'ClearCalls': '', 'EmitSignal': 'sssav',
                 'AllowUnknown': 'b', 'SetDelay': 'd'},
}


def wait_until(condition, timeout=10.0, interval=0.05, what="condition"):
    """Polls condition() until it returns a true value; fails the test on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def trace_from(name, start_ms, path):
    """Writes trace name (a path, or one in tests/traces) from its time start_ms on, shifted to start at 0,
    to path: the same motion without the seconds of rest that lead to it (its '# expect:' lines, in the old
    times, are left out). Returns path."""
    with open(os.path.join(TRACES, name)) as f:
        rows = [line for line in f if line[0].isdigit() and float(line.split(",")[0]) >= start_ms]
    if not rows:
        raise ValueError(f"trace {name} ends before {start_ms} ms")
    with open(path, "w") as f:
        f.write(f"# {os.path.basename(name)} from {start_ms} ms on (daemontest.trace_from)\n"
                "time_ms,x,y,keyboard,mouse\n")
        for line in rows:
            t, rest = line.split(",", 1)
            f.write(f"{float(t) - start_ms:g},{rest}")
    return path


def trace_rest(name):
    """The level rest position (x, y) trace name (a path, or one in tests/traces) starts at: its
    '# rest X,Y counts' line (tests/traces/gen-traces.py)."""
    with open(os.path.join(TRACES, name)) as f:
        for line in f:
            m = re.match(r"# rest (-?\d+),(-?\d+) counts", line)
            if m:
                return int(m.group(1)), int(m.group(2))
    raise ValueError(f"trace {name} has no '# rest X,Y counts' line")


def row(*first, length=16):
    """An EC row argument (ay): first, then zeros, length bytes."""
    return list(first) + [0] * (length - len(first))


def error_name(e):
    """The D-Bus error name of a GLib.Error from a call (None for a local error)."""
    return Gio.DBusError.get_remote_error(e)


def error_message(e):
    """The D-Bus error message of a GLib.Error from a call (without GIO's 'GDBus.Error:NAME: ' prefix)."""
    name = Gio.DBusError.get_remote_error(e)
    prefix = 'GDBus.Error:%s: ' % name
    return e.message[len(prefix):] if name and e.message.startswith(prefix) else e.message


def _unpack(reply, fd_list=None):
    """A method reply as a call site wants it: None (no value), the one value, or a tuple; a unix fd (h)
    as an int fd the caller owns (the fd list's own copy closes with the list)."""
    if reply is None:
        return None
    sig = reply.get_type_string()[1:-1]
    values = list(reply.unpack())
    if 'h' in sig and fd_list is not None:
        for i, t in enumerate(GLib.Variant.split_signature(reply.get_type_string())):
            if t == 'h':
                values[i] = fd_list.get(values[i])
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


_introspected = {}  # (name, path, iface): {method: signature}, of a tpacceld's static interfaces


class Proxy:
    """An object's interface on a Bus: proxy.Method(*args) calls it and returns the reply (None, the
    value, or a tuple). Keyword arguments: timeout (seconds), signature (overrides the introspected
    one), reply_handler/error_handler (call asynchronously; dispatched by the main context, e.g. in
    assertEventually). The arguments' signature comes from the object's introspection (once per
    object), or from STANDARD_SIGNATURES."""

    def __init__(self, bus, name, path, iface):
        self.bus, self.name, self.path, self.iface = bus, name, path, iface
        self._signatures = STANDARD_SIGNATURES.get(iface) or _introspected.get((name, path, iface))

    def _signature(self, method):
        if self._signatures is None:
            xml = self.bus.call(self.name, self.path, INTROSPECTABLE_IFACE, 'Introspect', '', ())
            info = Gio.DBusNodeInfo.new_for_xml(xml).lookup_interface(self.iface)
            if info is None:
                raise AttributeError('%s at %s has no interface %s' % (self.name, self.path, self.iface))
            self._signatures = {m.name: ''.join(a.signature for a in m.in_args) for m in info.methods}
            _introspected[(self.name, self.path, self.iface)] = self._signatures
        if method not in self._signatures:
            raise AttributeError('%s has no method %s' % (self.iface, method))
        return self._signatures[method]

    def __getattr__(self, method):
        if method.startswith('_'):
            raise AttributeError(method)

        def call(*args, timeout=None, signature=None, reply_handler=None, error_handler=None):
            sig = self._signature(method) if signature is None else signature
            if reply_handler or error_handler:
                return self.bus.call_async(self.name, self.path, self.iface, method, sig, args,
                                           reply_handler, error_handler, timeout=timeout)
            return self.bus.call(self.name, self.path, self.iface, method, sig, args, timeout=timeout)
        return call


class Bus:
    """A GIO connection to a bus at address: calls, proxies, name ownership, signal subscriptions."""

    def __init__(self, address):
        self.address = address
        self.conn = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

    @staticmethod
    def _params(signature, args):
        if not signature:
            if args:
                raise TypeError('arguments %r for an empty signature' % (args,))
            return None
        return GLib.Variant('(%s)' % signature, tuple(args))

    @staticmethod
    def _timeout_ms(timeout):
        return CALL_TIMEOUT_MS if timeout is None else int(timeout * 1000)

    def call(self, name, path, iface, method, signature='', args=(), timeout=None):
        """method(*args) with signature; returns the reply (see _unpack) or raises GLib.Error."""
        reply, fds = self.conn.call_with_unix_fd_list_sync(
            name, path, iface, method, self._params(signature, args), None, Gio.DBusCallFlags.NONE,
            self._timeout_ms(timeout), None, None)
        return _unpack(reply, fds)

    def call_async(self, name, path, iface, method, signature, args, reply_handler, error_handler, timeout=None):
        """Starts the call; reply_handler(*values) or error_handler(GLib.Error) runs from the main context."""
        def done(conn, res):
            try:
                reply, fds = conn.call_with_unix_fd_list_finish(res)
            except GLib.Error as e:
                if error_handler:
                    error_handler(e)
                return
            if reply_handler:
                value = _unpack(reply, fds)
                n = len(reply.get_type_string()) - 2
                reply_handler(*(() if n == 0 else value if isinstance(value, tuple) else (value,)))
        self.conn.call_with_unix_fd_list(name, path, iface, method, self._params(signature, args), None,
                                         Gio.DBusCallFlags.NONE, self._timeout_ms(timeout), None, None, done)

    def proxy(self, name, path, iface):
        return Proxy(self, name, path, iface)

    def _bus(self, method, signature='', args=()):
        return self.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', method,
                         signature, args)

    def name_has_owner(self, name):
        return self._bus('NameHasOwner', 's', (name,))

    def get_name_owner(self, name):
        return self._bus('GetNameOwner', 's', (name,))

    def name_owner(self, name):
        """The unique name owning name, or None."""
        try:
            return self.get_name_owner(name)
        except GLib.Error:
            return None

    def owner_pid(self, name):
        try:
            return self._bus('GetConnectionUnixProcessID', 's', (name,))
        except GLib.Error:
            return None

    def request_name(self, name, flags):
        """RequestName; flags e.g. Gio.BusNameOwnerFlags.DO_NOT_QUEUE. Returns the reply code."""
        return self._bus('RequestName', 'su', (name, int(flags)))

    def reload_config(self):
        self._bus('ReloadConfig')

    def get_unique_name(self):
        return self.conn.get_unique_name()

    def get_property(self, name, path, iface, prop):
        return self.call(name, path, PROPERTIES_IFACE, 'Get', 'ss', (iface, prop))

    def get_all_variants(self, name, path, iface):
        """GetAll of iface as {property: GLib.Variant}, for tests of the exact types."""
        reply = self.conn.call_sync(name, path, PROPERTIES_IFACE, 'GetAll', GLib.Variant('(s)', (iface,)), None,
                                    Gio.DBusCallFlags.NONE, CALL_TIMEOUT_MS, None)
        props = reply.get_child_value(0)
        return {props.get_child_value(i).get_child_value(0).get_string():
                props.get_child_value(i).get_child_value(1).get_variant() for i in range(props.n_children())}

    def subscribe_signal(self, handler, iface, signal_name, path=None, sender=None):
        """handler(*args) for each signal_name of iface (from path, if given) the main context
        dispatches; returns the subscription (its .remove() ends it)."""
        return Subscription(self.conn, self.conn.signal_subscribe(
            sender, iface, signal_name, path, None, Gio.DBusSignalFlags.NONE,
            lambda _c, _sender, _path, _iface, _sig, params: handler(*params.unpack())))

    def close(self):
        if not self.conn.is_closed():
            self.conn.close_sync(None)


class Subscription:
    def __init__(self, conn, sid):
        self.conn, self.sid = conn, sid

    def remove(self):
        if self.sid:
            self.conn.signal_unsubscribe(self.sid)
            self.sid = 0


def dispatch_pending():
    """Runs what the default main context has ready (replies, signals) without blocking."""
    ctx = GLib.main_context_default()
    while ctx.pending():
        ctx.iteration(False)


class BusTestCase(unittest.TestCase):
    """What every test of tpacceld on a private bus shares: waiting for conditions while the main context
    dispatches, D-Bus error checks, python-dbusmock services spawned on the bus (self.bus)."""

    def _outcome_failed(self):
        """Whether this test has failed so far (for tearDown, which sees no exception)."""
        result = getattr(self, '_outcome', None)
        if result is None:
            return False
        errors = getattr(result, 'errors', None)
        if errors is None:  # python >= 3.11
            r = getattr(result, 'result', None)
            return bool(r and (r.failures or r.errors))
        return any(e for _, e in errors)

    def assertEventually(self, cond, timeout=TIMEOUT, message=None):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            dispatch_pending()
            if cond():
                return
            time.sleep(0.01)
        self.fail(message or 'condition not met within %d s' % timeout)

    def assertDBusError(self, name, func, *args, message_re=None, **kwargs):
        """func(*args, **kwargs) fails with the D-Bus error name (and a message matching message_re);
        returns the GLib.Error."""
        with self.assertRaises(GLib.Error) as cm:
            func(*args, **kwargs)
        message = error_message(cm.exception)
        self.assertEqual(error_name(cm.exception), name, message)
        if message_re:
            self.assertRegex(message, message_re)
        return cm.exception

    def spawn_mock(self, template, name, bus_type='--system', stdout=subprocess.DEVNULL, env=None):
        """python-dbusmock's template on the bus (its address in DBUS_SYSTEM/SESSION_BUS_ADDRESS of env);
        returns the process once it owns name."""
        proc = subprocess.Popen([PYTHON, '-m', 'dbusmock', bus_type, '--template', template], stdout=stdout,
                                stderr=subprocess.STDOUT if stdout is not subprocess.DEVNULL else None, env=env)
        self.assertEventually(lambda: proc.poll() is not None or self.bus.name_has_owner(name),
                              message='the %s mock on the bus' % template)
        self.assertIsNone(proc.poll(), 'the %s mock exited' % template)
        return proc


class TpaccelTestBase(BusTestCase):
    """tpacceld on a private system bus of the test class (DBUS_SYSTEM_BUS_ADDRESS while it runs)."""

    @classmethod
    def setUpClass(cls):
        cls.bus_dir = tempfile.mkdtemp(prefix='tpacceld-test-bus-')
        conf = write_bus_conf(os.path.join(cls.bus_dir, 'bus.conf'), 'unix:dir=' + cls.bus_dir)
        cls.bus_proc, cls.bus_address = start_bus(conf, stderr=subprocess.DEVNULL)
        cls.saved_address = os.environ.get('DBUS_SYSTEM_BUS_ADDRESS')
        os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = cls.bus_address
        cls.bus = Bus(cls.bus_address)

    @classmethod
    def tearDownClass(cls):
        cls.bus.close()
        cls.bus_proc.terminate()
        try:
            cls.bus_proc.wait(5)
        except subprocess.TimeoutExpired:
            sys.stderr.write('ERROR: the test bus (pid %d) did not end on SIGTERM, killing it\n' % cls.bus_proc.pid)
            cls.bus_proc.kill()
            cls.bus_proc.wait()
        cls.bus_proc.stdout.close()
        if cls.saved_address is None:
            os.environ.pop('DBUS_SYSTEM_BUS_ADDRESS', None)
        else:
            os.environ['DBUS_SYSTEM_BUS_ADDRESS'] = cls.saved_address
        shutil.rmtree(cls.bus_dir, ignore_errors=True)

    def setUp(self):
        self.state_dir = tempfile.mkdtemp(prefix='tpacceld-test-')
        self.daemon = None
        self.log_path = os.path.join(self.state_dir, 'daemon.log')
        self.polkitd = None
        self.polkit_obj = None
        self.logind = None
        self.extra = []
        self.connections = []

    def tearDown(self):
        for p in self.extra:
            if p.poll() is None:
                p.kill()
                p.wait()
        for con in self.connections:
            con.close()
        self.stop_daemon()
        for p in (self.polkitd, self.logind):
            if p:
                p.terminate()
                p.wait()
        if self._outcome_failed() and os.path.exists(self.log_path):
            with open(self.log_path, errors='replace') as f:
                sys.stderr.write('---- tpacceld log ----\n' + f.read() + '----\n')
        shutil.rmtree(self.state_dir, ignore_errors=True)


    # Helpers

    def start_polkit(self, allowed=()):
        self.polkitd = self.spawn_mock('polkitd', 'org.freedesktop.PolicyKit1')
        self.polkit_obj = self.bus.proxy('org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
                                         MOCK_IFACE)
        self.set_allowed(allowed)

    def start_logind(self):
        """python-dbusmock's logind; returns its mock control interface (EmitSignal, ...)."""
        self.logind = self.spawn_mock('logind', 'org.freedesktop.login1')
        return self.bus.proxy('org.freedesktop.login1', '/org/freedesktop/login1', MOCK_IFACE)

    def set_allowed(self, actions):
        self.polkit_obj.SetAllowed(list(actions))

    def hold_polkit_answers(self, hold):
        """True: the mock polkitd keeps every CheckAuthorization unanswered until ReleaseHangingCalls()."""
        self.polkit_obj.SimulateHang(bool(hold))

    def wait_polkit_held(self):
        self.assertEventually(lambda: self.polkit_obj.HaveHangingCalls(), message='a polkit check is held')

    def call_async(self, method, *args, iface=None):
        """Starts method(*args) on the accelerometer (or the Proxy iface) without waiting; returns a list
        that gets None (the reply) or the GLib.Error when it comes (assertEventually dispatches it)."""
        result = []
        getattr(iface or self.accel, method)(*args, reply_handler=lambda *r: result.append(None),
                                             error_handler=lambda e: result.append(e))
        return result

    def wait_result(self, result):
        self.assertEventually(lambda: result, message='the reply')
        return result[0]

    def start_daemon(self, *args, backend='sim', wait=True):
        self.assertTrue(TPACCELD, "no tpacceld: set TPACCELD or TOP_BUILDDIR (a build with programs.env)")
        cmd = [TPACCELD, '-v', '--state-dir=' + self.state_dir]
        if backend:
            cmd.append('--backend=' + backend)
        cmd += list(args)
        self.log = open(self.log_path, 'a')
        self.daemon = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        if wait:
            self.wait_for_name()
        self.accel = self.bus.proxy(NAME, PATH, IFACE)
        self.props = self.bus.proxy(NAME, PATH, PROPERTIES_IFACE)
        self.introspectable = self.bus.proxy(NAME, PATH, INTROSPECTABLE_IFACE)
        self.ec = self.bus.proxy(NAME, EC_PATH, EC_IFACE)

    def wait_for_name(self):
        self.assertEventually(lambda: self.bus.name_has_owner(NAME) or self.daemon.poll() is not None)
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

    def state_text(self):
        """The state file's text, None while there is none (a daemon without a saved rest position
        writes the one it reads at start)."""
        try:
            with open(os.path.join(self.state_dir, 'state')) as f:
                return f.read()
        except FileNotFoundError:
            return None

    def get(self, prop):
        return self.props.Get(IFACE, prop)

    def gdbus(self, *args, path=PATH):
        """Runs gdbus call on the test bus; returns (returncode, output)."""
        p = subprocess.run(['gdbus', 'call', '--system', '-d', NAME, '-o', path, '-m'] + list(args),
                           capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout + p.stderr

    def new_connection(self):
        """A second connection to the test bus (closed at tearDown, or earlier by .close())."""
        con = Bus(self.bus_address)
        self.connections.append(con)
        return con

    def ctxt_switches(self):
        n = 0
        with open('/proc/%d/status' % self.daemon.pid) as f:
            for line in f:
                if line.startswith(('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches')):
                    n += int(line.split()[1])
        return n

    def subscribe_samples(self, con=None):
        """SubscribeSamples() on con (default: the test's connection): Sample is sent only then."""
        (con or self.bus).call(NAME, PATH, IFACE, 'SubscribeSamples')

    def unsubscribe_samples(self, con=None):
        (con or self.bus).call(NAME, PATH, IFACE, 'UnsubscribeSamples')

    def collect_samples(self, seconds, subscribe=True, at_least=None):
        """The Sample signals of `seconds`, subscribed to for that time (unless subscribe is False); with
        at_least, only until that many came."""
        samples = []
        m = self.bus.subscribe_signal(lambda t, x, y: samples.append((int(t), int(x), int(y))), IFACE, 'Sample',
                                      path=PATH)
        if subscribe:
            self.subscribe_samples()
        deadline = time.monotonic() + seconds
        ctx = GLib.main_context_default()
        while time.monotonic() < deadline and (at_least is None or len(samples) < at_least):
            ctx.iteration(False) or time.sleep(0.001)
        m.remove()
        if subscribe:
            self.unsubscribe_samples()
        return samples
