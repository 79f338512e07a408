#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccel-tray on KWin Wayland (headless, tests/lib/kwinsession.py), against the real tpacceld on the EC
emulator on a private bus. Windows are driven through KWin's scripting (org.kde.kwin.Scripting), as KDE's
own tools drive them. No plasmashell, so no tray host: the tray says so and presents its window (after
the grace for a panel starting, 1 s here), which the tests wait for before they touch the window: that
presentation would restore a window minimized before it. Its menu is driven as a tray host would call
it (dbusmenu), on the item the tray serves all the same."""

from clienttest import ITEM_PATH, item_owner_on_bus  # tests/client
from desktoptest import DesktopTrayTest  # beside this file
from kwinsession import KWinSession, missing  # tests/lib
import testmain  # tests/lib


class KWinTrayTest(DesktopTrayTest):
    def setUp(self):
        super().setUp()
        lacks = missing()
        # Required: scripts/deps.sh test installs it.
        self.assertFalse(lacks, f"not installed: {' '.join(lacks)} (scripts/deps.sh test)")
        self.kwin = KWinSession(self.spawn, self.bus, self.env, self.tmpdir)
        self.env = self.kwin.client_env(self.env)

    def stop_display(self):
        self.kwin.stop()

    def start_tray(self, *args):
        # No tray host (no plasmashell).
        self.start_tray_without_host(*args)

    def menu_owner(self):
        """The tray's item, found on the bus itself: no watcher lists it."""
        owner = item_owner_on_bus(self.bus, ITEM_PATH)
        self.assertTrue(owner, "the tray serves no item")
        return owner

    def test_window_minimized_and_restored(self):
        # KWin's minimize hides the window without closing it: KWin 5.27 stops its frame callbacks (KWin 6
        # suspends it, xdg-shell 6), and within seconds the claim is the icon's (the daemon keeps polling
        # for the icon); restored, the full rate again.
        self.window_minimized_and_restored(self.kwin)

    def test_window_closed_and_shown_again(self):
        # The window is a Wayland client of KWin (an xdg-shell toplevel); KWin's close hides it: the
        # icon's rate. Show window from the menu brings it back at the full rate.
        self.window_closed_and_shown_again(self.kwin)


if __name__ == "__main__":
    testmain.main()
