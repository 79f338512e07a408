# SPDX-License-Identifier: GPL-2.0-or-later
"""A python-dbusmock template (alarmtest.py's stand-in): org.thinkpad.Accelerometer with only the movement
claim's methods, there from the moment the name is owned, as tpacceld's are. Moved is emitted by the test
(EmitSignal); the calls are recorded (GetCalls)."""

BUS_NAME = "org.thinkpad.Accelerometer"
MAIN_OBJ = "/org/thinkpad/Accelerometer"
MAIN_IFACE = "org.thinkpad.Accelerometer"
SYSTEM_BUS = False


def load(mock, parameters):
    mock.AddMethods(MAIN_IFACE, [("ClaimMovement", "", "", ""), ("ReleaseMovement", "", "", "")])
