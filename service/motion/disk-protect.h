/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Disk head parking through /sys/block/NAME/device/unload_heads (the kernel's ATA head-unload
 * interface: writing N parks the heads and freezes the queue for N ms, at most 30000; 0 resumes).
 * Every park writes a bounded timeout, re-armed while motion lasts, so a stalled daemon can never leave
 * heads parked for longer than that timeout. sysfs_root is "/sys" normally, a fake tree in tests.
 * The DiskProtect and sysfs_root arguments are never NULL (assert()ed); disk_protect_free() takes NULL. */

#include <stdbool.h>
#include <stdint.h>

#include "macros.h"

#define DISK_PARK_TIMEOUT_MS 2000 /* the kernel unparks by itself after this if we stall */
#define DISK_PARK_REARM_MS   100  /* re-write at most this often while the park lasts (hdapsd: 0.1 s) */

typedef struct DiskProtect DiskProtect;

int disk_protect_new(const char *sysfs_root, DiskProtect **ret);
DiskProtect *disk_protect_free(DiskProtect *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(DiskProtect *, disk_protect_free);

/* Checks that NAME is a rotational (queue/rotational = 1), non-removable (removable = 0) block device
 * with device/unload_heads. Returns 0 or -EINVAL/-ENOENT with *ret_error naming the disk and the reason. */
int disk_protect_check_disk(DiskProtect *d, const char *name, char **ret_error);

/* Replaces the protected set after checking every name; on any error nothing changes. An empty list
 * turns protection off (unparking first if parked). */
int disk_protect_set_disks(DiskProtect *d, char *const *names, char **ret_error);
char *const *disk_protect_get_disks(const DiskProtect *d); /* NULL-terminated */
bool disk_protect_enabled(const DiskProtect *d);

/* Parks (or re-arms an existing park if DISK_PARK_REARM_MS passed). now_usec is CLOCK_MONOTONIC.
 * Returns 1 if it wrote (a new park or a re-arm), 0 if nothing was due, or a negative errno. */
int disk_protect_park(DiskProtect *d, uint64_t now_usec);
/* Unparks (writes 0). Returns 0 or a negative errno. */
int disk_protect_unpark(DiskProtect *d);
bool disk_protect_parked(const DiskProtect *d);
uint64_t disk_protect_park_count(const DiskProtect *d);

/* Pause (for moving the machine on purpose): until until_usec (CLOCK_MONOTONIC), park() writes nothing
 * and returns 0; a park in progress is ended first. until_usec 0 (or in the past) resumes. Returns 0
 * or the unpark error. */
int disk_protect_pause(DiskProtect *d, uint64_t now_usec, uint64_t until_usec);
/* The end of the pause, or 0 when not paused at now_usec. */
uint64_t disk_protect_paused_until(const DiskProtect *d, uint64_t now_usec);

typedef enum DiskProtectState {
        DISK_PROTECT_OFF,    /* no disks */
        DISK_PROTECT_ARMED,  /* disks set, not parked */
        DISK_PROTECT_PARKED, /* heads parked now */
        DISK_PROTECT_PAUSED, /* Pause() in effect */
        _DISK_PROTECT_STATE_MAX,
} DiskProtectState;

DiskProtectState disk_protect_get_state(const DiskProtect *d, uint64_t now_usec);
/* "off", "armed", "parked", "paused" (the ProtectionState property). */
const char *disk_protect_state_to_string(DiskProtectState s);

typedef enum DiskProtectAction {
        DISK_PROTECT_NOTHING,    /* nothing written */
        DISK_PROTECT_DID_PARK,   /* a new park: send HeadsParked(disks, true) */
        DISK_PROTECT_DID_REARM,  /* an existing park re-armed: send HeadsParked(disks, true) */
        DISK_PROTECT_DID_UNPARK, /* send HeadsParked(disks, false) */
} DiskProtectAction;

/* The per-readout driver: parks (or re-arms) while shock_active, unparks once it is false. Returns a
 * DiskProtectAction or a negative errno from writing. */
int disk_protect_follow(DiskProtect *d, bool shock_active, uint64_t now_usec);
