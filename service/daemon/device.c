/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accelerometer and its configuration (see device.h). */

#include <errno.h>
#include <string.h>

#include "device.h"
#include "log.h"
#include "strv.h"

void device_load_config(const char *path, StateConfig *config)
{
        _cleanup_strv_free_ char **warnings = NULL;
        _cleanup_free_ char *error = NULL;
        StateConfig loaded;
        int r;

        r = state_config_remove_stale(path);
        if (r > 0)
                log_info("Removed %d temporary file(s) of an interrupted state file write", r);
        r = state_config_load(path, &loaded, &warnings, &error);
        for (char **w = warnings; w && *w; w++)
                log_warning("%s", *w);
        if (r == -ENOENT) {
                log_debug("No state file %s yet, using the defaults", path);
                return;
        }
        if (r < 0) {
                log_warning("Ignoring the state file, using the defaults: %s", error ? error : strerror(-r));
                return;
        }
        state_config_done(config);
        *config = loaded;
        log_debug("Configuration loaded from %s", path);
}

int device_init(Backend *b, const StateConfig *config)
{
        HdapsConfig hc = {
                .sampling_rate = config->sampling_rate,
                .oversampling_ratio = config->oversampling_ratio,
                .filter_order = config->filter_order,
                .fake_data_mode = backend_get_config(b)->fake_data_mode,
        };

        return backend_init(b, &hc);
}

int device_setup(Backend *b, const StateConfig *config)
{
        int r;

        r = backend_set_invert(b, config->invert);
        if (r < 0)
                log_warning_errno(r, "Cannot apply invert=%d from the state file, ignoring: %m",
                                  config->invert);
        if (config->has_rest)
                backend_set_rest(b, config->rest_x, config->rest_y);
        return device_init(b, config);
}

void device_power_off(Backend *b, bool initialized)
{
        char state[160];
        int r;

        if (!b)
                return;
        if (initialized) {
                bool off;
                r = backend_power_off(b, &off);
                backend_describe_power(b, state, sizeof(state));
                if (r < 0 && off)
                        log_warning_errno(r,
                                          "accelerometer powered off, but stopping EC sampling (0x10 0 1) "
                                          "failed (%s): %m",
                                          state);
                else if (r < 0)
                        log_warning_errno(r, "Failed to power the accelerometer off (%s): %m", state);
                else
                        log_info("accelerometer powered off (%s)", state);
        }
        backend_describe_power(b, state, sizeof(state));
        log_info("At exit: %s", state);
}
