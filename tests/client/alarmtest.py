# SPDX-License-Identifier: GPL-2.0-or-later
"""The motion alarm's surroundings for the client tests (test_alarm.py, test_tray_alarm.py, test_alarm_sound.py):
python-dbusmock's logind on the test's private bus with one session that locks and unlocks (LockedHint),
and a stand-in for tpacceld's movement members (ClaimMovement, ReleaseMovement, Moved) made with
python-dbusmock, so that a test decides when the machine moved. A mixin of ClientTestCase subclasses."""
import os

from gi.repository import GLib

from clienttest import ACCEL, ACCEL_PATH, wait_until

LOGIN = "org.freedesktop.login1"
LOGIN_PATH = "/org/freedesktop/login1"
LOGIN_MANAGER = "org.freedesktop.login1.Manager"
MOCK = "org.freedesktop.DBus.Mock"
SESSION = "c7"
SESSION_PATH = f"{LOGIN_PATH}/session/{SESSION}"
SESSION_IFACE = "org.freedesktop.login1.Session"

# Short times for the tests (tpaccelctl(1) and tpaccel-tray(1), ENVIRONMENT): armed 0.5 s after the lock,
# 1.5 s of grace.
TIMES = {"TPACCEL_ALARM_ARMING_MS": "500", "TPACCEL_ALARM_GRACE_MS": "1500"}


# The mocks, as ClientTestCase.start_mocks() takes them: logind; org.thinkpad.Accelerometer with the movement
# members only (movement_standin.py), its calls recorded by dbusmock.
LOGIND_MOCK = (["--session", "--template", "logind"], LOGIN, "logind.log")
MOVEMENT_STANDIN_MOCK = (["--session", "--template", os.path.join(os.path.dirname(__file__), "movement_standin.py")],
                         ACCEL, "standin.log")


class AlarmParts:
    def start_logind_session(self):
        """logind with session SESSION of this user, the session of the programs started (XDG_SESSION_ID)."""
        self.start_mocks(LOGIND_MOCK)
        self.add_logind_session()

    def add_logind_session(self):
        """Session SESSION of this user in the logind mock (LOGIND_MOCK), the session of the programs started."""
        self.env.update(TIMES)
        self.env["XDG_SESSION_ID"] = SESSION
        self.bus.call(LOGIN, LOGIN_PATH, MOCK, "AddSession", "ssusb", (SESSION, "seat0", os.getuid(), "user", True))

    def start_movement_standin(self):
        self.start_mocks(MOVEMENT_STANDIN_MOCK)

    def claims(self):
        """ClaimMovement calls minus ReleaseMovement calls at the stand-in: the claims held."""
        calls = self.bus.call(ACCEL, ACCEL_PATH, MOCK, "GetCalls", "", ())
        return sum(1 if c[1] == "ClaimMovement" else -1 if c[1] == "ReleaseMovement" else 0 for c in calls)

    def claim_calls(self):
        return [c[1] for c in self.bus.call(ACCEL, ACCEL_PATH, MOCK, "GetCalls", "", ())
                if c[1] in ("ClaimMovement", "ReleaseMovement")]

    def moved(self):
        """The stand-in says the machine moved."""
        self.bus.call(ACCEL, ACCEL_PATH, MOCK, "EmitSignal", "sssav",
                      (ACCEL, "Moved", "td", [GLib.Variant("t", 123), GLib.Variant("d", 0.5)]))

    def set_locked(self, locked):
        """The session's locker says it locked or unlocked, as GNOME's and KDE's do."""
        self.bus.call(LOGIN, SESSION_PATH, SESSION_IFACE, "SetLockedHint", "b", (locked,))

    def lid_inhibitors(self):
        return [i for i in self.bus.call(LOGIN, LOGIN_PATH, LOGIN_MANAGER, "ListInhibitors", "", ())
                if i[0] == "handle-lid-switch" and i[3] == "block"]

    def wait_claims(self, n, what=None):
        wait_until(lambda: self.claims() == n, what=what or f"{n} movement claims held")
