#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tray's motion alarm on sway as a user meets it: headless sway with waybar as the tray host and mako
as the notification daemon (test_tray_sway.py's session), the real tpacceld on the EC emulator replaying
"picked up from the desk" (tests/traces/movement/picked-up.csv, looped), python-dbusmock's logind whose
session locks and unlocks (LockedHint), and a real PulseAudio with a null sink (test_alarm_sound.py's).

The user right-clicks the icon in waybar with a pointer (tests/lib/virtualpointer.py: real wl_pointer
input, as from a mouse), finds "Alarm when moved while locked" in the menu waybar draws and clicks it;
the session locks, the machine is picked up, the alarm's stream reaches the null sink after the grace and
repeats until the unlock; then mako shows the one notification saying when and how often it was moved.
What is on screen is read from grim's screenshots: sway-alarm-menu.png (the menu with the item ticked)
and sway-mako-alarm-summary.png (mako's bubble) in build/tests/client, the ones in docs/screenshots."""
import configparser
import os
import sys
import unittest

from clienttest import wait_until  # tests/client
from test_alarm_sound import AlarmSound  # tests/client
from alarmtest import AlarmParts  # tests/client
from swaysession import HEIGHT, WIDTH  # tests/lib
from test_tray_sway import TILT_BLUE, SwayTrayTest  # beside this file
from virtualpointer import BTN_LEFT, BTN_RIGHT, VirtualPointer  # tests/lib

ALARM_LABEL = "Alarm when _moved while locked"
MENU_WHITE = "#FFFFFF"  # a GTK menu's background (Adwaita); nothing else on the right half of this screen
MAKO_BACKGROUND, MAKO_BORDER = "#285577", "#4C7899"  # mako's default colours (mako(5))
MAKO_CORNER = f"{WIDTH - 480},0 480x160"  # where mako puts its bubbles by default: the top right
RIGHT_HALF = (WIDTH // 2, 0, WIDTH - WIDTH // 2, HEIGHT)
MENU_WAIT = 20  # per right-click: a loaded machine draws the menu late; the wait ends when it is there


def ticked(darkness, unticked):
    """A check box whose dark pixels are darkness is ticked, next to an unticked one's: the tick makes
    nearly twice as many (93 and 52 in Adwaita, 1 or 2 apart between rows by anti-aliasing)."""
    return darkness > unticked * 1.4


class SwayTrayAlarmTest(AlarmSound, AlarmParts, SwayTrayTest):
    def setUp(self):
        super().setUp()
        self.pointer = VirtualPointer(self.sway.env, WIDTH, HEIGHT)
        self.addCleanup(self.pointer.close)

    def away(self):
        """Moves the pointer to the empty desktop at the left, off the bar and the menu."""
        self.pointer.move_to(WIDTH // 4, HEIGHT // 2)

    def menu_box(self, shot):
        """The menu's inside on screen (x, y, w, h): the white of a menu, big enough to hold one."""
        box = self.box_of(shot, MENU_WHITE, RIGHT_HALF)
        return box if box and box[2] > 150 and box[3] > 150 else None

    def open_menu(self, icon, name):
        """Right-clicks the icon at icon (x, y) as a user does and waits for waybar's menu: the screenshot
        (name) and the menu's box. A click lost on the way is clicked again."""
        for _ in range(3):
            self.pointer.move_to(*icon)
            self.pointer.click(BTN_RIGHT)
            self.away()
            try:
                return wait_until(lambda: self.shown(name, self.menu_box), timeout=MENU_WAIT, interval=0.3,
                                  what="the menu")
            except AssertionError:
                continue
        self.fail(f"no menu on screen after right-clicking the icon at {icon} three times")

    def shown(self, name, find, geometry=None):
        """(screenshot, what find(screenshot) found) once it finds something, else None."""
        shot = self.screenshot(name, geometry)
        found = find(shot)
        return (shot, found) if found else None

    def menu_rows(self, shot, box):
        """The menu's items on screen, {label: (top, bottom)}: the bands of text from top to bottom, one
        per item the tray's menu shows (dbusmenu), in its order."""
        x, y, w, h = box
        bands = self.text_bands(shot, (x + 3, y + 3, w - 6, h - 6))
        labels = self.menu_labels()
        self.assertEqual(len(bands), len(labels), f"the menu on screen ({shot}) has {len(bands)} rows of text, "
                         f"the tray's menu {len(labels)} items: {labels}")
        return dict(zip(labels, bands))

    def box_darkness(self, shot, box, row):
        """The dark pixels of the check box at the start of an item's row: a tick makes more."""
        return self.dark_pixels(shot, (box[0], row[0], 30, row[1] - row[0] + 1))

    def alarm_item(self):
        return next(props for _, props in self.menu_items() if props.get("label") == ALARM_LABEL)

    def mako_notifications(self):
        """What mako shows, [(summary, body)]: its ListNotifications, which makoctl list calls (mako 1.7
        prints it as JSON, 1.10 as text; the call is the same in both)."""
        shown = self.bus.call("org.freedesktop.Notifications", "/fr/emersion/Mako", "fr.emersion.Mako",
                              "ListNotifications")
        return [(n["summary"], n["body"]) for n in shown]

    def mako_bubble(self, shot):
        """mako's colours are in shot."""
        colours = self.colours(shot)
        return MAKO_BACKGROUND in colours and MAKO_BORDER in colours

    def test_alarm_turned_on_in_waybars_menu_sounds_and_mako_tells(self):
        self.start_real_parts()
        self.volume = 80  # the default
        self.start_tray("--no-animation")  # the icon claims nothing: nothing polls while unlocked
        self.away()
        icon = wait_until(lambda: self.pixels_of(self.bar_shot("sway-alarm-bar.png"), TILT_BLUE), interval=0.3,
                          what="the icon in waybar")
        icon = (sum(x for x, _ in icon) // len(icon), sum(y for _, y in icon) // len(icon))
        self.assertIsNone(self.menu_box(self.screenshot("sway-alarm-before.png")), "a menu before the click")

        # The menu as waybar draws it on a right click: the item unticked, drawn like the other unticked
        # toggles; a left click on it turns the alarm on (the tray's menu, tray.conf).
        shot, box = self.open_menu(icon, "sway-alarm-menu-off.png")
        rows = self.menu_rows(shot, box)
        self.assertEqual(self.alarm_item().get("toggle-state"), 0)
        others = [props["label"] for _, props in self.menu_items() if props.get("toggle-type") == "checkmark"
                  and props.get("toggle-state") == 0 and props["label"] != ALARM_LABEL]
        self.assertTrue(others, "no other unticked toggle in the menu")
        unticked = max(self.box_darkness(shot, box, rows[label]) for label in others)
        self.assertGreater(unticked, 0, f"no check box drawn in {shot}")
        self.assertFalse(ticked(self.box_darkness(shot, box, rows[ALARM_LABEL]), unticked),
                         f"the item is ticked in {shot}")
        self.pointer.move_to(box[0] + box[2] // 2, sum(rows[ALARM_LABEL]) // 2)
        self.pointer.click(BTN_LEFT)
        self.away()
        wait_until(lambda: self.alarm_item().get("toggle-state") == 1, what="the item ticked")
        conf = os.path.join(self.env["XDG_CONFIG_HOME"], "tpaccel", "tray.conf")
        wait_until(lambda: os.path.exists(conf), what="tray.conf")
        parser = configparser.ConfigParser()
        parser.read(conf)
        self.assertEqual(parser["Alarm"]["Enabled"], "true")
        wait_until(lambda: self.menu_box(self.screenshot("sway-alarm-menu-closed.png")) is None,
                   interval=0.3, what="the menu to close after the click")

        # Opened again: the item ticked on screen. That screenshot is the one in docs/screenshots.
        shot, box = self.open_menu(icon, "sway-alarm-menu-full.png")
        rows = self.menu_rows(shot, box)
        self.assertTrue(ticked(self.box_darkness(shot, box, rows[ALARM_LABEL]), unticked),
                        f"the item is not ticked in {shot}")
        left = max(box[0] - 40, 0)
        self.sway.screenshot(os.path.join(os.path.dirname(shot), "sway-alarm-menu.png"),
                             f"{left},0 {WIDTH - left}x{box[1] + box[3] + 12}")
        self.pointer.click(BTN_LEFT)  # on the desktop, outside the menu: it closes
        wait_until(lambda: self.menu_box(self.screenshot("sway-alarm-menu-closed.png")) is None,
                   interval=0.3, what="the menu to close")

        # Locked, picked up: the alarm on the null sink after the grace, repeating until the unlock.
        self.lock_move_and_unlock()

        # The one notification, in mako: when and how often.
        shown = wait_until(lambda: [n for n in self.mako_notifications() if n[0] == "Moved while locked"],
                           timeout=30, what="the summary in mako")
        # Once, or more when the looped lift came round again before the unlock (accel-alarm.c's words).
        self.assertRegex(shown[0][1], r"^Moved (once while locked, at \d"
                                      r"|\d+ times while locked, first at \d.*, last at \d)")
        self.assertEqual(len(self.mako_notifications()), 1, self.mako_notifications())
        wait_until(lambda: self.shown("sway-mako-alarm-summary.png", self.mako_bubble, MAKO_CORNER), interval=0.3,
                   what="mako's bubble on screen")


def load_tests(loader, tests, pattern):
    """This class's own tests, not the ones it inherits from test_tray_sway.py's SwayTrayTest."""
    return unittest.TestSuite(SwayTrayAlarmTest(name) for name in sorted(vars(SwayTrayAlarmTest))
                              if name.startswith("test_"))


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stderr, verbosity=2))
