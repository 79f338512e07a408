/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "disk-protect.h"
#include "strutil.h"

#define DISK_NAME_MAX 32 /* bytes; kernel block device names are short ("sda", "nvme0n1") */

struct DiskProtect {
        char *sysfs_root;
        char **disks; /* NULL-terminated, never NULL */
        bool parked;
        uint64_t last_write_usec;
        uint64_t park_count;
        uint64_t paused_until_usec;
};

static char **strv_new_empty(void)
{
        return calloc(1, sizeof(char *));
}

static void strv_free(char **l)
{
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
}

static void strv_freep(char ***l)
{
        strv_free(*l);
}

static size_t strv_length(char *const *l)
{
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

int disk_protect_new(const char *sysfs_root, DiskProtect **ret)
{
        assert(sysfs_root);
        assert(ret);

        _cleanup_(disk_protect_freep) DiskProtect *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->sysfs_root = strdup(sysfs_root);
        d->disks = strv_new_empty();
        if (!d->sysfs_root || !d->disks)
                return -ENOMEM;
        *ret = TAKE_PTR(d);
        return 0;
}

DiskProtect *disk_protect_free(DiskProtect *d)
{
        if (!d)
                return NULL;
        strv_free(d->disks);
        free(d->sysfs_root);
        free(d);
        return NULL;
}

/* Reads a small sysfs attribute (first line, without the newline) into buf. */
static int read_attr(const char *path, char *buf, size_t size)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        if (!fgets(buf, (int) size, f))
                return ferror(f) ? -EIO : -ENODATA;
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

static bool disk_name_valid(const char *name)
{
        size_t n = strlen(name);
        if (n == 0 || n > DISK_NAME_MAX || name[0] == '.')
                return false;
        for (const char *p = name; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      *p == '-' || *p == '_' || *p == '!'))
                        return false;
        return true;
}

static int check_flag(DiskProtect *d, const char *name, const char *attr, const char *want, const char *what,
                      char **ret_error)
{
        _cleanup_free_ char *path = NULL;
        char value[64];

        if (asprintf(&path, "%s/block/%s/%s", d->sysfs_root, name, attr) < 0)
                return -ENOMEM;
        int r = read_attr(path, value, sizeof(value));
        if (r < 0)
                return error_printf(ret_error, r == -ENOENT ? -ENOENT : -EINVAL,
                                    "Disk '%s': cannot read %s: %s", name, attr, strerror(-r));
        if (!streq(value, want))
                return error_printf(ret_error, -EINVAL, "Disk '%s' is %s (%s is %s)", name, what, attr,
                                    value);
        return 0;
}

int disk_protect_check_disk(DiskProtect *d, const char *name, char **ret_error)
{
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int r;

        assert(d);

        if (!name || !disk_name_valid(name))
                return error_printf(ret_error, -EINVAL,
                                    "Invalid disk name '%s': expected a block device name such as 'sda'",
                                    name ? name : "(null)");

        if (asprintf(&path, "%s/block/%s", d->sysfs_root, name) < 0)
                return -ENOMEM;
        if (stat(path, &st) < 0)
                return error_printf(ret_error, -ENOENT, "Disk '%s' not found (no %s)", name, path);

        r = check_flag(d, name, "queue/rotational", "1", "not rotational", ret_error);
        if (r < 0)
                return r;
        r = check_flag(d, name, "removable", "0", "removable", ret_error);
        if (r < 0)
                return r;

        free(path);
        if (asprintf(&path, "%s/block/%s/device/unload_heads", d->sysfs_root, name) < 0)
                return -ENOMEM;
        if (access(path, W_OK) < 0) {
                int e = errno;
                return error_printf(ret_error, e == ENOENT ? -ENOENT : -EINVAL,
                                    "Disk '%s' cannot park its heads (device/unload_heads: %s)", name,
                                    strerror(e));
        }
        return 0;
}

/* Writes value to every protected disk's unload_heads; tries them all, returns the first error. */
static int write_all(DiskProtect *d, unsigned value)
{
        int first = 0;
        for (char **i = d->disks; *i; i++) {
                _cleanup_free_ char *path = NULL;
                char buf[16];

                if (asprintf(&path, "%s/block/%s/device/unload_heads", d->sysfs_root, *i) < 0)
                        return -ENOMEM;
                int n = snprintf(buf, sizeof(buf), "%u\n", value);
                /* O_TRUNC: harmless on sysfs, and keeps a fake file readable (hdapsd leaves "0000"). */
                _cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
                if (fd < 0 || write(fd, buf, n) != n) {
                        if (first == 0)
                                first = -errno ?: -EIO;
                }
        }
        return first;
}

