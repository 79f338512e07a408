#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tray's motion alarm ("Alarm when moved while locked", client/tray/tray-alarm.c) under Xvfb:
off by default and then watching nothing, turned on from the menu and kept in tray.conf for the next
session, armed while python-dbusmock's logind says the session is locked, the movement claim held only
then, and the summary notification after the unlock. The movement comes from alarmtest.py's stand-in;
test_alarm_sound.py has the real tpacceld and a real PulseAudio."""
import configparser
import os
import re
import subprocess
import time
import sys
import unittest

from alarmtest import LOGIND_MOCK, MOVEMENT_STANDIN_MOCK, AlarmParts
from clienttest import stop_process, wait_until
import test_tray

ALARM_LABEL = "Alarm when _moved while locked"


class TrayAlarmTest(AlarmParts, test_tray.TrayTest):
    def more_mocks(self):
        return (LOGIND_MOCK, MOVEMENT_STANDIN_MOCK)

    def setUp(self):
        super().setUp()
        self.env["PULSE_SERVER"] = "unix:" + os.path.join(self.tmpdir, "no-pulse")  # no sound server here
        self.add_logind_session()
        self.conf = os.path.join(self.env["XDG_CONFIG_HOME"], "tpaccel", "tray.conf")

    def alarm_item(self):
        return next(props for _, props in self.menu_items() if props.get("label") == ALARM_LABEL)

    def alarm_moved_rules(self):
        return [m for m in self.accel_signal_rules() if m == "Moved"]

    def session_rules(self):
        """The match rules on logind's session objects, of any connection (the tray's to logind is a
        connection of its own, to the system bus; only the tray follows sessions here)."""
        rules = self.bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus.Debug.Stats", "GetAllMatchRules")
        return [r for owner_rules in rules.values() for r in owner_rules if "/org/freedesktop/login1/session" in r]

    def test_off_by_default_watches_nothing(self):
        self.start_tray("--no-animation")
        self.assertEqual(self.alarm_item().get("toggle-state"), 0)
        self.set_locked(True)
        self.moved()
        self.set_locked(False)
        # Nothing follows the session or listens for Moved, nothing was claimed or notified or written.
        self.assertEqual(self.session_rules(), [])
        self.assertEqual(self.alarm_moved_rules(), [])
        self.assertEqual(self.claim_calls(), [])
        self.assertFalse(any(s == "Moved while locked" for s, _ in self.notifications()))
        self.assertFalse(os.path.exists(self.conf))

    def test_on_from_the_menu_arms_while_locked_and_is_kept(self):
        self.start_tray("--no-animation")
        self.click_menu(ALARM_LABEL)
        wait_until(lambda: self.alarm_item().get("toggle-state") == 1, what="the ticked item")
        wait_until(lambda: os.path.exists(self.conf), what="tray.conf")
        conf = configparser.ConfigParser()
        conf.read(self.conf)
        self.assertEqual(conf["Alarm"]["Enabled"], "true")
        self.assertEqual(conf["Alarm"]["Volume"], "80")

        # On but unlocked: nothing claimed, nothing polls.
        wait_until(lambda: self.alarm_moved_rules() == ["Moved"], what="the Moved match rule")
        wait_until(lambda: len(self.session_rules()) == 1, what="the session followed")
        self.assertEqual(self.claims(), 0)
        self.set_locked(True)
        self.wait_claims(1, "the claim while locked")
        wait_until(lambda: "Motion alarm armed" in self.tray_log(), what="armed")
        self.moved()
        wait_until(lambda: "Motion alarm sounding" in self.tray_log(), what="the alarm after the grace")
        self.set_locked(False)
        self.wait_claims(0, "the claim released at the unlock")
        wait_until(lambda: any(s == "Moved while locked" for s, _ in self.notifications()), what="the summary")
        body = next(b for s, b in self.notifications() if s == "Moved while locked")
        self.assertIn("Moved once while locked, at ", body)
        self.assertIn("the alarm sounded", body)

        # The next session: still on, armed by the next lock.
        self.restart_tray()
        self.assertEqual(self.alarm_item().get("toggle-state"), 1)
        self.set_locked(True)
        self.wait_claims(1, "the claim in the next session")
        self.set_locked(False)
        self.wait_claims(0)

        # Off from the menu: the claim is not taken any more, the choice kept.
        self.click_menu(ALARM_LABEL)
        wait_until(lambda: self.alarm_item().get("toggle-state") == 0, what="the unticked item")
        wait_until(lambda: self.alarm_moved_rules() == [], what="no Moved match rule")
        wait_until(lambda: self.session_rules() == [], what="the session no longer followed")
        self.set_locked(True)
        self.set_locked(False)
        conf.read(self.conf)
        self.assertEqual(conf["Alarm"]["Enabled"], "false")
        self.assertEqual(self.claims(), 0)
        self.assertEqual(len(self.claim_calls()), 4)

    def top_windows(self):
        """The root's mapped children, (id, width, height), as xwininfo lists them."""
        tree = subprocess.run(["xwininfo", "-display", self.xvfb.display, "-root", "-children"],
                              capture_output=True, text=True, check=True).stdout
        return {(m.group(1), int(m.group(2)), int(m.group(3)))
                for m in re.finditer(r"^\s+(0x[0-9a-f]+) .*?(\d+)x(\d+)\+", tree, re.M)}

    def test_menu_item_in_an_xembed_tray(self):
        """The menu as a user sees it, opened from the icon in trayer (XEmbed; the StatusNotifierWatcher
        gone), with the alarm's item ticked from tray.conf: tray-alarm-menu.png in build/tests/client."""
        os.makedirs(os.path.dirname(self.conf))
        with open(self.conf, "w") as f:
            f.write("[Alarm]\nEnabled=true\n")
        stop_process(self.processes[0])  # the watcher mock
        wait_until(lambda: not self.bus.name_owner(test_tray.WATCHER), what="the watcher to leave")
        self.spawn(["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "64",
                    "--height", "24"], "trayer.log")
        time.sleep(1)
        self.start_tray("--no-animation", registered=False)
        wait_until(lambda: "tpaccel-tray" in subprocess.run(
            ["xwininfo", "-display", self.xvfb.display, "-root", "-tree"], capture_output=True, text=True,
            check=True).stdout, what="the icon in trayer's window")
        before = self.top_windows()
        time.sleep(1)
        self.xdotool("mousemove", "1012", "12", "click", "1")
        menu = wait_until(lambda: [w for w in self.top_windows() - before if w[1] > 150 and w[2] > 150],
                          what="the menu's window")
        time.sleep(0.5)  # drawn
        self.screenshot("tray-alarm-menu.png")
        self.assertTrue(menu)

    def restart_tray(self):
        self.tray.terminate()
        self.tray.wait(timeout=10)
        self._owner_cache = None
        self.bus.call("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher", "org.freedesktop.DBus.Mock",
                      "ClearCalls", "", ())
        self.start_tray("--no-animation")

    def test_locked_at_start_arms_at_once(self):
        """The tray started in a locked session (restarted while locked): armed without a new lock. Its
        tray.conf's volume is out of range: told, the default taken, the choice still on."""
        os.makedirs(os.path.dirname(self.conf))
        with open(self.conf, "w") as f:
            f.write("[Alarm]\nEnabled=true\nVolume=400\n")
        self.set_locked(True)
        self.start_tray("--no-animation")
        self.wait_claims(1, "the claim of a tray started while locked")
        self.assertIn("Volume is not a volume from 1 to 100, taking 80", self.tray_log())
        self.assertEqual(self.alarm_item().get("toggle-state"), 1)
        self.set_locked(False)
        self.wait_claims(0)

    def test_desktop_without_lockedhint_is_told(self):
        self.env["XDG_SESSION_ID"] = "nosuch"
        self.start_tray("--no-animation")
        self.click_menu(ALARM_LABEL)
        wait_until(lambda: any(s == "Motion alarm" and "no LockedHint" in b for s, b in self.notifications()),
                   what="the notification saying the alarm cannot arm")


def load_tests(loader, tests, pattern):
    """This class's own tests, not the ones it inherits from test_tray.py's TrayTest."""
    return unittest.TestSuite(TrayAlarmTest(name) for name in sorted(vars(TrayAlarmTest)) if name.startswith("test_"))


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stderr, verbosity=2))
