/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's one context: every piece of state tpacceld has, passed down to every handler as
 * userdata. No globals. The functions are spread over files by concern:
 *   context.c         lifetime, configuration load/apply/save, D-Bus connection setup
 *   bus-accelerometer.c  the org.thinkpad.Accelerometer object (properties, methods, signals)
 *   bus-ec.c          the org.thinkpad.EmbeddedController object and its fair request queue
 *   bus-polkit.c      the central method -> polkit action table and async CheckAuthorization
 *   claims.c          Claim/Release tracking with sd_bus_track
 *   poller.c          the polling timer and everything done per readout
 *   protection.c      disk protection: arming, parking, Pause()
 *   sleep.c           logind PrepareForSleep with a delay inhibitor
 *   bus-sensorproxy.c net.hadess.SensorProxy for desktops (screen-orientation.c, tablet-mode.c)
 *   backend-watch.c   the kernel hdaps driver appearing/disappearing: switches backends
 *   idle-exit.c       --exit-idle-time: exit when idle without an accelerometer */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "backend-watch.h"
#include "backend.h"
#include "bus-sensorproxy.h"
#include "disk-protect.h"
#include "idle-exit.h"
#include "macros.h"
#include "motion.h"
#include "state-file.h"
#include "strutil.h"
#include "time-util.h"

#define ACCEL_BUS_NAME    "org.thinkpad.Accelerometer"
#define ACCEL_OBJECT_PATH "/org/thinkpad/Accelerometer"
#define ACCEL_INTERFACE   "org.thinkpad.Accelerometer"
#define EC_OBJECT_PATH    "/org/thinkpad/EmbeddedController"
#define EC_INTERFACE      "org.thinkpad.EmbeddedController"

#define PAUSE_SECONDS_MAX 3600

typedef struct EcQueue EcQueue;
typedef struct Diagnosis Diagnosis;
typedef struct InputDevices InputDevices;
typedef struct PolkitPending PolkitPending;
typedef struct Claimer Claimer;

/* The poll path's view of the hardware (the HardwareState property). */
typedef enum HardwareState {
        HARDWARE_OK,      /* readouts arrive (or nobody polled yet) */
        HARDWARE_FAILING, /* the last poll ticks failed; polling goes on */
        HARDWARE_STOPPED, /* too many failures in a row: polling stopped, re-init with back-off */
} HardwareState;

typedef struct ContextOptions {
        bool session;           /* session bus: callers with our uid skip polkit */
        const char *address;    /* connect here instead of the default bus (tests) */
        const char *state_dir;  /* NULL: no persistence */
        const char *sysfs_root; /* for disk protection */

        SensorProxyMode sensor_proxy; /* whether to serve net.hadess.SensorProxy */
        const BackendOptions
                *backend_options; /* for re-choosing at run time (backend-watch.c); NULL: never */
        unsigned exit_idle_sec;   /* idle-exit.c; 0: never */
} ContextOptions;

typedef struct Context {
        sd_event *event;
        sd_bus *bus;
        bool session_bus;
        uid_t own_uid;

        Backend *backend; /* NULL: no accelerometer */
        char *backend_reason;
        bool has_accelerometer;
        Motion *motion;            /* NULL if it could not be created (logged) */
        DiskProtect *disk_protect; /* NULL if it could not be created (logged) */

        StateConfig config; /* what is applied and persisted */
        char *state_path;   /* NULL: do not persist */

        /* Polling */
        Claimer **claimers; /* claims.c: one per unique name holding claims */
        size_t n_claimers;
        unsigned poll_rate;     /* the EffectiveRate property: the poll timer's rate; 0: not polling */
        char *poll_rate_reason; /* the EffectiveRateReason property */
        unsigned backend_rate;  /* the sampling rate the backend (EC) is set to; 0: the configured */
        sd_event_source *poll_timer;
        bool polling; /* the Claimed property */
        bool last_keyboard, last_mouse;
        /* Health of the poll path (poller.c) */
        HardwareState hardware_state;
        char *last_error;              /* the LastError property; NULL: none yet */
        unsigned hard_errors;          /* consecutive poll ticks with a hard error */
        sd_event_source *reinit_timer; /* while stopped: the next re-init attempt */
        uint64_t reinit_delay_usec;    /* the back-off: 1 s doubling to 60 s */
        uint64_t busy_ticks;           /* ticks without a new readout (EC busy or not ready), ever */
        uint64_t busy_window_start_usec, busy_window_ticks, busy_window_busy;
        /* The EC's own configuration as last read back (0x17/0x82), for OversamplingRatio and
         * FilterOrder; ec_config_valid false: not read (yet), the configured values are shown. */
        bool ec_config_valid;
        unsigned ec_oversampling_ratio, ec_filter_order;

        /* Suspend */
        bool suspended;
        int sleep_lock_fd;
        bool logind_missing_warned;

        /* Disk protection */
        uint64_t paused_until_usec;
        sd_event_source *pause_timer;
        char *protection_state; /* last emitted ProtectionState, to detect changes */

        EcQueue *ec_queue;
        PolkitPending *polkit_pending; /* bus-polkit.c: authorizations in flight; NULL until the first */
        SensorProxy *sensor_proxy;     /* NULL: not serving net.hadess.SensorProxy */
        TabletMode *tablet_mode;       /* NULL: no tablet-mode switch (laptop mode) */
        sd_event_source *exit_source;
        bool shut_down;

        BackendWatch *backend_watch; /* the kernel hdaps driver coming and going; NULL: not watched */

        /* Diagnosis (diagnose.h) */
        const char *sysroot;   /* where DMI, /proc and /sys are read; NULL: "/" */
        PortLog *port_capture; /* borrowed, wraps the EC backend's port; NULL: no port log of a readout */
        Diagnosis *diagnosis;  /* the Diagnose() run in progress; NULL: none */

        InputDevices *input_devices; /* /dev/uinput opened at start (input-devices.h); NULL: none */
        IdleExit *idle_exit;         /* NULL: never exit when idle */
} Context;

