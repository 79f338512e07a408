#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray on a real Wayland compositor: headless sway (tests/lib/swaysession.py) with waybar as the
tray host and mako as the notification daemon, against the real tpacceld on the EC emulator on a private
bus. Driven as a user would through sway (swaymsg) and the tray's menu as waybar calls it (dbusmenu);
what is on screen is read from grim's screenshots by colour, as the X11 tests do."""
import os
import re
import subprocess
import unittest

from clienttest import OUTDIR, TOP_SRCDIR, TRAY, ClientTestCase, wait_until  # tests/client
from gi.repository import GLib
from swaysession import BAR_HEIGHT, WIDTH, SwaySession, missing_programs  # tests/lib

BUBBLE, PLOT_X, PLOT_Y = "#8AE234", "#3465A4", "#CC0000"  # the window's level and plot (tray-window.c)
TILT_BLUE = "#729FCF"  # the screen of the tilt icons (data/icons/generate-icons.py)
APP_ID = "tpaccel-tray"
ITEM_PATH = "/org/ayatana/NotificationItem/tpaccel_tray"
SNI, DBUSMENU = "org.kde.StatusNotifierItem", "com.canonical.dbusmenu"


class SwayTrayTest(ClientTestCase):
    def setUp(self):
        super().setUp()
        missing = missing_programs()
        # Required, as the X11 tests require Xvfb: scripts/deps.sh test installs them.
        self.assertFalse(missing, f"not installed: {' '.join(missing)} (scripts/deps.sh test)")
        self.sway = SwaySession(self.spawn, self.env, self.tmpdir)
        self.env = self.sway.client_env(self.env)
        # Installed icons, as waybar finds them: a hicolor theme with its index (a theme path without
        # one is no theme to waybar's GTK).
        icons = os.path.join(self.tmpdir, "icons", "hicolor")
        os.makedirs(icons)
        os.symlink("/usr/share/icons/hicolor/index.theme", os.path.join(icons, "index.theme"))
        os.symlink(os.path.join(TOP_SRCDIR, "data", "icons", "hicolor", "scalable"), os.path.join(icons, "scalable"))
        self.env["TPACCEL_ICON_DIR"] = os.path.dirname(icons)
        self.sway.start_waybar(self.env)
        self.sway.start_mako(self.env)
        self.tray = None

    def tearDown(self):
        died = self.tray.poll() if self.tray is not None else None
        self.print_logs |= died is not None
        try:
            super().tearDown()
        finally:
            self.sway.stop()
        self.assertIsNone(died, "tpaccel-tray died")

    def start_tray(self, *args):
        self.tray = self.spawn([TRAY, "--session"] + list(args), "tray.log", env=dict(self.env, G_MESSAGES_DEBUG="all"))
        wait_until(lambda: self.tray.poll() is not None or self.sni_owner(), what="the tray's item in waybar")
        self.assertIsNone(self.tray.poll(), "tpaccel-tray exited")

    def tray_log(self):
        with open(os.path.join(self.tmpdir, "tray.log"), errors="replace") as f:
            return f.read()

    def sni_owner(self):
        """The bus name of the item waybar's watcher holds, as "NAME/PATH" entries."""
        try:
            items = self.bus.get_property("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
                                          "org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems")
        except Exception:
            return None
        for item in items:
            name = item.split("/", 1)[0]
            try:
                self.bus.get_property(name, ITEM_PATH, SNI, "IconName")
                return name
            except Exception:
                continue
        return None

    def icon_name(self):
        return self.bus.get_property(self.sni_owner(), ITEM_PATH, SNI, "IconName")

    def click_menu(self, label):
        """Picks a menu item as waybar does when the user clicks it (dbusmenu Event "clicked")."""
        owner = self.sni_owner()
        _, layout = self.bus.call(owner, ITEM_PATH + "/Menu", DBUSMENU, "GetLayout", "iias", (0, -1, []))
        item = next(i[0] for i in layout[2] if i[1].get("label") == label)
        self.bus.call(owner, ITEM_PATH + "/Menu", DBUSMENU, "Event", "isvu", (item, "clicked", GLib.Variant("i", 0), 0))

    def screenshot(self, name, geometry=None):
        os.makedirs(OUTDIR, exist_ok=True)
        return self.sway.screenshot(os.path.join(OUTDIR, name), geometry)

    def bar_shot(self, name):
        return self.screenshot(name, f"0,0 {WIDTH}x{BAR_HEIGHT}")

    def colours(self, shot):
        return subprocess.run(["convert", shot, "-format", "%c", "histogram:info:-"], capture_output=True,
                              text=True, check=True).stdout.upper()

    def pixels_of(self, shot, rgb):
        """The (x, y) of every pixel of colour rgb ("#RRGGBB") in shot."""
        out = subprocess.run(["convert", shot, "txt:-"], capture_output=True, text=True, check=True).stdout.upper()
        return {(int(m.group(1)), int(m.group(2))) for m in re.finditer(r"^(\d+),(\d+): \S+\s+" + rgb, out, re.M)}

    def rate(self):
        return self.bus.accel_property("EffectiveRate")

    def test_icon_leans_in_waybar(self):
        # The icon is drawn in waybar's tray (its right end), level first, then leaning as the trace rolls
        # the laptop 45 degrees right side up: the tilt icon's blue moves.
        self.start_tray()
        self.start_daemon("slow-roll-45.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon")
        level = self.pixels_of(self.bar_shot("sway-waybar-level.png"), TILT_BLUE)
        self.assertTrue(level, "no tilt icon in waybar")
        self.assertGreater(min(x for x, _ in level), WIDTH * 3 // 4, "the icon is not in the tray at the right end")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r4-p2", timeout=15, what="the leaning icon")
        leaning = wait_until(lambda: self.pixels_of(self.bar_shot("sway-waybar-leaning.png"), TILT_BLUE) - level,
                             what="waybar to draw the leaning icon")
        self.assertTrue(leaning)
        with open(os.path.join(self.tmpdir, "waybar.log"), errors="replace") as f:
            self.assertNotIn("Could not find an icon named 'tpaccel", f.read())

    def test_window_follows_the_workspace(self):
        # The window on the visible workspace draws and holds the full rate; on another workspace sway
        # stops its frames, and within seconds the claim is the icon's (the daemon keeps polling for the
        # icon); back on its workspace, the full rate again.
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.sway.windows(APP_ID), what="the window in sway's tree")
        wait_until(lambda: self.rate() == 50, what="the full rate for the window")
        wait_until(lambda: all(c in self.colours(self.screenshot("sway-window.png")) for c in [BUBBLE, PLOT_X, PLOT_Y]),
                   interval=0.5, what="the level and the plot on screen")
        self.sway.swaymsg("workspace", "2")
        wait_until(lambda: self.rate() == 4, what="the icon's rate with the window on another workspace")
        self.assertIs(self.bus.accel_property("Polling"), True)
        self.assertNotIn(BUBBLE, self.colours(self.screenshot("sway-other-workspace.png")))
        self.assertIn("Window unseen", self.tray_log())
        self.sway.swaymsg("workspace", "1")
        wait_until(lambda: self.rate() == 50, what="the full rate back on its workspace")
        # Moved to another workspace while that one shows: the same.
        self.sway.swaymsg(f'[app_id="{APP_ID}"]', "move", "container", "to", "workspace", "3")
        wait_until(lambda: self.rate() == 4, what="the icon's rate with the window moved away")
        self.sway.swaymsg("workspace", "3")
        wait_until(lambda: self.rate() == 50, what="the full rate on the window's new workspace")

    def test_window_closed_and_shown_again(self):
        # sway's close (xdg_toplevel.close) hides the window: the icon's rate. "Show window" in the menu
        # brings it back on the visible workspace, at the full rate.
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.rate() == 50, what="the full rate for the window")
        self.sway.swaymsg(f'[app_id="{APP_ID}"]', "kill")
        wait_until(lambda: not self.sway.windows(APP_ID), what="the window to go")
        wait_until(lambda: self.rate() == 4, what="the icon's rate with the window closed")
        self.click_menu("Show _window")
        wait_until(lambda: self.sway.windows(APP_ID), what="the window again")
        wait_until(lambda: self.rate() == 50, what="the full rate for the window shown again")
        self.assertNotIn("CRITICAL", self.tray_log())


if __name__ == "__main__":
    unittest.main()
