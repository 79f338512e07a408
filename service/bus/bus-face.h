/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The D-Bus face of tpacceld: everything the daemon shows on the bus, over the core (service/daemon/)
 * that knows nothing of D-Bus. The face is the core's one observer: it turns change bits into
 * PropertiesChanged through one table (bus-face.c) and core events into signals; nothing else emits.
 * Its files:
 *   bus-face.c           the connection, the observer, the change table, every signal of the object
 *   bus-accelerometer.c  the org.thinkpad.Accelerometer object (properties, methods)
 *   bus-stream.c         AcquireStream()'s sample streams and the Sample signal's subscriptions
 *   bus-ec.c             the org.thinkpad.EmbeddedController object and its fair request queue
 *   bus-polkit.c         the central method -> polkit action table and async CheckAuthorization
 *   bus-creds.c          who sent a call: the senders' uids, asked of the bus asynchronously
 *   bus-method.c         what the handlers share: the accelerometer a method needs, saving a change
 *   bus-errors.c         the D-Bus errors and errno mapping
 *   bus-bounds.c         a filter bounding what sd-bus echoes of a caller's arguments by itself
 *   bus-pump.c           the connections driven from the loop under a budget of CPU time
 *   claims.c             Claim/Release and the streams' claims, bounded, one match for leaving clients
 *   diagnose-bus.c       Diagnose(): the callers waiting for a run
 *   bus-logind.c         logind's PrepareForSleep with a delay inhibitor (suspend.h does the work)
 *   bus-sensorproxy.c    net.hadess.SensorProxy for desktops
 * Each file has its own header with its contracts (this one: bus-face.c's). The face's state is a
 * BusFace, allocated and freed here: the core observer's userdata, and that of the objects and of every
 * callback that needs more than its own item (a stream, a polkit question). The core's Context
 * (face->context) holds no D-Bus state. */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "bus-pump.h"
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

typedef struct Diagnosis Diagnosis;
typedef struct EcQueue EcQueue;
typedef struct PolkitPending PolkitPending;
typedef struct BusCreds BusCreds;
typedef struct Claims Claims;
typedef struct BusStreams BusStreams;
typedef struct DiagnoseCalls DiagnoseCalls;
typedef struct BusLogind BusLogind;

/* The face's state, which the core never sees. Each file's part is set, used and freed by that file's
 * functions (bus_face_free() calls them). */
typedef struct BusFace {
        Context *context; /* borrowed: the core the face shows; outlives the face */
        sd_bus *bus;
        BusPump *pump;        /* bus-pump.c: drives bus from the loop */
        BusBudget bus_budget; /* bus-pump.c: the CPU time every connection's bus work may take */
        bool session_bus;
        uid_t own_uid;
        sd_event_source *exit_source;  /* bus-face.c: the core's shutdown when the loop is asked to exit */
        EcQueue *ec_queue;             /* bus-ec.c: the EmbeddedController's fair request queue */
        PolkitPending *polkit_pending; /* bus-polkit.c: authorizations in flight; NULL until the first */
        BusCreds *creds;               /* bus-creds.c: the senders' uids; NULL until the first call */
        Claims *claims;                /* claims.c: claimers and stream owners; NULL until started */
        BusStreams *streams;           /* bus-stream.c: AcquireStream()'s streams */
        SensorProxy *sensor_proxy;     /* bus-sensorproxy.c; NULL: not serving net.hadess.SensorProxy */
        Diagnosis *diagnosis;          /* diagnose-bus.c: the Diagnose() run in progress; NULL: none */
        DiagnoseCalls *diagnose_calls; /* diagnose-bus.c: the callers waiting for the diagnosis */
        BusLogind *logind;             /* bus-logind.c: PrepareForSleep and the inhibitor */
} BusFace;

/* bus-face.c */
/* Allocates the face of c (borrowed; it must outlive the face) and makes it c's observer. Nothing is on
 * the bus yet. Returns 0 or -ENOMEM (logged). */
int bus_face_new(Context *c, BusFace **ret);
/* Connects to the bus, exports the objects, subscribes to logind, starts the core (context_start(co)),
 * then takes the name (last) and the sensor proxy's. Returns 0 or a negative errno (logged); on failure
 * the caller still frees the face with bus_face_free(). */
int bus_start(BusFace *f, const BusOptions *o, const ContextOptions *co);
/* Shuts the core down (context_shutdown(), which releases the names through the observer), frees the
 * face's state, closes the connection and stops observing the core, which the caller frees after. Every
 * way out of the daemon goes through it. */
BusFace *bus_face_free(BusFace *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusFace *, bus_face_free);
/* The property a change bit stands for, and in *ret_alias (if not NULL) the second property sent with
 * it or NULL; NULL for a bit out of range. tests/bus/test-change-table.c checks the table against the
 * vtable's EMITS_CHANGE properties. */
const char *bus_change_property(ChangeBit bit, const char **ret_alias);
/* Emits PropertiesChanged on the accelerometer object for the properties of mask (no-op without a bus). */
void bus_emit_changes(BusFace *f, ChangeMask mask);
