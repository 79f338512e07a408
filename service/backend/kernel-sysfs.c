/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading and writing the kernel hdaps driver's sysfs attributes. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hdaps-models.h"
#include "kernel-sysfs.h"
#include "strutil.h"

#define ATTR_TEXT_MAX            64
#define MAINLINE_INVERT_NEGATE_X 0x1
#define MAINLINE_INVERT_NEGATE_Y 0x2
#define MAINLINE_INVERT_MAX      (MAINLINE_INVERT_NEGATE_X | MAINLINE_INVERT_NEGATE_Y)

static const char *const kernel_attr_table[_KERNEL_ATTR_MAX] = {
        [KERNEL_ATTR_POSITION] = "position",
        [KERNEL_ATTR_TEMP1] = "temp1",
        [KERNEL_ATTR_KEYBOARD_ACTIVITY] = "keyboard_activity",
        [KERNEL_ATTR_MOUSE_ACTIVITY] = "mouse_activity",
        [KERNEL_ATTR_CALIBRATE] = "calibrate",
        [KERNEL_ATTR_INVERT] = "invert",
        [KERNEL_ATTR_SAMPLING_RATE] = "sampling_rate",
        [KERNEL_ATTR_OVERSAMPLING_RATIO] = "oversampling_ratio",
        [KERNEL_ATTR_FILTER_ORDER] = "running_avg_filter_order",
        [KERNEL_ATTR_FAKE_DATA_MODE] = "fake_data_mode",
        [KERNEL_ATTR_VARIANCE] = "variance",
        [KERNEL_ATTR_TEMP2] = "temp2",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(kernel_attr, KernelAttr, );

char *kernel_hdaps_dir(const char *sysroot)
{
        size_t len = sysroot ? strlen(sysroot) : 0;
        char *p;

        /* "/" gives "/sys/...", not "//sys/..." (umockdev redirects only paths that start with /sys). */
        while (len > 0 && sysroot[len - 1] == '/')
                len--;
        if (asprintf(&p, "%.*s/%s", (int) len, len > 0 ? sysroot : "", KERNEL_HDAPS_DIR) < 0)
                return NULL;
        return p;
}

static bool attr_exists(const char *dir, KernelAttr a, int mode)
{
        char path[PATH_MAX];

        if (snprintf(path, sizeof(path), "%s/%s", dir, kernel_attr_to_string(a)) >= (int) sizeof(path))
                return false;
        return access(path, mode) == 0;
}

KernelDriverFlavour kernel_hdaps_detect(const char *sysroot)
{
        _cleanup_free_ char *dir = kernel_hdaps_dir(sysroot);

        if (!dir || !attr_exists(dir, KERNEL_ATTR_POSITION, R_OK))
                return KERNEL_DRIVER_NONE;
        if (attr_exists(dir, KERNEL_ATTR_SAMPLING_RATE, F_OK))
                return KERNEL_DRIVER_TP_SMAPI;
        return KERNEL_DRIVER_MAINLINE;
}

void kernel_attrs_close(int fds[static _KERNEL_ATTR_MAX])
{
        for (int a = 0; a < _KERNEL_ATTR_MAX; a++) {
                if (fds[a] >= 0)
                        close(fds[a]);
                fds[a] = -1;
        }
}

int kernel_attrs_open(const char *dir, int fds[static _KERNEL_ATTR_MAX])
{
        for (int a = 0; a < _KERNEL_ATTR_MAX; a++) {
                char path[PATH_MAX];

                fds[a] = -1;
                if (snprintf(path, sizeof(path), "%s/%s", dir, kernel_attr_to_string(a)) >=
                    (int) sizeof(path))
                        continue;
                fds[a] = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
                if (fds[a] < 0)
                        fds[a] = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        }
        if (fds[KERNEL_ATTR_POSITION] < 0) {
                kernel_attrs_close(fds);
                return -ENODEV;
        }
        return 0;
}

static int read_text(int fd, char buf[static ATTR_TEXT_MAX])
{
        ssize_t n;

        if (fd < 0)
                return -ENODEV;
        n = pread(fd, buf, ATTR_TEXT_MAX - 1, 0);
        if (n < 0) {
                if (errno == ENODEV || errno == ENOENT || errno == ENXIO)
                        return -ENODEV;
                if (errno == EBUSY || errno == EAGAIN)
                        return -EBUSY;
                return -EIO;
        }
        buf[n] = 0;
        return 0;
}

/* Accepts optional trailing whitespace only. */
static bool only_space(const char *s)
{
        return s[strspn(s, " \t\n")] == 0;
}

int kernel_attr_read_int(int fd, int *ret)
{
        char buf[ATTR_TEXT_MAX];
        size_t n;
        int r;

        r = read_text(fd, buf);
        if (r < 0)
                return r;
        n = strlen(buf);
        while (n > 0 && strchr(" \t\n", buf[n - 1])) /* the attribute's "\n" */
                buf[--n] = '\0';
        return safe_atoi(buf, ret) < 0 ? -EIO : 0;
}

int kernel_attr_read_pair(int fd, int *ret_x, int *ret_y)
{
        char buf[ATTR_TEXT_MAX], tail[ATTR_TEXT_MAX] = "";
        int x, y, n = 0, r;

        r = read_text(fd, buf);
        if (r < 0)
                return r;
        if (sscanf(buf, "(%d,%d)%n", &x, &y, &n) != 2 || n == 0)
                return -EIO;
        snprintf(tail, sizeof(tail), "%s", buf + n);
        if (!only_space(tail))
                return -EIO;
        *ret_x = x;
        *ret_y = y;
        return 0;
}

int kernel_attr_write_uint(int fd, unsigned value)
{
        char buf[ATTR_TEXT_MAX];
        int len;
        ssize_t n;

        if (fd < 0)
                return -EOPNOTSUPP;
        len = snprintf(buf, sizeof(buf), "%u\n", value);
        n = pwrite(fd, buf, len, 0);
        if (n < 0)
                return -errno;
        if (n != len)
                return -EIO;
        /* A fake tree in tests is a regular file, cut to what was written; a sysfs attribute is not. */
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISREG(st.st_mode) && ftruncate(fd, len) < 0)
                return -errno;
        return 0;
}

