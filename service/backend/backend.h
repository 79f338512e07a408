/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The backend abstraction between the device layer and the bus: one ops table per way of reaching the
 * accelerometer. backend-ec.c implements it on Ec + HdapsDevice over any PortIO ("ec-ioperm",
 * "ec-devport", "simulated"); backend-kernel.c fills the same table from the hdaps driver's sysfs.
 * Every operation returns 0 or a negative errno with the device layer's meaning (hdaps.h): -EINVAL,
 * -EBUSY, -ENODEV, -EOPNOTSUPP (this backend cannot do that), -EIO. On error nothing changes.
 * Backends log at debug level only; the daemon decides what to tell the user. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ec.h"
#include "hdaps.h"
#include "macros.h"
#include "port-lock.h"
#include "port-log.h"

typedef enum BackendKind {
        BACKEND_AUTO,
        BACKEND_IOPERM,
        BACKEND_DEVPORT,
        BACKEND_SIM,
        BACKEND_KERNEL,
        _BACKEND_KIND_MAX,
        _BACKEND_KIND_INVALID = -EINVAL,
} BackendKind;

/* "auto", "ioperm", "devport", "sim", "kernel" (the command line names). */
const char *backend_kind_to_string(BackendKind k);
BackendKind backend_kind_from_string(const char *s);

typedef struct Backend Backend;

typedef struct BackendOps {
        int (*init)(Backend *b, const HdapsConfig *config);
        /* On failure sets *ret_off (never NULL) to whether the sensor is off nonetheless (only a later
         * step of the shutdown failed). */
        int (*power_off)(Backend *b, bool *ret_off);
        int (*poll)(Backend *b, HdapsReadout *ret);
        int (*update)(Backend *b);
        const HdapsState *(*get_state)(Backend *b);
        const HdapsConfig *(*get_config)(Backend *b);
        int (*set_sampling_rate)(Backend *b, unsigned rate);
        int (*set_oversampling_ratio)(Backend *b, unsigned ratio);
        int (*set_filter_order)(Backend *b, unsigned order);
        int (*set_fake_data_mode)(Backend *b, bool on);
        int (*set_invert)(Backend *b, bool invert);
        void (*calibrate)(Backend *b);
        void (*set_rest)(Backend *b, int rest_x, int rest_y);
        unsigned (*get_axis_code)(Backend *b);
        /* One raw EC transaction; -EOPNOTSUPP when the backend has no EC access. */
        int (*read_row)(Backend *b, const EcRow *args, EcRow *data);
        /* Free-form one-line power/health summary for logs (e.g. the emulator's power state). */
        void (*describe_power)(Backend *b, char *buf, size_t size);
        /* Optional: the EC's own (EC rate, filter order), asked from the EC (0x17/0x82), waiting out a
         * pending change. NULL: the backend cannot ask. */
        int (*get_ec_config)(Backend *b, unsigned *ret_ec_rate, unsigned *ret_order);
        /* Optional: polling starts (true) or stops (false); a backend may hold a data stream open only
         * meanwhile (the kernel backend's input device) or prepare the first readout (the EC backends'
         * prefetch). NULL: nothing to do. */
        void (*set_streaming)(Backend *b, bool on);
        /* Optional: called while polling after every event loop iteration; the next tick's readout may
         * have been undone by a transaction since the last tick (the EC backends' prefetch, which it
         * makes again). NULL: nothing to do. */
        void (*keep_stream)(Backend *b);
        void (*free)(Backend *b);
} BackendOps;

struct Backend {
        const BackendOps *ops;
        const char *name; /* the D-Bus Backend property: "ec-ioperm", "ec-devport", "simulated", "kernel" */
        char *model;      /* DMI product version, "" when unknown */
        double counts_per_g; /* accelerometer scale for motion processing */
        bool has_ports;      /* drives the EC ports itself (the EC backends; not the kernel backend) */
        /* Set with each -EOPNOTSUPP answer when the backend can say what to do instead (static text,
         * one sentence); NULL otherwise. */
        const char *unsupported_reason;
        /* Set when init failed for a reason the user should read in BackendReason (static text, one
         * clause, e.g. the EC self-test); NULL otherwise. */
        const char *init_failure;
        /* Set when init worked, but not as asked, for a reason the user should read in BackendReason
         * (static text, one clause, e.g. a configuration the EC keeps pending); NULL otherwise. Polling
         * may change it (the EC backends: NULL once the EC takes the pending configuration at a retry). */
        const char *init_note;
};

