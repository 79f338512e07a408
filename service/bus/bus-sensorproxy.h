/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* net.hadess.SensorProxy, iio-sensor-proxy's interface, as a second bus name of tpacceld, so that GNOME
 * (mutter) and KDE (KWin via QtSensors) rotate the screen of ThinkPad tablets with no change to the
 * desktop. The name has a bus connection of its own, so that the bus policy of either name never
 * applies to the other's objects. Objects /net/hadess/SensorProxy and /net/hadess/SensorProxy/Compass;
 * the accelerometer claims keep the same polling on as org.thinkpad.Accelerometer's Claim; the
 * orientation follows the tablet-mode switch (screen-orientation.h, tablet-mode.h, docs/ROTATION.md). */

#include <stdbool.h>
#include <stdint.h>

#include "macros.h"
#include "tablet-mode.h"

#define SENSOR_PROXY_BUS_NAME      "net.hadess.SensorProxy"
#define SENSOR_PROXY_OBJECT_PATH   "/net/hadess/SensorProxy"
#define SENSOR_PROXY_INTERFACE     "net.hadess.SensorProxy"
#define SENSOR_PROXY_COMPASS_PATH  "/net/hadess/SensorProxy/Compass"
#define SENSOR_PROXY_COMPASS_IFACE "net.hadess.SensorProxy.Compass"
/* Where iio-sensor-proxy is installed (upstream >= 3.5: libexecdir; Debian 12's 3.0: sbindir). */
#define IIO_SENSOR_PROXY_BINARIES "/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy"
/* A ClaimAccelerometer reply waits for the first readout, but never longer than this (suspended, EC
 * not answering): the client then sees the last known values. */
/* A claim polls at SENSOR_PROXY_RATE_HZ (poller.h). */
#define SENSOR_PROXY_CLAIM_REPLY_TIMEOUT_USEC (2 * USEC_PER_SEC)
/* Connections holding an accelerometer claim: each is a match rule (sd_bus_track) on the name's own
 * connection, which dbus-daemon closes past 512 (and with it the daemon). At most
 * SENSOR_PROXY_CLAIMERS_PER_UID_MAX of one user (but root; a desktop session needs one or two); the last
 * SENSOR_PROXY_CLAIMERS_RESERVED only for privileged callers (bus_uid_privileged(): root, the user of
 * seat0's active session, whose desktop rotates the screen); the excess gets LimitsExceeded naming the
 * bound. */
#define SENSOR_PROXY_CLAIMERS_MAX         64u
#define SENSOR_PROXY_CLAIMERS_RESERVED    16u
#define SENSOR_PROXY_CLAIMERS_PER_UID_MAX 8u

typedef enum SensorProxyMode {
        SENSOR_PROXY_AUTO, /* serve unless iio-sensor-proxy owns the name or is bus-activatable */
        SENSOR_PROXY_YES,  /* serve if the name is free */
        SENSOR_PROXY_NO,
        _SENSOR_PROXY_MODE_MAX,
} SensorProxyMode;

/* "auto", "yes", "no" -> mode; -EINVAL for anything else. */
int sensor_proxy_mode_from_string(const char *s);

typedef struct BusFace BusFace;
typedef struct SensorProxy SensorProxy;

/* After tpacceld's own name is taken: decides by mode whether to serve, watches f->context->tablet_mode
 * (NULL: laptop mode), opens a second connection to f->bus's bus on the core's event loop, exports the
 * objects there and requests the name without replacing anyone (allowing replacement by iio-sensor-proxy
 * --replace). Never fatal: every reason not to serve is logged once and tpacceld carries on without the
 * name. Returns 0, or -ENOMEM. */
int sensor_proxy_start(BusFace *f, SensorProxyMode mode);
/* Opens the tablet-mode switch in input_dir (NULL: /dev/input) before privileges are dropped and logs
 * what it found; *ret stays NULL without a switch (laptop mode). */
void sensor_proxy_open_tablet_mode(const char *input_dir, TabletMode **ret);
/* Releases the name and drops pending Claim calls (shutdown). Idempotent. */
void sensor_proxy_stop(BusFace *f);
SensorProxy *sensor_proxy_free(SensorProxy *p);

/* HasAccelerometer: an accelerometer and a tablet-mode switch (without one the screen never rotates). */
bool sensor_proxy_has_accelerometer(const BusFace *f);
/* Per readout, after motion processing: updates the screen orientation, emits PropertiesChanged, and
 * answers the Claim calls waiting for a readout. new_data false for a repeated readout. */
void sensor_proxy_readout(BusFace *f, uint64_t time_usec, bool new_data);
