/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon context: lifetime, configuration (load, apply, persist), and the D-Bus connection. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-errors.h"
#include "context.h"
#include "diagnose.h"
#include "input-devices.h"
#include "log.h"
#include "strv.h"

#define SYSFS_ROOT_DEFAULT "/sys"

static void load_state(Context *c)
{
        _cleanup_strv_free_ char **warnings = NULL;
        _cleanup_free_ char *error = NULL;
        StateConfig loaded;
        int r;

        if (!c->state_path)
                return;
        r = state_config_remove_stale(c->state_path);
        if (r > 0)
                log_info("Removed %d temporary file(s) of an interrupted state file write", r);
        r = state_config_load(c->state_path, &loaded, &warnings, &error);
        for (char **w = warnings; w && *w; w++)
                log_warning("%s", *w);
        if (r == -ENOENT) {
                log_debug("No state file %s yet, using the defaults", c->state_path);
                return;
        }
        if (r < 0) {
                log_warning("Ignoring the state file, using the defaults: %s", error ? error : strerror(-r));
                return;
        }
        state_config_done(&c->config);
        c->config = loaded;
        log_debug("Configuration loaded from %s", c->state_path);
}

void context_save_state(Context *c)
{
        int r;

        if (!c->state_path)
                return;
        r = state_config_save(c->state_path, &c->config);
        if (r < 0)
                log_warning_errno(r, "Failed to write the state file %s, the change is not persistent: %m",
                                  c->state_path);
}

int context_save_config(Context *c, const StateConfig *next, sd_bus_error *error)
{
        int r;

        if (!c->state_path)
                return 0;
        r = state_config_save(c->state_path, next);
        if (r < 0) {
                log_warning_errno(r, "Failed to write the state file %s, refusing the change: %m",
                                  c->state_path);
                return sd_bus_error_setf(error, ACCEL_ERROR_NOT_SAVED,
                                         "The change was not made: cannot write the state file %s: %s",
                                         c->state_path, strerror(-r));
        }
        return 0;
}

void context_restore_state(Context *c)
{
        int r;

        if (!c->state_path)
                return;
        r = state_config_save(c->state_path, &c->config);
        if (r < 0)
                log_warning_errno(r,
                                  "Failed to write the old configuration back to %s, it now holds a change "
                                  "that was not applied: %m",
                                  c->state_path);
}

/* Device settings from next: re-initializes the device when a rate or the filter order changed (a
 * product of both that the EC accepts is only guaranteed as a whole), then invert and rest position.
 * On a refusal next gets the current values back. */
static void reload_device(Context *c, StateConfig *next)
{
        int r;

        if (!c->has_accelerometer) {
                next->sampling_rate = c->config.sampling_rate;
                next->oversampling_ratio = c->config.oversampling_ratio;
                next->filter_order = c->config.filter_order;
                next->invert = c->config.invert;
                return;
        }
        if (next->sampling_rate != c->config.sampling_rate ||
            next->oversampling_ratio != c->config.oversampling_ratio ||
            next->filter_order != c->config.filter_order) {
                HdapsConfig hc = {
                        .sampling_rate = next->sampling_rate,
                        .oversampling_ratio = next->oversampling_ratio,
                        .filter_order = next->filter_order,
                        .fake_data_mode = backend_get_config(c->backend)->fake_data_mode,
                };
                r = backend_init(c->backend, &hc);
                if (r < 0) {
                        log_warning_errno(
                                r,
                                "Reload: the device refused %u Hz, oversampling %u, filter order %u, "
                                "keeping the old values: %m",
                                next->sampling_rate, next->oversampling_ratio, next->filter_order);
                        next->sampling_rate = c->config.sampling_rate;
                        next->oversampling_ratio = c->config.oversampling_ratio;
                        next->filter_order = c->config.filter_order;
                        r = context_init_device(c);
                        if (r < 0)
                                log_error_errno(
                                        r, "Reload: re-initializing with the old values failed too: %m");
                }
        }
        if (next->invert != c->config.invert) {
                r = backend_set_invert(c->backend, next->invert);
                if (r < 0) {
                        log_warning_errno(r, "Reload: cannot apply invert=%d, keeping the old value: %m",
                                          next->invert);
                        next->invert = c->config.invert;
                }
        }
        if (next->has_rest &&
            (!c->config.has_rest || next->rest_x != c->config.rest_x || next->rest_y != c->config.rest_y))
                backend_set_rest(c->backend, next->rest_x, next->rest_y);
        else if (!next->has_rest && c->config.has_rest) {
                /* No rest position in the file: keep the calibrated one (the file gets it on the next save).
                 */
                next->has_rest = true;
                next->rest_x = c->config.rest_x;
                next->rest_y = c->config.rest_y;
        }
}

