#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray under Xvfb against the real tpacceld on the EC emulator, with dbusmock standing in
for the StatusNotifierWatcher (the panel; sn_watcher_template.py) and the notification daemon, and dunst,
a real notification daemon, where the mock cannot show a fact (expiry)."""
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

from clienttest import (ACCEL, ACCEL_PATH, DBUSMENU, ITEM_PATH, MENU_PATH, OUTDIR, TOP_BUILDDIR, TOP_SRCDIR, TRAY,
                        ClientTestCase, TrayMenu, colours, item_owner_on_bus, stop_process, trace_from, wait_until)
from gi.repository import GLib

from fake_sysfs import FakeSysfs

WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"
NOTIFICATIONS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
SNI = "org.kde.StatusNotifierItem"
MOCK = "org.freedesktop.DBus.Mock"
WATCHER_TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sn_watcher_template.py")
BUBBLE, PLOT_X, PLOT_Y = "#8AE234", "#3465A4", "#CC0000"


class Xvfb:
    """Started at once; wait() returns its display once it takes clients (the rest of a set-up goes on
    meanwhile)."""

    def __init__(self):
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1024x768x24",
                                      "-nolisten", "tcp"], pass_fds=[write_fd], stderr=subprocess.DEVNULL)
        os.close(write_fd)
        self.displayfd = os.fdopen(read_fd)
        self.display = None

    def wait(self):
        if self.display is None:
            with self.displayfd as f:
                number = f.readline().strip()
            if not number:
                raise RuntimeError("Xvfb did not start")
            self.display = ":" + number
        return self.display

    def stop(self):
        stop_process(self.proc)


class TrayTest(TrayMenu, ClientTestCase):
    def setUp(self):
        super().setUp()
        self.assertTrue(os.access(TRAY, os.X_OK), f"{TRAY} is not built")
        self.xvfb = Xvfb()
        # The panel's watcher, the notification server and a subclass's mocks start while Xvfb does.
        self.start_mocks(self.watcher_mock(), (["--session", "--template", "notification_daemon"], NOTIFICATIONS,
                                               "notifications.log"), *self.more_mocks())
        self.env["DISPLAY"] = self.xvfb.wait()
        self.env["TPACCEL_ICON_DIR"] = os.path.join(TOP_SRCDIR, "data", "icons")
        self.env["TPACCEL_TRAY_TEMPERATURE_POLL_MS"] = "200"  # tests only: 5 s otherwise
        self.tray = None

    def more_mocks(self):
        """The mocks a subclass needs besides the watcher and the notification server (start_mocks())."""
        return ()

    @staticmethod
    def watcher_mock(host=True, log_name="watcher.log"):
        """The panel's StatusNotifierWatcher (sn_watcher_template.py), saying whether a host is there: the
        arguments of start_mocks()."""
        return (["--session", "--template", WATCHER_TEMPLATE, "--parameters", json.dumps({"host": host})], WATCHER,
                log_name)

    def start_watcher(self, host=True, log_name="watcher.log"):
        self.start_mocks(self.watcher_mock(host, log_name))

    def stop_display(self):
        self.xvfb.stop()

    def start_tray(self, *args, env=None, registered=True, bus="--session"):
        env = dict(env or self.env, G_MESSAGES_DEBUG="all")
        self.tray = self.spawn([TRAY, bus] + list(args), "tray.log", env=env)
        if registered:
            wait_until(self.item_registered, what="the tray to register its StatusNotifierItem")
        return self.tray

    def log(self, name):
        with open(os.path.join(self.tmpdir, name), errors="replace") as f:
            return f.read()

    def tray_log(self):
        return self.log("tray.log")

    def menu_owner(self):
        return self._owner

    def screenshot(self, name):
        os.makedirs(OUTDIR, exist_ok=True)
        shot = os.path.join(OUTDIR, name)
        subprocess.run(["import", "-display", self.xvfb.display, "-window", "root", shot], check=True,
                       env=self.env, timeout=30)
        return shot

    def colours(self, shot):
        return colours(shot)

    def window_size(self):
        """The size (w, h) of the tray's window (no window manager: a top-level child of the root)."""
        tree = subprocess.run(["xwininfo", "-display", self.xvfb.display, "-root", "-children"],
                              capture_output=True, text=True, check=True).stdout
        for line in tree.splitlines():
            m = re.search(r'"ThinkPad Accelerometer".*?(\d+)x(\d+)\+', line)
            if m:
                return int(m.group(1)), int(m.group(2))
        return None

    def window_width(self):
        size = self.window_size()
        return size[0] if size else None

    def close_window(self):
        """Closes the tray's window as a window manager does: WM_DELETE_WINDOW (no WM runs here)."""
        ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "ThinkPad Accelerometer"],
                             capture_output=True, text=True, env=self.env).stdout.split()
        self.assertTrue(ids, "the window is not shown")

        class ClientMessage(ctypes.Structure):
            _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                        ("display", ctypes.c_void_p), ("window", ctypes.c_ulong),
                        ("message_type", ctypes.c_ulong), ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]

        class XEvent(ctypes.Union):
            _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]

        x11 = ctypes.CDLL("libX11.so.6")
        x11.XOpenDisplay.restype = ctypes.c_void_p
        x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x11.XInternAtom.restype = ctypes.c_ulong
        x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
        x11.XFlush.argtypes = x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        dpy = x11.XOpenDisplay(self.xvfb.display.encode())
        self.assertTrue(dpy, "cannot open the X display")
        try:
            for wid in ids:
                ev = XEvent()
                ev.xclient.type = 33  # ClientMessage
                ev.xclient.window = int(wid)
                ev.xclient.message_type = x11.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
                ev.xclient.format = 32
                ev.xclient.data[0] = x11.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
                x11.XSendEvent(dpy, int(wid), 0, 0, ctypes.byref(ev))
            x11.XFlush(dpy)
        finally:
            x11.XCloseDisplay(dpy)

    def open_menu(self):
        """Opens the menu, as a StatusNotifierItem panel does (dbusmenu AboutToShow on the root)."""
        self.bus.call(self._owner, MENU_PATH, DBUSMENU, "AboutToShow", "i", (0,))

    def watch_property_reads(self):
        """Records every Properties.Get on the bus (dbus-monitor), for temperature_reads()."""
        self.spawn(["dbus-monitor", "--address", self.bus.address,
                    "type='method_call',interface='org.freedesktop.DBus.Properties',member='Get'"], "gets.log")
        time.sleep(0.5)

    def temperature_reads(self):
        """How often Temperature was read (only the tray reads it here), as the bus saw it."""
        with open(os.path.join(self.tmpdir, "gets.log"), errors="replace") as f:
            return f.read().count('string "Temperature"')

    def item_registered(self):
        calls = self.bus.call(WATCHER, WATCHER_PATH, MOCK, "GetMethodCalls", "s",
                              ("RegisterStatusNotifierItem",))
        return any(args and args[0] == ITEM_PATH for _, args in calls)

    def _tray_name(self):
        """The tray's unique bus name. The watcher mock records the object path only."""
        return item_owner_on_bus(self.bus, ITEM_PATH)

    def icon_name(self):
        return self.bus.get_property(self._owner, ITEM_PATH, SNI, "IconName")

    @property
    def _owner(self):
        if not getattr(self, "_owner_cache", None):
            self._owner_cache = wait_until(self._tray_name, what="the tray's bus name")
        return self._owner_cache

    def accel_signal_rules(self):
        """The tray's match rules for tpacceld's own signals, as the bus daemon holds them (its stats
        interface): the members they name, None for a rule that would match every signal."""
        rules = self.bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus.Debug.Stats", "GetAllMatchRules").get(self._owner, [])
        members = []
        for rule in rules:
            if "interface='%s'" % ACCEL not in rule:
                continue
            m = re.search(r"member='([^']*)'", rule)
            members.append(m.group(1) if m else None)
        return sorted(members, key=str)

    def notifications(self):
        calls = self.bus.call(NOTIFICATIONS, NOTIFICATIONS_PATH, MOCK, "GetMethodCalls", "s", ("Notify",))
        # Notify(app_name, replaces_id, icon, summary, body, actions, hints, timeout)
        return [(args[3], args[4]) for _, args in calls]

    def test_command_line_and_display_errors(self):
        # A bad option is a usage error (2); no display is no usage error (1) and says what it needs.
        res = subprocess.run([TRAY, "--bogus"], capture_output=True, text=True, env=self.env, timeout=30)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("--bogus", res.stderr)
        env = {k: v for k, v in self.env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        res = subprocess.run([TRAY, "--session"], capture_output=True, text=True, env=env, timeout=30)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("cannot open the display: the tray icon needs a desktop session", res.stderr)
        # The tests' short times, when they are no times, are refused by name.
        for name in ("TPACCEL_TRAY_TEMPERATURE_POLL_MS", "TPACCEL_TRAY_HOST_GRACE_MS",
                     "TPACCEL_TRAY_SERVICE_NOTICE_MS"):
            res = subprocess.run([TRAY, "--session"], capture_output=True, text=True, timeout=30,
                                 env=dict(self.env, **{name: "5s"}))
            self.assertEqual(res.returncode, 2, res.stderr)
            self.assertIn(f'{name}="5s"', res.stderr)

    def notify_calls(self):
        """Every Notify call: (replaces_id, icon, summary, body, hints, timeout)."""
        calls = self.bus.call(NOTIFICATIONS, NOTIFICATIONS_PATH, MOCK, "GetMethodCalls", "s", ("Notify",))
        return [(a[1], a[2], a[3], a[4], a[6], a[7]) for _, a in calls]

    def test_heads_parked_is_critical(self):
        # Disk protection acted: that one stays until the user saw it (critical), unlike a shock.
        sysfs = FakeSysfs(os.path.join(self.tmpdir, "sys"))
        sysfs.add_disk("sda")
        self.start_tray()
        self.start_daemon(trace_from("drop-30cm.csv", 3000, os.path.join(self.tmpdir, "drop-at-2s.csv")), loop=True,
                          extra=["--sysfs-root=" + sysfs.root])
        self.bus.call(ACCEL, ACCEL_PATH, ACCEL, "SetProtectedDisks", "as", (["sda"],))
        wait_until(lambda: any(n[2] == "Disk heads parked" for n in self.notify_calls()), timeout=25,
                   what="the heads-parked notification")
        _, icon, _, body, hints, _ = next(n for n in self.notify_calls() if n[2] == "Disk heads parked")
        self.assertEqual(hints.get("urgency"), 2, hints)
        self.assertIn("sda", body)
        self.assertTrue(os.path.isfile(icon), icon)

    def test_settings_refusal_in_user_words(self):
        # tpacceld on a bus of its own asks polkit there (the dbusmock polkitd template refuses): the
        # Settings dialog says what to do, not the service's developer text.
        self.start_mock(["--system", "--template", "polkitd"], "org.freedesktop.PolicyKit1", "polkitd.log")
        self.start_daemon("rest.csv", session=False)
        self.start_tray(bus=f"--address={self.bus.address}")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.click_menu("_Settings…")
        dialog = wait_until(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--name",
                                                    "Accelerometer Settings"], capture_output=True, text=True,
                                                   env=self.env).stdout.split(), what="the Settings dialog")
        # The sampling rate has the focus: one step up asks the service to change it.
        self.xdotool("windowfocus", "--sync", dialog[0])
        self.xdotool("key", "Up")
        wait_until(lambda: "Settings: " in self.tray_log(), what="the refusal")
        line = re.search(r"Settings: (.*) \(", self.tray_log()).group(1)
        self.assertTrue(line.startswith("Not changed: you are not allowed"), line)
        self.assertNotIn("org.thinkpad", line)
        self.assertEqual(self.bus.accel_property("SamplingRate"), 50)
        self.screenshot("tray-settings-refusal.png")

    def test_calibrate_answers(self):
        # A click on Calibrate gets an answer that goes away by itself.
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.click_menu("_Calibrate")
        wait_until(lambda: any(s == "Calibrated" for s, _ in self.notifications()), what="the calibrated bubble")
        calls = self.bus.call(NOTIFICATIONS, NOTIFICATIONS_PATH, MOCK, "GetMethodCalls", "s", ("Notify",))
        args = next(args for _, args in calls if args[3] == "Calibrated")
        self.assertGreater(args[7], 0, "expires by itself")
        self.assertEqual(args[6].get("urgency"), 0, "low urgency")

    def test_settings_while_the_service_is_gone(self):
        # Open while the service stops: the controls take no changes and the dialog says why, in the
        # window's words; when it returns the bar goes and the dialog is as high as before.
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.click_menu("_Settings…")
        dialog = wait_until(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--name",
                                                    "Accelerometer Settings"], capture_output=True, text=True,
                                                   env=self.env).stdout.split(), what="the Settings dialog")[0]

        def height():
            out = subprocess.run(["xdotool", "getwindowgeometry", "--shell", dialog], capture_output=True,
                                 text=True, env=self.env).stdout
            return int(re.search(r"HEIGHT=(\d+)", out).group(1))

        time.sleep(0.5)
        before = height()
        self.stop_daemon()
        wait_until(lambda: "Settings unavailable: The accelerometer service is not running" in self.tray_log(),
                   what="the dialog saying the service is gone")
        time.sleep(0.5)
        self.assertGreater(height(), before, "the bar shows")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.tray_log().rstrip().count("Settings available") >= 1 and
                   self.tray_log().rfind("Settings available") > self.tray_log().rfind("Settings unavailable"),
                   what="the dialog taking changes again")
        wait_until(lambda: height() == before, what="the dialog back to its height")

    def test_shocks_coalesce_into_one_alert(self):
        # Shocks need the full rate: the tray's option holds a full-rate claim (the icon's 4 Hz would miss
        # a drop's free fall). Two knocks 3 s apart (desk-knock.csv from 2 s on: at 1 and 4 s): the first
        # raises one notification, the second updates it in place ("2 shocks in 3 s"), not held back for a
        # later alert. The core raises one shock per knock and per drop (tests/daemon/test-readout.c).
        self.start_tray("--watch-shocks")
        self.start_daemon(trace_from("desk-knock.csv", 2000, os.path.join(self.tmpdir, "knocks-from-1s.csv")))

        def one_each():
            count = self.bus.accel_property("ShockCount")
            shocks = [n for n in self.notify_calls() if n[2] == "Shock detected"]
            return (count, shocks) if count >= 2 and len(shocks) == count else None
        count, shocks = wait_until(one_each, timeout=20, what="a notification for each of two shocks")
        replaces_id, icon, _, body, hints, timeout = shocks[0]
        self.assertEqual(replaces_id, 0)
        # In a user's words, not the detector's ("jolt", "drift", "freefall").
        self.assertRegex(body, r"^Felt like (a knock|a sudden movement|a fall), \d+\.\d\d g\.$")
        # News, not an alarm: normal urgency, and it goes away by itself.
        self.assertEqual(hints.get("urgency"), 1, hints)
        self.assertGreater(timeout, 0)
        # Run uninstalled, the daemon gets the icon's file: it cannot see the tray's icon directory.
        self.assertTrue(os.path.isabs(icon) and os.path.isfile(icon), icon)
        # The updates replace the first bubble (the mock numbers its notifications from 1).
        self.assertEqual({n[0] for n in shocks[1:]}, {1}, shocks)
        m = re.match(r"^(\d+) shocks in (\d+) s; the strongest: .*, \d+\.\d\d g\.$", shocks[-1][3])
        self.assertTrue(m, shocks[-1][3])
        self.assertEqual(int(m.group(1)), count)
        self.assertLessEqual(int(m.group(2)), 3 * (count - 1) + 1)

    def test_window_renders(self):
        self.start_tray("--show-window")
        self.start_daemon("slow-roll-45.csv", loop=True)
        wait_until(lambda: self.bus.accel_property("Polling"), what="the claim")
        # The window is there: the bubble's green and the x/y plot colours come on screen once samples
        # came (as many screenshots as that takes).
        wait_until(lambda: all(rgb in self.colours(self.screenshot("tray-window.png"))
                               for rgb in [BUBBLE, PLOT_X, PLOT_Y]),
                   interval=0.5, what="the bubble and the x/y plot colours on the screenshot")

    def test_survives_daemon_restart(self):
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.stop_daemon()
        wait_until(lambda: self.icon_name() == "tpaccel-service-missing", what="the service-missing icon")
        wait_until(lambda: any(s == "Accelerometer service stopped" for s, _ in self.notifications()),
                   what="the service-gone notification")
        # In a user's words, short enough for GNOME's bubbles: no daemon or bus names.
        body = next(b for s, b in self.notifications() if s == "Accelerometer service stopped")
        self.assertEqual(body, "Tilt and shock alerts are off until it is started again.")
        time.sleep(1)
        self.assertIsNone(self.tray.poll(), "tpaccel-tray died with the daemon")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon after restart")
        wait_until(lambda: any(s == "Accelerometer service is back" for s, _ in self.notifications()),
                   what="the service-back notification")
        # The new instance got a claim again (the old one died with the old daemon).
        wait_until(lambda: self.bus.accel_property("Polling"), what="the claim on the new instance")

    def test_back_without_an_accelerometer_is_no_good_news(self):
        # The service stopped (bubble), then came back without an accelerometer: "alerts are on again"
        # would be false. The bubble comes with an instance that has one.
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.stop_daemon()
        wait_until(lambda: any(s == "Accelerometer service stopped" for s, _ in self.notifications()),
                   what="the service-gone notification")
        self.start_daemon(extra=["--sim-fault=absent"])
        wait_until(lambda: self.icon_name() == "tpaccel-no-accelerometer", what="the no-accelerometer icon")
        time.sleep(1.5)
        self.assertNotIn("Accelerometer service is back", [s for s, _ in self.notifications()])
        self.stop_daemon()
        self.start_daemon("rest.csv")
        wait_until(lambda: any(s == "Accelerometer service is back" for s, _ in self.notifications()),
                   what="the service-back notification with an accelerometer")

    def test_no_accelerometer(self):
        self.start_tray()
        self.start_daemon(extra=["--sim-fault=absent"])
        self.assertIs(self.bus.accel_property("HasAccelerometer"), False)
        wait_until(lambda: self.icon_name() == "tpaccel-no-accelerometer", what="the no-accelerometer icon")
        time.sleep(1)
        self.assertIs(self.bus.accel_property("Polling"), False)

    def test_claims_only_while_needed(self):
        self.start_tray("--no-animation")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon")
        time.sleep(1)
        self.assertIs(self.bus.accel_property("Polling"), False)

    def test_claims_at_the_rate_it_shows(self):
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the icon's 4 Hz claim")
        time.sleep(1)
        self.assertEqual(self.bus.accel_property("EffectiveRate"), 4, "at rest: the icon's rate only")
        self.assertEqual(self.bus.accel_property("SamplingRate"), 50)
        self.assertNotIn("Subscribed to Sample", self.tray_log(), "Sample signals with the window closed")
        # One match rule per signal shown, none for the whole interface (that would bring every Sample).
        self.assertEqual(self.accel_signal_rules(), ["HeadsParked", "Shock"])
        # The window (bubble level, plot) needs every readout.
        self.click_menu("Show _window")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate for the window")
        wait_until(lambda: "Subscribed to Sample" in self.tray_log(), what="the Sample subscription")
        self.assertEqual(self.accel_signal_rules(), ["HeadsParked", "Sample", "Shock"])
        self.close_window()
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the icon's rate again")
        wait_until(lambda: "Unsubscribed from Sample" in self.tray_log(), what="the Sample subscription to go")
        wait_until(lambda: self.accel_signal_rules() == ["HeadsParked", "Shock"], what="the Sample match rule to go")
        self.assertIs(self.bus.accel_property("Polling"), True)

    def test_watch_shocks_holds_the_full_rate(self):
        self.start_tray("--watch-shocks", "--no-animation")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full-rate claim")
        self.assertNotIn("Subscribed to Sample", self.tray_log(), "Sample signals with the window closed")
        self.click_menu("_Watch for shocks (full rate, more power)")
        wait_until(lambda: not self.bus.accel_property("Polling"), what="the claim to go")
        self.assertEqual(self.bus.accel_property("EffectiveRate"), 0)

    def test_starts_service_by_activation(self):
        # At login nothing has started the bus-activated service yet: the tray does.
        self.install_activation("rest.csv")
        self.start_tray()
        wait_until(lambda: self.bus.name_owner(ACCEL), what="the tray to activate tpacceld")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.assertNotIn("Accelerometer service stopped", [s for s, _ in self.notifications()])

    def test_lets_daemon_idle(self):
        # No accelerometer: the daemon exits after 1 s without calls. The old tray read Temperature every
        # 5 s (200 ms here) and kept it alive for ever.
        self.install_activation(extra=["--sim-fault=absent", "--exit-idle-time=1"])
        self.watch_property_reads()
        self.start_tray()
        wait_until(lambda: self.bus.name_owner(ACCEL), what="the tray to activate tpacceld")
        wait_until(lambda: self.icon_name() == "tpaccel-no-accelerometer", what="the no-accelerometer icon")
        icons = set()
        deadline = time.monotonic() + 25
        while self.bus.name_owner(ACCEL) and time.monotonic() < deadline:
            icons.add(self.icon_name())
            time.sleep(0.2)
        self.assertIsNone(self.bus.name_owner(ACCEL), "tpacceld did not exit idle: the tray keeps calling it")
        time.sleep(1)
        icons.add(self.icon_name())
        # Quietly: the same icon, no notification, the menu still says why.
        self.assertEqual(icons, {"tpaccel-no-accelerometer"})
        self.assertEqual(self.notifications(), [])
        self.assertEqual(self.menu_labels()[0], "No accelerometer")
        self.assertEqual(self.temperature_reads(), 0)
        # The user opens the menu: the service is started again, and it exits again when left alone.
        self.open_menu()
        wait_until(lambda: self.bus.name_owner(ACCEL), what="the tray to activate tpacceld again")
        wait_until(lambda: not self.bus.name_owner(ACCEL), timeout=25, what="the second idle exit")
        # The user opens the window: started again.
        self.click_menu("Show _window")
        wait_until(lambda: self.bus.name_owner(ACCEL), what="the tray to activate tpacceld for the window")
        self.assertEqual(self.notifications(), [])
        self.assertEqual(self.icon_name(), "tpaccel-no-accelerometer")

    def test_reads_only_what_is_shown(self):
        self.watch_property_reads()
        self.start_tray("--no-animation", env=dict(self.env, TPACCEL_TRAY_TEMPERATURE_POLL_MS="100"))
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon")
        time.sleep(0.5)  # 5 periods of the temperature reads (TPACCEL_TRAY_TEMPERATURE_POLL_MS)
        self.assertEqual(self.temperature_reads(), 0, "the temperature was read with the window closed")
        self.assertIs(self.bus.accel_property("Polling"), False)
        # Opening the menu, which shows it, reads it once.
        self.open_menu()
        wait_until(lambda: self.temperature_reads() == 1, what="a temperature read for the menu")
        time.sleep(0.5)
        self.assertEqual(self.temperature_reads(), 1)
        self.click_menu("Show _window")
        wait_until(lambda: self.temperature_reads() >= 2, timeout=15, what="temperature reads with the window open")
        self.assertIs(self.bus.accel_property("Polling"), True)

    def test_window_clears_and_wraps(self):
        self.start_tray("--show-window")
        self.start_daemon("slow-roll-45.csv", loop=True)
        wait_until(lambda: self.bus.accel_property("Polling"), what="the claim")
        wait_until(lambda: all(rgb in self.colours(self.screenshot("tray-window-live.png"))
                               for rgb in [BUBBLE, PLOT_X, PLOT_Y]),
                   interval=0.5, what="the bubble and the x/y plot colours on the screenshot")
        self.stop_daemon()
        wait_until(lambda: self.icon_name() == "tpaccel-service-missing", what="the service-missing icon")
        time.sleep(1)
        colours = self.colours(self.screenshot("tray-window-gone.png"))
        for rgb in [BUBBLE, PLOT_X, PLOT_Y]:
            self.assertNotIn(rgb, colours, "the window still shows the old readings")
        last = re.findall(r"Window readouts: .*", self.tray_log())[-1]
        self.assertIn("orientation –, tilt –, temperature –, rate –, 0 samples", last)
        # Back without an accelerometer, with a long reason: it wraps; the menu cuts it.
        self.start_daemon(backend="auto")
        reason = self.bus.accel_property("BackendReason")
        self.assertGreater(len(reason), 100)
        wait_until(lambda: self.icon_name() == "tpaccel-no-accelerometer", what="the no-accelerometer icon")
        time.sleep(1)
        self.screenshot("tray-window-no-accelerometer.png")
        width = self.window_width()
        self.assertIsNotNone(width)
        self.assertLess(width, 760, "the reason widened the window")
        labels = self.menu_labels()
        self.assertEqual(labels[0], "No accelerometer")
        self.assertLessEqual(max(len(label) for label in labels), 60, labels)
        self.assertTrue(labels[1].endswith("…"), labels)

    def window_ids(self):
        return subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "ThinkPad Accelerometer"],
                              capture_output=True, text=True, env=self.env).stdout.split()

    def xdotool(self, *args):
        subprocess.run(["xdotool"] + list(args), check=True, env=self.env, timeout=10)

    def test_unseen_window_costs_what_the_icon_costs(self):
        # A window nobody sees (unmapped from outside, as a window manager does for a minimized window or
        # one on another workspace) needs neither the full rate nor Sample signals.
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate for the window")
        wait_until(lambda: self.accel_signal_rules() == ["HeadsParked", "Sample", "Shock"], what="the Sample match rule")
        self.assertIn("SubscribeSamples", self.tray_log())
        ids = wait_until(self.window_ids, what="the window")
        self.xdotool("windowunmap", ids[0])
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the icon's rate when unseen")
        wait_until(lambda: self.accel_signal_rules() == ["HeadsParked", "Shock"], what="the Sample match rule to go")
        wait_until(lambda: "UnsubscribeSamples" in self.tray_log(), what="UnsubscribeSamples")
        self.xdotool("windowmap", ids[0])
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate when seen again")
        wait_until(lambda: self.accel_signal_rules() == ["HeadsParked", "Sample", "Shock"], what="the Sample match rule again")
        self.assertEqual(self.tray_log().count("SubscribeSamples"), 2)

    def managed_by_the_window_manager(self, window_id):
        """The window is in the root window's _NET_CLIENT_LIST (EWMH: the windows the manager manages)."""
        out = subprocess.run(["xprop", "-root", "_NET_CLIENT_LIST"], env=self.env, capture_output=True,
                             text=True).stdout
        return int(window_id) in [int(w, 16) for w in re.findall(r"0x[0-9a-fA-F]+", out)]

    def test_minimized_and_other_workspace_under_xfwm4(self):
        # A real window manager: xfwm4 minimizes the window (windowminimize) and hides it on another
        # workspace (set_desktop); either way the full rate and the samples go, and come back.
        # Its settings and caches go to the test's directory, not the user's.
        home = {k: os.path.join(self.tmpdir, d) for k, d in
                [("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data")]}
        self.spawn(["xfwm4", "--replace"], "xfwm4.log", env=dict(self.env, **home))
        wait_until(lambda: "window id" in subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=self.env,
                                                         capture_output=True, text=True).stdout, what="xfwm4")
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate for the window")
        ids = wait_until(self.window_ids, what="the window")
        # xfwm4 announces itself (above) before it has taken over the windows already mapped; a request to
        # minimize a window it does not manage yet is dropped. Its client list says when it does.
        wait_until(lambda: self.managed_by_the_window_manager(ids[0]), what="xfwm4 to manage the window")
        self.xdotool("windowminimize", ids[0])
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the icon's rate when minimized")
        wait_until(lambda: self.accel_signal_rules() == ["HeadsParked", "Shock"], what="the Sample rule to go")
        self.xdotool("windowactivate", ids[0])
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate when restored")
        self.xdotool("set_num_desktops", "2")
        self.xdotool("set_desktop", "1")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the icon's rate on another workspace")
        self.xdotool("set_desktop", "0")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate back on its workspace")
        self.assertIn("UnsubscribeSamples", self.tray_log())

    def test_window_destroyed_from_outside(self):
        # XDestroyWindow from another client (xdotool windowclose, a window manager's force close): the
        # tray goes on, updates without touching freed widgets, and "Show window" brings a new window.
        self.start_tray("--show-window", env=dict(self.env, G_DEBUG="fatal-criticals"))
        # The demo's motion: it holds an angle 1 s at most, so tilt updates keep coming.
        self.start_daemon(os.path.join(TOP_SRCDIR, "scripts", "demo-tour.csv"), loop=True)
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate for the window")
        ids = wait_until(self.window_ids, what="the window")
        self.xdotool("windowclose", ids[0])
        wait_until(lambda: not self.window_ids(), what="the window to go")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 4, what="the icon's rate without a window")
        # Tilt updates keep coming and reach the window's stand-in. They come only while the trace turns
        # (Pitch and Roll change by a tilt step), not while it holds: wait for one.
        readouts = self.tray_log().count("Window readouts: ")
        wait_until(lambda: self.tray.poll() is not None or self.tray_log().count("Window readouts: ") > readouts,
                   what="a tilt update after the window went")
        self.assertIsNone(self.tray.poll(), self.tray_log())
        self.click_menu("Show _window")
        wait_until(self.window_ids, what="the new window")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full rate for the new window")
        # The new window draws the level and the plot once samples came (as many screenshots as that takes).
        wait_until(lambda: all(rgb in self.colours(self.screenshot("tray-window-after-windowclose.png"))
                               for rgb in [BUBBLE, PLOT_X, PLOT_Y]),
                   interval=0.5, what="the new window to draw the level and the plot")
        # The Settings dialog too.
        self.click_menu("_Settings…")
        settings = wait_until(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--name",
                                                      "Accelerometer Settings"], capture_output=True, text=True,
                                                     env=self.env).stdout.split(), what="the Settings dialog")
        self.xdotool("windowclose", settings[0])
        # Property changes arrive meanwhile and set the dialog's values: two tilt updates (the window's).
        readouts = self.tray_log().count("Window readouts: ")
        wait_until(lambda: self.tray.poll() is not None or self.tray_log().count("Window readouts: ") >= readouts + 2,
                   what="two tilt updates after the dialog went")
        self.click_menu("_Settings…")
        wait_until(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "Accelerometer Settings"],
                                          capture_output=True, text=True, env=self.env).stdout.split(),
                   what="a new Settings dialog")
        self.assertIsNone(self.tray.poll(), self.tray_log())
        self.assertNotIn("CRITICAL", self.tray_log())
        self.assertNotIn("Gtk-WARNING", self.tray_log())

    def test_x_errors_of_windows_destroyed_from_outside(self):
        # The race behind test_window_destroyed_from_outside, made deterministic (tests/client/test-tray-x11.c):
        # a BadDrawable for a window destroyed from outside arrives while GDK has a trap pushed for a later
        # request. Without the tray's hook GDK ends the program; with it the program goes on, and errors on
        # other clients' windows still reach GDK's traps.
        helper = os.path.join(TOP_BUILDDIR, "tests", "client", "test-tray-x11")

        def run(*args):
            res = subprocess.run([helper, *args], capture_output=True, text=True, env=self.env, timeout=30)
            return res.returncode, res.stdout + res.stderr

        for case, error in [("error_arriving_inside_a_trap", "BadDrawable"),
                            ("cairo_drawing_on_a_window_destroyed_from_outside", "RenderBadPicture"),
                            ("resources_made_for_a_window_destroyed_from_outside", "BadDrawable")]:
            status, output = run("--without-hook", case)
            self.assertEqual(status, 1, output)
            self.assertIn(f"The error was '{error}", output)
            status, output = run(case)
            self.assertEqual(status, 0, output)
            self.assertIn("1 passed, 0 failed", output)
            self.assertNotIn("CRITICAL", output)
        # Destroyed while a resize waits for the frame clock: GTK's warnings (criticals too, by timing).
        status, output = run("--without-hook", "layout_pending_when_destroyed_from_outside")
        self.assertEqual(status, 1, output)
        self.assertIn("has no handler with id", output)
        status, output = run("layout_pending_when_destroyed_from_outside")
        self.assertEqual(status, 0, output)
        self.assertIn("1 passed, 0 failed", output)
        status, output = run("other_clients_windows_still_reach_the_trap")
        self.assertEqual(status, 0, output)
        self.assertIn("1 passed, 0 failed", output)

    def test_demo_motion_leans_the_icon(self):
        # The icon follows the tilt: scripts/demo.sh's motion leans it in its first seconds one step
        # (15 deg) to the right, then two, with no shock. That the whole tour turns every way (right-up,
        # left-up, bottom-up, every icon step's angle) without a shock is the daemon core's, in virtual
        # time (tests/daemon/test-readout.c); which icon an angle shows, test-tray-logic.c's.
        self.start_tray()
        self.assertEqual(self.icon_name(), "tpaccel-service-missing")
        self.start_daemon(os.path.join(TOP_SRCDIR, "scripts", "demo-tour.csv"), loop=True)
        icons = []

        def leaned():
            name = self.icon_name()
            if not icons or icons[-1] != name:
                icons.append(name)
            return "tpaccel-tilt-r4-p2" in icons
        wait_until(leaned, timeout=20, what="the icon to lean two steps right")
        self.assertIn("tpaccel-tilt-r3-p2", icons)
        self.assertLess(icons.index("tpaccel-tilt-r3-p2"), icons.index("tpaccel-tilt-r4-p2"), icons)
        self.assertNotIn("tpaccel-shock", icons, "the demo's turns are no shocks")
        self.assertIs(self.bus.accel_property("Polling"), True)

    def test_gnome_symbolic_icons_and_boxes(self):
        # GNOME Shell's dark top bar wants symbolic icons, and its AppIndicator menu draws a check item's
        # state only when it is on: the toggles carry a box in their label there.
        self.start_tray(env=dict(self.env, XDG_CURRENT_DESKTOP="ubuntu:GNOME"))
        self.assertEqual(self.icon_name(), "tpaccel-service-missing-symbolic")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2-symbolic", what="the symbolic level icon")
        labels = self.menu_labels()
        self.assertIn("☑ _Animate icon", labels)
        self.assertIn("☐ _Watch for shocks (full rate, more power)", labels)
        self.click_menu("☐ _Watch for shocks (full rate, more power)")
        wait_until(lambda: self.bus.accel_property("EffectiveRate") == 50, what="the full-rate claim")
        wait_until(lambda: "☑ _Watch for shocks (full rate, more power)" in self.menu_labels(), what="the ticked box")

    def test_service_gone_said_once(self):
        # The menu and the window say once, in user words, that the service is not running.
        self.start_tray("--show-window")
        wait_until(lambda: self.menu_labels(), what="the menu")
        labels = self.menu_labels()
        self.assertEqual(labels[0], "The accelerometer service is not running")
        self.assertEqual([label for label in labels if "running" in label], labels[:1], labels)
        self.assertNotIn("tpacceld", " ".join(labels))

    def test_window_shrinks_back(self):
        # After a long status line (no accelerometer: the reason wraps) the service comes back with one:
        # the line goes and the window takes its old size, with no empty strip above the bubble level.
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon")
        time.sleep(1)
        normal = self.window_size()
        self.stop_daemon()
        self.start_daemon(backend="auto")
        wait_until(lambda: self.icon_name() == "tpaccel-no-accelerometer", what="the no-accelerometer icon")
        wait_until(lambda: self.window_size()[1] > normal[1], what="the status line")
        self.stop_daemon()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon again")
        wait_until(lambda: self.window_size() == normal, what="the window's old size")
        self.screenshot("tray-window-service-back.png")

    def stop_mock(self, name):
        """Stops the dbusmock that owns name (started in setUp), by its pid."""
        pid = self.bus.owner_pid(name)
        proc = next(p for p in self.processes if p.pid == pid)
        stop_process(proc)
        wait_until(lambda: not self.bus.name_owner(name), what=f"{name} to leave")

    def window_shown(self):
        return subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^ThinkPad Accelerometer$"],
                              capture_output=True, text=True, env=self.env).stdout.split()

    def test_no_tray_host_said_once_then_picked_up(self):
        # No StatusNotifierWatcher and no XEmbed tray (stock GNOME without the AppIndicator extension, sway
        # without a bar): the tray says once what is missing and what to do, in the log and a
        # notification, opens its window instead, and warns about nothing. A host that comes later shows
        # the icon: a watcher first without a host (KDE's watcher before the panel), then its host.
        self.stop_mock(WATCHER)
        # The grace for a panel starting: 1 s here (tests only), 10 s otherwise.
        self.start_tray(env=dict(self.env, G_DEBUG="fatal-criticals", TPACCEL_TRAY_HOST_GRACE_MS="1000"),
                        registered=False)
        self.start_daemon("rest.csv")
        said = "No tray shows the accelerometer icon"
        wait_until(lambda: said in self.tray_log(), timeout=30,
                   what="the no-host message in the log (after the grace for a panel starting)")
        wait_until(lambda: any(s == said for s, _ in self.notifications()), what="the no-host notification")
        body = next(b for s, b in self.notifications() if s == said)
        self.assertIn("On GNOME, install and enable the AppIndicator extension", body)
        wait_until(self.window_shown, what="the window, instead of the icon")
        self.screenshot("tray-no-host.png")
        self.start_watcher(host=False, log_name="watcher2.log")
        wait_until(self.item_registered, what="the tray to register its item with the new watcher")
        wait_until(lambda: "IsStatusNotifierHostRegistered" in self.log("watcher2.log"),
                   what="the tray to ask the watcher for a host")
        time.sleep(1)
        self.assertNotIn("A tray shows", self.tray_log(), "a watcher without a host shows nothing")
        self.bus.call(WATCHER, WATCHER_PATH, "org.freedesktop.DBus.Properties", "Set", "ssv",
                      (WATCHER, "IsStatusNotifierHostRegistered", GLib.Variant("b", True)))
        self.bus.call(WATCHER, WATCHER_PATH, MOCK, "EmitSignal", "sssav",
                      (WATCHER, "StatusNotifierHostRegistered", "", []))
        wait_until(lambda: "A tray shows the accelerometer icon now." in self.tray_log(), what="the host picked up")
        log = self.tray_log()
        self.assertEqual(log.count(said), 1, log)
        self.assertEqual([s for s, _ in self.notifications()].count(said), 1)
        self.assertIsNone(re.search(r"WARNING|CRITICAL", log), log)
        # The window stays as the user left it: open.
        self.assertTrue(self.window_shown())

    def xprop(self, wid, *props):
        return subprocess.run(["xprop", "-display", self.xvfb.display, "-id", wid, *props], capture_output=True,
                              text=True, check=True, timeout=10).stdout

    def fixed_size(self, wid):
        """The window's size hints say one size (min = max): tiling window managers float it."""
        hints = self.xprop(wid, "WM_NORMAL_HINTS")
        low = re.search(r"minimum size: (\d+) by (\d+)", hints)
        high = re.search(r"maximum size: (\d+) by (\d+)", hints)
        return bool(low and high and low.groups() == high.groups())

    def test_window_and_dialog_float_in_tiling_managers(self):
        # sway tiled the window and the Settings dialog over the whole screen (the dialog's Close button
        # in the far corner): both are of the size of their content, and the dialog sits on the window.
        self.start_tray("--show-window")
        window = wait_until(self.window_shown, what="the window")[0]
        self.click_menu("_Settings…")
        dialog = wait_until(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--name",
                                                    "Accelerometer Settings"], capture_output=True, text=True,
                                                   env=self.env).stdout.split(), what="the Settings dialog")[0]
        self.assertIn("_NET_WM_WINDOW_TYPE_DIALOG", self.xprop(dialog, "_NET_WM_WINDOW_TYPE"))
        self.assertIn("window id # 0x%x" % int(window), self.xprop(dialog, "WM_TRANSIENT_FOR"))
        wait_until(lambda: self.fixed_size(window), what="the window's fixed size")
        wait_until(lambda: self.fixed_size(dialog), what="the dialog's fixed size")

    def test_hanging_notification_server_blocks_nothing(self):
        # A notification server whose D-Bus activation never completes (installed, cannot start): the bus
        # holds each Notify until its activation timeout (25 s). The tray's icon still follows the
        # service at once, and its menu answers meanwhile.
        self.stop_mock(NOTIFICATIONS)
        pidfile = os.path.join(self.tmpdir, "hung-notifications.pid")
        hung = os.path.join(self.tmpdir, "hung-notifications")
        with open(hung, "w") as f:
            f.write(f"#!/bin/sh\necho $$ >> {pidfile}\nexec sleep 120\n")
        os.chmod(hung, 0o755)
        with open(os.path.join(self.bus.servicedir, NOTIFICATIONS + ".service"), "w") as f:
            f.write(f"[D-BUS Service]\nName={NOTIFICATIONS}\nExec={hung}\n")
        self.bus.reload_config()
        try:
            self.start_tray()
            self.start_daemon("rest.csv")
            wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
            self.stop_daemon()
            wait_until(lambda: self.icon_name() == "tpaccel-service-missing",
                       what="the service-missing icon while the notification server hangs")
            wait_until(lambda: os.path.exists(pidfile), what="the bus starting the notification server")
            self.assertEqual(self.menu_labels()[0], "The accelerometer service is not running")
            self.start_daemon("rest.csv")
            wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon again")
        finally:
            # The bus starts it again for each Notify after an activation timed out.
            if os.path.exists(pidfile):
                with open(pidfile) as f:
                    for pid in f.read().split():
                        try:
                            os.kill(int(pid), signal.SIGTERM)
                        except ProcessLookupError:
                            pass

    def test_notifications_name_the_application(self):
        # Every notification names the application as its desktop file does (GNOME and KDE show that
        # name, not "tpaccel-tray"); the service notices expire and replace each other; what is not
        # worth keeping is transient.
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.click_menu("_Calibrate")
        wait_until(lambda: any(s == "Calibrated" for s, _ in self.notifications()), what="the calibrated bubble")
        for _ in range(2):
            self.stop_daemon()
            self.start_daemon("rest.csv")
        wait_until(lambda: [n[2] for n in self.notify_calls()].count("Accelerometer service is back") == 2,
                   what="two service-back notifications")
        calls = self.notify_calls()
        for replaces_id, _, summary, _, hints, _ in calls:
            self.assertEqual(hints.get("desktop-entry"), "tpaccel-tray", summary)
        service = [n for n in calls if n[2].startswith("Accelerometer service")]
        self.assertEqual([n[2] for n in service], ["Accelerometer service stopped", "Accelerometer service is back"] * 2)
        self.assertEqual(service[0][0], 0)
        self.assertEqual({n[0] for n in service[1:]}, {service[1][0]}, "one bubble, replaced")
        self.assertNotEqual(service[1][0], 0)
        stopped, back = service[0], service[1]
        self.assertGreater(stopped[5], 0, "expires")
        self.assertGreater(back[5], 0, "expires")
        self.assertNotIn("transient", stopped[4], "worth keeping: the service stopped")
        self.assertEqual((stopped[4].get("urgency"), back[4].get("urgency")), (1, 0), "normal, then low")
        self.assertIs(back[4].get("transient"), True)
        calibrated = next(n for n in calls if n[2] == "Calibrated")
        self.assertIs(calibrated[4].get("transient"), True)
        # The desktop file the hint names is the one installed.
        with open(os.path.join(TOP_BUILDDIR, "client", "tpaccel-tray.desktop")) as f:
            self.assertIn("Name=ThinkPad Accelerometer", f.read())

    def dunstctl(self, *args):
        return subprocess.run(["dunstctl", *args], capture_output=True, text=True, check=True, env=self.env,
                              timeout=10).stdout

    def test_service_notices_expire_in_dunst(self):
        # A real notification daemon whose own expiry is "never", as mako's: the service notices go by
        # themselves, and after two restarts one bubble is left, not one per restart. The notices stay 4 s
        # here, not 10 (TPACCEL_TRAY_SERVICE_NOTICE_MS, tests only).
        self.stop_mock(NOTIFICATIONS)
        conf = os.path.join(self.tmpdir, "dunstrc")
        with open(conf, "w") as f:
            f.write("[global]\n    idle_threshold = 0\n    history_length = 20\n"
                    "[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n"
                    "[urgency_critical]\n    timeout = 0\n")
        self.spawn(["dunst", "-config", conf], "dunst.log")
        wait_until(lambda: self.bus.name_owner(NOTIFICATIONS), what="dunst on the bus")
        self.start_tray(env=dict(self.env, TPACCEL_TRAY_SERVICE_NOTICE_MS="4000"))
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        for _ in range(2):
            self.stop_daemon()
            wait_until(lambda: self.dunstctl("count", "displayed").strip() == "1", what="the service-stopped bubble")
            self.start_daemon("rest.csv")
            wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon again")
        self.assertEqual(self.dunstctl("count", "displayed").strip(), "1", "one bubble, replaced at each restart")
        wait_until(lambda: self.dunstctl("count", "displayed").strip() == "0", timeout=30,
                   what="the service-back bubble to expire")
        # What dunst kept: the last bubble only (the others were replaced), which expired by its own
        # timeout, under the application's name.
        history = json.loads(self.dunstctl("history"))["data"][0]
        self.assertEqual([n["summary"]["data"] for n in history], ["Accelerometer service is back"])
        self.assertGreater(history[0]["timeout"]["data"], 0)
        self.assertEqual(history[0]["appname"]["data"], "ThinkPad Accelerometer")

    def test_xembed_tray_no_critical(self):
        # An XEmbed tray (trayer) and no StatusNotifierWatcher: the indicator's fallback icon. GDK's
        # "gdk_window_thaw_toplevel_updates" critical came at every start there; fatal here.
        watcher = self.processes[0]
        stop_process(watcher)
        wait_until(lambda: not self.bus.name_owner(WATCHER), what="the watcher to leave")
        self.spawn(["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "64",
                    "--height", "24"], "trayer.log")
        time.sleep(1)
        self.start_tray(env=dict(self.env, G_DEBUG="fatal-criticals"), registered=False)
        self.start_daemon("rest.csv")
        # The icon sits in the tray: a window embedded in trayer's. The critical came as it got there.
        wait_until(lambda: self.tray.poll() is not None or "tpaccel-tray" in subprocess.run(
            ["xwininfo", "-display", self.xvfb.display, "-root", "-tree"], capture_output=True, text=True,
            check=True).stdout, what="the icon in trayer's window")
        time.sleep(1)
        self.assertIsNone(self.tray.poll(), self.tray_log())
        self.assertNotIn("CRITICAL", self.tray_log())


if __name__ == "__main__":
    if not shutil.which("Xvfb"):
        sys.exit("Xvfb is missing (scripts/deps.sh test)")
    unittest.main(verbosity=2)
