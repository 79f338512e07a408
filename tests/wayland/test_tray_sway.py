#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray on a real Wayland compositor: headless sway (tests/lib/swaysession.py) with waybar as the
tray host and mako as the notification daemon, against the real tpacceld on the EC emulator on a private
bus. Driven as a user would through sway (swaymsg) and the tray's menu as waybar calls it (dbusmenu);
what is on screen is read from grim's screenshots by colour, as the X11 tests do."""
import os
import subprocess
import unittest

from clienttest import OUTDIR, TOP_BUILDDIR, TOP_SRCDIR, wait_until  # tests/client
from desktoptest import DesktopTrayTest  # beside this file
from swaysession import BAR_HEIGHT, WIDTH, SwaySession, missing_programs  # tests/lib

BUBBLE, PLOT_X, PLOT_Y = "#8AE234", "#3465A4", "#CC0000"  # the window's level and plot (tray-window.c)
TILT_BLUE = "#729FCF"  # the screen of the tilt icons (data/icons/generate-icons.py)
APP_ID = "tpaccel-tray"


class SwayTrayTest(DesktopTrayTest):
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

    def stop_display(self):
        self.sway.stop()

    def screenshot(self, name, geometry=None):
        os.makedirs(OUTDIR, exist_ok=True)
        return self.sway.screenshot(os.path.join(OUTDIR, name), geometry)

    def bar_shot(self, name):
        return self.screenshot(name, f"0,0 {WIDTH}x{BAR_HEIGHT}")

    def test_icon_leans_in_waybar(self):
        # The icon is drawn in waybar's tray (its right end), level on a desk, then leaning when the
        # laptop rolls 45 degrees right side up: the tilt icon's blue moves.
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2", what="the level icon")
        level = wait_until(lambda: self.pixels_of(self.bar_shot("sway-waybar-level.png"), TILT_BLUE), interval=0.3,
                           what="the tilt icon in waybar")
        self.assertGreater(min(x for x, _ in level), WIDTH * 3 // 4, "the icon is not in the tray at the right end")
        self.stop_daemon()
        self.start_daemon("slow-roll-45.csv", loop=True)
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r4-p2", timeout=15, what="the leaning icon")
        wait_until(lambda: self.pixels_of(self.bar_shot("sway-waybar-leaning.png"), TILT_BLUE) not in (set(), level),
                   interval=0.3, what="waybar to draw the leaning icon")
        with open(os.path.join(self.tmpdir, "waybar.log"), errors="replace") as f:
            self.assertNotIn("Could not find an icon named 'tpaccel", f.read())

    def test_window_follows_the_workspace(self):
        # The window on the visible workspace draws and holds the full rate; on another workspace sway
        # stops its frames, and within seconds the claim is the icon's (the daemon keeps polling for the
        # icon); back on its workspace, the full rate again. A rolling laptop, as in the X11 window tests: at
        # rest both plot lines lie at 0 and y's red covers x's blue.
        self.start_tray("--show-window")
        self.start_daemon("slow-roll-45.csv", loop=True)
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

    def test_suspended_window_is_unseen(self):
        # xdg-shell's suspended state, which sway 1.7 never sets (GNOME Shell 48 and KWin 6 do, on a
        # minimized window): tests/wayland/test-tray-suspended.c makes GTK's events for it on this display.
        helper = os.path.join(TOP_BUILDDIR, "tests", "wayland", "test-tray-suspended")
        run = subprocess.run([helper], env=self.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

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
