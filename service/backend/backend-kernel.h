/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The "kernel" backend: the accelerometer through the kernel hdaps driver's sysfs device (mainline or
 * tp_smapi flavour), polled with pread() at the daemon's rate; no EC access of its own. Position is
 * brought into the EC backend's convention: the driver's own invert is undone (per flavour) and the
 * model's axis code from the DMI table (xor Invert) applied, so AxisCode means the same on every
 * backend. Calibration is the daemon's (the next readout becomes the rest position) and is passed on to
 * the driver's calibrate attribute. Configuration the driver has no attribute for answers -EOPNOTSUPP
 * with Backend.unsupported_reason saying what to do instead; read_row always does. */

#include "backend-choose.h"
#include "backend.h"

/* Opens the driver's device below sysroot ("/" when NULL); DMI below sysroot gives Model and the axis
 * code. Returns 0, -ENODEV when there is no hdaps device, or -ENOMEM. */
int backend_kernel_new(const char *sysroot, Backend **ret);

/* The flavour the backend found at open. */
KernelDriverFlavour backend_kernel_flavour(Backend *b);
