/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's one context: every piece of state tpacceld has, passed down to every handler as
 * userdata. No globals. The core (this folder, no D-Bus in it) spreads its functions over files by
 * concern, each with its own struct where it has state:
 *   context.c         lifetime, the configuration loaded at start, the device
 *   observer.c        the one observer: what every concern reports (context_changed())
 *   config.c          the one path that changes the configuration (setters, reload, a rest position)
 *                     and the EC's configuration read back
 *   device.c          initializing the accelerometer with a configuration (also used by --dump)
 *   poller.c          Poller: the polling timer, its demand mask and the poll path's health
 *   readout.c         the one path of a readout: calibration, activity, motion, observer, protection;
 *                     the on-demand readout and Calibrate
 *   protection.c      Protection: disk protection, arming, parking, Pause()
 *   suspend.c         Suspend: what to do before sleep and after resume
 *   backend-watch.c   BackendWatch: the kernel hdaps driver appearing/disappearing
 *   idle-exit.c       IdleExit: --exit-idle-time, exit when idle without an accelerometer
 * What changed is reported through one observer (observer.h): the D-Bus face (service/bus/) turns it
 * into properties and signals. The concerns' headers declare Context forward and never include this
 * one, so the includes inside the folder form no cycle either. The face keeps its own state in its own
 * struct (BusFace, service/bus/bus-face.h), the observer's userdata: nothing here is D-Bus. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "backend-watch.h"
#include "backend.h"
#include "config.h"
#include "disk-protect.h"
#include "idle-exit.h"
#include "macros.h"
#include "motion.h"
#include "observer.h"
#include "poller.h"
#include "protection.h"
#include "state-file.h"
#include "strutil.h"
#include "suspend.h"
#include "tablet-mode.h"
#include "time-util.h"

typedef struct InputDevices InputDevices;

/* What the core is set up with (context_new()). Pointers are borrowed unless said otherwise. */
typedef struct ContextOptions {
        const char *state_dir;  /* NULL: no persistence */
        const char *sysfs_root; /* for disk protection; NULL: /sys */
        const char *sysroot;    /* where DMI, /proc and /sys are read (diagnosis); NULL: "/" */
        const BackendOptions
                *backend_options;    /* for re-choosing at run time (backend-watch.c); NULL: never */
        unsigned exit_idle_sec;      /* idle-exit.c; 0: never */
        PortLog *port_capture;       /* wraps the EC backend's port: the port log of a diagnosis readout */
        TabletMode *tablet_mode;     /* taken; NULL: no tablet-mode switch (laptop mode) */
        InputDevices *input_devices; /* taken; NULL: /dev/uinput could not be opened */
        int input_devices_error;     /* why not: the negative errno of opening /dev/uinput; 0: not tried */
} ContextOptions;

typedef struct Context {
        sd_event *event;

        Backend *backend; /* NULL: no accelerometer */
        /* Why this backend (backend-choose.h), and why it has no accelerometer when it has none. */
        char *backend_why;
        /* The backend's init_note in force (a configuration the EC keeps pending); NULL: none. A poll
         * tick compares it with the backend's (context_follow_backend_note()). */
        const char *backend_note;
        /* What BackendReason says: backend_why, then "; " and backend_note when there is one. */
        char *backend_reason;
        bool has_accelerometer;
        Motion *motion;            /* NULL if it could not be created (logged) */
        DiskProtect *disk_protect; /* NULL if it could not be created (logged) */

        StateConfig config;         /* what is applied and persisted (config.h) */
        char *state_path;           /* NULL: do not persist */
        bool calibration_requested; /* context_calibrate() ran; context_check_rest() saves it first */
        /* A calibration an on-demand readout for a reader finished: taken right after (readout_refresh()) */
        sd_event_source *rest_check;

        /* The EC's own configuration as last read back (0x17/0x82), for OversamplingRatio and
         * FilterOrder; ec_config_valid false: not read (yet), the configured values are shown. */
        bool ec_config_valid;
        unsigned ec_oversampling_ratio, ec_filter_order;
        bool last_keyboard, last_mouse; /* activity as last reported */

        Poller poller;
        Protection protection;
        Suspend suspend;
        BackendWatch *backend_watch; /* the kernel hdaps driver coming and going; NULL: not watched */
        IdleExit *idle_exit;         /* NULL: never exit when idle */
        bool shut_down;

        const ContextObserver *observer; /* NULL: nobody listens (--diagnose) */
        void *observer_userdata;

        /* For a diagnosis (service/diagnose/), which the core never calls */
        const char *sysroot;   /* where DMI, /proc and /sys are read; NULL: "/" */
        PortLog *port_capture; /* borrowed, wraps the EC backend's port; NULL: no port log of a readout */

        InputDevices *input_devices; /* /dev/uinput opened at start (input-devices.h); NULL: none */
        int input_devices_error;     /* NULL input_devices: opening /dev/uinput failed so; 0: not tried */
        TabletMode *tablet_mode;     /* NULL: no tablet-mode switch (laptop mode) */
} Context;

/* Sets up the event loop, makes motion processing and disk protection with the defaults, applies the
 * state file to them through context_apply_config() as a reload from the defaults (CONFIG_APPLY_START),
 * then initializes the backend (taken, NULL: none) with the result. Returns 0 or a negative errno
 * (logged). */
int context_new(const ContextOptions *o, Backend *backend, const char *backend_reason, Context **ret);
Context *context_free(Context *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Context *, context_free);

/* Starts what runs on the event loop: polling if anything demands it already (disk protection from the
 * state file), the backend watch (o->backend_options) and the idle exit. Returns 0 or a negative errno
 * (logged). */
int context_start(Context *c, const ContextOptions *o);
/* On SIGTERM/SIGINT: stop polling, unpark, power off, then the observer's shutdown. Idempotent. */
void context_shutdown(Context *c);

/* Initializes the device with the configuration (after resume and re-initialization), then reads the
 * EC's configuration back and, when there is no rest position yet, takes one from an on-demand readout
 * (failures logged; the first later readout takes it then). */
int context_init_device(Context *c);
/* SetFakeDataMode: switches the EC's fake-data mode (0x17/0x83: a counter instead of readouts; a self-test
 * switch, not part of the configuration: never saved, kept by a re-initialization). Reports FakeDataMode
 * when it changed, then reads the EC's configuration back (context_read_back_ec_config()). Returns 0,
 * -ENODEV without an accelerometer, or the backend's negative errno; then nothing changed. */
int context_set_fake_data_mode(Context *c, bool on);
/* When the backend's init_note is no longer the one backend_reason ends with (a configuration the EC
 * kept pending at init was taken at a later retry, hdaps_poll()): makes backend_reason end with the
 * current note instead, logs it, reads the EC's configuration back (context_read_back_ec_config()) and
 * reports BackendReason (and OversamplingRatio, FilterOrder). No-op otherwise; called after each tick. */
void context_follow_backend_note(Context *c);
/* Applies the configuration (invert, rest) to c->backend and initializes it; sets has_accelerometer, or
 * logs why not and extends backend_reason (startup, and backend-watch.c after a switch). Without a saved
 * rest position, one on-demand readout right after init takes it (docs/PROTOCOL.md, "The first rest
 * position is read at init"). */
void context_setup_device(Context *c);
/* Replaces the backend (NULL: none) with reason (taken), initializes it with the configuration and
 * restarts polling for existing demands. Reports HasAccelerometer, Backend, BackendReason, AxisCode. */
void context_switch_backend(Context *c, Backend *backend, char *reason);
