/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* D-Bus error names of org.thinkpad.Accelerometer (documented in the interface XML). */
#define ACCEL_ERROR_BUSY             "org.thinkpad.Accelerometer.Error.Busy"
#define ACCEL_ERROR_HARDWARE         "org.thinkpad.Accelerometer.Error.HardwareError"
#define ACCEL_ERROR_NOT_SUPPORTED    "org.thinkpad.Accelerometer.Error.NotSupported"
#define ACCEL_ERROR_NO_ACCELEROMETER "org.thinkpad.Accelerometer.Error.NoAccelerometer"
#define ACCEL_ERROR_NOT_CLAIMED      "org.thinkpad.Accelerometer.Error.NotClaimed"
#define ACCEL_ERROR_NOT_SUBSCRIBED   "org.thinkpad.Accelerometer.Error.NotSubscribed"
#define ACCEL_ERROR_NOT_SAVED        "org.thinkpad.Accelerometer.Error.NotSaved"
