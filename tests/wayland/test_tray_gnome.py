#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray in GNOME Shell on Wayland (headless, tests/lib/gnomesession.py) with the AppIndicator
extension as the tray host, against the real tpacceld on the EC emulator on a private bus. Windows are
driven through the shell (org.gnome.Shell.Eval), the top bar read from the shell's screenshots."""
import os
import subprocess
import unittest

from clienttest import OUTDIR, wait_until  # tests/client
from desktoptest import DesktopTrayTest  # beside this file
from gnomesession import WIDTH, GnomeSession, missing  # tests/lib

TITLE = "ThinkPad Accelerometer"
BAR = 32  # the top bar's height at scale 1


class GnomeTrayTest(DesktopTrayTest):
    def setUp(self):
        super().setUp()
        lacks = missing()
        # Required: scripts/deps.sh test installs them.
        self.assertFalse(lacks, f"not installed: {' '.join(lacks)} (scripts/deps.sh test)")
        self.gnome = GnomeSession(self.spawn, self.bus, self.env)
        self.env = self.gnome.client_env(self.env)

    def stop_display(self):
        self.gnome.stop()

    def bar_icons(self, name):
        """The bright pixels of the top bar's right end (the status icons, drawn light on the dark bar)."""
        os.makedirs(OUTDIR, exist_ok=True)
        shot = self.gnome.screenshot(os.path.join(OUTDIR, name))
        out = subprocess.run(["convert", shot, "-crop", f"320x{BAR}+{WIDTH - 320}+0", "+repage", "-colorspace",
                              "Gray", "-threshold", "60%", "txt:-"], capture_output=True, text=True, check=True).stdout
        return {tuple(map(int, line.split(":")[0].split(","))) for line in out.splitlines()[1:]
                if "#FFFFFF" in line.upper()}

    def test_icon_leans_in_the_top_bar(self):
        # The AppIndicator extension shows the item (GNOME: the symbolic icons), level on a desk, and
        # redraws it leaning when the laptop rolls 45 degrees right side up.
        before = self.bar_icons("gnome-wayland-bar-before.png")
        self.start_tray()
        self.start_daemon("rest.csv")
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r2-p2-symbolic", what="the level icon")
        level = wait_until(lambda: self.bar_icons("gnome-wayland-bar-level.png") - before, interval=0.3,
                           what="an icon in the top bar")
        self.stop_daemon()
        self.start_daemon("slow-roll-45.csv", loop=True)
        wait_until(lambda: self.icon_name() == "tpaccel-tilt-r4-p2-symbolic", timeout=15, what="the leaning icon")
        wait_until(lambda: (self.bar_icons("gnome-wayland-bar-leaning.png") - before) not in (set(), level),
                   interval=0.3, what="the top bar to draw the leaning icon")

    def test_window_closed_and_shown_again(self):
        # The window is a Wayland client of the shell; the shell's close (delete) hides it: the icon's
        # rate. Show window from the menu brings it back at the full rate.
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.gnome.window_state(TITLE), what="the window in the shell")
        self.assertEqual(self.gnome.window_state(TITLE), [{"minimized": False, "wayland": True}])
        wait_until(lambda: self.rate() == 50, what="the full rate for the window")
        wait_until(lambda: self.gnome.close(TITLE), interval=1, what="the window to go")
        wait_until(lambda: self.rate() == 4, what="the icon's rate with the window closed")
        self.click_menu("Show _window")
        wait_until(lambda: self.gnome.window_state(TITLE), what="the window again")
        wait_until(lambda: self.rate() == 50, what="the full rate for the window shown again")


if __name__ == "__main__":
    unittest.main()
