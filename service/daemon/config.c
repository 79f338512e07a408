/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration and the one path that changes it (see config.h). */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "context.h"
#include "input-devices.h"
#include "log.h"
#include "strv.h"

void config_error_done(ConfigError *e)
{
        if (!e)
                return;
        free(e->message);
        *e = (ConfigError) {};
}

/* Sets *e (may be NULL) and returns r. message is taken. */
static int refuse(ConfigError *e, ConfigPart part, const char *setting, int r, char *message)
{
        assert(r < 0);
        if (e) {
                free(e->message);
                *e = (ConfigError) {.part = part, .setting = setting, .error = r, .message = message};
        } else
                free(message);
        return r;
}

/* The state file */

int context_save_config(Context *c, const StateConfig *next)
{
        int r;

        if (!c->state_path)
                return 0;
        r = state_config_save(c->state_path, next);
        if (r < 0)
                return log_warning_errno(r, "Failed to write the state file %s, refusing the change: %m",
                                         c->state_path);
        return 0;
}

/* After the daemon's own change: failures are logged, not fatal. */
static void save_own(Context *c)
{
        int r;

        if (!c->state_path)
                return;
        r = state_config_save(c->state_path, &c->config);
        if (r < 0)
                log_warning_errno(r, "Failed to write the state file %s, the change is not persistent: %m",
                                  c->state_path);
}

/* After a saved change could not be applied: writes c->config (the old configuration) back. */
static void restore_state(Context *c)
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

/* What differs between two configurations, as the observer's change bits. */
static ChangeMask config_changes(const StateConfig *a, const StateConfig *b)
{
        char *empty[] = {NULL};
        ChangeMask m = 0;

        if (a->sampling_rate != b->sampling_rate)
                m |= CHANGE_MASK(CHANGE_SAMPLING_RATE);
        if (a->oversampling_ratio != b->oversampling_ratio)
                m |= CHANGE_MASK(CHANGE_OVERSAMPLING_RATIO);
        if (a->filter_order != b->filter_order)
                m |= CHANGE_MASK(CHANGE_FILTER_ORDER);
        if (a->invert != b->invert)
                m |= CHANGE_MASK(CHANGE_INVERT) | CHANGE_MASK(CHANGE_AXIS_CODE); /* invert flips the axes */
        if (a->has_rest != b->has_rest ||
            (a->has_rest && (a->rest_x != b->rest_x || a->rest_y != b->rest_y)))
                m |= CHANGE_MASK(CHANGE_REST_POSITION);
        if (a->tilt_step != b->tilt_step)
                m |= CHANGE_MASK(CHANGE_TILT_STEP);
        if (a->shock_sensitivity != b->shock_sensitivity)
                m |= CHANGE_MASK(CHANGE_SHOCK_SENSITIVITY);
        if (a->input_devices != b->input_devices)
                m |= CHANGE_MASK(CHANGE_INPUT_DEVICES);
        if (!strv_equal(a->protected_disks ?: empty, b->protected_disks ?: empty))
                m |= CHANGE_MASK(CHANGE_PROTECTED_DISKS);
        return m;
}

/* The parts of a configuration, applied in this order. apply() brings what `from` configures to what
 * `to` does (so apply(to, from) undoes it); on an error it changed nothing of its part. keep() gives
 * next the part's current values (a refused part of a reload). */

typedef struct Applied {
        ConfigApplyMode mode;
        bool rate; /* the configured SamplingRate changed: the poller re-rates (timer, EffectiveRate) */
        bool ec;   /* the EC's configuration was set: it is read back */
} Applied;

typedef struct ConfigPartOps {
        const char *what; /* for the log of a refused reload */
        int (*apply)(Context *c, const StateConfig *from, const StateConfig *to, Applied *a, ConfigError *e);
        int (*keep)(StateConfig *next, const StateConfig *current);
} ConfigPartOps;

typedef struct RateSetting {
        const char *setting;
        int (*set)(Context *c, unsigned v);
        size_t offset; /* the unsigned in StateConfig */
} RateSetting;

