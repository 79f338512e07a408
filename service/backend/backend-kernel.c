/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel backend: the hdaps driver's sysfs device behind the backend ops (see backend-kernel.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend-kernel.h"
#include "calibration.h"
#include "ec-detect.h"
#include "ec-protocol.h"
#include "hdaps-models.h"
#include "kernel-evdev.h"
#include "kernel-sysfs.h"
#include "log.h"

#define BACKEND_NAME_KERNEL  "kernel"
#define TEMP_REFRESH_NS      NSEC_PER_SEC /* mainline pays an EC refresh per read: temp1 once a second */
#define CACHE_FRACTION_NUM   9            /* on-demand reads: keep a readout younger than 0.9 / rate */
#define CACHE_FRACTION_DENOM 10

#define UNLOAD_HINT                                                                                         \
        "unload and blacklist the kernel module (see README, \"Which backend do I get?\") so tpacceld can " \
        "drive the EC directly"

typedef struct BackendKernel {
        Backend backend; /* first member: the ops receive &backend */
        KernelDriverFlavour flavour;
        char *dir;
        int fds[_KERNEL_ATTR_MAX];
        HdapsState state;
        HdapsConfig config;
        unsigned model_axis_code; /* the model's orientation; Invert flips both axes on top of it */
        bool invert;
        uint64_t last_temp_ns;
        char *sysroot;
        int evdev_fd;         /* tp_smapi's raw input device while polling runs; -1 otherwise */
        int evdev_x, evdev_y; /* its latest values (driver axes) */
} BackendKernel;

static const BackendOps backend_kernel_ops;

static int close_fd(int fd)
{
        if (fd >= 0)
                close(fd);
        return -1;
}

static BackendKernel *to_kernel(Backend *b)
{
        return (BackendKernel *) b;
}

static uint64_t monotonic_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

static unsigned target_axis_code(const BackendKernel *k)
{
        return k->model_axis_code ^ (k->invert ? HDAPS_AXIS_NEGATE_BOTH : 0);
}

static int not_supported(BackendKernel *k, const char *reason)
{
        k->backend.unsupported_reason = reason;
        return -EOPNOTSUPP;
}

/* One readout from sysfs, in the daemon's axis convention. */
static int read_now(BackendKernel *k, HdapsReadout *ret)
{
        HdapsState *s = &k->state;
        uint64_t now = monotonic_ns();
        int px, py, hw_x, hw_y, x, y, invert = 0, flag, r;
        unsigned driver_code;

        if (k->evdev_fd >= 0) {
                r = kernel_evdev_drain(k->evdev_fd, &k->evdev_x, &k->evdev_y);
                if (r < 0) {
                        log_debug_errno(r, "The raw input device failed, reading %s/position instead: %m",
                                        k->dir);
                        k->evdev_fd = close_fd(k->evdev_fd);
                }
        }
        if (k->evdev_fd >= 0) {
                px = k->evdev_x;
                py = k->evdev_y;
        } else {
                r = kernel_attr_read_pair(k->fds[KERNEL_ATTR_POSITION], &px, &py);
                if (r < 0)
                        return log_debug_errno(r, "Reading %s/position failed: %m", k->dir);
        }

        /* The driver applied its own invert (another program may change it at any time). */
        if (k->fds[KERNEL_ATTR_INVERT] >= 0) {
                r = kernel_attr_read_int(k->fds[KERNEL_ATTR_INVERT], &invert);
                if (r < 0)
                        return log_debug_errno(r, "Reading %s/invert failed: %m", k->dir);
        }
        r = kernel_invert_to_axis_code(k->flavour, invert, &driver_code);
        if (r < 0)
                return log_debug_errno(-EIO, "%s/invert=%d is out of range for the %s driver", k->dir,
                                       invert, kernel_driver_flavour_to_string(k->flavour));
        kernel_axes_untransform(driver_code, px, py, &hw_x, &hw_y);
        hdaps_axes_transform(target_axis_code(k), hw_x, hw_y, &x, &y);

        if (k->fds[KERNEL_ATTR_TEMP1] >= 0 && (!s->valid || now - k->last_temp_ns >= TEMP_REFRESH_NS)) {
                int t;

                r = kernel_attr_read_int(k->fds[KERNEL_ATTR_TEMP1], &t);
                if (r >= 0) {
                        s->temperature = t;
                        k->last_temp_ns = now;
                } else
                        log_debug_errno(r, "Reading %s/temp1 failed, keeping the last value: %m", k->dir);
        }

        bool keyboard = false, mouse = false;
        if (kernel_attr_read_int(k->fds[KERNEL_ATTR_KEYBOARD_ACTIVITY], &flag) >= 0)
                keyboard = flag != 0;
        if (kernel_attr_read_int(k->fds[KERNEL_ATTR_MOUSE_ACTIVITY], &flag) >= 0)
                mouse = flag != 0;

        s->x = x;
        s->y = y;
        s->keyboard_activity = keyboard;
        s->mouse_activity = mouse;
        if (keyboard)
                s->last_keyboard_ns = now;
        if (mouse)
                s->last_mouse_ns = now;
        s->last_readout_ns = now;
        s->n_readouts++;
        s->valid = true;
        (void) calibration_readout(s, x, y);

        if (ret)
                *ret = (HdapsReadout) {
                        .time_ns = now,
                        .x = x,
                        .y = y,
                        .temperature = s->temperature,
                        .readouts = 1,
                        .keyboard = keyboard,
                        .mouse = mouse,
                };
        return 0;
}

