/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hdaps input devices through uinput (input-devices.h). Plain uinput ioctls (linux/uinput.h,
 * kernel 4.5+: UI_DEV_SETUP and UI_ABS_SETUP), one file descriptor per device. */
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "input-devices.h"
#include "log.h"

#define HDAPS_INPUT_VENDOR       0x1014 /* PCI_VENDOR_ID_IBM */
#define HDAPS_INPUT_PRODUCT      0x5054 /* "TP", shared with thinkpad_acpi */
#define HDAPS_JOYSTICK_NAME      "ThinkPad HDAPS joystick emulation"
#define HDAPS_JOYSTICK_PHYS      "hdaps/input0"
#define HDAPS_JOYSTICK_VERSION   0x6801
#define HDAPS_JOYSTICK_RANGE     256
#define HDAPS_JOYSTICK_FUZZ      4
#define HDAPS_JOYSTICK_FLAT      4
#define HDAPS_ACCEL_DATA_NAME    "ThinkPad HDAPS accelerometer data"
#define HDAPS_ACCEL_DATA_PHYS    "hdaps/input1"
#define HDAPS_ACCEL_DATA_VERSION 0x4801
#define HDAPS_ACCEL_DATA_MIN     (-32768)
#define HDAPS_ACCEL_DATA_MAX     32767

typedef struct InputDeviceSpec {
        const char *name, *phys;
        uint16_t version;
        int min, max, fuzz, flat;
} InputDeviceSpec;

static const InputDeviceSpec specs[] = {
        {HDAPS_JOYSTICK_NAME, HDAPS_JOYSTICK_PHYS, HDAPS_JOYSTICK_VERSION, -HDAPS_JOYSTICK_RANGE,
         HDAPS_JOYSTICK_RANGE, HDAPS_JOYSTICK_FUZZ, HDAPS_JOYSTICK_FLAT},
        {HDAPS_ACCEL_DATA_NAME, HDAPS_ACCEL_DATA_PHYS, HDAPS_ACCEL_DATA_VERSION, HDAPS_ACCEL_DATA_MIN,
         HDAPS_ACCEL_DATA_MAX, 0, 0},
};
#define N_DEVICES ELEMENTSOF(specs)

struct InputDevices {
        int fds[N_DEVICES];
        bool enabled;
        HdapsdSysfs *sysfs; /* hdapsd's stand-in for the driver's sysfs directory; NULL: none */
        bool sysfs_failed;  /* logged once per enable */
        unsigned rate_hz;   /* the last reported sampling rate */
};

static void sysfs_failed(InputDevices *d, int r)
{
        if (d->sysfs_failed)
                return;
        d->sysfs_failed = true;
        log_warning_errno(r, "Cannot keep hdapsd's stand-in for /sys/devices/platform/hdaps: %m");
}

static void destroy_all(InputDevices *d)
{
        int r;

        for (size_t i = 0; i < N_DEVICES; i++)
                (void) ioctl(d->fds[i], UI_DEV_DESTROY);
        d->enabled = false;
        if (d->sysfs && (r = hdapsd_sysfs_remove(d->sysfs)) < 0)
                log_warning_errno(r, "Cannot remove hdapsd's stand-in for /sys/devices/platform/hdaps: %m");
}

InputDevices *input_devices_free(InputDevices *d)
{
        if (!d)
                return NULL;
        if (d->enabled)
                destroy_all(d);
        for (size_t i = 0; i < N_DEVICES; i++)
                if (d->fds[i] >= 0)
                        close(d->fds[i]);
        hdapsd_sysfs_free(d->sysfs);
        free(d);
        return NULL;
}