/* The poller alone sets the backend's sampling rate (to the rate in force): it is told the configured
 * one. */
static int set_full_rate(Context *c, unsigned rate)
{
        return poller_set_full_rate(&c->poller, rate);
}

static int set_oversampling_ratio(Context *c, unsigned ratio)
{
        return backend_set_oversampling_ratio(c->backend, ratio);
}

static int set_filter_order(Context *c, unsigned order)
{
        return backend_set_filter_order(c->backend, order);
}

static const RateSetting sampling_rate = {"SamplingRate", set_full_rate,
                                          offsetof(StateConfig, sampling_rate)};
static const RateSetting oversampling_ratio = {"OversamplingRatio", set_oversampling_ratio,
                                               offsetof(StateConfig, oversampling_ratio)};
static const RateSetting filter_order = {"FilterOrder", set_filter_order,
                                         offsetof(StateConfig, filter_order)};

static unsigned rate_value(const StateConfig *config, const RateSetting *s)
{
        return *(const unsigned *) ((const uint8_t *) config + s->offset);
}

/* SamplingRate, OversamplingRatio, FilterOrder: each value that changes is at most one EC configuration
 * command (the product of the rate in force and the ratio, and the order, as the 2006 patch series'
 * attributes sent it); SamplingRate goes to the poller, which sets the backend's rate only when the rate
 * in force changes. A rate that shrinks goes first and one that grows after the ratio, so that no
 * intermediate product exceeds both the old and the new one. On a refusal the values set before it are
 * set back. */
static int apply_rates(Context *c, const StateConfig *from, const StateConfig *to, Applied *a,
                       ConfigError *e)
{
        bool rate_first = to->sampling_rate < from->sampling_rate;
        const RateSetting *order[] = {
                rate_first ? &sampling_rate : &oversampling_ratio,
                rate_first ? &oversampling_ratio : &sampling_rate,
                &filter_order,
        };
        int r;

        if (!c->has_accelerometer && a->mode == CONFIG_APPLY_START) {
                /* The device is initialized with the configuration next; polling's full rate follows. */
                a->rate = to->sampling_rate != from->sampling_rate;
                return set_full_rate(c, to->sampling_rate);
        }
        if (!c->has_accelerometer) {
                for (size_t i = 0; i < ELEMENTSOF(order); i++)
                        if (rate_value(from, order[i]) != rate_value(to, order[i]))
                                return refuse(e, CONFIG_PART_DEVICE, order[i]->setting, -ENODEV, NULL);
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                const RateSetting *s = order[i];

                if (rate_value(from, s) == rate_value(to, s))
                        continue;
                r = s->set(c, rate_value(to, s));
                if (r < 0) {
                        for (size_t j = i; j-- > 0;) {
                                if (rate_value(from, order[j]) == rate_value(to, order[j]))
                                        continue;
                                int k = order[j]->set(c, rate_value(from, order[j]));
                                if (k < 0)
                                        log_error_errno(k, "Setting %s back to %u failed: %m",
                                                        order[j]->setting, rate_value(from, order[j]));
                        }
                        return refuse(e, CONFIG_PART_DEVICE, s->setting, r, NULL);
                }
                a->ec = true;
                if (s == &sampling_rate)
                        a->rate = true;
        }
        return 0;
}

static int keep_rates(StateConfig *next, const StateConfig *current)
{
        next->sampling_rate = current->sampling_rate;
        next->oversampling_ratio = current->oversampling_ratio;
        next->filter_order = current->filter_order;
        return 0;
}

/* Invert, then the rest position. The backend carries its rest position into the new axes itself
 * (negated); to's rest position is set only when it is not that one, so that a rest position that
 * merely follows Invert (config_set_invert()) leaves a pending calibration pending. */