static void reload_motion(Context *c, StateConfig *next)
{
        if (!c->motion) {
                next->tilt_step = c->config.tilt_step;
                next->shock_sensitivity = c->config.shock_sensitivity;
                return;
        }
        if (next->tilt_step != c->config.tilt_step && motion_set_tilt_step(c->motion, next->tilt_step) < 0) {
                log_warning("Reload: tilt_step %g refused, keeping %g", next->tilt_step,
                            c->config.tilt_step);
                next->tilt_step = c->config.tilt_step;
        }
        if (next->shock_sensitivity != c->config.shock_sensitivity &&
            motion_set_shock_sensitivity(c->motion, next->shock_sensitivity) < 0) {
                log_warning("Reload: shock_sensitivity %g refused, keeping %g", next->shock_sensitivity,
                            c->config.shock_sensitivity);
                next->shock_sensitivity = c->config.shock_sensitivity;
        }
}

/* The hdaps input devices from next: made or removed as the file says; without uinput, or when making
 * them fails, next gets the current value back. */
static void reload_input_devices(Context *c, StateConfig *next)
{
        int r;

        if (next->input_devices == c->config.input_devices)
                return;
        if (!c->input_devices)
                r = -ENODEV;
        else
                r = input_devices_enable(c->input_devices, next->input_devices);
        if (r < 0) {
                log_warning_errno(r, "Reload: cannot %s the hdaps input devices (%s), keeping them %s: %m",
                                  next->input_devices ? "create" : "remove", INPUT_DEVICES_UINPUT_PATH,
                                  c->config.input_devices ? "enabled" : "disabled");
                next->input_devices = c->config.input_devices;
        }
}

static int reload_disks(Context *c, StateConfig *next)
{
        _cleanup_free_ char *error = NULL;
        char *empty[] = {NULL};
        int r;

        if (strv_equal(next->protected_disks ?: empty, c->config.protected_disks ?: empty))
                return 0;
        if (!c->disk_protect)
                r = -EOPNOTSUPP;
        else
                r = disk_protect_set_disks(c->disk_protect, next->protected_disks ?: empty, &error);
        if (r < 0) {
                log_warning("Reload: not protecting the disks from the state file, keeping the old ones: %s",
                            error ? error : strerror(-r));
                strv_free(next->protected_disks);
                next->protected_disks = NULL;
                if (c->config.protected_disks) {
                        next->protected_disks = strv_copy(c->config.protected_disks);
                        if (!next->protected_disks)
                                return -ENOMEM;
                }
                return 0;
        }
        return 1;
}

