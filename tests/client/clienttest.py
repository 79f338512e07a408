# SPDX-License-Identifier: GPL-2.0-or-later
"""Fixtures for the client tests: a private D-Bus daemon, tpacceld on the EC emulator, dbusmock
services, an Xvfb display, and helpers to run tpaccelctl and wait for conditions. The bus connection and
the base class are tests/lib/daemontest.py's (Bus, BusTestCase), the one harness of the daemon's tests.

Everything is started by the test and stopped by pid; nothing touches the real system or session bus.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from gi.repository import GLib

from daemontest import PYTHON, TOP_BUILDDIR, TOP_SRCDIR, TPACCELD, TRACES, Bus, BusTestCase, trace_from, wait_until  # noqa: F401 (tests/lib)
from privatebus import start_bus, write_bus_conf  # tests/lib
from programs import program  # tests/lib

TPACCELCTL = program("TPACCELCTL", TOP_BUILDDIR)
TRAY = program("TPACCEL_TRAY", TOP_BUILDDIR)
OUTDIR = os.path.join(TOP_BUILDDIR, "tests", "client")

ACCEL = "org.thinkpad.Accelerometer"
ACCEL_PATH = "/org/thinkpad/Accelerometer"
ITEM_PATH = "/org/ayatana/NotificationItem/tpaccel_tray"  # the tray's StatusNotifierItem
MENU_PATH = ITEM_PATH + "/Menu"
DBUSMENU = "com.canonical.dbusmenu"


def trace(name):
    path = os.path.join(TRACES, name)
    if not os.path.exists(path):
        raise FileNotFoundError(f"trace {path} is missing")
    return path


def colours(shot):
    """The colours in a screenshot, as ImageMagick's histogram lists them (upper case: #RRGGBB)."""
    return subprocess.run(["convert", shot, "-format", "%c", "histogram:info:-"], capture_output=True, text=True,
                          check=True).stdout.upper()


def item_owner(bus, names, item_path):
    """The first of names (bus names) that serves a StatusNotifierItem at item_path, or None."""
    for name in names:
        try:
            bus.get_property(name, item_path, "org.kde.StatusNotifierItem", "IconName")
            return name
        except Exception:
            continue
    return None


def item_owner_on_bus(bus, item_path):
    """The connection on bus (a private bus: a handful) that serves a StatusNotifierItem at item_path, or
    None: for when no watcher lists the item's owner."""
    names = bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames")
    return item_owner(bus, [name for name in names if name.startswith(":")], item_path)


class TrayMenu:
    """The tray's menu as a tray host reads and clicks it (dbusmenu), for a ClientTestCase whose
    menu_owner() is the bus name of the tray's item."""

    def menu_items(self):
        """The menu's items: [(id, properties)]."""
        _, layout = self.bus.call(self.menu_owner(), MENU_PATH, DBUSMENU, "GetLayout", "iias", (0, -1, []))
        return [(item[0], item[1]) for item in layout[2]]

    def menu_labels(self):
        """The labels of the items the menu shows, top to bottom (no separators)."""
        return [props.get("label", "") for _, props in self.menu_items()
                if props.get("visible", True) and props.get("type") != "separator"]

    def click_menu(self, label):
        """Picks a menu item as the tray host does when the user clicks it (dbusmenu Event "clicked")."""
        item = next(i for i, props in self.menu_items() if props.get("label") == label)
        self.bus.call(self.menu_owner(), MENU_PATH, DBUSMENU, "Event", "isvu", (item, "clicked", GLib.Variant("i", 0), 0))


class PrivateBus(Bus):
    """A dbus-daemon of our own (session-type, allow-all) and the test's connection to it (daemontest.Bus:
    call, proxy, name_owner, owner_pid, get_property, subscribe_signal); address in .address. Services in
    tmpdir/services (D-Bus activation files) are started on demand."""

    def __init__(self, tmpdir):
        self.servicedir = os.path.join(tmpdir, "services")
        os.makedirs(self.servicedir, exist_ok=True)
        conf = write_bus_conf(os.path.join(tmpdir, "bus.conf"), f"unix:tmpdir={tmpdir}", bus_type="session",
                              servicedir=self.servicedir)
        self.proc, address = start_bus(conf, stderr=subprocess.DEVNULL)
        super().__init__(address)

    def accel_property(self, prop):
        return self.get_property(ACCEL, ACCEL_PATH, ACCEL, prop)

    def stop(self):
        self.close()
        stop_process(self.proc)
        self.proc.stdout.close()