int disk_protect_set_disks(DiskProtect *d, char *const *names, char **ret_error)
{
        size_t n = strv_length(names);

        assert(d);

        for (size_t i = 0; i < n; i++) {
                for (size_t j = 0; j < i; j++)
                        if (streq(names[i], names[j]))
                                return error_printf(ret_error, -EINVAL, "Disk '%s' is listed twice",
                                                    names[i]);
                int r = disk_protect_check_disk(d, names[i], ret_error);
                if (r < 0)
                        return r;
        }

        _cleanup_(strv_freep) char **copy = calloc(n + 1, sizeof(char *));
        if (!copy)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (!(copy[i] = strdup(names[i])))
                        return -ENOMEM;

        /* The old set is released before the new one takes over, so no disk stays parked. */
        int r = 0;
        if (d->parked)
                r = disk_protect_unpark(d);
        strv_free(d->disks);
        d->disks = TAKE_PTR(copy);
        return r;
}

char *const *disk_protect_get_disks(const DiskProtect *d)
{
        assert(d);

        return d->disks;
}

bool disk_protect_enabled(const DiskProtect *d)
{
        assert(d);

        return d->disks[0] != NULL;
}

int disk_protect_park(DiskProtect *d, uint64_t now_usec)
{
        assert(d);

        if (!disk_protect_enabled(d) || disk_protect_paused_until(d, now_usec) > 0)
                return 0;
        if (d->parked && now_usec - d->last_write_usec < DISK_PARK_REARM_MS * USEC_PER_MSEC)
                return 0;

        int r = write_all(d, DISK_PARK_TIMEOUT_MS);
        if (r < 0 && !d->parked)
                return r; /* not even partially parked? then we are not parked; try again next time */
        if (!d->parked)
                d->park_count++;
        d->parked = true;
        d->last_write_usec = now_usec;
        return r < 0 ? r : 1;
}

int disk_protect_unpark(DiskProtect *d)
{
        assert(d);

        if (!d->parked)
                return 0;
        d->parked = false;
        return write_all(d, 0);
}

bool disk_protect_parked(const DiskProtect *d)
{
        assert(d);

        return d->parked;
}

uint64_t disk_protect_park_count(const DiskProtect *d)
{
        assert(d);

        return d->park_count;
}

int disk_protect_pause(DiskProtect *d, uint64_t now_usec, uint64_t until_usec)
{
        assert(d);

        d->paused_until_usec = until_usec > now_usec ? until_usec : 0;
        if (d->paused_until_usec > 0)
                return disk_protect_unpark(d);
        return 0;
}

uint64_t disk_protect_paused_until(const DiskProtect *d, uint64_t now_usec)
{
        assert(d);

        return d->paused_until_usec > now_usec ? d->paused_until_usec : 0;
}

DiskProtectState disk_protect_get_state(const DiskProtect *d, uint64_t now_usec)
{
        assert(d);

        if (!disk_protect_enabled(d))
                return DISK_PROTECT_OFF;
        if (disk_protect_paused_until(d, now_usec) > 0)
                return DISK_PROTECT_PAUSED;
        return d->parked ? DISK_PROTECT_PARKED : DISK_PROTECT_ARMED;
}

static const char *const disk_protect_state_table[_DISK_PROTECT_STATE_MAX] = {
        [DISK_PROTECT_OFF] = "off",
        [DISK_PROTECT_ARMED] = "armed",
        [DISK_PROTECT_PARKED] = "parked",
        [DISK_PROTECT_PAUSED] = "paused",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(disk_protect_state, DiskProtectState, );

int disk_protect_follow(DiskProtect *d, bool shock_active, uint64_t now_usec)
{
        int r;

        assert(d);

        if (shock_active) {
                bool was_parked = d->parked;
                r = disk_protect_park(d, now_usec);
                if (r <= 0)
                        return r;
                return was_parked ? DISK_PROTECT_DID_REARM : DISK_PROTECT_DID_PARK;
        }
        if (!d->parked)
                return DISK_PROTECT_NOTHING;
        r = disk_protect_unpark(d);
        return r < 0 ? r : DISK_PROTECT_DID_UNPARK;
}
