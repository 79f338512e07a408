#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray under Xvfb against the real tpacceld on the EC emulator, with dbusmock standing in
for the StatusNotifierWatcher (the panel) and the notification daemon."""
import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clienttest import OUTDIR, TOP_SRCDIR, TRAY, ClientTestCase, stop_process, wait_until  # noqa: E402
from gi.repository import GLib  # noqa: E402

WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"
NOTIFICATIONS = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
SNI = "org.kde.StatusNotifierItem"
MOCK = "org.freedesktop.DBus.Mock"
ITEM_PATH = "/org/ayatana/NotificationItem/tpaccel_tray"


class Xvfb:
    def __init__(self):
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1024x768x24",
                                      "-nolisten", "tcp"], pass_fds=[write_fd], stderr=subprocess.DEVNULL)
        os.close(write_fd)
        with os.fdopen(read_fd) as f:
            number = f.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        self.display = ":" + number

    def stop(self):
        stop_process(self.proc)


class TrayTest(ClientTestCase):
    def setUp(self):
        super().setUp()
        self.assertTrue(os.access(TRAY, os.X_OK), f"{TRAY} is not built")
        self.xvfb = Xvfb()
        self.env["DISPLAY"] = self.xvfb.display
        self.env["TPACCEL_ICON_DIR"] = os.path.join(TOP_SRCDIR, "data", "icons")
        self.start_mock(["--session", WATCHER, WATCHER_PATH, WATCHER], WATCHER, "watcher.log")
        self.bus.call(WATCHER, WATCHER_PATH, MOCK, "AddMethod", (WATCHER, "RegisterStatusNotifierItem", "s", "", ""),
                      "(sssss)")
        self.bus.call(WATCHER, WATCHER_PATH, MOCK, "AddProperties",
                      (WATCHER, {"IsStatusNotifierHostRegistered": GLib.Variant("b", True),
                                 "ProtocolVersion": GLib.Variant("i", 0),
                                 "RegisteredStatusNotifierItems": GLib.Variant("as", [])}), "(sa{sv})")
        self.start_mock(["--session", "--template", "notification_daemon"], NOTIFICATIONS, "notifications.log")
        self.tray = None

    def tearDown(self):
        if self.tray is not None:
            self.assertIsNone(self.tray.poll(), "tpaccel-tray died")
        super().tearDown()
        self.xvfb.stop()

    def start_tray(self, *args):
        self.tray = self.spawn([TRAY, "--session"] + list(args), "tray.log")
        wait_until(self.item_registered, what="the tray to register its StatusNotifierItem")
        return self.tray

    def item_registered(self):
        calls = self.bus.call(WATCHER, WATCHER_PATH, MOCK, "GetMethodCalls", ("RegisterStatusNotifierItem",),
                              "(s)")[0]
        return any(args and args[0] == ITEM_PATH for _, args in calls)

    def _tray_name(self):
        """The tray's unique bus name. The watcher mock records the object path only, so ask every
        connection on this private bus (a handful) for the item's IconName."""
        names = self.bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "ListNames")[0]
        for name in names:
            if not name.startswith(":"):
                continue
            try:
                self.bus.get_property(name, ITEM_PATH, SNI, "IconName")
                return name
            except Exception:
                continue
        return None

    def icon_name(self):
        return self.bus.get_property(self._owner, ITEM_PATH, SNI, "IconName")

    @property
    def _owner(self):
        if not getattr(self, "_owner_cache", None):
            self._owner_cache = wait_until(self._tray_name, what="the tray's bus name")
        return self._owner_cache

    def notifications(self):
        calls = self.bus.call(NOTIFICATIONS, NOTIFICATIONS_PATH, MOCK, "GetMethodCalls", ("Notify",), "(s)")[0]
        # Notify(app_name, replaces_id, icon, summary, body, actions, hints, timeout)
        return [(args[3], args[4]) for _, args in calls]

    def test_icon_follows_tilt(self):
        self.start_tray()
        self.assertEqual(self.icon_name(), "tpaccel-service-missing")
        self.start_daemon("slow-roll-45.csv")
        seen = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and "tpaccel-tilt-r4-p2" not in seen:
            name = self.icon_name()
            if not seen or seen[-1] != name:
                seen.append(name)
            time.sleep(0.05)
        self.assertIn("tpaccel-tilt-r2-p2", seen)
        self.assertIn("tpaccel-tilt-r3-p2", seen)
        self.assertIn("tpaccel-tilt-r4-p2", seen)
        # In order: level, then leaning further right-side up.
        self.assertLess(seen.index("tpaccel-tilt-r2-p2"), seen.index("tpaccel-tilt-r3-p2"))
        self.assertLess(seen.index("tpaccel-tilt-r3-p2"), seen.index("tpaccel-tilt-r4-p2"))
        self.assertIs(self.bus.accel_property("Claimed"), True)

    def test_drop_raises_one_notification(self):
        self.start_tray()
        self.start_daemon("drop-30cm.csv")
        wait_until(lambda: self.bus.accel_property("ShockCount") > 0, timeout=20, what="a shock")
        time.sleep(3)
        shocks = [n for n in self.notifications() if n[0] == "Shock detected"]
        self.assertEqual(len(shocks), 1, self.notifications())
        self.assertRegex(shocks[0][1], r"^\d+\.\d\d g \((jolt|drift|freefall)\)")

    def test_window_renders(self):
        self.start_tray("--show-window")
        self.start_daemon("slow-roll-45.csv", loop=True)
        wait_until(lambda: self.bus.accel_property("Claimed"), what="the claim")
        time.sleep(6)
        os.makedirs(OUTDIR, exist_ok=True)
        shot = os.path.join(OUTDIR, "tray-window.png")
        subprocess.run(["import", "-display", self.xvfb.display, "-window", "root", shot], check=True,
                       env=self.env, timeout=30)
        # The window is there: the bubble's green and the x/y plot colours are on screen.
        colours = subprocess.run(["convert", shot, "-format", "%c", "histogram:info:-"], capture_output=True,
                                 text=True, check=True).stdout
        for rgb in ["#8AE234", "#3465A4", "#CC0000"]:
            self.assertIn(rgb, colours.upper(), f"{rgb} is not on the screenshot {shot}")

    def test_survives_daemon_restart(self):
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon")
        self.stop_daemon()
        wait_until(lambda: self.icon_name() == "tpaccel-service-missing", what="the service-missing icon")
        wait_until(lambda: any(s == "Accelerometer service stopped" for s, _ in self.notifications()),
                   what="the service-gone notification")
        time.sleep(1)
        self.assertIsNone(self.tray.poll(), "tpaccel-tray died with the daemon")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name().startswith("tpaccel-tilt-"), what="a tilt icon after restart")
        wait_until(lambda: any(s == "Accelerometer service is back" for s, _ in self.notifications()),
                   what="the service-back notification")
        # The new instance got a claim again (the old one died with the old daemon).
        wait_until(lambda: self.bus.accel_property("Claimed"), what="the claim on the new instance")

    def test_no_accelerometer(self):
        self.start_tray()
        self.start_daemon(extra=["--sim-fault=absent"])
        self.assertIs(self.bus.accel_property("HasAccelerometer"), False)
        wait_until(lambda: self.icon_name() == "tpaccel-no-accelerometer", what="the no-accelerometer icon")
        time.sleep(1)
        self.assertIs(self.bus.accel_property("Claimed"), False)

    def test_claims_only_while_needed(self):
        self.start_tray("--no-animation")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon")
        time.sleep(1)
        self.assertIs(self.bus.accel_property("Claimed"), False)


if __name__ == "__main__":
    if not shutil.which("Xvfb"):
        sys.exit("Xvfb is missing (scripts/deps.sh test)")
    unittest.main(verbosity=2)
