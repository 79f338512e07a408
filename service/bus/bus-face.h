/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The D-Bus face of tpacceld: everything the daemon shows on the bus, over the core (service/daemon/)
 * that knows nothing of D-Bus. The face is the core's one observer: it turns change bits into
 * PropertiesChanged through one table (bus-face.c) and core events into signals; nothing else emits.
 * Its files:
 *   bus-face.c           the connection, the observer, the change table, every signal of the object
 *   bus-accelerometer.c  the org.thinkpad.Accelerometer object (properties, methods)
 *   bus-ec.c             the org.thinkpad.EmbeddedController object and its fair request queue
 *   bus-polkit.c         the central method -> polkit action table and async CheckAuthorization
 *   bus-errors.c         the D-Bus errors and errno mapping
 *   bus-bounds.c         a filter bounding what sd-bus echoes of a caller's arguments by itself
 *   claims.c             Claim/Release and the streams' claims, bounded, one match for leaving clients
 *   diagnose-bus.c       Diagnose(): the callers waiting for a run
 *   bus-logind.c         logind's PrepareForSleep with a delay inhibitor (suspend.h does the work)
 *   bus-sensorproxy.c    net.hadess.SensorProxy for desktops
 * The handlers get the core's Context as userdata; the face's own state is in its last fields. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "bus-sensorproxy.h"
#include "context.h"

#define ACCEL_BUS_NAME    "org.thinkpad.Accelerometer"
#define ACCEL_OBJECT_PATH "/org/thinkpad/Accelerometer"
#define ACCEL_INTERFACE   "org.thinkpad.Accelerometer"
#define EC_OBJECT_PATH    "/org/thinkpad/EmbeddedController"
#define EC_INTERFACE      "org.thinkpad.EmbeddedController"

typedef struct BusOptions {
        bool session;                 /* session bus: callers with our uid skip polkit */
        const char *address;          /* connect here instead of the default bus (tests) */
        SensorProxyMode sensor_proxy; /* whether to serve net.hadess.SensorProxy */
} BusOptions;

/* bus-face.c */
/* Becomes c's observer, connects to the bus, exports the objects, subscribes to logind, starts the core
 * (context_start(co)), then takes the name (last) and the sensor proxy's. Returns 0 or a negative errno
 * (logged). */
int bus_start(Context *c, const BusOptions *o, const ContextOptions *co);
/* Shuts the core down (context_shutdown(), which releases the names through the observer), frees the
 * face's state and closes the connection, then frees c. Every way out of the daemon goes through it. */
Context *bus_context_free(Context *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Context *, bus_context_free);
/* Emits PropertiesChanged on the accelerometer object for the properties of mask (no-op without a bus). */
void bus_emit_changes(Context *c, ChangeMask mask);
/* Writes next to the state file for a setter before it applies a change: on failure sets error to
 * Error.NotSaved naming the file and why, and the caller changes nothing. Returns 0 or -errno. */
int bus_save_config(Context *c, const StateConfig *next, sd_bus_error *error);

/* bus-bounds.c: refuses method calls with an object path, or a Properties call with an interface or
 * property name, longer than 255 characters (InvalidArgs/UnknownObject quoting 16), before sd-bus
 * would echo it whole. Returns 0 or a negative errno (logged). */
int bus_bounds_register(Context *c);

/* bus-accelerometer.c */
int bus_accelerometer_register(Context *c);

/* bus-ec.c */
int bus_ec_register(Context *c);
EcQueue *ec_queue_free(EcQueue *q);

/* bus-polkit.c */
PolkitPending *polkit_pending_free(PolkitPending *p);

/* bus-errors.c: maps a negative errno from the backend to a D-Bus error. what names the operation. */
int bus_error_from_errno(sd_bus_error *error, int r, const char *what);
/* The same for a backend's answer: -EOPNOTSUPP carries the backend's unsupported_reason when it has one. */
int bus_error_from_backend(sd_bus_error *error, Backend *b, int r, const char *what);
int bus_errors_register(void);

/* claims.c (the model and its bounds: claims.c's head comment). Refusals are LimitsExceeded naming the
 * bound; the last CLAIMS_RESERVED of CLAIMS_MAX are kept for privileged callers (root, the daemon's uid,
 * the user of seat0's active session). The same scheme bounds the streams (bus-stream.h, STREAMS_*). */
#define CLAIMS_PER_CONNECTION_MAX 16u  /* Claim/ClaimAtRate claims one connection holds */
#define CLAIMS_PER_UID_MAX        32u  /* ... all connections of one user hold */
#define CLAIMS_MAX                256u /* ... everyone holds */
#define CLAIMS_RESERVED           64u  /* ... of which only privileged callers may hold the last ones */
/* Watches clients leaving the bus (one NameOwnerChanged match, for every claimer and stream); before
 * the name is taken. Returns 0 or a negative errno (logged). */
int claims_start(Context *c);
/* Records a claim of the message's sender at rate Hz (0: the configured SamplingRate, validated by the
 * caller) and updates the poller's claim; or sets error (LimitsExceeded naming the bound) and returns a
 * negative errno. */
int claims_add(Context *c, sd_bus_message *m, unsigned rate, sd_bus_error *error);
/* Records a claim of the sender's new sample stream (bus-stream.c) at the configured SamplingRate after
 * the STREAMS_* bounds, *ret_uid the sender's uid; or sets error as claims_add(). Release does not drop
 * it; claims_remove_stream() does (a no-op once the sender left the bus: its claims went with it). */
int claims_add_stream(Context *c, sd_bus_message *m, uid_t *ret_uid, sd_bus_error *error);
void claims_remove_stream(Context *c, const char *sender);
/* Drops the sender's most recent claim made by Claim or ClaimAtRate; 0 if the caller held none. */
int claims_remove(Context *c, sd_bus_message *m);
void claims_free(Context *c);
/* Whether uid may use the reserves (claims, streams, sensor-proxy claims): root, the daemon's own uid,
 * the user of seat0's active session (logind; nobody without it). */
bool bus_uid_privileged(const Context *c, uid_t uid);

/* diagnose-bus.c */
/* The Diagnose(s) -> s method handler (in the vtable of bus-accelerometer.c). */
int method_diagnose(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* After each poll tick: replies to the callers when the run is complete. */
void diagnose_bus_tick(Context *c);
DiagnoseCalls *diagnose_calls_free(DiagnoseCalls *w);

/* bus-logind.c */
/* Subscribes to PrepareForSleep and takes a delay inhibitor (without logind: one warning). */
int bus_logind_start(Context *c);
BusLogind *bus_logind_free(BusLogind *l);
