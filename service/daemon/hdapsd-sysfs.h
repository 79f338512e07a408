/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The stand-in for the kernel hdaps driver's platform device that hdapsd needs next to the input devices
 * (input-devices.h). hdapsd 20141203 (src/hdapsd.c) takes the hdaps interface only when
 * /sys/devices/platform/hdaps/position opens; it reads position and sampling_rate once at start, and
 * keyboard_activity and mouse_activity while adaptive (-a), then only the input device with phys
 * "hdaps/input1". Without the file it runs `modprobe hdaps`. While the input devices exist tpacceld keeps
 *   DIR/platform/hdaps/{position,sampling_rate,keyboard_activity,mouse_activity,provider}
 * (mode 0644, as the driver's; provider says "tpacceld"), and the hdapsd unit drop-in
 * (data/hdapsd-tpaccel.conf) binds DIR/platform over /sys/devices/platform in hdapsd's mount namespace.
 * Nothing is made while the kernel's own /sys/devices/platform/hdaps exists: hdapsd then uses it.
 * Every path is opened with openat() one component at a time with O_NOFOLLOW (a symlinked platform or
 * hdaps directory is refused, never followed), and each file is written through a temporary NAME.tmp
 * made afresh with O_EXCL|O_NONBLOCK (a FIFO left there is removed, never opened: it cannot block the
 * event loop). */

#include <stdbool.h>

#include "macros.h"

#define HDAPSD_SYSFS_DIR_NAME "hdapsd" /* below the runtime directory (/run/tpaccel) */

typedef struct HdapsdSysfs HdapsdSysfs;

/* dir: where to keep the stand-in (e.g. /run/tpaccel/hdapsd; created when needed); kernel_dir: the
 * kernel driver's directory to defer to (/sys/devices/platform/hdaps, below a --sysroot). Makes nothing
 * yet. Returns 0 or -ENOMEM. Pointer arguments here and the HdapsdSysfs of every function but
 * hdapsd_sysfs_free() are not NULL (assert()ed). */
int hdapsd_sysfs_new(const char *dir, const char *kernel_dir, HdapsdSysfs **ret);
/* Removes the stand-in (if made) and frees. */
HdapsdSysfs *hdapsd_sysfs_free(HdapsdSysfs *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(HdapsdSysfs *, hdapsd_sysfs_free);

/* Makes the stand-in if it is not there (all files at once: DIR/platform appears complete), else
 * rewrites the values that changed (each file replaced whole, never seen half-written). position_known:
 * x, y are a readout (else "(0,0)" until one comes; hdapsd's first two readouts never park). Returns 0
 * (also when the kernel's directory exists and nothing is made) or a negative errno. */
int hdapsd_sysfs_publish(HdapsdSysfs *s, bool position_known, int x, int y, unsigned rate_hz, bool keyboard,
                         bool mouse);
/* Removes DIR/platform (made by this or an earlier run). Returns 0 or a negative errno. */
int hdapsd_sysfs_remove(HdapsdSysfs *s);
