# SPDX-License-Identifier: GPL-2.0-or-later
"""What the tray tests on real desktops share (tests/wayland): the tray started into the desktop's tray
host, its item and menu as the host sees them (StatusNotifierItem, dbusmenu), the claim's rate,
screenshots read by colour, and the window's cases that each desktop runs through its own session
(minimized and restored, closed and shown again). The desktop itself is the subclass's: it starts it in
setUp and stops it in stop_display()."""
import os
import re
import subprocess
import time

from clienttest import ITEM_PATH, TOP_SRCDIR, TRAY, ClientTestCase, TrayMenu, colours, item_owner, wait_until  # tests/client

SNI = "org.kde.StatusNotifierItem"
WATCHER, WATCHER_PATH = "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher"
TITLE = "ThinkPad Accelerometer"  # the tray's window (client/tray/tray-window.c)
NO_HOST = "No tray shows the accelerometer icon"  # what the tray says without a tray host (tray-app.c)


def stalled_sec():
    """How long a redraw stays unpainted before the tray takes its window for hidden: tray-window.c's
    STALLED_USEC, read from there."""
    with open(os.path.join(TOP_SRCDIR, "client", "tray", "tray-window.c")) as f:
        return int(re.search(r"#define STALLED_USEC \((\d+) \* G_USEC_PER_SEC\)", f.read()).group(1))


def magick(shot, region, *operations):
    """What ImageMagick's convert prints for operations on region (x, y, w, h) of shot."""
    x, y, w, h = region
    return subprocess.run(["convert", shot, "-crop", f"{w}x{h}+{x}+{y}", "+repage"] + list(operations),
                          capture_output=True, text=True, check=True).stdout