void context_reload(Context *c)
{
        _cleanup_strv_free_ char **warnings = NULL;
        _cleanup_free_ char *error = NULL;
        StateConfig next;
        int r;

        if (!c->state_path) {
                log_info("Reload: no state file, nothing to do");
                return;
        }
        r = state_config_load(c->state_path, &next, &warnings, &error);
        for (char **w = warnings; w && *w; w++)
                log_warning("%s", *w);
        if (r == -ENOENT) {
                log_info("Reload: no state file %s, applying the defaults", c->state_path);
                state_config_init(&next);
        } else if (r < 0) {
                log_warning("Reload: keeping the current configuration: %s", error ? error : strerror(-r));
                return;
        }

        reload_device(c, &next);
        reload_motion(c, &next);
        reload_input_devices(c, &next);
        r = reload_disks(c, &next);
        if (r < 0) {
                log_error_errno(r, "Reload failed: %m");
                state_config_done(&next);
                return;
        }
        if (r > 0 && strv_length(next.protected_disks) == 0)
                protection_release(c);

        StateConfig old = c->config;
        c->config = next;
#define CHANGED(field) (old.field != next.field)
        if (CHANGED(sampling_rate))
                bus_emit_changed(c, "SamplingRate");
        if (CHANGED(oversampling_ratio))
                bus_emit_changed(c, "OversamplingRatio");
        if (CHANGED(filter_order))
                bus_emit_changed(c, "FilterOrder");
        if (CHANGED(invert))
                bus_emit_changed(c, "Invert", "AxisCode");
        if (CHANGED(has_rest) || CHANGED(rest_x) || CHANGED(rest_y)) {
                if (c->motion)
                        motion_reset(c->motion);
                bus_emit_changed(c, "RestPosition");
        }
        if (CHANGED(tilt_step))
                bus_emit_changed(c, "TiltStep");
        if (CHANGED(shock_sensitivity))
                bus_emit_changed(c, "ShockSensitivity");
        if (CHANGED(input_devices))
                bus_emit_changed(c, "InputDevices");
#undef CHANGED
        if (r > 0) {
                bus_emit_changed(c, "ProtectedDisks");
                protection_state_changed(c);
        }
        state_config_done(&old);
        if (c->has_accelerometer)
                context_read_back_ec_config(c); /* what the EC now says (OversamplingRatio, FilterOrder) */
        poller_rate_changed(c);
        poller_update(c);
        log_info("Reloaded the configuration from %s: %u Hz, oversampling %u, filter order %u, invert %d, "
                 "tilt step %g, shock sensitivity %g, input devices %d, %zu protected disk(s)",
                 c->state_path, c->config.sampling_rate, c->config.oversampling_ratio,
                 c->config.filter_order, c->config.invert, c->config.tilt_step, c->config.shock_sensitivity,
                 c->config.input_devices, strv_length(c->config.protected_disks));
}

int context_init_device(Context *c)
{
        HdapsConfig hc = {
                .sampling_rate = c->config.sampling_rate,
                .oversampling_ratio = c->config.oversampling_ratio,
                .filter_order = c->config.filter_order,
                .fake_data_mode = backend_get_config(c->backend)->fake_data_mode,
        };

        int r = backend_init(c->backend, &hc);
        c->backend_rate = 0; /* the configured rate; poller_update() sets the rate in force */
        if (r >= 0)
                context_read_back_ec_config(c);
        return r;
}

void context_read_back_ec_config(Context *c)
{
        unsigned ec_rate, order, rate = backend_get_config(c->backend)->sampling_rate; /* in force */
        int r;

        c->ec_config_valid = false;
        r = backend_get_ec_config(c->backend, &ec_rate, &order);
        if (r < 0) {
                if (r != -EOPNOTSUPP)
                        log_debug_errno(r, "Reading the EC configuration back (0x17/0x82) failed: %m");
        } else if (rate > 0) {
                c->ec_config_valid = true;
                c->ec_oversampling_ratio = ec_rate / rate; /* the EC knows only the product */
                c->ec_filter_order = order;
                log_debug("EC configuration read back (0x17/0x82): EC rate %u, filter order %u", ec_rate,
                          order);
                if (c->ec_oversampling_ratio != c->config.oversampling_ratio ||
                    order != c->config.filter_order)
                        log_warning("The EC reports EC rate %u and filter order %u, not %u x %u and %u as "
                                    "configured; showing the EC's",
                                    ec_rate, order, rate, c->config.oversampling_ratio,
                                    c->config.filter_order);
        }
        bus_emit_changed(c, "OversamplingRatio", "FilterOrder");
}

