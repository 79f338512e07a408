/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon context: lifetime, loading the configuration at start, the device. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "device.h"
#include "input-devices.h"
#include "log.h"
#include "strv.h"

#define SYSFS_ROOT_DEFAULT "/sys"

/* No rest position saved or taken yet: one on-demand readout right after init takes it, so that it is
 * the laptop as it was when the device was initialized, not as it is when a client first asks for a
 * readout, whenever that is (mainline's hdaps_calibrate() in hdaps_init(); the 2006 patch
 * series (PATCH 07) and tp_smapi 0.43 defer it to the first hardware query instead, see
 * docs/PROTOCOL.md). No polling: the device is powered anyway while the daemon runs. When the readout
 * fails, the calibration stays armed and the first later readout takes it. A backend whose init took a
 * readout already (the kernel driver's) has the rest position from it: the configuration takes that. */
static void take_first_rest(Context *c)
{
        int r;

        if (c->config.has_rest)
                return;
        /* A backend whose init read a readout (the kernel driver's) finished the calibration already. */
        if (backend_get_state(c->backend)->calibration_pending) {
                r = backend_update(c->backend);
                if (r < 0) {
                        log_info_errno(r, "Reading the rest position at initialization failed (%m); the "
                                          "first readout takes it");
                        return;
                }
        }
        context_check_rest(c);
}

int context_init_device(Context *c)
{
        int r = device_init(c->backend, &c->config);
        if (r >= 0) {
                context_read_back_ec_config(c);
                take_first_rest(c);
        }
        return r;
}

int context_set_fake_data_mode(Context *c, bool on)
{
        bool was;
        int r;

        if (!c->has_accelerometer)
                return -ENODEV;
        was = backend_get_config(c->backend)->fake_data_mode;
        r = backend_set_fake_data_mode(c->backend, on);
        if (r < 0)
                return r;
        if (was != on)
                context_changed(c, CHANGE_MASK(CHANGE_FAKE_DATA_MODE));
        context_read_back_ec_config(c);
        return 0;
}

/* Composes backend_reason from backend_why and backend_note. Returns 0, or -ENOMEM with the old text
 * kept. */
static int compose_backend_reason(Context *c)
{
        char *reason;

        if (asprintf(&reason, "%s%s%s", c->backend_why ?: "", c->backend_note ? "; " : "",
                     c->backend_note ?: "") < 0)
                return -ENOMEM;
        free(c->backend_reason);
        c->backend_reason = reason;
        return 0;
}

static void set_backend_note(Context *c, const char *note)
{
        c->backend_note = note;
        (void) compose_backend_reason(c);
}

void context_follow_backend_note(Context *c)
{
        const char *note;

        if (!c->backend || !c->has_accelerometer)
                return;
        note = c->backend->init_note;
        if (note == c->backend_note)
                return;
        if (note)
                log_warning("%s: %s", backend_name(c->backend), note);
        else
                log_info("%s: no longer: %s", backend_name(c->backend), c->backend_note);
        set_backend_note(c, note);
        context_read_back_ec_config(c);
        context_changed(c, CHANGE_MASK(CHANGE_BACKEND_REASON));
}

void context_setup_device(Context *c)
{
        int r;

        if (!c->backend)
                return;

        r = device_setup(c->backend, &c->config);
        if (r >= 0)
                context_read_back_ec_config(c);
        if (r < 0) {
                _cleanup_free_ char *reason = NULL;

                log_error_errno(r, "The %s backend found no working accelerometer: %m",
                                backend_name(c->backend));
                if (c->backend->init_failure)
                        log_error("%s: %s", backend_name(c->backend), c->backend->init_failure);
                if (asprintf(&reason, "%s, but initializing the accelerometer failed: %s%s%s%s",
                             c->backend_why, c->backend->init_failure ?: "",
                             c->backend->init_failure ? " (" : "", strerror(-r),
                             c->backend->init_failure ? ")" : "") >= 0) {
                        free(c->backend_why);
                        c->backend_why = TAKE_PTR(reason);
                        (void) compose_backend_reason(c);
                }
                return;
        }
        c->has_accelerometer = true;
        if (c->backend->init_note) {
                log_warning("%s: %s", backend_name(c->backend), c->backend->init_note);
                set_backend_note(c, c->backend->init_note);
        }
        log_info("Accelerometer ready: backend %s, %u Hz, oversampling %u, filter order %u",
                 backend_name(c->backend), c->config.sampling_rate, c->config.oversampling_ratio,
                 c->config.filter_order);
        take_first_rest(c);
}

static void setup_motion(Context *c)
{
        MotionConfig mc = {
                .counts_per_g = c->backend ? c->backend->counts_per_g : HDAPS_COUNTS_PER_G_DEFAULT,
                .tilt_step = c->config.tilt_step,
                .shock_sensitivity = c->config.shock_sensitivity,
                .shock_hold_ms = MOTION_SHOCK_HOLD_MS_DEFAULT,
        };
        int r;

        r = motion_new(&mc, &c->motion);
        if (r < 0)
                log_error_errno(r, "Motion processing is not available: %m");
}

static void setup_disk_protect(Context *c, const char *sysfs_root)
{
        int r;

        r = disk_protect_new(sysfs_root ?: SYSFS_ROOT_DEFAULT, &c->disk_protect);
        if (r < 0)
                log_error_errno(r, "Disk protection is not available: %m");
}

