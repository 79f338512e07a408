/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hdapsd's stand-in for /sys/devices/platform/hdaps (hdapsd-sysfs.h). */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hdapsd-sysfs.h"
#include "strutil.h"

#define PLATFORM_NAME   "platform"     /* bound over /sys/devices/platform */
#define STAGING_NAME    "platform.new" /* built here, then renamed to PLATFORM_NAME */
#define DEVICE_NAME     "hdaps"        /* the kernel driver's platform device name */
#define PROVIDER_TEXT   "tpacceld\n"
#define FILE_MODE       0644 /* the driver's attributes are world-readable */
#define DIR_MODE        0755
#define TREE_MAX_DEPTH  2 /* platform/hdaps/FILE */
#define VALUE_TEXT_SIZE 32

struct HdapsdSysfs {
        char *dir, *kernel_dir;
        bool published;      /* DIR/platform is ours and current */
        bool position_known; /* position holds a readout, not the placeholder */
        unsigned rate_hz;
        bool keyboard, mouse;
};

int hdapsd_sysfs_new(const char *dir, const char *kernel_dir, HdapsdSysfs **ret)
{
        _cleanup_(hdapsd_sysfs_freep) HdapsdSysfs *s = calloc(1, sizeof(*s));

        assert(dir);
        assert(kernel_dir);
        assert(ret);

        if (!s)
                return -ENOMEM;
        s->dir = strdup(dir);
        s->kernel_dir = strdup(kernel_dir);
        if (!s->dir || !s->kernel_dir)
                return -ENOMEM;
        *ret = TAKE_PTR(s);
        return 0;
}

HdapsdSysfs *hdapsd_sysfs_free(HdapsdSysfs *s)
{
        if (!s)
                return NULL;
        if (s->published)
                (void) hdapsd_sysfs_remove(s);
        free(s->dir);
        free(s->kernel_dir);
        free(s);
        return NULL;
}

/* Removes name below dirfd and everything in it, depth levels down at most. */
static int remove_tree_at(int parent_fd, const char *name, int depth)
{
        _cleanup_close_ int fd = -EBADF;
        DIR *d;
        struct dirent *e;

        if (unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT)
                return 0;
        if (errno != EISDIR && errno != EPERM)
                return -errno;
        if (depth <= 0)
                return -ELOOP;
        fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d)
                return -errno;
        fd = -EBADF; /* the DIR owns it now */
        while ((e = readdir(d))) {
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                int r = remove_tree_at(dirfd(d), e->d_name, depth - 1);
                if (r < 0) {
                        closedir(d);
                        return r;
                }
        }
        closedir(d);
        return unlinkat(parent_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -errno : 0;
}

/* Writes text to name below dirfd whole: a temporary file renamed over it. The temporary file is made
 * afresh (O_EXCL, never following a link) and opened with O_NONBLOCK: whatever is left at NAME.tmp (an
 * old file, a FIFO, a link) is removed first, and nothing there can block the event loop. */