void context_setup_device(Context *c)
{
        int r;

        if (!c->backend)
                return;

        r = backend_set_invert(c->backend, c->config.invert);
        if (r < 0)
                log_warning_errno(r, "Cannot apply invert=%d from the state file, ignoring: %m",
                                  c->config.invert);
        if (c->config.has_rest)
                backend_set_rest(c->backend, c->config.rest_x, c->config.rest_y);

        r = context_init_device(c);
        if (r < 0) {
                _cleanup_free_ char *reason = NULL;

                log_error_errno(r, "The %s backend found no working accelerometer: %m",
                                backend_name(c->backend));
                if (c->backend->init_failure)
                        log_error("%s: %s", backend_name(c->backend), c->backend->init_failure);
                if (asprintf(&reason, "%s, but initializing the accelerometer failed: %s%s%s%s",
                             c->backend_reason, c->backend->init_failure ?: "",
                             c->backend->init_failure ? " (" : "", strerror(-r),
                             c->backend->init_failure ? ")" : "") >= 0) {
                        free(c->backend_reason);
                        c->backend_reason = TAKE_PTR(reason);
                }
                return;
        }
        c->has_accelerometer = true;
        log_info("Accelerometer ready: backend %s, %u Hz, oversampling %u, filter order %u",
                 backend_name(c->backend), c->config.sampling_rate, c->config.oversampling_ratio,
                 c->config.filter_order);
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
        _cleanup_free_ char *error = NULL;
        int r;

        r = disk_protect_new(sysfs_root ?: SYSFS_ROOT_DEFAULT, &c->disk_protect);
        if (r < 0) {
                log_error_errno(r, "Disk protection is not available: %m");
                return;
        }
        if (strv_length(c->config.protected_disks) == 0)
                return;
        r = disk_protect_set_disks(c->disk_protect, c->config.protected_disks, &error);
        if (r < 0) {
                log_warning("Not protecting the disks from the state file: %s",
                            error ? error : strerror(-r));
                c->config.protected_disks = strv_free(c->config.protected_disks);
        }
}