/* Reads an unsigned configuration attribute into *field; missing or unreadable leaves it. */
static void read_config_attr(BackendKernel *k, KernelAttr a, unsigned *field)
{
        int v;

        if (k->fds[a] < 0)
                return;
        if (kernel_attr_read_int(k->fds[a], &v) < 0 || v <= 0) {
                log_debug("Cannot read %s/%s, keeping %u", k->dir, kernel_attr_to_string(a), *field);
                return;
        }
        *field = (unsigned) v;
}

/* Applies one wanted value at init when the driver has the attribute and holds another value. */
static void apply_config_attr(BackendKernel *k, KernelAttr a, unsigned want)
{
        unsigned have = 0;
        int r;

        read_config_attr(k, a, &have);
        if (k->fds[a] < 0 || have == want)
                return;
        r = kernel_attr_write_uint(k->fds[a], want);
        if (r < 0)
                log_debug_errno(r, "Cannot set %s/%s to %u, keeping the driver's %u: %m", k->dir,
                                kernel_attr_to_string(a), want, have);
}

static int bk_init(Backend *b, const HdapsConfig *config)
{
        BackendKernel *k = to_kernel(b);
        int r;

        k->config = *config;
        if (k->flavour == KERNEL_DRIVER_TP_SMAPI) {
                apply_config_attr(k, KERNEL_ATTR_SAMPLING_RATE, config->sampling_rate);
                apply_config_attr(k, KERNEL_ATTR_OVERSAMPLING_RATIO, config->oversampling_ratio);
                apply_config_attr(k, KERNEL_ATTR_FILTER_ORDER, config->filter_order);
                read_config_attr(k, KERNEL_ATTR_SAMPLING_RATE, &k->config.sampling_rate);
                read_config_attr(k, KERNEL_ATTR_OVERSAMPLING_RATIO, &k->config.oversampling_ratio);
                read_config_attr(k, KERNEL_ATTR_FILTER_ORDER, &k->config.filter_order);
        }
        if (k->fds[KERNEL_ATTR_FAKE_DATA_MODE] >= 0) {
                int v = 0;
                if (kernel_attr_read_int(k->fds[KERNEL_ATTR_FAKE_DATA_MODE], &v) >= 0)
                        k->config.fake_data_mode = v != 0;
        } else
                k->config.fake_data_mode = false;

        k->state.valid = false;

        /* The driver may answer -EBUSY right after loading (kernel bz 50351): the first poll retries. */
        r = read_now(k, NULL);
        if (r < 0 && r != -EBUSY)
                return r;
        return 0;
}

static int bk_power_off(Backend *b, bool *ret_off)
{
        /* The driver owns the sensor's power; it stops sampling when nobody reads. */
        return 0;
}

static int bk_poll(Backend *b, HdapsReadout *ret)
{
        return read_now(to_kernel(b), ret);
}

static int bk_update(Backend *b)
{
        BackendKernel *k = to_kernel(b);
        unsigned rate = k->config.sampling_rate ?: HDAPS_DEFAULT_SAMPLING_RATE;
        uint64_t max_age = NSEC_PER_SEC * CACHE_FRACTION_NUM / CACHE_FRACTION_DENOM / rate;

        if (k->state.valid && monotonic_ns() - k->state.last_readout_ns < max_age)
                return 0;
        return read_now(k, NULL);
}

static const HdapsState *bk_get_state(Backend *b)
{
        return &to_kernel(b)->state;
}

static const HdapsConfig *bk_get_config(Backend *b)
{
        return &to_kernel(b)->config;
}

