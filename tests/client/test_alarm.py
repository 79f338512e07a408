#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpaccelctl alarm, the motion alarm in a terminal (client/ctl/ctl-alarm.c over client/common/accel-alarm-run.c,
which the tray shares): python-dbusmock's logind on the test's private bus, whose session locks and unlocks
(LockedHint), and a stand-in for tpacceld's movement interface (ClaimMovement, ReleaseMovement, Moved)
made with python-dbusmock, so that the test decides when the machine moved. No sound server runs here:
the sounds fall back to the terminal bell, which the output shows. test_alarm_sound.py runs the real
tpacceld, a real PulseAudio and the tray."""
import os
import subprocess
import sys
import unittest

from alarmtest import AlarmParts
from clienttest import ACCEL, ACCEL_PATH, TPACCELCTL, ClientTestCase, stop_process, wait_until


class AlarmTest(AlarmParts, ClientTestCase):
    def setUp(self):
        super().setUp()
        # No sound server: canberra fails and the bell rings instead.
        self.env["PULSE_SERVER"] = "unix:" + os.path.join(self.tmpdir, "no-pulse")
        self.start_logind_session()
        self.alarm = None
        self.out = os.path.join(self.tmpdir, "alarm.out")

    def start_alarm(self, *args):
        out = open(self.out, "w")
        self.alarm = subprocess.Popen([TPACCELCTL, "--session", "alarm"] + list(args), stdout=out,
                                      stderr=subprocess.PIPE, text=True, env=self.env)
        out.close()
        self.processes.append(self.alarm)

    def output(self):
        with open(self.out) as f:
            return f.read()

    def wait_output(self, text, what=None):
        wait_until(lambda: text in self.output() or self.alarm.poll() is not None, what=what or repr(text))
        self.assertIn(text, self.output(), self.alarm.poll() is not None and self.alarm.stderr.read())

    def test_bad_arguments_are_refused(self):
        for args, words in ((["volume", "0"], 'volume "0" is not a percentage from 1 to 100'),
                            (["volume", "loud"], 'volume "loud" is not a percentage'),
                            (["volume"], '"volume" needs a value'),
                            (["colour", "red"], '"colour" is not "session" or "volume"')):
            code, out, err = self.ctl("alarm", *args)
            self.assertEqual(code, 2, err)
            self.assertIn(words, err)
            self.assertEqual(out, "")
        env = dict(self.env, TPACCEL_ALARM_GRACE_MS="soon")
        code, out, err = self.ctl("alarm", env=env)
        self.assertEqual(code, 2)
        self.assertIn('TPACCEL_ALARM_GRACE_MS="soon": expected milliseconds', err)

    def test_claims_only_while_locked_warns_sounds_and_sums_up(self):
        self.start_movement_standin()
        self.start_alarm()
        self.wait_output("arms when the session locks")
        # Unlocked: nothing is claimed, so nothing polls; a movement now is no news.
        self.moved()
        self.assertEqual(self.claims(), 0)

        self.set_locked(True)
        self.wait_output("locked: armed in 0 s")
        wait_until(lambda: self.claims() == 1, what="the movement claim")
        self.wait_output("armed: moving the machine now sounds the alarm")
        self.assertNotIn("\a", self.output())
        self.assertEqual(self.lid_inhibitors(), [])  # the owner may still close the lid and carry it

        self.moved()
        self.wait_output("moved: the alarm sounds in 1 s unless the session is unlocked")
        self.wait_output("\a", "the warning's bell (no sound server)")
        self.wait_output("sounding until the session is unlocked")
        wait_until(lambda: self.output().count("\a") >= 3, what="the alarm's bell, repeated")
        # Closing the lid does not suspend the machine now.
        wait_until(lambda: len(self.lid_inhibitors()) == 1, what="the lid switch inhibitor")
        self.moved()

        self.set_locked(False)
        self.wait_output("unlocked: disarmed")
        self.wait_output("Moved 2 times while locked, first at ")
        self.assertIn("; the alarm sounded.", self.output())
        wait_until(lambda: self.claims() == 0, what="the claim released at the unlock")
        wait_until(lambda: self.lid_inhibitors() == [], what="the lid switch inhibitor dropped")
        bells = self.output().count("\a")
        # Nothing sounds after the unlock; a movement then is ignored.
        self.moved()
        self.set_locked(False)
        self.assertEqual(stop_process(self.alarm, timeout=10), 0)
        self.assertEqual(self.output().count("\a"), bells)
        self.assertEqual(self.claims(), 0)

    def test_unlocked_within_the_grace(self):
        self.env["TPACCEL_ALARM_GRACE_MS"] = "600000"
        self.start_movement_standin()
        self.start_alarm()
        self.set_locked(True)
        self.wait_output("armed: moving")
        self.moved()
        self.wait_output("moved: the alarm sounds in 600 s")
        self.set_locked(False)
        self.wait_output("Moved once while locked, at ")
        self.assertIn("unlocked within the grace", self.output())
        self.assertNotIn("sounding", self.output())

    def test_ctrl_c_while_locked_releases_the_claim(self):
        self.start_movement_standin()
        self.start_alarm()
        self.set_locked(True)
        wait_until(lambda: self.claims() == 1, what="the movement claim")
        self.assertEqual(stop_process(self.alarm, timeout=10), 0)
        self.assertEqual(self.claims(), 0)

    def test_service_restart_while_armed_claims_again(self):
        """tpacceld stopped while the alarm is armed (the claim died with it) and back: claimed again from
        the new instance, still armed; a movement then is seen."""
        self.start_movement_standin()
        self.start_alarm()
        self.set_locked(True)
        self.wait_output("armed: moving")
        self.wait_claims(1)
        stop_process(self.processes[-2])  # the stand-in (the alarm is the last process)
        wait_until(lambda: not self.bus.name_owner(ACCEL), what="the stand-in to leave")
        self.start_movement_standin()
        self.wait_claims(1, "the claim on the new instance")
        self.moved()
        self.wait_output("moved: the alarm sounds")
        self.assertIsNone(self.alarm.poll())

    def test_session_without_lockedhint_is_told(self):
        """A login manager whose session has no LockedHint (older logind, or none): the alarm says it cannot
        arm, and ends with a failure instead of guarding nothing."""
        self.start_movement_standin()
        self.env["XDG_SESSION_ID"] = "nosuch"
        self.start_alarm()
        self.assertEqual(self.alarm.wait(timeout=30), 1)
        err = self.alarm.stderr.read()
        self.assertIn("does not say when session nosuch is locked (no LockedHint", err)
        self.assertEqual(self.claims(), 0)

    def test_service_without_movement_is_told(self):
        """tpacceld without the movement members (an older one): the claim's refusal is told at the lock."""
        self.start_mock(["--session", ACCEL, ACCEL_PATH, ACCEL], ACCEL, "standin.log")
        self.start_alarm()
        self.set_locked(True)
        self.assertEqual(self.alarm.wait(timeout=30), 1)
        self.assertIn("The motion alarm cannot watch for movement", self.alarm.stderr.read())


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stderr, verbosity=2))