static int write_file_at(int dirfd, const char *name, const char *text)
{
        _cleanup_free_ char *tmp = strprintf("%s.tmp", name);
        _cleanup_close_ int fd = -EBADF;
        size_t len = strlen(text);
        const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC;

        if (!tmp)
                return -ENOMEM;
        fd = openat(dirfd, tmp, flags, FILE_MODE);
        if (fd < 0 && errno == EEXIST) {
                if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
                        return -errno;
                fd = openat(dirfd, tmp, flags, FILE_MODE);
        }
        if (fd < 0)
                return -errno;
        errno = 0;
        if (fchmod(fd, FILE_MODE) < 0 || write(fd, text, len) != (ssize_t) len) {
                int r = errno ? -errno : -EIO;
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        if (renameat(dirfd, tmp, dirfd, name) < 0) {
                int r = -errno;
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        return 0;
}

static int write_value_at(int dirfd, const char *name, const char *fmt, int a, int b)
{
        char text[VALUE_TEXT_SIZE];

        snprintf(text, sizeof(text), fmt, a, b);
        return write_file_at(dirfd, name, text);
}

static int write_position(int dirfd, int x, int y)
{
        return write_value_at(dirfd, "position", "(%d,%d)\n", x, y);
}

static int write_int(int dirfd, const char *name, int v)
{
        return write_value_at(dirfd, name, "%d\n", v, 0);
}

/* Opens (create: makes first, 0755) the directory name below dirfd, never following a symlink. */
static int open_dir_at(int dirfd, const char *name, bool create)
{
        if (create && mkdirat(dirfd, name, DIR_MODE) < 0 && errno != EEXIST)
                return -errno;
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (create && fchmod(fd, DIR_MODE) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* Opens the directory path with openat() one component at a time, each with O_NOFOLLOW: a symlink
 * anywhere on the way (not only at the end) is refused with -ELOOP or -ENOTDIR. create: the last
 * component is made (0755) when missing. */
static int open_dir_path(const char *path, bool create)
{
        _cleanup_free_ char *copy = strdup(path);
        _cleanup_close_ int fd = -EBADF;
        char *p, *next;

        if (!copy)
                return -ENOMEM;
        fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        for (p = copy; p; p = next) {
                next = strchr(p, '/');
                if (next)
                        *next++ = '\0';
                if (p[0] == '\0' || streq(p, "."))
                        continue;
                bool last = !next || next[strspn(next, "/")] == '\0';
                int child = open_dir_at(fd, p, create && last);
                if (child < 0)
                        return child;
                close(fd);
                fd = child;
        }
        return TAKE_FD(fd);
}

/* Builds DIR/platform.new/hdaps with every file, then renames it to DIR/platform. */
static int make_tree(HdapsdSysfs *s, int x, int y)
{
        _cleanup_close_ int dir_fd = -EBADF, staging_fd = -EBADF, device_fd = -EBADF;
        int r;

        dir_fd = open_dir_path(s->dir, true);
        if (dir_fd < 0)
                return dir_fd;
        if ((r = remove_tree_at(dir_fd, STAGING_NAME, TREE_MAX_DEPTH)) < 0)
                return r;
        staging_fd = open_dir_at(dir_fd, STAGING_NAME, true);
        if (staging_fd < 0)
                return staging_fd;
        device_fd = open_dir_at(staging_fd, DEVICE_NAME, true);
        if (device_fd < 0)
                return device_fd;
        if ((r = write_position(device_fd, x, y)) < 0 ||
            (r = write_int(device_fd, "sampling_rate", (int) s->rate_hz)) < 0 ||
            (r = write_int(device_fd, "keyboard_activity", s->keyboard)) < 0 ||
            (r = write_int(device_fd, "mouse_activity", s->mouse)) < 0 ||
            (r = write_file_at(device_fd, "provider", PROVIDER_TEXT)) < 0)
                return r;
        if ((r = remove_tree_at(dir_fd, PLATFORM_NAME, TREE_MAX_DEPTH)) < 0)
                return r;
        if (renameat(dir_fd, STAGING_NAME, dir_fd, PLATFORM_NAME) < 0)
                return -errno;
        return 0;
}

static int update_tree(HdapsdSysfs *s, bool position_known, int x, int y, unsigned rate_hz, bool keyboard,
                       bool mouse)
{
        _cleanup_close_ int dir_fd = -EBADF, platform_fd = -EBADF, device_fd = -EBADF;
        int r;

        /* Called for every readout: nothing to write (the common case) costs no allocation or syscall. */
        if (!(position_known && !s->position_known) && rate_hz == s->rate_hz && keyboard == s->keyboard &&
            mouse == s->mouse)
                return 0;
        /* DIR, DIR/platform, DIR/platform/hdaps: each opened below the last, none a symlink followed. */
        dir_fd = open_dir_path(s->dir, false);
        if (dir_fd < 0)
                return dir_fd;
        platform_fd = open_dir_at(dir_fd, PLATFORM_NAME, false);
        if (platform_fd < 0)
                return platform_fd;
        device_fd = open_dir_at(platform_fd, DEVICE_NAME, false);
        if (device_fd < 0)
                return device_fd;
        if (position_known && !s->position_known) {
                if ((r = write_position(device_fd, x, y)) < 0)
                        return r;
                s->position_known = true;
        }
        if (rate_hz != s->rate_hz) {
                if ((r = write_int(device_fd, "sampling_rate", (int) rate_hz)) < 0)
                        return r;
                s->rate_hz = rate_hz;
        }
        if (keyboard != s->keyboard) {
                if ((r = write_int(device_fd, "keyboard_activity", keyboard)) < 0)
                        return r;
                s->keyboard = keyboard;
        }
        if (mouse != s->mouse) {
                if ((r = write_int(device_fd, "mouse_activity", mouse)) < 0)
                        return r;
                s->mouse = mouse;
        }
        return 0;
}

int hdapsd_sysfs_publish(HdapsdSysfs *s, bool position_known, int x, int y, unsigned rate_hz, bool keyboard,
                         bool mouse)
{
        int r;

        assert(s);

        if (s->published)
                return update_tree(s, position_known, x, y, rate_hz, keyboard, mouse);
        if (access(s->kernel_dir, F_OK) == 0)
                return 0; /* the kernel's hdaps driver is loaded: hdapsd uses its directory */
        s->rate_hz = rate_hz;
        s->keyboard = keyboard;
        s->mouse = mouse;
        s->position_known = position_known;
        r = make_tree(s, position_known ? x : 0, position_known ? y : 0);
        if (r < 0)
                return r;
        s->published = true;
        return 0;
}

int hdapsd_sysfs_remove(HdapsdSysfs *s)
{
        assert(s);

        _cleanup_close_ int dir_fd = open_dir_path(s->dir, false);
        int r;

        s->published = false;
        if (dir_fd < 0)
                return dir_fd == -ENOENT ? 0 : dir_fd;
        if ((r = remove_tree_at(dir_fd, PLATFORM_NAME, TREE_MAX_DEPTH)) < 0 ||
            (r = remove_tree_at(dir_fd, STAGING_NAME, TREE_MAX_DEPTH)) < 0)
                return r;
        return 0;
}