/* Start-up is a reload from the defaults: the parts are made with the defaults, then the state file is
 * applied through the one path of a change (CONFIG_APPLY_START); the device is initialized with the
 * result. */
static int apply_state_file(Context *c)
{
        StateConfig loaded;
        int r;

        state_config_init(&loaded);
        if (c->state_path)
                device_load_config(c->state_path, &loaded);
        r = context_apply_config(c, &loaded, CONFIG_APPLY_START, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Applying the state file failed: %m");
        if (strv_length(c->config.protected_disks) > 0)
                log_info("Disk protection armed from the state file (%zu disk(s))",
                         strv_length(c->config.protected_disks));
        return 0;
}

int context_new(const ContextOptions *o, Backend *backend, const char *backend_reason, Context **ret)
{
        _cleanup_(context_freep) Context *c = NULL;
        int r;

        c = calloc(1, sizeof(*c));
        if (!c) {
                backend_free(backend);
                tablet_mode_free(o->tablet_mode);
                input_devices_free(o->input_devices);
                return -ENOMEM;
        }
        c->backend = backend;
        c->tablet_mode = o->tablet_mode;
        c->input_devices = o->input_devices;
        c->input_devices_error = o->input_devices_error;
        c->sysroot = o->sysroot;
        c->port_capture = o->port_capture;
        poller_init(&c->poller, c);
        state_config_init(&c->config); /* the defaults, then the state file (apply_state_file()) */

        c->backend_why = strdup(backend_reason ?: "");
        if (!c->backend_why || compose_backend_reason(c) < 0)
                return -ENOMEM;
        if (o->state_dir && asprintf(&c->state_path, "%s/%s", o->state_dir, STATE_FILE_NAME) < 0) {
                c->state_path = NULL;
                return -ENOMEM;
        }

        r = sd_event_default(&c->event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");

        setup_motion(c);
        setup_disk_protect(c, o->sysfs_root);
        r = apply_state_file(c);
        if (r < 0)
                return r;
        context_setup_device(c);

        *ret = TAKE_PTR(c);
        return 0;
}

Context *context_free(Context *c)
{
        if (!c)
                return NULL;
        /* Every way out (a fatal error at start-up included) powers off and unparks. */
        context_shutdown(c);
        poller_done(&c->poller);
        protection_done(&c->protection);
        c->backend_watch = backend_watch_free(c->backend_watch);
        c->idle_exit = idle_exit_free(c->idle_exit);
        c->rest_check = sd_event_source_disable_unref(c->rest_check);
        c->tablet_mode = tablet_mode_free(c->tablet_mode);
        c->input_devices = input_devices_free(c->input_devices);
        c->event = sd_event_unref(c->event);
        disk_protect_free(c->disk_protect);
        motion_free(c->motion);
        backend_free(c->backend);
        state_config_done(&c->config);
        free(c->backend_why);
        free(c->backend_reason);
        free(c->state_path);
        free(c);
        return NULL;
}

int context_start(Context *c, const ContextOptions *o)
{
        int r;

        /* Disk protection and input devices from the state file keep polling on from the start. */
        protection_state_changed(c);
        poller_set_demand(&c->poller, DEMAND_INPUT_DEVICES, input_devices_enabled(c->input_devices));
        poller_update(&c->poller); /* EffectiveRate and its reason, polling or not */

        if (o->backend_options && o->backend_options->kind != BACKEND_SIM) {
                r = backend_watch_start(c, o->backend_options, BACKEND_WATCH_INTERVAL_USEC,
                                        &c->backend_watch);
                if (r < 0)
                        return r;
        }
        return idle_exit_start(c, o->exit_idle_sec, &c->idle_exit);
}

void context_shutdown(Context *c)
{
        if (c->shut_down)
                return;
        c->shut_down = true;

        poller_stop(&c->poller);
        protection_release(c);
        device_power_off(c->backend, c->has_accelerometer);
        if (c->observer && c->observer->shutdown)
                c->observer->shutdown(c, c->observer_userdata);
}

void context_switch_backend(Context *c, Backend *backend, char *reason)
{
        /* Stop polling first: the old backend goes away below. */
        c->has_accelerometer = false;
        poller_update(&c->poller);

        backend_free(c->backend);
        c->backend = backend;
        free(c->backend_why);
        c->backend_why = reason;
        c->backend_note = NULL;
        if (compose_backend_reason(c) < 0)
                log_error_errno(-ENOMEM, "Failed to describe the new backend: %m"); /* keeps the old text */

        if (c->backend)
                context_setup_device(c);
        if (c->motion)
                motion_reset(c->motion);
        if (c->has_accelerometer)
                log_info("Backend %s: %s", backend_name(c->backend), c->backend_reason);
        else
                log_warning("No accelerometer: %s", c->backend_reason);

        poller_update(&c->poller);
        context_changed(c, CHANGE_MASK(CHANGE_HAS_ACCELEROMETER) | CHANGE_MASK(CHANGE_BACKEND) |
                                   CHANGE_MASK(CHANGE_BACKEND_REASON) | CHANGE_MASK(CHANGE_AXIS_CODE));
}