/* A tp_smapi attribute write; mainline has none of them. */
static int set_config_attr(BackendKernel *k, KernelAttr a, unsigned value, unsigned *field,
                           const char *mainline_reason)
{
        int r;

        if (k->flavour != KERNEL_DRIVER_TP_SMAPI || k->fds[a] < 0)
                return not_supported(k, mainline_reason);
        r = kernel_attr_write_uint(k->fds[a], value);
        if (r < 0)
                return log_debug_errno(r, "Writing %u to %s/%s failed: %m", value, k->dir,
                                       kernel_attr_to_string(a));
        *field = value;
        return 0;
}

static int bk_set_sampling_rate(Backend *b, unsigned rate)
{
        BackendKernel *k = to_kernel(b);
        return set_config_attr(k, KERNEL_ATTR_SAMPLING_RATE, rate, &k->config.sampling_rate,
                               "the mainline hdaps driver has no sampling_rate (it samples on every read); "
                               "unload it (modprobe -r hdaps) and blacklist it so tpacceld can drive the EC "
                               "directly, or use tp_smapi's hdaps");
}

static int bk_set_oversampling_ratio(Backend *b, unsigned ratio)
{
        BackendKernel *k = to_kernel(b);
        return set_config_attr(k, KERNEL_ATTR_OVERSAMPLING_RATIO, ratio, &k->config.oversampling_ratio,
                               "the mainline hdaps driver has no oversampling_ratio (it fixes the EC at "
                               "200 Hz); unload it (modprobe -r hdaps) and blacklist it so tpacceld can "
                               "drive the EC directly, or use tp_smapi's hdaps");
}

static int bk_set_filter_order(Backend *b, unsigned order)
{
        BackendKernel *k = to_kernel(b);
        return set_config_attr(
                k, KERNEL_ATTR_FILTER_ORDER, order, &k->config.filter_order,
                "the mainline hdaps driver has no running_avg_filter_order (it fixes order "
                "2); unload it (modprobe -r hdaps) and blacklist it so tpacceld can drive the "
                "EC directly, or use tp_smapi's hdaps");
}

static int bk_set_fake_data_mode(Backend *b, bool on)
{
        BackendKernel *k = to_kernel(b);
        int r;

        if (k->fds[KERNEL_ATTR_FAKE_DATA_MODE] < 0)
                return not_supported(
                        k, k->flavour == KERNEL_DRIVER_TP_SMAPI
                                   ? "tp_smapi's hdaps has no fake_data_mode since version "
                                     "0.38; " UNLOAD_HINT
                                   : "the mainline hdaps driver has no fake_data_mode; " UNLOAD_HINT);
        r = kernel_attr_write_uint(k->fds[KERNEL_ATTR_FAKE_DATA_MODE], on);
        if (r < 0)
                return log_debug_errno(r, "Writing %s/fake_data_mode failed: %m", k->dir);
        k->config.fake_data_mode = on;
        return 0;
}

static int bk_set_invert(Backend *b, bool invert)
{
        BackendKernel *k = to_kernel(b);
        HdapsState *s = &k->state;

        if (invert == k->invert)
                return 0;
        /* Done here, not with the driver's invert (whose meaning differs per flavour and which other
         * readers share). Negating both axes negates the rest position too. */
        k->invert = invert;
        calibration_negate(s);
        return 0;
}

static void bk_calibrate(Backend *b)
{
        BackendKernel *k = to_kernel(b);
        int r;

        calibration_request(&k->state);
        /* The driver's rest is its joystick device's centre: recalibrate that too. */
        if (k->fds[KERNEL_ATTR_CALIBRATE] >= 0) {
                r = kernel_attr_write_uint(k->fds[KERNEL_ATTR_CALIBRATE], 1);
                if (r < 0)
                        log_debug_errno(r, "Writing %s/calibrate failed, only tpacceld's rest changes: %m",
                                        k->dir);
        }
}

static void bk_set_rest(Backend *b, int rest_x, int rest_y)
{
        calibration_set_rest(&to_kernel(b)->state, rest_x, rest_y);
}

static unsigned bk_get_axis_code(Backend *b)
{
        return target_axis_code(to_kernel(b));
}

static int bk_read_row(Backend *b, const EcRow *args, EcRow *data)
{
        return not_supported(
                to_kernel(b),
                "the kernel's hdaps driver owns the EC ports, so there is no raw EC access; " UNLOAD_HINT);
}

static void bk_describe_power(Backend *b, char *buf, size_t size)
{
        BackendKernel *k = to_kernel(b);

        snprintf(buf, size, "kernel %s hdaps driver at %s%s (the driver powers the sensor)",
                 kernel_driver_flavour_to_string(k->flavour), k->dir,
                 k->evdev_fd >= 0 ? ", read through its raw input device" : "");
}

