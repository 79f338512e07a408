/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The hdaps input devices, made through uinput while SetInputDevices(true) is in effect, for the programs
 * that read tp_smapi's (hdapsd's evdev mode, joystick games, desktop widgets). tp_smapi 0.43's hdaps.c
 * (docs/PROTOCOL.md "Input devices"): BUS_HOST, vendor 0x1014 (IBM), product 0x5054 ("TP"),
 *   "ThinkPad HDAPS joystick emulation", phys hdaps/input0, version 0x6801: ABS_X/ABS_Y = position minus
 *       rest, -256..256, fuzz 4, flat 4;
 *   "ThinkPad HDAPS accelerometer data", phys hdaps/input1, version 0x4801: ABS_X/ABS_Y = the
 *       axis-corrected position, -32768..32767, no fuzz, no flat.
 * One frame (ABS_X, ABS_Y, SYN_REPORT) per readout on each device. */

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "hdapsd-sysfs.h"
#include "macros.h"

#define INPUT_DEVICES_UINPUT_PATH "/dev/uinput"

typedef struct InputDevices InputDevices;

/* Opens uinput_path (NULL: /dev/uinput) once per device, creating nothing yet: done while tpacceld is
 * still privileged (/dev/uinput is root's), like the tablet-mode switch. Returns 0, or a negative errno
 * (-ENOENT: no uinput; -EACCES) with nothing left behind. */
int input_devices_open(const char *uinput_path, InputDevices **ret);
/* Destroys the devices (if created) and closes the file descriptors. */
InputDevices *input_devices_free(InputDevices *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(InputDevices *, input_devices_free);

/* Gives d the stand-in for /sys/devices/platform/hdaps that hdapsd needs (hdapsd-sysfs.h; d owns it):
 * made with the devices, updated by each report, removed with them. Without one, none is made. */
void input_devices_set_hdapsd_sysfs(InputDevices *d, HdapsdSysfs *s);

/* Creates (true) or destroys (false) both devices; idempotent. On failure nothing is left created. A
 * stand-in that cannot be made is logged (hdapsd then does not start: data/tpaccel-hdapsd-check), not
 * failed: the devices work without it. */
int input_devices_enable(InputDevices *d, bool on);
bool input_devices_enabled(const InputDevices *d);

/* Sends one readout (x, y; st: the rest position and the keyboard/mouse activity) to both devices and
 * the stand-in (its position once, the sampling rate rate_hz and the activity when they change); nothing
 * when the devices are not created. Returns 0 or the first write error (a negative errno). */
int input_devices_report(InputDevices *d, int x, int y, const HdapsState *st, unsigned rate_hz);
