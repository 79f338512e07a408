/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The configuration (c->config and the state file) and the one path that changes it. Every change goes
 * through context_apply_config(): a D-Bus setter once the face has parsed, validated and authorized it,
 * SIGHUP's reload of the state file, the state file at start-up (a reload from the defaults), a
 * calibration a readout took. It persists (as the mode says),
 * applies to the device, motion processing, the input devices and disk protection in a fixed order,
 * undoes what it applied when a later part is refused (CONFIG_APPLY_CHANGE), then reports what changed
 * to the observer in one change mask and updates polling (rate, demands) and the EC read-back. The same
 * configuration change therefore gives the same device commands, properties and change masks whichever
 * way it came (tests/daemon/test-config.c). */

#include <stdbool.h>

#include "observer.h"
#include "state-file.h"

typedef struct Context Context;

typedef enum ConfigApplyMode {
        /* A change asked for (the setters, Calibrate's rest position): written to the state file first
         * and refused when it cannot be (nothing applied); a part that is refused fails the whole
         * change: what was applied is undone and the old file is written back. */
        CONFIG_APPLY_CHANGE,
        /* The state file read again (SIGHUP): never written; a part that is refused keeps its old value
         * (logged) and the others are applied. */
        CONFIG_APPLY_RELOAD,
        /* The daemon's own change (the first rest position a readout takes): applied, then written; a
         * file that cannot be written is logged and the change stays. */
        CONFIG_APPLY_OWN,
        /* Start-up (context_new()): the state file loaded, applied to the defaults as a reload is,
         * before the device is initialized. Never written; a part that is refused keeps its default
         * (logged). The device's settings are only taken: context_setup_device() initializes the device
         * with them next. InputDevices that cannot be made stay as the file says (logged; tried again
         * with each later change). */
        CONFIG_APPLY_START,
} ConfigApplyMode;

/* Which part of a change was refused. */
typedef enum ConfigPart {
        CONFIG_PART_NONE,
        CONFIG_PART_SAVE,          /* the state file could not be written */
        CONFIG_PART_DEVICE,        /* SamplingRate, OversamplingRatio, FilterOrder, Invert (the backend) */
        CONFIG_PART_MOTION,        /* TiltStep, ShockSensitivity (motion processing) */
        CONFIG_PART_INPUT_DEVICES, /* InputDevices (uinput) */
        CONFIG_PART_DISKS,         /* ProtectedDisks (disk protection) */
} ConfigPart;

/* Why context_apply_config() refused a change. */
typedef struct ConfigError {
        ConfigPart part;
        const char *setting; /* the property the refused value is of ("SamplingRate", ...; static) */
        int error;           /* negative errno: the backend's, motion's, uinput's, disk protection's, or the
                              * state file write's; -ENODEV without accelerometer, -EOPNOTSUPP without
                              * motion processing, disk protection or uinput */
        char *message;       /* why, when the part said (a disk that cannot be protected); NULL otherwise */
} ConfigError;

void config_error_done(ConfigError *e);

/* Makes next (taken: it becomes c->config on success and is freed otherwise) the configuration, as
 * mode says (see ConfigApplyMode). Parts, in this order, each only when its values differ from
 * c->config: the device's SamplingRate, OversamplingRatio and FilterOrder (one EC configuration command
 * per value that changes, in an order that keeps every intermediate SamplingRate x OversamplingRatio
 * within the EC's range), Invert and the rest position (next's rest position is in next's axes, as in
 * the state file; none in next keeps the current one, carried into the new axes), motion processing,
 * the input devices (tried again when they are not what an unchanged InputDevices says, e.g. their
 * creation failed at start; a failure of that is logged, it refuses nothing), the protected disks. The state
 * file is written only when the configuration changes. On success reports the change mask (*ret_changed, may
 * be NULL) to the observer at once, then re-rates polling and reads the EC's configuration back when a rate
 * or the filter order changed, updates the protection and input-device demands. Returns 0 or a negative
 * errno with *ret_error (may be NULL; release with config_error_done()) saying which part refused; then
 * nothing changed (CONFIG_APPLY_CHANGE). In CONFIG_APPLY_RELOAD and CONFIG_APPLY_START modes only
 * -ENOMEM fails. */
int context_apply_config(Context *c, StateConfig *next, ConfigApplyMode mode, ChangeMask *ret_changed,
                         ConfigError *ret_error);

/* Reads the EC's configuration back (0x17/0x82) into ec_oversampling_ratio/ec_filter_order, as the
 * 2006 patch series' attributes did; logs a difference from c->config and reports OversamplingRatio and
 * FilterOrder. Failures leave the configured values shown. After every change of the EC's configuration:
 * context_apply_config()'s, and context.c's (init, fake-data mode, a pending configuration taken). */
void context_read_back_ec_config(Context *c);

/* SIGHUP: reads the state file again and applies it (CONFIG_APPLY_RELOAD), logging what it applied. A
 * file that cannot be read or parsed changes nothing (a warning); a missing file means the defaults.
 * Never writes the file. */
void context_reload(Context *c);

/* Writes next to the state file (if any) without applying it (Calibrate's check that a change can be
 * saved). Returns 0 or a negative errno (logged); then the caller changes nothing. */
int context_save_config(Context *c, const StateConfig *next);

/* Sets config's Invert, carrying its rest position into the new axes (negating both axes negates the
 * rest position too), as SetInvert does. */
void config_set_invert(StateConfig *config, bool invert);

/* After a readout: takes a finished calibration of the backend as the rest position. One Calibrate
 * asked for is a change (CONFIG_APPLY_CHANGE): if the state file cannot be written, the backend gets the
 * old rest position back and nothing changes (logged). The first one after start is the daemon's own
 * (CONFIG_APPLY_OWN). */
void context_check_rest(Context *c);
/* The configured SamplingRate (the default when unset): the full rate of armed protection, a diagnosis,
 * the input devices and full-rate claims. */
unsigned context_full_rate(const Context *c);