static int apply_orientation(Context *c, const StateConfig *from, const StateConfig *to, Applied *a,
                             ConfigError *e)
{
        bool flip = to->invert != from->invert;
        int r;

        if (!c->has_accelerometer) /* at start-up the device is initialized with to next */
                return flip && a->mode != CONFIG_APPLY_START
                               ? refuse(e, CONFIG_PART_DEVICE, "Invert", -ENODEV, NULL)
                               : 0;
        if (flip) {
                r = backend_set_invert(c->backend, to->invert);
                if (r < 0)
                        return refuse(e, CONFIG_PART_DEVICE, "Invert", r, NULL);
        }
        if (!to->has_rest) {
                if (from->has_rest) /* undoing a first rest position: calibrate again */
                        backend_calibrate(c->backend);
                return 0;
        }
        int x = flip ? -from->rest_x : from->rest_x, y = flip ? -from->rest_y : from->rest_y;
        if (!from->has_rest || to->rest_x != x || to->rest_y != y)
                backend_set_rest(c->backend, to->rest_x, to->rest_y);
        return 0;
}

static int keep_orientation(StateConfig *next, const StateConfig *current)
{
        next->invert = current->invert;
        next->has_rest = current->has_rest;
        next->rest_x = current->rest_x;
        next->rest_y = current->rest_y;
        return 0;
}

static int apply_tilt_step(Context *c, const StateConfig *from, const StateConfig *to, Applied *a,
                           ConfigError *e)
{
        int r;

        if (to->tilt_step == from->tilt_step)
                return 0;
        r = c->motion ? motion_set_tilt_step(c->motion, to->tilt_step) : -EOPNOTSUPP;
        return r < 0 ? refuse(e, CONFIG_PART_MOTION, "TiltStep", r, NULL) : 0;
}

static int keep_tilt_step(StateConfig *next, const StateConfig *current)
{
        next->tilt_step = current->tilt_step;
        return 0;
}

static int apply_shock_sensitivity(Context *c, const StateConfig *from, const StateConfig *to, Applied *a,
                                   ConfigError *e)
{
        int r;

        if (to->shock_sensitivity == from->shock_sensitivity)
                return 0;
        r = c->motion ? motion_set_shock_sensitivity(c->motion, to->shock_sensitivity) : -EOPNOTSUPP;
        return r < 0 ? refuse(e, CONFIG_PART_MOTION, "ShockSensitivity", r, NULL) : 0;
}

static int keep_shock_sensitivity(StateConfig *next, const StateConfig *current)
{
        next->shock_sensitivity = current->shock_sensitivity;
        return 0;
}

/* Made or removed as to says. When the setting does not change but the devices are not as it says (their
 * creation failed at start), they are tried again, and a failure is logged, not a refusal: it must not
 * fail another setting's change. At start-up a failure is logged too and the setting stays as the state
 * file says. Without uinput there is nothing to remove, and nothing can be made (-ENODEV). */
static int apply_input_devices(Context *c, const StateConfig *from, const StateConfig *to, Applied *a,
                               ConfigError *e)
{
        int r;

        if (to->input_devices == input_devices_enabled(c->input_devices))
                return 0;
        r = c->input_devices ? input_devices_enable(c->input_devices, to->input_devices) : -ENODEV;
        if (r >= 0)
                return 0;
        if (a->mode == CONFIG_APPLY_START && !c->input_devices) {
                log_warning("The hdaps input devices are enabled, but %s could not be opened",
                            INPUT_DEVICES_UINPUT_PATH);
                return 0;
        }
        if (a->mode == CONFIG_APPLY_START || to->input_devices == from->input_devices) {
                log_warning_errno(r, "The hdaps input devices are enabled, but creating them failed%s: %m",
                                  a->mode == CONFIG_APPLY_START ? "" : " again");
                return 0;
        }
        return refuse(e, CONFIG_PART_INPUT_DEVICES, "InputDevices", r, NULL);
}

static int keep_input_devices(StateConfig *next, const StateConfig *current)
{
        next->input_devices = current->input_devices;
        return 0;
}