int context_new(const ContextOptions *o, Backend *backend, const char *backend_reason, Context **ret);
Context *context_free(Context *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Context *, context_free);

/* Connects to the bus, exports the objects, subscribes to logind, then takes the name (last). */
int context_start_bus(Context *c, const ContextOptions *o);
/* On SIGTERM/SIGINT (an exit source runs it before the connection closes): stop polling, power off,
 * release the name. Idempotent. */
void context_shutdown(Context *c);

/* SIGHUP: reads the state file again and applies what changed (device settings, invert, rest position,
 * motion settings, input devices, protected disks), announcing each change. A file that cannot be read or
 * parsed changes nothing (a warning); a missing file means the defaults; a value the device or the disks
 * refuse keeps its old value (a warning). Never writes the file. */
void context_reload(Context *c);

/* Writes c->config to the state file (if any); failures are logged, not fatal (the daemon's own changes,
 * such as a finished calibration). */
void context_save_state(Context *c);
/* Writes next to the state file (if any), for a setter before it applies a change: on failure logs and
 * sets error to Error.NotSaved naming the file and why, and the caller changes nothing. Returns 0 or
 * -errno. */
int context_save_config(Context *c, const StateConfig *next, sd_bus_error *error);
/* After a saved change could not be applied: writes c->config (the old configuration) back. */
void context_restore_state(Context *c);
/* Initializes the device with the configuration (startup and after resume), then reads the EC's
 * configuration back. */
int context_init_device(Context *c);
/* Reads the EC's configuration back (0x17/0x82) into ec_oversampling_ratio/ec_filter_order, as the
 * seeds' attributes did; logs and emits the properties. Failures leave the configured values shown. */
void context_read_back_ec_config(Context *c);
/* Applies the configuration (invert, rest) to c->backend and initializes it; sets has_accelerometer, or
 * logs why not and extends backend_reason (startup, and backend-watch.c after a switch). */
void context_setup_device(Context *c);

/* bus-accelerometer.c */
int bus_accelerometer_register(Context *c);
/* Emits PropertiesChanged on the accelerometer object for the named properties (no-op without a bus). */
void bus_emit_changed_strv(Context *c, const char *const *properties);
#define bus_emit_changed(c, ...) bus_emit_changed_strv((c), (const char *const[]){__VA_ARGS__, NULL})

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

/* claims.c */
/* Records a claim of the message's sender at rate Hz (0: the configured SamplingRate, validated by the
 * caller), tracks the sender's name, updates the poller. */
int claims_add(Context *c, sd_bus_message *m, unsigned rate);
/* Drops the sender's most recent claim; 0 if the caller held none. */
int claims_remove(Context *c, sd_bus_message *m);
bool claims_any(const Context *c);
/* The highest rate any claim needs, capped at full_rate (which 0-rate claims mean); 0: no claim.
 * *ret_claimer (if not NULL) is set to a claimer needing it. */
unsigned claims_max_rate(const Context *c, unsigned full_rate, const char **ret_claimer);
void claims_free(Context *c);

/* poller.c */
/* Starts or stops the timer to match the wanted state (claimed or protection armed, device present,
 * awake); emits Claimed on change. */
void poller_update(Context *c);
/* After SetSamplingRate changed the backend's rate to the configured one: re-applies the rate in force
 * and re-arms the timer. */
void poller_rate_changed(Context *c);
/* After a readout or an on-demand update: picks up a finished calibration (persists RestPosition). */
void poller_check_rest(Context *c);
/* Refreshes Position/Temperature for readers when nobody polls (rate-limited by the device layer). */
void poller_refresh_on_demand(Context *c);
/* The device was initialized again (resume): the hardware state is ok again. */
void poller_hardware_reinitialized(Context *c);
/* Stops the re-init back-off (shutdown). */
void poller_stop_reinit(Context *c);
const char *hardware_state_to_string(HardwareState s);

/* protection.c */
bool protection_armed(const Context *c);
const char *protection_state(const Context *c);
/* Per readout: park while a shock is active, unpark after it. */
void protection_tick(Context *c, bool shock_active, uint64_t now);
/* Protects disks from now on (none: unparks); the caller persists them (SetProtectedDisks goes through
 * change_config()) and announces the change. A disk that cannot be protected: InvalidArgs, nothing
 * changes. */
int protection_set_disks(Context *c, char *const *disks, sd_bus_error *error);
int protection_pause(Context *c, unsigned seconds);
/* Unparks (shutdown, sleep). */
void protection_release(Context *c);
/* Emits ProtectionState if it changed since the last emission. */
void protection_state_changed(Context *c);

/* sleep.c */
int sleep_setup(Context *c);
