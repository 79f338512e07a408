#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray in GNOME Shell on Wayland (headless, tests/lib/gnomesession.py) with the AppIndicator
extension as the tray host, against the real tpacceld on the EC emulator on a private bus. Windows are
driven through the shell (org.gnome.Shell.Eval), the top bar read from the shell's screenshots."""
import os
import re
import subprocess

from clienttest import OUTDIR, wait_until  # tests/client
from desktoptest import NO_HOST, TITLE, DesktopTrayTest  # beside this file
from gnomesession import WIDTH, GnomeSession, missing  # tests/lib
import testmain  # tests/lib

BAR = 32  # the top bar's height at scale 1


def shell_major():
    """GNOME Shell's major version ("GNOME Shell 48.7": 48), 0 when it says none."""
    try:
        out = subprocess.run(["gnome-shell", "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    m = re.search(r"(\d+)\.\d+", out)
    return int(m.group(1)) if m else 0


# Whether the tray is a Wayland client of this shell. GNOME Shell 43 (Debian 12, with GTK 3.24.38) keeps a
# minimized window's frame clock going, reports its frames presented and has no xdg-shell suspended state,
# so the tray cannot tell a Wayland window of its is minimized (docs/TESTING.md, Wayland): it opens the
# shell's X server (Xwayland) instead, where the minimize is told as on X11 (client/tray/tray-backend.h).
# GNOME Shell 48 (Debian 13, with GTK 3.24.49) suspends the window, which GTK tells: the tray stays a
# Wayland client. The releases pair the two versions so (44-47 were not tried).
def tray_on_wayland():
    return shell_major() >= 45


class GnomeDesktopTest(DesktopTrayTest):
    """The tray in a GNOME session of its own, with the AppIndicator extension unless APPINDICATOR is
    False."""
    APPINDICATOR = True

    def setUp(self):
        super().setUp()
        lacks = missing()
        # Required: scripts/deps.sh test installs them.
        self.assertFalse(lacks, f"not installed: {' '.join(lacks)} (scripts/deps.sh test)")
        self.gnome = GnomeSession(self.spawn, self.bus, self.env, appindicator=self.APPINDICATOR)
        self.env = self.gnome.client_env(self.env)

    def stop_display(self):
        self.gnome.stop()


class GnomeTrayTest(GnomeDesktopTest):

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

    def test_window_minimized_and_restored(self):
        # The shell's minimize hides the window without closing it: mutter 48 suspends it (xdg-shell 6)
        # and GTK says so; mutter 43 iconifies the tray's X11 window. Within seconds the claim is the
        # icon's (the daemon keeps polling for the icon); restored (unminimize), the full rate again.
        self.window_minimized_and_restored(self.gnome)
        self.assertEqual(self.gnome.window_state(TITLE), [{"minimized": False, "wayland": tray_on_wayland()}])

    def test_window_closed_and_shown_again(self):
        # The window is a client of the shell of the kind tray_on_wayland() says (its client type); the
        # shell's close (delete) hides it: the icon's rate. Show window from the menu brings it back at the
        # full rate.
        self.window_closed_and_shown_again(self.gnome, wayland=tray_on_wayland())


class StockGnomeTrayTest(GnomeDesktopTest):
    """GNOME Shell as Debian installs it: without the AppIndicator extension, so without a tray host."""
    APPINDICATOR = False

    def test_no_tray_host_said_once_with_the_window_instead(self):
        # Nothing shows the icon: after the grace for a panel starting (1 s here), the tray says once what
        # is missing and what to do on GNOME, and opens its window instead, a client of the kind
        # tray_on_wayland() says; no GTK warning on either display (GtkStatusIcon, the X11 fallback, finds
        # no XEmbed tray in GNOME Shell either). The notice (test_tray.py's no-host case checks it) finds
        # no notification server here: the headless shell does not take org.freedesktop.Notifications.
        self.start_tray_without_host(G_DEBUG="fatal-criticals")
        self.start_daemon("rest.csv")
        wait_until(lambda: self.gnome.window_state(TITLE), what="the window instead of the icon")
        self.assertEqual(self.gnome.window_state(TITLE), [{"minimized": False, "wayland": tray_on_wayland()}])
        log = self.tray_log()
        self.assertEqual(log.count(NO_HOST), 1, log)
        self.assertIn("On GNOME, install and enable the AppIndicator extension", log)
        self.assertIsNone(re.search(r"WARNING|CRITICAL", log), log)


if __name__ == "__main__":
    testmain.main()
