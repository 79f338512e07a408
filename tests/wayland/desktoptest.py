# SPDX-License-Identifier: GPL-2.0-or-later
"""What the tray tests on real desktops share (tests/wayland): the tray started into the desktop's tray
host, its item and menu as the host sees them (StatusNotifierItem, dbusmenu), the claim's rate, and
screenshots read by colour. The desktop itself is the subclass's: it starts it in setUp and stops it in
stop_display()."""
import os
import re
import subprocess

from clienttest import TRAY, ClientTestCase, colours, item_owner, wait_until  # tests/client
from gi.repository import GLib

ITEM_PATH = "/org/ayatana/NotificationItem/tpaccel_tray"
SNI, DBUSMENU = "org.kde.StatusNotifierItem", "com.canonical.dbusmenu"
WATCHER, WATCHER_PATH = "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher"


class DesktopTrayTest(ClientTestCase):
    def start_tray(self, *args):
        self.tray = self.spawn([TRAY, "--session"] + list(args), "tray.log", env=dict(self.env, G_MESSAGES_DEBUG="all"))
        wait_until(lambda: self.tray.poll() is not None or self.sni_owner(), what="the tray's item in the tray host")
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

    def click_menu(self, label):
        """Picks a menu item as the tray host does when the user clicks it (dbusmenu Event "clicked")."""
        owner = self.sni_owner()
        self.assertTrue(owner, "the tray's item is not in the tray host: %s" % self.bus.get_property(
            WATCHER, WATCHER_PATH, WATCHER, "RegisteredStatusNotifierItems"))
        _, layout = self.bus.call(owner, ITEM_PATH + "/Menu", DBUSMENU, "GetLayout", "iias", (0, -1, []))
        item = next(i[0] for i in layout[2] if i[1].get("label") == label)
        self.bus.call(owner, ITEM_PATH + "/Menu", DBUSMENU, "Event", "isvu", (item, "clicked", GLib.Variant("i", 0), 0))

    def colours(self, shot):
        return colours(shot)

    def pixels_of(self, shot, rgb):
        """The (x, y) of every pixel of colour rgb ("#RRGGBB") in shot."""
        out = subprocess.run(["convert", shot, "txt:-"], capture_output=True, text=True, check=True).stdout.upper()
        return {(int(m.group(1)), int(m.group(2))) for m in re.finditer(r"^(\d+),(\d+): \S+\s+" + rgb, out, re.M)}

    def rate(self):
        return self.bus.accel_property("EffectiveRate")
