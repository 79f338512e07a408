/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The hdaps device layer: the accelerometer behind the EC (PATCH 02..12/12 of the 2006 patch series,
 * tp_smapi 0.43). Init and shutdown sequences, readouts into one cached state, deferred calibration, axis
 * orientation, and the configuration commands with the EC's return codes mapped to errno:
 *   -EINVAL  value out of range (checked here first, or EC return code 0x03)
 *   -EBUSY   EC busy / configuration change pending (0x06) / no readout yet
 *   -ENODEV  no accelerometer (mode latch 0, or check failed)
 *   -EOPNOTSUPP the EC answered "not implemented"
 *   -EIO     EC off protocol or another nonzero return code
 * Nothing here logs above debug level except hdaps_init(), which says why a device is refused.
 * Pointer arguments are never NULL (assert()ed) unless a function says otherwise; hdaps_free() takes
 * NULL. */

#include <stdbool.h>
#include <stdint.h>

#include "ec-protocol.h"
#include "ec.h"
#include "hdaps-models.h"

typedef struct HdapsConfig {
        unsigned sampling_rate;      /* readouts per second, HDAPS_SAMPLING_RATE_MIN..MAX */
        unsigned oversampling_ratio; /* EC samples per readout; EC rate = rate x ratio <= EC_RATE_MAX */
        unsigned filter_order;       /* EC running-average filter order, 1..8 */
        bool fake_data_mode;         /* EC answers an incrementing counter instead of data */
} HdapsConfig;

#define HDAPS_CONFIG_DEFAULT                                                                                \
        ((HdapsConfig) {                                                                                    \
                .sampling_rate = HDAPS_DEFAULT_SAMPLING_RATE,                                               \
                .oversampling_ratio = HDAPS_DEFAULT_OVERSAMPLING_RATIO,                                     \
                .filter_order = HDAPS_DEFAULT_FILTER_ORDER,                                                 \
        })

/* One 0x11 reply, parsed and axis-corrected. */
typedef struct HdapsReadout {
        uint64_t time_ns;       /* port-clock time of the read */
        int x, y;               /* latest readout */
        int temperature;        /* degrees C */
        unsigned readouts;      /* readouts in this reply: 1, or 2 when one was missed */
        int missed_x, missed_y; /* the older readout, valid when readouts >= 2 */
        unsigned queued;        /* readouts still queued in the EC after this reply */
        bool keyboard, mouse;   /* KMACT flags of this reply */
} HdapsReadout;

/* The cached device state that readers see. */
typedef struct HdapsState {
        int x, y;           /* latest axis-corrected position */
        int rest_x, rest_y; /* calibrated rest position */
        int temperature;
        bool keyboard_activity, mouse_activity; /* within HDAPS_ACTIVITY_REMEMBER_MS */
        uint64_t last_readout_ns, last_keyboard_ns, last_mouse_ns;
        uint64_t n_readouts; /* readouts seen, including missed ones */
        bool valid;          /* at least one readout since init */
        bool calibration_pending;
        uint8_t mode; /* EC mode latch seen at init */
} HdapsState;

typedef struct HdapsDevice HdapsDevice;

/* Creates a device on ec (borrowed; must outlive the device) with the axis code to use. Calibration is
 * armed here ("at load", PATCH 07/12 of the 2006 patch series) and by hdaps_calibrate(), never by
 * hdaps_init(). */