/* Options for opening a backend. Strings are borrowed. */
typedef struct BackendOptions {
        BackendKind kind;
        const char *trace_path; /* sim only */
        bool trace_loop;
        const char *const *sim_faults; /* "KIND[:P]" strings, NULL-terminated; sim only */
        const char *sysroot;      /* "/" normally; DMI, /proc/ioports and /sys/module are read below it */
        const char *devport_path; /* "/dev/port" normally */
        PortLog *port_log;        /* NULL, or every port access of the EC backends is recorded here */
        PortLog *port_capture;    /* NULL, or a capture log (port_log_new_capture()) wrapped the same way */
        /* The machine's EC lock, taken before the first port access (port-lock.h); NULL: none (the
         * emulator without --lock-file). Borrowed: it must outlive the backend. */
        PortLock *ec_lock;
        bool force; /* ioperm, devport: open even when the safety checks of auto fail */
} BackendOptions;

/* Opens the backend selected by o->kind (auto: backend_choose() in backend-choose.h: the kernel driver,
 * else ioperm, then devport; ioperm and devport: the same safety checks unless o->force). Takes
 * o->ec_lock before the first port access (auto: only if it tries the ports). Does not initialize the
 * device.
 * On success *ret is set. On failure returns a negative errno and *ret_reason (always set, free it)
 * says in one sentence what was tried and why it failed; the reason is also set on success (why this
 * backend was chosen). -EBUSY with port_lock_refused(o->ec_lock): another process holds the EC lock;
 * -EPERM: a safety check refused ioperm or devport. o, ret and ret_reason are not NULL (assert()ed). */
int backend_open(const BackendOptions *o, Backend **ret, char **ret_reason);
Backend *backend_free(Backend *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(Backend *, backend_free);

/* Opens the EC backend on an already opened port (takes ownership of port). name is the Backend name,
 * axis_code the model's axis code (hdaps-models.h). */
int backend_ec_new(PortIO *port, const char *name, unsigned axis_code, Backend **ret);

/* Convenience wrappers so callers never touch the ops table. */
static inline const char *backend_name(const Backend *b)
{
        return b->name;
}
static inline bool backend_has_ports(const Backend *b)
{
        return b->has_ports;
}
static inline int backend_init(Backend *b, const HdapsConfig *config)
{
        return b->ops->init(b, config);
}
/* Powers the sensor off. Returns 0 or a negative errno; on failure, if ret_off is not NULL, *ret_off says
 * whether the sensor is off nonetheless (the EC backends: the power-off (0x14 0) worked and only stopping
 * EC sampling (0x10 0 1) failed). */
static inline int backend_power_off(Backend *b, bool *ret_off)
{
        bool off = false;
        int r = b->ops->power_off(b, &off);

        if (ret_off)
                *ret_off = r >= 0 || off;
        return r;
}
static inline int backend_poll(Backend *b, HdapsReadout *ret)
{
        return b->ops->poll(b, ret);
}
static inline int backend_update(Backend *b)
{
        return b->ops->update(b);
}
static inline const HdapsState *backend_get_state(Backend *b)
{
        return b->ops->get_state(b);
}
static inline const HdapsConfig *backend_get_config(Backend *b)
{
        return b->ops->get_config(b);
}
static inline int backend_set_sampling_rate(Backend *b, unsigned rate)
{
        return b->ops->set_sampling_rate(b, rate);
}
static inline int backend_set_oversampling_ratio(Backend *b, unsigned ratio)
{
        return b->ops->set_oversampling_ratio(b, ratio);
}
static inline int backend_set_filter_order(Backend *b, unsigned order)
{
        return b->ops->set_filter_order(b, order);
}
static inline int backend_set_fake_data_mode(Backend *b, bool on)
{
        return b->ops->set_fake_data_mode(b, on);
}
static inline int backend_set_invert(Backend *b, bool invert)
{
        return b->ops->set_invert(b, invert);
}
static inline void backend_calibrate(Backend *b)
{
        b->ops->calibrate(b);
}
static inline void backend_set_rest(Backend *b, int rest_x, int rest_y)
{
        b->ops->set_rest(b, rest_x, rest_y);
}
static inline unsigned backend_get_axis_code(Backend *b)
{
        return b->ops->get_axis_code(b);
}
static inline int backend_read_row(Backend *b, const EcRow *args, EcRow *data)
{
        return b->ops->read_row(b, args, data);
}
static inline void backend_describe_power(Backend *b, char *buf, size_t size)
{
        b->ops->describe_power(b, buf, size);
}
static inline int backend_get_ec_config(Backend *b, unsigned *ret_ec_rate, unsigned *ret_order)
{
        return b->ops->get_ec_config ? b->ops->get_ec_config(b, ret_ec_rate, ret_order) : -EOPNOTSUPP;
}
static inline void backend_set_streaming(Backend *b, bool on)
{
        if (b->ops->set_streaming)
                b->ops->set_streaming(b, on);
}
static inline void backend_keep_stream(Backend *b)
{
        if (b->ops->keep_stream)
                b->ops->keep_stream(b);
}