def stop_process(proc, sig=signal.SIGTERM, timeout=5):
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class ClientTestCase(BusTestCase):
    """Each test gets a private bus; start_daemon() runs tpacceld on it with --address (polkit on the
    same bus) or, by default, as the session demo (same uid: authorized without polkit)."""

    tray = None  # a tray test's tpaccel-tray: tearDown fails the test when it died

    def setUp(self):
        for exe in (TPACCELD, TPACCELCTL):
            self.assertTrue(os.access(exe, os.X_OK), f"{exe} is not built")
        self.tmpdir = tempfile.mkdtemp(prefix="tpaccel-client-test-")
        self.bus = PrivateBus(self.tmpdir)
        self.env = dict(os.environ)
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.bus.address
        self.env["DBUS_SYSTEM_BUS_ADDRESS"] = self.bus.address
        self.env["NO_AT_BRIDGE"] = "1"
        self.env["GSETTINGS_BACKEND"] = "memory"
        self.env["XDG_CONFIG_HOME"] = os.path.join(self.tmpdir, "config")  # the tray's choices (tray.conf)
        self.env.pop("DISPLAY", None)
        self.processes = []
        self.daemon = None
        self.daemon_log = os.path.join(self.tmpdir, "tpacceld.log")
        self.print_logs = bool(os.environ.get("TPACCEL_TEST_VERBOSE"))  # tearDown prints them; so does a failure

    def tearDown(self):
        died = self.tray.poll() if self.tray is not None else None
        self.print_logs |= died is not None
        try:
            for proc in reversed(self.processes):
                stop_process(proc)
            self.stop_activated_daemon()
            self.bus.stop()
            if self.print_logs or self._outcome_failed():
                self.dump_logs()
            shutil.rmtree(self.tmpdir, ignore_errors=True)
        finally:
            self.stop_display()
        self.assertIsNone(died, "tpaccel-tray died")

    def stop_display(self):
        """Stops what the test's windows were shown on (Xvfb, a compositor), after its clients."""

    def stop_activated_daemon(self):
        """Stops a tpacceld that the bus started (not one of ours), by its pid."""
        pid = self.bus.owner_pid(ACCEL)
        if not pid or any(p.pid == pid for p in self.processes):
            return
        try:
            os.kill(pid, signal.SIGTERM)
            wait_until(lambda: not self.bus.name_owner(ACCEL), what="the activated tpacceld to exit")
        except ProcessLookupError:
            pass

    def dump_logs(self):
        for name in sorted(os.listdir(self.tmpdir)):
            if name.endswith(".log"):
                with open(os.path.join(self.tmpdir, name), errors="replace") as f:
                    sys.stderr.write(f"--- {name}\n{f.read()[-4000:]}\n")

    def spawn(self, argv, log_name, env=None):
        log = open(os.path.join(self.tmpdir, log_name), "a")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env or self.env)
        log.close()
        self.processes.append(proc)
        return proc

    def daemon_argv(self, trace_name=None, loop=False, session=True, extra=(), backend="sim"):
        state = os.path.join(self.tmpdir, "state")
        os.makedirs(state, exist_ok=True)
        argv = [TPACCELD, f"--backend={backend}", f"--state-dir={state}"]
        argv += ["--session"] if session else [f"--address={self.bus.address}"]
        if trace_name:
            argv.append(f"--trace={trace(trace_name)}")
        if loop:
            argv.append("--trace-loop")
        return argv + list(extra)

    def install_activation(self, *args, **kwargs):
        """Makes tpacceld (arguments as for start_daemon) bus-activatable on the private bus, as the
        shipped activation file makes it on the system bus. Its log goes to tpacceld.log."""
        argv = self.daemon_argv(*args, **kwargs)
        wrapper = os.path.join(self.tmpdir, "tpacceld-activated")
        log = os.path.join(self.tmpdir, "tpacceld.log")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n# --session: the bus that started us.\n"
                    f'DBUS_SESSION_BUS_ADDRESS="$DBUS_STARTER_ADDRESS" exec {" ".join(argv)} >>{log} 2>&1\n')
        os.chmod(wrapper, 0o755)
        with open(os.path.join(self.bus.servicedir, ACCEL + ".service"), "w") as f:
            f.write(f"[D-BUS Service]\nName={ACCEL}\nExec={wrapper}\n")
        self.bus.reload_config()

    def start_daemon(self, trace_name=None, loop=False, session=True, extra=(), backend="sim"):
        """Starts tpacceld on the private bus and waits until it owns its name."""
        argv = self.daemon_argv(trace_name, loop, session, extra, backend)
        self.daemon = self.spawn(argv, "tpacceld.log")
        wait_until(lambda: self.daemon.poll() is not None or self.bus.name_owner(ACCEL), what="tpacceld on the bus")
        self.assertIsNone(self.daemon.poll(), "tpacceld exited at start")
        return self.daemon

    def stop_daemon(self, sig=signal.SIGTERM):
        stop_process(self.daemon, sig)
        wait_until(lambda: not self.bus.name_owner(ACCEL), what="tpacceld to leave the bus")

    def start_mock(self, argv_tail, name, log_name):
        return self.start_mocks((argv_tail, name, log_name))[0]

    def start_mocks(self, *mocks):
        """Starts dbusmock services, each (argv_tail, name, log_name), side by side (each takes a Python
        start-up), and waits until each owns its name. Returns their processes."""
        procs = [(self.spawn([PYTHON, "-m", "dbusmock"] + argv_tail, log_name), name)
                 for argv_tail, name, log_name in mocks]
        for proc, name in procs:
            wait_until(lambda: proc.poll() is not None or self.bus.name_owner(name), what=f"{name} mock")
            self.assertIsNone(proc.poll(), f"the {name} mock exited")
        return [proc for proc, _ in procs]

    def ctl(self, *args, bus="--session", check=None, env=None):
        """Runs tpaccelctl; returns (exit status, stdout, stderr)."""
        argv = [TPACCELCTL] + ([bus] if bus else []) + list(args)
        res = subprocess.run(argv, capture_output=True, text=True, env=env or self.env, timeout=30)
        if check is not None:
            self.assertEqual(res.returncode, check,
                             f"{' '.join(argv)}: exit {res.returncode}\nstdout: {res.stdout}\nstderr: {res.stderr}")
        return res.returncode, res.stdout, res.stderr