static void bk_set_streaming(Backend *b, bool on)
{
        BackendKernel *k = to_kernel(b);
        _cleanup_free_ char *devnode = NULL;
        int fd, r;

        if (!on) {
                k->evdev_fd = close_fd(k->evdev_fd);
                return;
        }
        if (k->evdev_fd >= 0 || k->flavour != KERNEL_DRIVER_TP_SMAPI)
                return;
        r = kernel_evdev_find(k->sysroot, &devnode);
        if (r < 0) {
                log_debug_errno(r, "No raw hdaps input device, polling %s/position: %m", k->dir);
                return;
        }
        /* Events only come on change: start from the current position. */
        r = kernel_attr_read_pair(k->fds[KERNEL_ATTR_POSITION], &k->evdev_x, &k->evdev_y);
        if (r < 0) {
                log_debug_errno(r, "Reading %s/position failed, not using %s: %m", k->dir, devnode);
                return;
        }
        fd = kernel_evdev_open(devnode);
        if (fd < 0) {
                log_debug_errno(fd, "Cannot open %s, polling %s/position: %m", devnode, k->dir);
                return;
        }
        k->evdev_fd = fd;
        log_debug("Reading the accelerometer from %s (%s)", devnode, KERNEL_EVDEV_NAME);
}

static void bk_free(Backend *b)
{
        BackendKernel *k = to_kernel(b);

        close_fd(k->evdev_fd);
        free(k->sysroot);

        kernel_attrs_close(k->fds);
        free(k->dir);
        free(k->backend.model);
        free(k);
}

static const BackendOps backend_kernel_ops = {
        .init = bk_init,
        .power_off = bk_power_off,
        .poll = bk_poll,
        .update = bk_update,
        .get_state = bk_get_state,
        .get_config = bk_get_config,
        .set_sampling_rate = bk_set_sampling_rate,
        .set_oversampling_ratio = bk_set_oversampling_ratio,
        .set_filter_order = bk_set_filter_order,
        .set_fake_data_mode = bk_set_fake_data_mode,
        .set_invert = bk_set_invert,
        .calibrate = bk_calibrate,
        .set_rest = bk_set_rest,
        .get_axis_code = bk_get_axis_code,
        .read_row = bk_read_row,
        .describe_power = bk_describe_power,
        .set_streaming = bk_set_streaming,
        .free = bk_free,
};

KernelDriverFlavour backend_kernel_flavour(Backend *b)
{
        if (!b || b->ops != &backend_kernel_ops)
                return KERNEL_DRIVER_NONE;
        return to_kernel(b)->flavour;
}

int backend_kernel_new(const char *sysroot, Backend **ret)
{
        _cleanup_(ec_dmi_done) EcDmi dmi = {};
        _cleanup_free_ char *dir = NULL, *model = NULL;
        int fds[_KERNEL_ATTR_MAX];
        KernelDriverFlavour flavour;
        BackendKernel *k;
        int r;

        flavour = kernel_hdaps_detect(sysroot);
        if (flavour == KERNEL_DRIVER_NONE)
                return -ENODEV;
        dir = kernel_hdaps_dir(sysroot);
        if (!dir)
                return -ENOMEM;
        r = ec_dmi_read(sysroot, &dmi);
        if (r < 0)
                return r;
        model = strdup(dmi.product_version ?: "");
        if (!model)
                return -ENOMEM;

        r = kernel_attrs_open(dir, fds);
        if (r < 0)
                return r;
        k = calloc(1, sizeof(*k));
        if (!k) {
                kernel_attrs_close(fds);
                return -ENOMEM;
        }
        *k = (BackendKernel) {
                .backend =
                        {
                                .ops = &backend_kernel_ops,
                                .name = BACKEND_NAME_KERNEL,
                                .model = TAKE_PTR(model),
                                .counts_per_g = HDAPS_COUNTS_PER_G_DEFAULT,
                        },
                .flavour = flavour,
                .dir = TAKE_PTR(dir),
                .config = HDAPS_CONFIG_DEFAULT,
                .model_axis_code =
                        hdaps_axis_code_for_model(dmi.board_vendor ?: "", dmi.product_version ?: ""),
        };
        calibration_request(&k->state); /* armed at load */
        memcpy(k->fds, fds, sizeof(fds));
        k->evdev_fd = -1;
        k->sysroot = sysroot ? strdup(sysroot) : NULL;
        if (sysroot && !k->sysroot) {
                bk_free(&k->backend);
                return -ENOMEM;
        }
        *ret = &k->backend;
        return 0;
}
