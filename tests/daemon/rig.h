/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon core (service/daemon/) in-process, without D-Bus: a Context on the EC emulator, in
 * virtual time, with a recording observer in place of the D-Bus face.
 *
 * Virtual time: the rig's executable defines clock_gettime(), so every CLOCK_MONOTONIC (and
 * CLOCK_BOOTTIME) reading in the process - now_usec() in the core, and sd-event's own clock in libsystemd
 * - returns a clock that only rig_advance_ms() moves. sd-event dispatches a timer when its clock has
 * passed the timer's time, whatever the timerfd says, so rig_advance_ms() fires the core's timers (poll
 * ticks, the re-initialization back-off, the end of a pause, the idle exit) at their virtual times, in
 * order, on a grid of millisecond steps. It does not visit every step: it also interposes
 * timerfd_settime() and makes every timer exact (accuracy 1 us), so the timerfd sd-event arms holds the
 * earliest timer's time, and jumps to the step where that one is due: the same timers fire at the same
 * steps as when stepping every millisecond (RigOptions.step_every_ms, which test-rig.c compares), and
 * minutes of idle daemon time cost a few iterations. The emulator runs on its own virtual clock
 * (SimOptions virtual_time), moved along by the same steps. No production code knows about any of this.
 * rig_new() checks that the interposition works (a test cannot pass on the real clock).
 *
 * The recording observer keeps every change mask and event with its virtual time and a snapshot of
 * the state the tests look at, so a test asserts both what was reported and when. */

#include <stdbool.h>
#include <stdint.h>

#include "backend-choose.h"
#include "context.h"
#include "ec-sim.h"

typedef enum RigEventKind {
        RIG_CHANGED,      /* mask */
        RIG_HEADS_PARKED, /* parked */
        RIG_MOTION,       /* motion (one MOTION_EVENT_* bit in its mask) */
        RIG_SHUTDOWN,
} RigEventKind;

typedef struct RigEvent {
        RigEventKind kind;
        uint64_t usec; /* virtual CLOCK_MONOTONIC */
        ChangeMask mask;
        bool parked;
        MotionEvents motion;
        /* The state right after the event */
        unsigned readouts; /* readouts the observer saw so far (since rig_forget()) */
        HardwareState hardware_state;
        bool polling;
        unsigned poll_rate;
        const char *protection_state; /* a string literal (protection_state()) */
        MotionOrientation orientation;
        bool shock_active;
} RigEvent;

/* RigOptions.trace_text's file in the rig's directory (dir). */
#define RIG_TRACE_FILE "trace.csv"

typedef struct RigOptions {
        const char *trace;      /* the emulator's: in tests/traces/ or absolute; NULL: its demo motion */
        const char *trace_text; /* instead of trace: the trace's text, written to RIG_TRACE_FILE */
        const char *state;      /* the state file's text at start; NULL: no state file */
        bool no_accelerometer;  /* no backend at all */
        bool pending_at_start;  /* the emulator answers every 0x10 "change pending" from the start */
        bool warm_up_at_start;  /* ... has no readout for 1 s after each power-on (fault warm-up) */
        bool disks;             /* a fake sysfs with "sda" (rotational, fixed, unload_heads) */
        unsigned exit_idle_sec; /* ContextOptions.exit_idle_sec */
        /* --backend=kernel with the rig's directory as the sysroot: the backend watch runs and follows
         * rig_kernel_driver() (give no_accelerometer too: the driver is not loaded at start). */
        bool kernel_watch;
        bool step_every_ms; /* visit every millisecond step instead of jumping to the next timer */
} RigOptions;

typedef struct Rig {
        Context *c;
        PortIO *port;     /* the emulator behind c->backend (owned by it); NULL: no emulated backend */
        PortLog *capture; /* every emulated backend's port is wrapped with it (rig_capture_start()) */
        char dir[64];     /* state/ and sysfs/ */
        char state_dir[96], sysfs_root[96];
        BackendOptions backend_options; /* borrowed by the backend watch */
        RigEvent *events;
        size_t n_events, allocated;
        unsigned ticks, readouts, new_readouts;
        bool exited; /* the event loop was asked to exit (sd_event_exit()) and did */
        bool step_every_ms;
        uint64_t t0_usec; /* when the emulator started: its trace's time 0 */
} Rig;