int kernel_invert_to_axis_code(KernelDriverFlavour flavour, int invert, unsigned *ret_code)
{
        switch (flavour) {
        case KERNEL_DRIVER_MAINLINE:
                if (invert < 0 || invert > MAINLINE_INVERT_MAX)
                        return -EINVAL;
                /* Codes: 1 = -X,-Y; 2 = -X,Y; 3 = X,-Y (hdaps-models.h). */
                if ((invert & MAINLINE_INVERT_NEGATE_X) && (invert & MAINLINE_INVERT_NEGATE_Y))
                        *ret_code = HDAPS_AXIS_NEGATE_BOTH;
                else if (invert & MAINLINE_INVERT_NEGATE_X)
                        *ret_code = HDAPS_AXIS_NEGATE_X;
                else if (invert & MAINLINE_INVERT_NEGATE_Y)
                        *ret_code = HDAPS_AXIS_NEGATE_BOTH | HDAPS_AXIS_NEGATE_X;
                else
                        *ret_code = 0;
                return 0;
        case KERNEL_DRIVER_TP_SMAPI:
                if (invert < 0 || invert > HDAPS_AXIS_CODE_MAX)
                        return -EINVAL;
                *ret_code = (unsigned) invert;
                return 0;
        default:
                return -EINVAL;
        }
}

void kernel_axes_untransform(unsigned code, int x, int y, int *ret_hw_x, int *ret_hw_y)
{
        int ax, ay, bx, by;

        /* The code is a signed permutation matrix M (columns: the images of the unit vectors); its
         * inverse is its transpose. */
        hdaps_axes_transform(code, 1, 0, &ax, &ay);
        hdaps_axes_transform(code, 0, 1, &bx, &by);
        *ret_hw_x = ax * x + ay * y;
        *ret_hw_y = bx * x + by * y;
}