int input_devices_open(const char *uinput_path, InputDevices **ret)
{
        _cleanup_(input_devices_freep) InputDevices *d = calloc(1, sizeof(*d));

        if (!d)
                return -ENOMEM;
        for (size_t i = 0; i < N_DEVICES; i++)
                d->fds[i] = -EBADF;
        d->rate_hz = HDAPS_DEFAULT_SAMPLING_RATE;
        for (size_t i = 0; i < N_DEVICES; i++) {
                d->fds[i] =
                        open(uinput_path ?: INPUT_DEVICES_UINPUT_PATH, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
                if (d->fds[i] < 0)
                        return -errno;
        }
        *ret = TAKE_PTR(d);
        return 0;
}

static int device_create(int fd, const InputDeviceSpec *s)
{
        struct uinput_setup setup = {
                .id = {.bustype = BUS_HOST,
                       .vendor = HDAPS_INPUT_VENDOR,
                       .product = HDAPS_INPUT_PRODUCT,
                       .version = s->version},
        };

        strncpy(setup.name, s->name, sizeof(setup.name) - 1);
        if (ioctl(fd, UI_SET_EVBIT, EV_ABS) < 0 || ioctl(fd, UI_SET_EVBIT, EV_SYN) < 0)
                return -errno;
        for (int code = ABS_X; code <= ABS_Y; code++) {
                struct uinput_abs_setup abs = {
                        .code = (uint16_t) code,
                        .absinfo = {.minimum = s->min, .maximum = s->max, .fuzz = s->fuzz, .flat = s->flat},
                };
                if (ioctl(fd, UI_SET_ABSBIT, code) < 0 || ioctl(fd, UI_ABS_SETUP, &abs) < 0)
                        return -errno;
        }
        if (ioctl(fd, UI_SET_PHYS, s->phys) < 0 || ioctl(fd, UI_DEV_SETUP, &setup) < 0 ||
            ioctl(fd, UI_DEV_CREATE) < 0)
                return -errno;
        return 0;
}

int input_devices_enable(InputDevices *d, bool on)
{
        int r;

        if (on == d->enabled)
                return 0;
        if (!on) {
                destroy_all(d);
                return 0;
        }
        for (size_t i = 0; i < N_DEVICES; i++) {
                r = device_create(d->fds[i], &specs[i]);
                if (r < 0) {
                        destroy_all(d);
                        return r;
                }
        }
        d->enabled = true;
        d->sysfs_failed = false;
        /* Made now, not at the first readout: a boot-time hdapsd ordered after tpacceld must find it. */
        if (d->sysfs && (r = hdapsd_sysfs_publish(d->sysfs, false, 0, 0, d->rate_hz, false, false)) < 0)
                sysfs_failed(d, r);
        return 0;
}

void input_devices_set_hdapsd_sysfs(InputDevices *d, HdapsdSysfs *s)
{
        hdapsd_sysfs_free(d->sysfs);
        d->sysfs = s;
}

bool input_devices_enabled(const InputDevices *d)
{
        return d && d->enabled;
}

static int send_frame(int fd, int x, int y)
{
        struct input_event ev[3] = {
                {.type = EV_ABS, .code = ABS_X, .value = x},
                {.type = EV_ABS, .code = ABS_Y, .value = y},
                {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
        };
        ssize_t n = write(fd, ev, sizeof(ev));

        if (n < 0)
                return -errno;
        return n == (ssize_t) sizeof(ev) ? 0 : -EIO;
}

int input_devices_report(InputDevices *d, int x, int y, const HdapsState *st, unsigned rate_hz)
{
        int r, k, s;

        if (!d->enabled)
                return 0;
        /* tp_smapi reports position minus rest unclamped; the range is what it announces. */
        r = send_frame(d->fds[0], x - st->rest_x, y - st->rest_y);
        k = send_frame(d->fds[1], x, y);
        d->rate_hz = rate_hz;
        if (d->sysfs && (s = hdapsd_sysfs_publish(d->sysfs, true, x, y, rate_hz, st->keyboard_activity,
                                                  st->mouse_activity)) < 0)
                sysfs_failed(d, s);
        return r < 0 ? r : k;
}