/* Makes the context (context_new(), the recording observer, context_start()) as tpacceld's main() does.
 * Aborts on a setup failure (not a test result). */
Rig *rig_new(const RigOptions *o);
/* context_free() (the shutdown included), checks the emulator saw no protocol violation, removes the
 * files. */
void rig_free(Rig *r);

/* Now on the virtual CLOCK_MONOTONIC. */
uint64_t rig_now_usec(void);
/* Moves virtual time forward by ms, firing every timer that comes due, in order. Stops early once the
 * event loop exited (r->exited). */
void rig_advance_ms(Rig *r, uint64_t ms);
/* Advances until cond(r) holds, at most max_ms; returns the milliseconds it took, or -1. cond looks at
 * the rig's state, not at the clock: it is checked after each step at which something was due. */
long rig_advance_until(Rig *r, bool (*cond)(Rig *r), uint64_t max_ms);

/* Forgets what was recorded so far. */
void rig_forget(Rig *r);
/* The union of the change masks recorded since the last rig_forget(). */
ChangeMask rig_changed(const Rig *r);
static inline bool rig_changed_bit(const Rig *r, ChangeBit b)
{
        return rig_changed(r) & CHANGE_MASK(b);
}
/* The i-th recorded event that reported bit b (RIG_CHANGED with b in its mask), or NULL. */
const RigEvent *rig_change_nth(const Rig *r, ChangeBit b, size_t i);
size_t rig_change_count(const Rig *r, ChangeBit b);
/* The recorded motion events of kind (a MOTION_EVENT_* bit) and how many there are. */
size_t rig_motion_count(const Rig *r, unsigned kind);
const RigEvent *rig_motion_nth(const Rig *r, unsigned kind, size_t i);
/* How many heads_parked events with parked recorded. */
size_t rig_heads_parked_count(const Rig *r, bool parked);

/* What the D-Bus face does for a Claim/ClaimAtRate (rate, POLLER_RATE_FULL; 0: released). */
void rig_claim(Rig *r, unsigned rate, const char *claimer);
/* What SetProtectedDisks does once authorized (context_apply_config(), CONFIG_APPLY_CHANGE): disks
 * (NULL-terminated, NULL: none). Returns its errno. */
int rig_protect(Rig *r, char *const *disks);
/* Writes the state file (for a reload). */
void rig_write_state(Rig *r, const char *text);
/* The fake disk's unload_heads text, without the newline ("" when unreadable). */
const char *rig_unload_heads(Rig *r, char buf[static 32]);
/* The port accesses of the emulated backend between the two calls, one "dir,port,value" line each
 * after the header (the port log without its time column); rig_capture_stop()'s text is to be freed. */
void rig_capture_start(Rig *r);
char *rig_capture_stop(Rig *r);
/* Opens another emulated backend (for context_switch_backend()) on trace (a file in tests/traces/ or an
 * absolute path; NULL: the demo motion); the rig follows it from then on. */
Backend *rig_open_sim_backend(Rig *r, const char *trace);
/* Loads the fake kernel hdaps driver below the rig's sysroot (its sysfs device, in the flavour's
 * attribute set, tests/lib/fake_hdaps.py), or unloads it (KERNEL_DRIVER_NONE). */
void rig_kernel_driver(Rig *r, KernelDriverFlavour flavour);
/* context_switch_backend() to b (from rig_open_sim_backend(); NULL: none). */
void rig_switch_backend(Rig *r, Backend *b, const char *reason);
EcSimStatus rig_sim_status(Rig *r);
/* Turns the emulator's fault injection on (kind, always) or off (n 0). */
void rig_sim_fault(Rig *r, SimFaultKind kind, bool on);
