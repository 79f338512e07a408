#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The motion alarm end to end with the real parts: tpacceld on the EC emulator replaying "picked up from
the desk" (tests/traces/movement/picked-up.csv, looped), python-dbusmock's logind whose session locks and
unlocks (LockedHint), a real PulseAudio with a null sink on a private XDG_RUNTIME_DIR, checked for the
alarm's stream (pactl list sink-inputs) while it sounds and for none after the unlock, and nothing polling
while unlocked. Once with tpaccelctl alarm, once with the tray under Xvfb (a screenshot of its Settings
with the alarm on). In the `system` tier: a sound server and a trace replay per test (tests/client/meson.build)."""
import os
import re
import subprocess
import sys
import time
import unittest

import test_tray
from alarmtest import AlarmParts
from clienttest import TPACCELCTL, ClientTestCase, stop_process, wait_until

TRACE = "movement/picked-up.csv"  # picked up at 6 s of the loop
SOUND_TIMEOUT = 60  # the trace's loop and a loaded machine: the wait ends as soon as the stream is there


class PulseAudio:
    """pulseaudio with one null sink, on a socket of its own; stopped by pid."""

    def __init__(self, test):
        self.dir = os.path.join(test.tmpdir, "pulse")
        os.makedirs(self.dir, mode=0o700)
        self.socket = os.path.join(self.dir, "native")
        env = dict(test.env, XDG_RUNTIME_DIR=self.dir, HOME=self.dir)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        env.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        self.proc = test.spawn(["pulseaudio", "--daemonize=no", "-n", "--exit-idle-time=-1", "--disable-shm=yes",
                                "--load=module-null-sink sink_name=alarm_test_sink",
                                f"--load=module-native-protocol-unix socket={self.socket} auth-anonymous=1",
                                "--log-target=stderr"], "pulseaudio.log", env=env)
        self.env = dict(test.env, PULSE_SERVER="unix:" + self.socket)
        wait_until(lambda: self.proc.poll() is not None or self.sink_inputs() is not None, what="PulseAudio")
        test.assertIsNone(self.proc.poll(), "pulseaudio exited at start")

    def sink_inputs(self):
        """The streams playing into the null sink, as pactl lists them (None while it cannot connect)."""
        res = subprocess.run(["pactl", "list", "sink-inputs"], capture_output=True, text=True, env=self.env,
                             timeout=30)
        if res.returncode != 0:
            return None
        return [block for block in res.stdout.split("Sink Input #")[1:]]

    def alarm_streams(self, event_id="alarm-clock-elapsed"):
        return [s for s in self.sink_inputs() or []
                if 'application.name = "tpaccel"' in s and f'event.id = "{event_id}"' in s]


class AlarmSound:
    """The end-to-end steps both tests share (a mixin over AlarmParts and a ClientTestCase)."""

    def start_real_parts(self):
        self.pulse = PulseAudio(self)
        self.env["PULSE_SERVER"] = self.pulse.env["PULSE_SERVER"]
        self.start_logind_session()
        self.start_daemon(TRACE, loop=True)

    def lock_move_and_unlock(self):
        self.assertFalse(self.bus.accel_property("Polling"), "polling before the lock")
        self.set_locked(True)
        wait_until(lambda: self.bus.accel_property("MovementWatched"), what="the movement claim")
        # Picked up while armed: the warning, then after the grace the alarm, on the null sink.
        streams = wait_until(self.pulse.alarm_streams, timeout=SOUND_TIMEOUT, what="the alarm's stream")
        self.assertIn("Motion alarm: sounding", streams[0])
        volume = re.search(r"\bVolume: .*?(\d+)%", streams[0])
        self.assertTrue(volume, streams[0])
        self.assertEqual(int(volume.group(1)), self.volume, streams[0])
        # It repeats: a new stream of the alarm once the first has ended (alarm-clock-elapsed: 2.5 s). Not
        # "a stream at some moment": between two there is a gap of up to the repeat period (0.5 s).
        first = streams[0].split()[0]  # its index, "Sink Input #N"
        wait_until(lambda: [s for s in self.pulse.alarm_streams() if s.split()[0] != first], timeout=SOUND_TIMEOUT,
                   what="the alarm's next stream (it repeats until the unlock)")
        self.assertTrue(self.lid_inhibitors(), "the lid switch is not blocked while it sounds")
        self.set_locked(False)
        wait_until(lambda: self.pulse.sink_inputs() == [], what="no stream after the unlock")
        wait_until(lambda: not self.bus.accel_property("MovementWatched"), what="the claim released")
        wait_until(lambda: not self.bus.accel_property("Polling"), what="polling to stop after the unlock")
        self.assertEqual(self.lid_inhibitors(), [])
        # Nothing starts again: two repeat periods and more with the trace still moving the machine.
        time.sleep(2)
        self.assertEqual(self.pulse.sink_inputs(), [])


class AlarmSoundTest(AlarmSound, AlarmParts, ClientTestCase):
    def test_tpaccelctl_alarm_sounds_on_the_sound_server_until_unlock(self):
        self.start_real_parts()
        self.volume = 45
        out_path = os.path.join(self.tmpdir, "alarm.out")
        with open(out_path, "w") as out:
            alarm = subprocess.Popen([TPACCELCTL, "--session", "alarm", "volume", "45"], stdout=out, stderr=subprocess.STDOUT,
                                     env=self.env)
        self.processes.append(alarm)
        self.lock_move_and_unlock()
        wait_until(lambda: "while locked" in open(out_path).read(), what="the summary")
        self.assertEqual(stop_process(alarm, timeout=10), 0)
        out = open(out_path).read()
        self.assertRegex(out, r"Moved (once|\d+ times) while locked")
        self.assertNotIn("\a", out)  # the sound server played it: no bell


class TrayAlarmSoundTest(AlarmSound, AlarmParts, test_tray.TrayTest):
    def test_tray_alarm_sounds_on_the_sound_server_until_unlock(self):
        conf = os.path.join(self.env["XDG_CONFIG_HOME"], "tpaccel", "tray.conf")
        os.makedirs(os.path.dirname(conf))
        with open(conf, "w") as f:
            f.write("[Alarm]\nEnabled=true\n")
        self.start_real_parts()
        self.volume = 80  # the default
        self.start_tray("--no-animation")
        self.click_menu("_Settings…")
        wait_until(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "Accelerometer Settings"],
                                          capture_output=True, text=True, env=self.env).stdout.split(),
                   what="the Settings dialog")
        time.sleep(1)  # drawn
        self.screenshot("tray-alarm-settings.png")
        self.lock_move_and_unlock()
        wait_until(lambda: any(s == "Moved while locked" for s, _ in self.notifications()), what="the summary")


def load_tests(loader, tests, pattern):
    """These classes' own tests, not the ones TrayAlarmSoundTest inherits from test_tray.py's TrayTest."""
    return unittest.TestSuite([AlarmSoundTest("test_tpaccelctl_alarm_sounds_on_the_sound_server_until_unlock"),
                               TrayAlarmSoundTest("test_tray_alarm_sounds_on_the_sound_server_until_unlock")])


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stderr, verbosity=2))