/* Through protection_set_disks() (which unparks when the list becomes empty). */
static int apply_disks(Context *c, const StateConfig *from, const StateConfig *to, Applied *a,
                       ConfigError *e)
{
        _cleanup_free_ char *message = NULL;
        char *empty[] = {NULL};
        int r;

        if (strv_equal(to->protected_disks ?: empty, from->protected_disks ?: empty))
                return 0;
        r = protection_set_disks(c, to->protected_disks ?: empty, &message);
        return r < 0 ? refuse(e, CONFIG_PART_DISKS, "ProtectedDisks", r, TAKE_PTR(message)) : 0;
}

static int keep_disks(StateConfig *next, const StateConfig *current)
{
        char **copy = NULL;

        if (current->protected_disks && !(copy = strv_copy(current->protected_disks)))
                return -ENOMEM;
        strv_free(next->protected_disks);
        next->protected_disks = copy;
        return 0;
}

static const ConfigPartOps config_parts[] = {
        {"SamplingRate, OversamplingRatio and FilterOrder", apply_rates, keep_rates},
        {"Invert and RestPosition", apply_orientation, keep_orientation},
        {"TiltStep", apply_tilt_step, keep_tilt_step},
        {"ShockSensitivity", apply_shock_sensitivity, keep_shock_sensitivity},
        {"InputDevices", apply_input_devices, keep_input_devices},
        {"ProtectedDisks", apply_disks, keep_disks},
};

static const char *refusal_reason(const ConfigError *e)
{
        if (e->message)
                return e->message;
        if (e->error == -ENODEV && e->part == CONFIG_PART_DEVICE)
                return "there is no accelerometer";
        if (e->error == -ENODEV && e->part == CONFIG_PART_INPUT_DEVICES)
                return INPUT_DEVICES_UINPUT_PATH " could not be opened at start";
        return strerror(-e->error);
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
        context_changed(c, CHANGE_MASK(CHANGE_OVERSAMPLING_RATIO) | CHANGE_MASK(CHANGE_FILTER_ORDER));
}

/* After the EC's configuration was set: its own configuration read back, and polling re-rated for a new
 * SamplingRate (the timer, EffectiveRate; the poller set the backend's rate already). */
static void after_ec_config(Context *c, const Applied *a)
{
        if (a->ec && c->has_accelerometer)
                context_read_back_ec_config(c); /* what the EC now says (OversamplingRatio, FilterOrder) */
        if (a->rate)
                poller_update(&c->poller);
}

