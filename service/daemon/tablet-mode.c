/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "strutil.h"
#include "tablet-mode.h"

#define BITS_PER_LONG       (sizeof(unsigned long) * CHAR_BIT)
#define BIT_LONGS(n)        (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BIT_IS_SET(bits, n) (((bits)[(n) / BITS_PER_LONG] >> ((n) % BITS_PER_LONG)) & 1UL)
#define EVENT_NODE_PREFIX   "event"
#define DEVICE_NAME_MAX     256
#define EVENTS_PER_READ     16

struct TabletMode {
        int fd;
        sd_event_source *io;
        char *path;
        bool state;
        TabletModeChanged cb;
        void *userdata;
};

static void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}

static int read_switch_state(int fd, bool *ret)
{
        unsigned long sw[BIT_LONGS(SW_CNT)] = {};

        if (ioctl(fd, EVIOCGSW(sizeof(sw)), sw) < 0)
                return -errno;
        *ret = BIT_IS_SET(sw, SW_TABLET_MODE);
        return 0;
}

/* Opens path if it is an evdev device with SW_TABLET_MODE; *ret_named says whether it is thinkpad_acpi's. */
static int open_switch(const char *path, bool *ret_named)
{
        _cleanup_close_ int fd = -EBADF;
        unsigned long types[BIT_LONGS(EV_CNT)] = {}, switches[BIT_LONGS(SW_CNT)] = {};
        char name[DEVICE_NAME_MAX] = "";

        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (ioctl(fd, EVIOCGBIT(0, sizeof(types)), types) < 0)
                return -errno;
        if (!BIT_IS_SET(types, EV_SW))
                return -ENODEV;
        if (ioctl(fd, EVIOCGBIT(EV_SW, sizeof(switches)), switches) < 0)
                return -errno;
        if (!BIT_IS_SET(switches, SW_TABLET_MODE))
                return -ENODEV;
        if (ioctl(fd, EVIOCGNAME(sizeof(name) - 1), name) < 0)
                name[0] = '\0';
        *ret_named = streq(name, TABLET_MODE_DEVICE_NAME);
        return TAKE_FD(fd);
}

/* The first event device with SW_TABLET_MODE, thinkpad_acpi's if there are several. */
static int find_switch(const char *input_dir, int *ret_fd, char **ret_path)
{
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_close_ int best_fd = -EBADF;
        _cleanup_free_ char *best_path = NULL;
        struct dirent *de;

        d = opendir(input_dir);
        if (!d)
                return errno == ENOENT ? -ENODEV : -errno; /* no input devices at all: no switch */
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL;
                bool named = false;
                int fd;

                if (strncmp(de->d_name, EVENT_NODE_PREFIX, strlen(EVENT_NODE_PREFIX)) != 0)
                        continue;
                if (asprintf(&path, "%s/%s", input_dir, de->d_name) < 0)
                        return -ENOMEM;
                fd = open_switch(path, &named);
                if (fd < 0) {
                        if (fd != -ENODEV)
                                log_debug_errno(fd, "Not a tablet-mode switch: %s: %m", path);
                        continue;
                }
                if (best_fd >= 0 && !named) {
                        close(fd);
                        continue;
                }
                if (best_fd >= 0)
                        close(best_fd);
                best_fd = fd;
                free(best_path);
                best_path = TAKE_PTR(path);
                if (named)
                        break;
        }
        if (best_fd < 0)
                return -ENODEV;
        *ret_fd = TAKE_FD(best_fd);
        *ret_path = TAKE_PTR(best_path);
        return 0;
}

static void set_state(TabletMode *t, bool state)
{
        if (state == t->state)
                return;
        t->state = state;
        log_info("Tablet-mode switch: %s mode", state ? "tablet" : "laptop");
        if (t->cb)
                t->cb(t, state, t->userdata);
}

static void stop_watching(TabletMode *t)
{
        t->io = sd_event_source_disable_unref(t->io);
        if (t->fd >= 0)
                close(t->fd);
        t->fd = -EBADF;
}

static int on_input(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        TabletMode *t = userdata;
        struct input_event ev[EVENTS_PER_READ];
        ssize_t n;

        n = read(fd, ev, sizeof(ev));
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                log_warning_errno(-errno, "The tablet-mode switch %s went away, assuming laptop mode: %m",
                                  t->path);
                stop_watching(t);
                set_state(t, false);
                return 0;
        }
        if (n == 0) {
                log_warning("The tablet-mode switch %s closed, assuming laptop mode", t->path);
                stop_watching(t);
                set_state(t, false);
                return 0;
        }

        for (size_t i = 0; i < (size_t) n / sizeof(ev[0]); i++) {
                if (ev[i].type == EV_SYN && ev[i].code == SYN_DROPPED) {
                        bool state = false;
                        /* The kernel's queue overflowed: what we missed is in the current state. */
                        if (read_switch_state(fd, &state) >= 0)
                                set_state(t, state);
                } else if (ev[i].type == EV_SW && ev[i].code == SW_TABLET_MODE)
                        set_state(t, ev[i].value != 0);
        }
        return 0;
}

int tablet_mode_open(const char *input_dir, TabletMode **ret)
{
        _cleanup_(tablet_mode_freep) TabletMode *t = NULL;
        int r;

        assert(ret);

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->fd = -EBADF;

        r = find_switch(input_dir ?: TABLET_MODE_INPUT_DIR_DEFAULT, &t->fd, &t->path);
        if (r < 0)
                return r;
        r = read_switch_state(t->fd, &t->state);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

int tablet_mode_attach(TabletMode *t, sd_event *event, TabletModeChanged cb, void *userdata)
{
        int r;

        assert(t);
        assert(event);

        if (t->fd < 0)
                return -EBADF;
        t->io = sd_event_source_disable_unref(t->io);
        r = sd_event_add_io(event, &t->io, t->fd, EPOLLIN, on_input, t);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the tablet-mode switch %s: %m", t->path);
        (void) sd_event_source_set_description(t->io, "tablet-mode");
        t->cb = cb;
        t->userdata = userdata;
        return 0;
}

TabletMode *tablet_mode_free(TabletMode *t)
{
        if (!t)
                return NULL;
        stop_watching(t);
        free(t->path);
        free(t);
        return NULL;
}

bool tablet_mode_get(const TabletMode *t)
{
        return t && t->state;
}

const char *tablet_mode_device(const TabletMode *t)
{
        return t ? t->path : NULL;
}
