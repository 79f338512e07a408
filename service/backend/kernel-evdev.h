/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tp_smapi's raw accelerometer input device ("ThinkPad HDAPS accelerometer data", phys hdaps/input1,
 * ABS_X/ABS_Y without fuzz). While it is open the driver polls the EC at sampling_rate from a timer,
 * and a read never waits for the EC (a sysfs read may sleep in the driver for up to 100 ms when the EC
 * is busy). Events come only when a value changes. The mainline driver's "hdaps" device is fuzzed,
 * relative to its rest and 20 Hz, so it is not used. */

#include <stdbool.h>

#define KERNEL_EVDEV_NAME "ThinkPad HDAPS accelerometer data"
#define KERNEL_EVDEV_PHYS "hdaps/input1"

/* Finds the device through sysroot/sys/class/input/input*\/{name,phys} and its event* child; returns 0
 * with *ret_devnode = sysroot/dev/input/eventN (free it), -ENODEV when there is none, -ENOMEM. */
int kernel_evdev_find(const char *sysroot, char **ret_devnode);

/* Opens the node non-blocking. Returns the fd or a negative errno. */
int kernel_evdev_open(const char *devnode);

/* Reads every pending event; ABS_X/ABS_Y update *x / *y (left alone otherwise). Returns the number of
 * axis updates (0 when nothing was pending), or -ENODEV when the device went away, or -EIO. */
int kernel_evdev_drain(int fd, int *x, int *y);
