/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* How the daemon core tells its one observer (the D-Bus face, service/bus/bus-face.c) what happened:
 * a typed mask of what changed, and events. The core never emits anything itself; the observer turns
 * change bits into PropertiesChanged (one table, bus-face.c) and events into signals. Every callback
 * may be NULL; all of them run synchronously, from the core's own call. */

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "motion.h"

typedef struct Context Context;

/* One bit per observable property of the accelerometer, in the order of the D-Bus vtable (the unit test
 * tests/bus/test-change-table.c checks the order and the table of names in service/bus/bus-face.c). */
typedef enum ChangeBit {
        CHANGE_HAS_ACCELEROMETER,
        CHANGE_BACKEND,
        CHANGE_BACKEND_REASON,
        CHANGE_HARDWARE_STATE,
        CHANGE_LAST_ERROR,
        CHANGE_AXIS_CODE,
        CHANGE_REST_POSITION,
        CHANGE_KEYBOARD_ACTIVITY,
        CHANGE_MOUSE_ACTIVITY,
        CHANGE_SAMPLING_RATE,
        CHANGE_OVERSAMPLING_RATIO,
        CHANGE_FILTER_ORDER,
        CHANGE_FAKE_DATA_MODE,
        CHANGE_INVERT,
        CHANGE_INPUT_DEVICES,
        CHANGE_POLLING, /* Polling (and Claimed, its deprecated alias) */
        CHANGE_EFFECTIVE_RATE,
        CHANGE_EFFECTIVE_RATE_REASON,
        CHANGE_SUSPENDED,
        CHANGE_PITCH,
        CHANGE_ROLL,
        CHANGE_ORIENTATION,
        CHANGE_TILT_STEP,
        CHANGE_SHOCK_SENSITIVITY,
        CHANGE_SHOCK_ACTIVE,
        CHANGE_SHOCK_COUNT,
        CHANGE_LAST_SHOCK,
        CHANGE_PROTECTED_DISKS,
        CHANGE_PARKED,
        CHANGE_PARK_COUNT,
        CHANGE_PROTECTION_STATE,
        CHANGE_PAUSED_UNTIL,
        CHANGE_MOVEMENT_WATCHED,
        CHANGE_MOVING,
        CHANGE_MOVE_COUNT,
        _CHANGE_BIT_MAX,
} ChangeBit;

typedef uint64_t ChangeMask;
#define CHANGE_MASK(bit) ((ChangeMask) 1 << (bit))

/* One readout as the poller took it, once motion processing has seen it. */
typedef struct ReadoutEvent {
        uint64_t time_usec; /* CLOCK_MONOTONIC */
        const HdapsReadout *readout;
        bool shock_active; /* ShockActive after this readout */
} ReadoutEvent;

typedef struct ContextObserver {
        /* Properties changed: mask is a set of CHANGE_MASK() bits, never 0. */
        void (*changed)(Context *c, ChangeMask mask, void *userdata);
        /* A readout went through calibration and motion (its events already reported), before disk
         * protection sees it. */
        void (*readout)(Context *c, const ReadoutEvent *e, void *userdata);
        /* Motion processing of a readout reported events (tilt step, shock, movement; MotionEvents.mask
         * != 0). */
        void (*motion)(Context *c, const MotionEvents *ev, void *userdata);
        /* A readout went through motion processing: the motion state is that of time_usec (new_data
         * false for a repeated readout). */
        void (*processed)(Context *c, uint64_t time_usec, bool new_data, void *userdata);
        /* Disk protection parked (again) or unparked the heads of disks. */
        void (*heads_parked)(Context *c, char *const *disks, bool parked, void *userdata);
        /* A poll tick is done (a diagnosis in progress may be complete). */
        void (*tick)(Context *c, void *userdata);
        /* context_shutdown() did the core's part (polling stopped, heads unparked, powered off). */
        void (*shutdown)(Context *c, void *userdata);
} ContextObserver;

/* observer.c: every concern reports through these, so that none of them needs context.c for it. */
/* Makes o (NULL: none) with userdata the one observer of c. */
void context_set_observer(Context *c, const ContextObserver *o, void *userdata);
/* Reports mask (CHANGE_MASK() bits) to the observer; nothing when mask is 0 or there is none. */
void context_changed(Context *c, ChangeMask mask);
