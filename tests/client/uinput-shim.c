/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for /dev/uinput, preloaded into tpacceld by test_input_devices.py (LD_PRELOAD). Opening
 * /dev/uinput opens $UINPUT_SHIM_DIR/uinputN.events instead (the input_event structs written land there,
 * each stamped with the time of the write, CLOCK_REALTIME, as the kernel's input core stamps them for
 * evdev readers; the file may be a FIFO that the test reads as it goes), and every uinput ioctl on such a
 * descriptor is answered with success and logged, decoded, one line each, to $UINPUT_SHIM_DIR/uinputN.log.
 * Other files and ioctls pass through. */

/* Both open() and open64() are defined here: the build asks for 64-bit offsets, which renames open(). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>

#define SHIM_FDS_MAX    64
#define SHIM_EVENTS_MAX 64 /* events per write that get stamped (tpacceld writes 3) */

static FILE *shim_logs[SHIM_FDS_MAX]; /* by file descriptor: the log of a stand-in, or NULL */
static int shim_count;

static int shim_open(const char *path, int flags)
{
        const char *dir = getenv("UINPUT_SHIM_DIR");
        char events[4096], log[4096];
        int fd, n;

        if (!dir)
                return -2;
        n = __atomic_fetch_add(&shim_count, 1, __ATOMIC_SEQ_CST);
        snprintf(events, sizeof(events), "%s/uinput%d.events", dir, n);
        snprintf(log, sizeof(log), "%s/uinput%d.log", dir, n);
        fd = ((int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, "open"))(
                events, O_WRONLY | O_CREAT | O_TRUNC | (flags & O_CLOEXEC), 0644);
        if (fd < 0 || fd >= SHIM_FDS_MAX)
                return fd;
        shim_logs[fd] = fopen(log, "we");
        if (shim_logs[fd]) {
                setvbuf(shim_logs[fd], NULL, _IOLBF, 0);
                fprintf(shim_logs[fd], "open %s\n", path);
        }
        return fd;
}

static int is_uinput(const char *path)
{
        return path && strcmp(path, "/dev/uinput") == 0 && getenv("UINPUT_SHIM_DIR");
}

/* open() and open64(): /dev/uinput goes to the shim, anything else to the libc function named symbol
 * (ap: the optional mode argument). */
static int open_or_shim(const char *symbol, const char *path, int flags, va_list ap)
{
        mode_t mode;

        if (is_uinput(path))
                return shim_open(path, flags);
        mode = va_arg(ap, mode_t);
        return ((int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, symbol))(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
        va_list ap;
        int r;

        va_start(ap, flags);
        r = open_or_shim("open", path, flags, ap);
        va_end(ap);
        return r;
}

int open64(const char *path, int flags, ...)
{
        va_list ap;
        int r;

        va_start(ap, flags);
        r = open_or_shim("open64", path, flags, ap);
        va_end(ap);
        return r;
}

int close(int fd)
{
        if (fd >= 0 && fd < SHIM_FDS_MAX && shim_logs[fd]) {
                fprintf(shim_logs[fd], "close\n");
                fclose(shim_logs[fd]);
                shim_logs[fd] = NULL;
        }
        return ((int (*)(int)) dlsym(RTLD_NEXT, "close"))(fd);
}

/* Whole input_event structs written to a stand-in get the time of the write; anything else is written as
 * it is. */
ssize_t write(int fd, const void *buf, size_t count)
{
        ssize_t (*real_write)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
        struct input_event stamped[SHIM_EVENTS_MAX];
        struct timeval now;
        size_t n = count / sizeof(struct input_event);

        if (fd < 0 || fd >= SHIM_FDS_MAX || !shim_logs[fd] || count % sizeof(struct input_event) != 0 ||
            n > SHIM_EVENTS_MAX)
                return real_write(fd, buf, count);
        memcpy(stamped, buf, count);
        gettimeofday(&now, NULL);
        for (size_t i = 0; i < n; i++) {
                stamped[i].input_event_sec = now.tv_sec;
                stamped[i].input_event_usec = now.tv_usec;
        }
        return real_write(fd, stamped, count);
}

int ioctl(int fd, unsigned long request, ...)
{
        va_list ap;
        void *arg;
        FILE *log;

        va_start(ap, request);
        arg = va_arg(ap, void *);
        va_end(ap);
        if (fd < 0 || fd >= SHIM_FDS_MAX || !shim_logs[fd])
                return ((int (*)(int, unsigned long, void *)) dlsym(RTLD_NEXT, "ioctl"))(fd, request, arg);

        log = shim_logs[fd];
        if (request == UI_SET_EVBIT)
                fprintf(log, "UI_SET_EVBIT %lu\n", (unsigned long) arg);
        else if (request == UI_SET_ABSBIT)
                fprintf(log, "UI_SET_ABSBIT %lu\n", (unsigned long) arg);
        else if (request == UI_SET_PHYS)
                fprintf(log, "UI_SET_PHYS %s\n", (const char *) arg);
        else if (request == UI_ABS_SETUP) {
                const struct uinput_abs_setup *a = arg;
                fprintf(log, "UI_ABS_SETUP code=%u min=%d max=%d fuzz=%d flat=%d\n", a->code,
                        a->absinfo.minimum, a->absinfo.maximum, a->absinfo.fuzz, a->absinfo.flat);
        } else if (request == UI_DEV_SETUP) {
                const struct uinput_setup *s = arg;
                fprintf(log, "UI_DEV_SETUP bus=0x%04x vendor=0x%04x product=0x%04x version=0x%04x name=%s\n",
                        s->id.bustype, s->id.vendor, s->id.product, s->id.version, s->name);
        } else if (request == UI_DEV_CREATE)
                fprintf(log, "UI_DEV_CREATE\n");
        else if (request == UI_DEV_DESTROY)
                fprintf(log, "UI_DEV_DESTROY\n");
        else
                fprintf(log, "ioctl 0x%lx\n", request);
        return 0;
}