int context_new(const ContextOptions *o, Backend *backend, const char *backend_reason, Context **ret)
{
        _cleanup_(context_freep) Context *c = NULL;
        int r;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->sleep_lock_fd = -1;
        c->own_uid = geteuid();
        c->session_bus = o->session;
        c->backend = backend;
        state_config_init(&c->config);

        c->backend_reason = strdup(backend_reason ?: "");
        if (!c->backend_reason)
                return -ENOMEM;
        if (o->state_dir && asprintf(&c->state_path, "%s/%s", o->state_dir, STATE_FILE_NAME) < 0) {
                c->state_path = NULL;
                return -ENOMEM;
        }

        r = sd_event_default(&c->event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");

        load_state(c);
        context_setup_device(c);
        setup_motion(c);
        setup_disk_protect(c, o->sysfs_root);

        *ret = TAKE_PTR(c);
        return 0;
}

Context *context_free(Context *c)
{
        if (!c)
                return NULL;
        /* Every way out (a fatal error at start-up included) powers off and unparks. */
        context_shutdown(c);
        c->poll_timer = sd_event_source_disable_unref(c->poll_timer);
        c->reinit_timer = sd_event_source_disable_unref(c->reinit_timer);
        c->pause_timer = sd_event_source_disable_unref(c->pause_timer);
        c->exit_source = sd_event_source_disable_unref(c->exit_source);
        c->backend_watch = backend_watch_free(c->backend_watch);
        c->idle_exit = idle_exit_free(c->idle_exit);
        c->ec_queue = ec_queue_free(c->ec_queue);
        c->sensor_proxy = sensor_proxy_free(c->sensor_proxy);
        c->tablet_mode = tablet_mode_free(c->tablet_mode);
        c->diagnosis = diagnosis_free(c->diagnosis);
        c->input_devices = input_devices_free(c->input_devices);
        claims_free(c);
        free(c->poll_rate_reason);
        if (c->sleep_lock_fd >= 0)
                close(c->sleep_lock_fd);
        c->polkit_pending = polkit_pending_free(c->polkit_pending); /* cancels the questions in flight */
        c->bus = sd_bus_flush_close_unref(c->bus);
        c->event = sd_event_unref(c->event);
        disk_protect_free(c->disk_protect);
        motion_free(c->motion);
        backend_free(c->backend);
        state_config_done(&c->config);
        free(c->backend_reason);
        free(c->last_error);
        free(c->state_path);
        free(c->protection_state);
        free(c);
        return NULL;
}

static int open_bus(const ContextOptions *o, sd_bus **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (!o->address)
                return o->session ? sd_bus_open_user_with_description(ret, "tpacceld")
                                  : sd_bus_open_system_with_description(ret, "tpacceld");

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_description(bus, "tpacceld");
        r = sd_bus_set_address(bus, o->address);
        if (r < 0)
                return r;
        r = sd_bus_set_bus_client(bus, true);
        if (r < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

/* Runs when the loop is asked to exit (SIGTERM/SIGINT), before sd-bus closes the connection. */
static int on_loop_exit(sd_event_source *s, void *userdata)
{
        context_shutdown(userdata);
        return 0;
}

int context_start_bus(Context *c, const ContextOptions *o)
{
        int r;

        r = sd_event_add_exit(c->event, &c->exit_source, on_loop_exit, c);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the exit handler: %m");
        /* Before sd-bus' own exit handler, which flushes and closes the connection. */
        (void) sd_event_source_set_priority(c->exit_source, SD_EVENT_PRIORITY_IMPORTANT);

        r = bus_errors_register();
        if (r < 0)
                return log_error_errno(r, "Failed to register the D-Bus error names: %m");

        r = open_bus(o, &c->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the %s bus%s%s: %m",
                                       o->address   ? "given"
                                       : o->session ? "session"
                                                    : "system",
                                       o->address ? " at " : "", o->address ?: "");

        r = sd_bus_attach_event(c->bus, c->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
        (void) sd_bus_set_exit_on_disconnect(c->bus, true);

        /* Objects first, the name last, so that clients never see a half-built service. */
        r = bus_accelerometer_register(c);
        if (r < 0)
                return r;
        r = bus_ec_register(c);
        if (r < 0)
                return r;

        if (o->session)
                log_debug("Session bus: not watching logind for suspend");
        else {
                r = sleep_setup(c);
                if (r < 0)
                        return r;
        }

        /* Disk protection from the state file keeps polling on from the start. */
        poller_update(c);

        if (o->backend_options && o->backend_options->kind != BACKEND_SIM) {
                r = backend_watch_start(c, o->backend_options, BACKEND_WATCH_INTERVAL_USEC,
                                        &c->backend_watch);
                if (r < 0)
                        return r;
        }
        r = idle_exit_start(c, o->exit_idle_sec, &c->idle_exit);
        if (r < 0)
                return r;

        r = sd_bus_request_name(c->bus, ACCEL_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Failed to acquire the bus name %s: %m", ACCEL_BUS_NAME);
        log_info("Serving %s on the %s bus (backend: %s)", ACCEL_BUS_NAME,
                 o->address   ? "given"
                 : o->session ? "session"
                              : "system",
                 c->has_accelerometer ? backend_name(c->backend) : "none");

        /* The second name, for desktops (only logs when it cannot be had). */
        return sensor_proxy_start(c, o->sensor_proxy);
}

void context_shutdown(Context *c)
{
        int r;

        if (c->shut_down)
                return;
        c->shut_down = true;

        c->poll_timer = sd_event_source_disable_unref(c->poll_timer);
        poller_stop_reinit(c);
        protection_release(c);

        if (c->has_accelerometer) {
                char state[160];

                r = backend_power_off(c->backend);
                backend_describe_power(c->backend, state, sizeof(state));
                if (r < 0)
                        log_warning_errno(r, "Failed to power the accelerometer off (%s): %m", state);
                else
                        log_info("accelerometer powered off (%s)", state);
        }
        if (c->backend) {
                char state[160];

                /* The emulator's status line, with its protocol-violation count (the tests check it). */
                backend_describe_power(c->backend, state, sizeof(state));
                log_info("At exit: %s", state);
        }

        sensor_proxy_stop(c);
        if (c->bus) {
                r = sd_bus_release_name(c->bus, ACCEL_BUS_NAME);
                if (r < 0)
                        log_debug_errno(r, "Failed to release %s: %m", ACCEL_BUS_NAME);
                (void) sd_bus_flush(c->bus);
        }
}
