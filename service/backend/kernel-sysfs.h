/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The kernel hdaps driver's sysfs device, /sys/devices/platform/hdaps (facts: docs/PROTOCOL.md and
 * the notes on tp_smapi 0.43 and mainline 6.1). Both flavours have position, temp1,
 * keyboard_activity, mouse_activity, calibrate and invert; tp_smapi adds sampling_rate,
 * oversampling_ratio, running_avg_filter_order (and fake_data_mode before 0.38); mainline adds variance
 * and temp2. Attributes are read with pread() at offset 0, which makes sysfs call the driver again. */

#include <stdbool.h>

#include "backend-choose.h"

#define KERNEL_HDAPS_DIR "sys/devices/platform/hdaps" /* below the sysroot */

typedef enum KernelAttr {
        KERNEL_ATTR_POSITION,
        KERNEL_ATTR_TEMP1,
        KERNEL_ATTR_KEYBOARD_ACTIVITY,
        KERNEL_ATTR_MOUSE_ACTIVITY,
        KERNEL_ATTR_CALIBRATE,
        KERNEL_ATTR_INVERT,
        KERNEL_ATTR_SAMPLING_RATE,
        KERNEL_ATTR_OVERSAMPLING_RATIO,
        KERNEL_ATTR_FILTER_ORDER,
        KERNEL_ATTR_FAKE_DATA_MODE,
        KERNEL_ATTR_VARIANCE,
        KERNEL_ATTR_TEMP2,
        _KERNEL_ATTR_MAX,
} KernelAttr;

/* The attribute's file name, e.g. "running_avg_filter_order". */
const char *kernel_attr_to_string(KernelAttr a);

/* The hdaps device directory below sysroot ("/" when NULL). NULL on -ENOMEM. */
char *kernel_hdaps_dir(const char *sysroot);

/* Which driver serves the device: KERNEL_DRIVER_NONE without a readable position attribute;
 * tp_smapi when sampling_rate exists; mainline otherwise. Reads no attribute contents. */
KernelDriverFlavour kernel_hdaps_detect(const char *sysroot);

/* Opens every attribute of dir that exists, read-write where allowed (so that writes keep working
 * after privileges are dropped), read-only otherwise; fds[a] is -1 for a missing one. Returns 0, or
 * -ENODEV without a position attribute (all fds closed then). */
int kernel_attrs_open(const char *dir, int fds[static _KERNEL_ATTR_MAX]);
void kernel_attrs_close(int fds[static _KERNEL_ATTR_MAX]);

/* Readers: 0, -ENODEV (the device went away), -EBUSY (the driver had no readout), -EIO (any other
 * read error, or text that is not "N" / "(X,Y)"). */
int kernel_attr_read_int(int fd, int *ret);
int kernel_attr_read_pair(int fd, int *ret_x, int *ret_y);

/* Writes "N\n" at offset 0. Returns 0 or the driver's negative errno (-EINVAL out of range, -EACCES). */
int kernel_attr_write_uint(int fd, unsigned value);

/* The tp_smapi axis code (hdaps-models.h) equivalent to the driver's invert value: mainline's bits
 * (bit 0 negates X, bit 1 negates Y) are mapped; tp_smapi's value is the code itself. -EINVAL when the
 * value is out of the flavour's range. */
int kernel_invert_to_axis_code(KernelDriverFlavour flavour, int invert, unsigned *ret_code);

/* Undoes an axis code: the hardware readout that hdaps_axes_transform(code) turns into (x, y). */
void kernel_axes_untransform(unsigned code, int x, int y, int *ret_hw_x, int *ret_hw_y);