class DesktopTrayTest(TrayMenu, ClientTestCase):
    def start_tray(self, *args):
        self.tray = self.spawn([TRAY, "--session"] + list(args), "tray.log", env=dict(self.env, G_MESSAGES_DEBUG="all"))
        wait_until(lambda: self.tray.poll() is not None or self.sni_owner(), what="the tray's item in the tray host")
        self.assertIsNone(self.tray.poll(), "tpaccel-tray exited")

    def start_tray_without_host(self, *args, **env):
        """The tray where no tray host is: ready once it has said so (after the grace, tpaccel-tray(1): 10 s
        for a user, 1 s here) and presented its window instead; env is added to its environment."""
        self.tray = self.spawn([TRAY, "--session"] + list(args), "tray.log",
                               env=dict(self.env, G_MESSAGES_DEBUG="all", TPACCEL_TRAY_HOST_GRACE_MS="1000", **env))
        wait_until(lambda: self.tray.poll() is not None or NO_HOST in self.tray_log(), timeout=30,
                   what="the tray to say that no tray shows its icon")
        self.assertIsNone(self.tray.poll(), "tpaccel-tray exited")

    def tray_log(self):
        with open(os.path.join(self.tmpdir, "tray.log"), errors="replace") as f:
            return f.read()

    def sni_owner(self):
        """The bus name of the item the tray host's watcher holds, as "NAME/PATH" entries."""
        try:
            items = self.bus.get_property(WATCHER, WATCHER_PATH, WATCHER, "RegisteredStatusNotifierItems")
        except Exception:
            return None
        return item_owner(self.bus, [item.split("/", 1)[0].rstrip("@") for item in items], ITEM_PATH)

    def icon_name(self):
        return self.bus.get_property(self.sni_owner(), ITEM_PATH, SNI, "IconName")

    def menu_owner(self):
        owner = self.sni_owner()
        self.assertTrue(owner, "the tray's item is not in the tray host: %s" % self.bus.get_property(
            WATCHER, WATCHER_PATH, WATCHER, "RegisteredStatusNotifierItems"))
        return owner

    def colours(self, shot):
        return colours(shot)

    def pixels_of(self, shot, rgb):
        """The (x, y) of every pixel of colour rgb ("#RRGGBB") in shot."""
        out = subprocess.run(["convert", shot, "txt:-"], capture_output=True, text=True, check=True).stdout.upper()
        return {(int(m.group(1)), int(m.group(2))) for m in re.finditer(r"^(\d+),(\d+): \S+\s+" + rgb, out, re.M)}

    def box_of(self, shot, rgb, region):
        """The bounding box (x, y, w, h) of the pixels of colour rgb ("#RRGGBB") within region (x, y, w, h)
        of shot, or None when there are none."""
        only = ("-fill", "black", "+opaque", rgb, "-fill", "white", "-opaque", rgb)
        if not int(magick(shot, region, *only, "-colorspace", "gray", "-format", "%[fx:round(mean*w*h)]", "info:")):
            return None
        bw, bh, bx, by = map(int, re.fullmatch(r"(\d+)x(\d+)\+(\d+)\+(\d+)", magick(
            shot, region, *only, "-format", "%@", "info:").strip()).groups())
        return (region[0] + bx, region[1] + by, bw, bh)

    def dark_pixels(self, shot, box, level=50):
        """How many pixels within box (x, y, w, h) of shot are darker than level percent grey."""
        return int(magick(shot, box, "-colorspace", "gray", "-threshold", f"{level}%",
                          "-format", "%[fx:round((1-mean)*w*h)]", "info:"))

    def text_bands(self, shot, box, level=70):
        """The bands of rows within box (x, y, w, h) of shot that hold something darker than level percent
        grey (text on a light menu: one band per item, a separator too light to count), top to bottom, as
        (top, bottom) screen rows; bands closer than 3 rows are one (a letter's dot, a degree sign)."""
        out = magick(shot, box, "-colorspace", "gray", "-threshold", f"{level}%", "-negate", "-scale", f"1x{box[3]}!",
                     "txt:-")
        bands = []
        for m in re.finditer(r"^0,(\d+):.*\s(\S+)$", out, re.M):
            row = int(m.group(1))
            if m.group(2) == "gray(0)":
                continue
            if bands and row - bands[-1][1] <= 3:
                bands[-1][1] = row
            else:
                bands.append([row, row])
        return [(box[1] + top, box[1] + bottom) for top, bottom in bands]

    def rate(self):
        return self.bus.accel_property("EffectiveRate")

    def window_minimized_and_restored(self, desktop):
        """The window minimized through desktop (a session with window_state, minimize and unminimize of a
        window title) costs the icon's rate within seconds, the daemon still polling for the icon;
        restored, the full rate again."""
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: desktop.window_state(TITLE), what="the window in the compositor")
        wait_until(lambda: self.rate() == 50, what="the full rate for the window")
        # Shown, it stays seen past the time after which an unpainted window is taken for hidden
        # (client/tray/tray-window.c, 3 s): the compositor paints it.
        time.sleep(stalled_sec() + 1)
        self.assertEqual(self.rate(), 50)
        self.assertNotIn("Window unseen", self.tray_log())
        wait_until(lambda: desktop.minimize(TITLE), interval=1, what="the window minimized")
        wait_until(lambda: self.rate() == 4, what="the icon's rate with the window minimized")
        self.assertIs(self.bus.accel_property("Polling"), True)
        self.assertIn("Window unseen", self.tray_log())
        desktop.unminimize(TITLE)
        wait_until(lambda: self.rate() == 50, what="the full rate for the window restored")

    def window_closed_and_shown_again(self, desktop, wayland=True):
        """The window is a client of desktop (a session with window_state and close of a window title),
        a Wayland one unless wayland is False (then an X11 one, through the desktop's Xwayland); closed as
        its close button does, it costs the icon's rate; Show window from the menu brings it back at the
        full rate."""
        self.start_tray("--show-window")
        self.start_daemon("rest.csv")
        wait_until(lambda: desktop.window_state(TITLE), what="the window in the compositor")
        self.assertEqual(desktop.window_state(TITLE), [{"minimized": False, "wayland": wayland}])
        wait_until(lambda: self.rate() == 50, what="the full rate for the window")
        wait_until(lambda: desktop.close(TITLE), interval=1, what="the window to go")
        wait_until(lambda: self.rate() == 4, what="the icon's rate with the window closed")
        self.click_menu("Show _window")
        wait_until(lambda: desktop.window_state(TITLE), what="the window again")
        wait_until(lambda: self.rate() == 50, what="the full rate for the window shown again")