int context_apply_config(Context *c, StateConfig *next, ConfigApplyMode mode, ChangeMask *ret_changed,
                         ConfigError *ret_error)
{
        _cleanup_(config_error_done) ConfigError error = {};
        Applied applied = {.mode = mode};
        ChangeMask changed;
        size_t done = 0;
        bool saved = false;
        int r = 0;

        assert(c);
        assert(next);

        /* No rest position in next: the current one stays, in next's axes (the file gets it when it is
         * written next). */
        if (!next->has_rest && c->config.has_rest) {
                bool flip = next->invert != c->config.invert;
                next->has_rest = true;
                next->rest_x = flip ? -c->config.rest_x : c->config.rest_x;
                next->rest_y = flip ? -c->config.rest_y : c->config.rest_y;
        }

        if (mode == CONFIG_APPLY_CHANGE && config_changes(&c->config, next) != 0) {
                r = context_save_config(c, next);
                if (r < 0) {
                        refuse(&error, CONFIG_PART_SAVE, NULL, r, NULL);
                        goto fail;
                }
                saved = true;
        }

        for (done = 0; done < ELEMENTSOF(config_parts); done++) {
                const ConfigPartOps *p = &config_parts[done];

                r = p->apply(c, &c->config, next, &applied, &error);
                if (r >= 0)
                        continue;
                if (mode != CONFIG_APPLY_RELOAD && mode != CONFIG_APPLY_START)
                        goto undo;
                log_warning("%s: %s from the state file refused (%s), keeping the %s %s",
                            mode == CONFIG_APPLY_START ? "Start-up" : "Reload", error.setting,
                            refusal_reason(&error), mode == CONFIG_APPLY_START ? "default" : "old", p->what);
                config_error_done(&error);
                r = p->keep(next, &c->config);
                if (r < 0)
                        goto undo; /* -ENOMEM: the parts before this one are set back too */
        }

        changed = config_changes(&c->config, next);
        StateConfig old = c->config;
        c->config = *next;
        *next = (StateConfig) {};
        if (mode == CONFIG_APPLY_OWN && changed != 0)
                save_own(c);
        if ((changed & CHANGE_MASK(CHANGE_REST_POSITION)) && c->motion)
                motion_reset(c->motion);
        context_changed(c, changed);
        after_ec_config(c, &applied);
        if (changed & CHANGE_MASK(CHANGE_PROTECTED_DISKS))
                protection_state_changed(c); /* ProtectionState, and the demand for polling */
        poller_set_demand(&c->poller, DEMAND_INPUT_DEVICES, input_devices_enabled(c->input_devices));
        state_config_done(&old);
        if (ret_changed)
                *ret_changed = changed;
        return 0;

undo:
        /* The part that failed changed nothing; the ones before it are set back, last first. */
        for (size_t i = done; i-- > 0;) {
                int k = config_parts[i].apply(c, next, &c->config, &applied, NULL);
                if (k < 0)
                        log_error_errno(k,
                                        "Setting %s back failed, the device may not run the "
                                        "configuration shown: %m",
                                        config_parts[i].what);
        }
        if (saved)
                restore_state(c);
        after_ec_config(c, &applied);
fail:
        state_config_done(next);
        *next = (StateConfig) {};
        if (ret_error) {
                *ret_error = error;
                error = (ConfigError) {};
        }
        if (ret_changed)
                *ret_changed = 0;
        return r;
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

        r = context_apply_config(c, &next, CONFIG_APPLY_RELOAD, NULL, NULL);
        if (r < 0) {
                log_error_errno(r, "Reload failed: %m");
                return;
        }
        log_info("Reloaded the configuration from %s: %u Hz, oversampling %u, filter order %u, invert %d, "
                 "tilt step %g, shock sensitivity %g, input devices %d, %zu protected disk(s)",
                 c->state_path, c->config.sampling_rate, c->config.oversampling_ratio,
                 c->config.filter_order, c->config.invert, c->config.tilt_step, c->config.shock_sensitivity,
                 c->config.input_devices, strv_length(c->config.protected_disks));
}

void config_set_invert(StateConfig *config, bool invert)
{
        if (config->invert != invert && config->has_rest) {
                config->rest_x = -config->rest_x;
                config->rest_y = -config->rest_y;
        }
        config->invert = invert;
}

void context_check_rest(Context *c)
{
        _cleanup_(state_config_done) StateConfig next = {};
        const HdapsState *s;
        int r;

        if (!c->has_accelerometer)
                return;
        s = backend_get_state(c->backend);
        if (s->calibration_pending)
                return;
        if (c->config.has_rest && c->config.rest_x == s->rest_x && c->config.rest_y == s->rest_y) {
                c->calibration_requested = false;
                return;
        }

        /* A requested recalibration is a change like a setter's: saved first, or not made. The first
         * calibration after start (none saved yet) is kept in memory even when it cannot be saved. */
        bool requested = c->calibration_requested && c->config.has_rest;
        int x = s->rest_x, y = s->rest_y;
        c->calibration_requested = false;
        r = state_config_copy(&next, &c->config);
        if (r >= 0) {
                next.has_rest = true;
                next.rest_x = x;
                next.rest_y = y;
                r = context_apply_config(c, &next, requested ? CONFIG_APPLY_CHANGE : CONFIG_APPLY_OWN, NULL,
                                         NULL);
        }
        if (r < 0) {
                log_warning("Calibration not made (the state file cannot be written), the rest position "
                            "stays (%d, %d)",
                            c->config.rest_x, c->config.rest_y);
                backend_set_rest(c->backend, c->config.rest_x, c->config.rest_y);
                return;
        }
        log_info("Rest position is now (%d, %d)", x, y);
}

unsigned context_full_rate(const Context *c)
{
        return c->config.sampling_rate ?: HDAPS_DEFAULT_SAMPLING_RATE;
}
