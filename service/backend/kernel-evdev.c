/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding and reading tp_smapi's raw accelerometer input device. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel-evdev.h"
#include "macros.h"
#include "strutil.h"

#define INPUT_CLASS_DIR "sys/class/input"
#define INPUT_DEV_DIR   "dev/input"
#define LINE_MAX_LEN    128
#define EVENTS_PER_READ 64

static const char *root_prefix(const char *sysroot, int *ret_len)
{
        size_t len = sysroot ? strlen(sysroot) : 0;

        while (len > 0 && sysroot[len - 1] == '/')
                len--;
        *ret_len = (int) len;
        return len > 0 ? sysroot : "";
}

/* Whether the first line of dir/name equals want. */
static bool line_equals(const char *dir, const char *name, const char *want)
{
        char path[PATH_MAX], line[LINE_MAX_LEN];
        _cleanup_fclose_ FILE *f = NULL;

        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int) sizeof(path))
                return false;
        f = fopen(path, "re");
        if (!f || !fgets(line, sizeof(line), f))
                return false;
        line[strcspn(line, "\n")] = 0;
        return streq(line, want);
}

/* The eventN child of an input device directory, or NULL. */
static char *event_child(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char *found = NULL;

        if (!d)
                return NULL;
        while (!found && (de = readdir(d)))
                if (strncmp(de->d_name, "event", strlen("event")) == 0)
                        found = strdup(de->d_name);
        closedir(d);
        return found;
}

int kernel_evdev_find(const char *sysroot, char **ret_devnode)
{
        char class_dir[PATH_MAX];
        struct dirent *de;
        int len, r = -ENODEV;
        const char *root = root_prefix(sysroot, &len);
        DIR *d;

        snprintf(class_dir, sizeof(class_dir), "%.*s/%s", len, root, INPUT_CLASS_DIR);
        d = opendir(class_dir);
        if (!d)
                return -ENODEV;
        while (r == -ENODEV && (de = readdir(d))) {
                char dir[PATH_MAX];
                _cleanup_free_ char *event = NULL;

                if (strncmp(de->d_name, "input", strlen("input")) != 0)
                        continue;
                if (snprintf(dir, sizeof(dir), "%s/%s", class_dir, de->d_name) >= (int) sizeof(dir))
                        continue;
                if (!line_equals(dir, "name", KERNEL_EVDEV_NAME) ||
                    !line_equals(dir, "phys", KERNEL_EVDEV_PHYS))
                        continue;
                event = event_child(dir);
                if (!event)
                        continue;
                r = asprintf(ret_devnode, "%.*s/%s/%s", len, root, INPUT_DEV_DIR, event) < 0 ? -ENOMEM : 0;
        }
        closedir(d);
        return r;
}

int kernel_evdev_open(const char *devnode)
{
        int fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        return fd < 0 ? -errno : fd;
}

int kernel_evdev_drain(int fd, int *x, int *y)
{
        struct input_event ev[EVENTS_PER_READ];
        int updates = 0;

        for (;;) {
                ssize_t n = read(fd, ev, sizeof(ev));

                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return updates;
                        return errno == ENODEV ? -ENODEV : -EIO;
                }
                if (n == 0)
                        return updates; /* a FIFO without writer in tests; evdev never returns 0 */
                if (n % sizeof(ev[0]) != 0)
                        return -EIO;
                for (size_t i = 0; i < (size_t) n / sizeof(ev[0]); i++) {
                        if (ev[i].type != EV_ABS)
                                continue;
                        if (ev[i].code == ABS_X) {
                                *x = ev[i].value;
                                updates++;
                        } else if (ev[i].code == ABS_Y) {
                                *y = ev[i].value;
                                updates++;
                        }
                }
        }
}