int hdaps_new(Ec *ec, unsigned axis_code, HdapsDevice **ret);
HdapsDevice *hdaps_free(HdapsDevice *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(HdapsDevice *, hdaps_free);

/* Init (also after resume), as tp_smapi 0.43: mode (must be nonzero), check, power on, rate/filter
 * configuration, invalidate, 200 us, then a prefetch of the first readout (no long wait); a failed
 * prefetch fails init. 0x17/0x83 is sent only if config->fake_data_mode is set, and its refusal is
 * logged, not fatal. Does not touch the calibration.
 * Two departures from 0.43 (docs/PROTOCOL.md, "Accelerometer commands"): an init that fails after the
 * power-on command sends 0x14 0 before it returns, so a failed init never leaves the accelerometer powered;
 * and a configuration the EC keeps "pending" (0x06 through the whole retry budget) does not fail init: the
 * device then polls with the configuration the EC reports (0x17/0x82; hdaps_get_config() shows it), logs
 * that once, and hdaps_poll() retries the wanted one every HDAPS_CONFIG_RETRY_INTERVAL_MS,
 * HDAPS_CONFIG_RETRIES times at most (hdaps_config_degraded() says whether that is the case). */
int hdaps_init(HdapsDevice *d, const HdapsConfig *config);

/* True while the device polls with the EC's own configuration because the EC kept the wanted one
 * pending at init (see hdaps_init()). */
bool hdaps_config_degraded(const HdapsDevice *d);
/* True while hdaps_config_degraded() and retries of the wanted configuration remain. */
bool hdaps_config_retrying(const HdapsDevice *d);
/* True when the last init found the EC answering "change pending" to every 0x10 of the budget: it then
 * either polls degraded, or the EC already ran the configuration asked for. */
bool hdaps_config_refused(const HdapsDevice *d);

/* Power off (0x14 0), then stop EC sampling (0x10 with 0, 1) if the power-off worked (tp_smapi 0.43).
 * Returns the first error; then, if ret_off is not NULL, *ret_off says whether the power-off itself worked
 * (true: only stopping EC sampling failed, e.g. a configuration change the EC keeps pending). */
int hdaps_power_off(HdapsDevice *d, bool *ret_off);

/* A configuration the EC kept pending at init is retried this often, this many times at most. */
#define HDAPS_CONFIG_RETRY_INTERVAL_MS 10000u
#define HDAPS_CONFIG_RETRIES           6u

/* The poll tick: reads the prefetched readout row once (the 2006 patch series' fast path, no retries; a
 * bounded full read only when the prefetch expired, rates below 10 Hz), then always prefetches the next one.
 * Updates the cache. Returns 0 with *ret filled, -EBUSY (no new readout this tick: EC not ready or
 * READOUTS 0; keep the cached values), or another negative errno: a hard error of the read, or of the
 * prefetch when nothing was read. While the configuration is degraded (hdaps_init()), a tick whose time
 * has come also sends the wanted configuration once, between the read and the prefetch. */
int hdaps_poll(HdapsDevice *d, HdapsReadout *ret);

/* Polling starts: requests the readout row afresh, so that the first tick, one period later, reads a
 * reply holding what the EC sampled until now. Without it the first tick finds the last prefetch
 * expired (polling was off for more than EC_PREFETCH_VALID_NS), reads synchronously and prefetches
 * right after: that reply, taken before the EC sampled again, says READOUTS 0 and the second tick
 * has no readout. Right after hdaps_init() it keeps init's own prefetch instead, when that is still
 * valid at the first tick (one period at the configured sampling rate): its reply holds what the EC
 * queued until init, and the EC, still making it (SWMF), would refuse a new request busy. No EC
 * access then. Returns 0 or the prefetch's error (the first tick then reads synchronously). */
int hdaps_start_polling(HdapsDevice *d);

/* Between two ticks (after an event loop iteration): when another transaction (a configuration change,
 * its read-back, a raw row read, the diagnosis) ended the poll path's prefetch, requests it afresh, as
 * hdaps_start_polling(), so that the next tick reads what the EC sampled since the last one instead of
 * reading synchronously and leaving the tick after it without a readout. Done once after a burst of
 * such transactions, not after each: a re-request right after one keeps a slow EC busy for the next.
 * No EC access otherwise. Returns 0 or the request's error. */
int hdaps_keep_prefetch(HdapsDevice *d);

/* On-demand refresh for readers when nobody polls: if the cache is younger than 0.9 / sampling_rate it
 * is kept; otherwise reads, retrying -EBUSY every HDAPS_READ_RETRY_MS for up to HDAPS_READ_TIMEOUT_MS. */
int hdaps_update(HdapsDevice *d);

/* Marks the cache stale (a poll tick or a configuration change does this). */
void hdaps_invalidate_cache(HdapsDevice *d);

const HdapsState *hdaps_get_state(const HdapsDevice *d);
const HdapsConfig *hdaps_get_config(const HdapsDevice *d);

/* Takes the next good readout as the rest position (deferred calibration, PATCH 07/12 of the 2006 patch
 * series). */
void hdaps_calibrate(HdapsDevice *d);
void hdaps_set_rest(HdapsDevice *d, int rest_x, int rest_y);

/* Axis orientation code 0..7 (tp_smapi 0.33 scheme, see hdaps-models.h). A change recalibrates. */
int hdaps_set_axis_code(HdapsDevice *d, unsigned code);
unsigned hdaps_get_axis_code(const HdapsDevice *d);

/* Configuration: validated here (-EINVAL naming nothing: callers know the ranges from
 * hdaps_config_validate()), then sent to the EC. On any error the old configuration stays. */
int hdaps_set_sampling_rate(HdapsDevice *d, unsigned rate);
int hdaps_set_oversampling_ratio(HdapsDevice *d, unsigned ratio);
int hdaps_set_filter_order(HdapsDevice *d, unsigned order);
int hdaps_set_fake_data_mode(HdapsDevice *d, bool on);

/* Asks the EC for its configuration (0x17/0x82). -ENXIO when polling is not enabled, -EBUSY when a
 * change is pending. */
int hdaps_get_ec_config(HdapsDevice *d, unsigned *ret_ec_rate, unsigned *ret_order);
/* The same, waiting out a pending change within the on-demand budget (every HDAPS_READ_RETRY_MS for
 * up to HDAPS_READ_TIMEOUT_MS): the read-back after a configuration change. */
int hdaps_read_back_ec_config(HdapsDevice *d, unsigned *ret_ec_rate, unsigned *ret_order);

/* Checks a configuration against the limits. On failure returns -EINVAL and, if ret_msg is not NULL,
 * a static message naming the field and its valid range. */
int hdaps_config_validate(const HdapsConfig *c, const char **ret_msg);
