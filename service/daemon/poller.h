/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Polling: a CLOCK_MONOTONIC timer that runs while something demands readouts (a demand mask set by
 * whoever needs them, see Demand) and the device is present, awake and working, at the highest rate a
 * demand needs (EffectiveRate). Each tick takes one readout and hands it to readout_process()
 * (readout.h); poll-path health (HardwareState, LastError, re-initialization with back-off) is kept
 * here. No demand: no timer at all. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

typedef struct Context Context;
typedef struct HdapsReadout HdapsReadout;

/* The poll rate a net.hadess.SensorProxy claim needs: an orientation change is taken after
 * ORIENTATION_DEBOUNCE_MS (250) of readouts agreeing; with a period P it is seen up to P late and
 * confirmed up to P after the debounce, so 2P <= 100 ms keeps it within the debounce plus 100 ms
 * (docs/ROTATION.md). */
#define SENSOR_PROXY_RATE_HZ 20

/* The poll rate a movement claim needs (ClaimMovement): the movement detector's median window
 * (MOVEMENT_MEDIAN_MS, 400 ms) holds 4 readouts, enough to ignore a knock, and a movement is seen
 * within a second of its start (docs/MOTION.md, "Movement"). */
#define MOVEMENT_RATE_HZ 10

/* Who needs readouts, and at what rate. Claims and the sensor proxy come from the D-Bus face; the
 * others from the core.
 *   DEMAND_CLAIM          Claim/ClaimAtRate: the claims' highest rate (poller_set_claim())
 *   DEMAND_SENSOR_PROXY   a net.hadess.SensorProxy accelerometer claim: SENSOR_PROXY_RATE_HZ
 *   DEMAND_PROTECTION     disk protection is armed: the full SamplingRate
 *   DEMAND_DIAGNOSIS      a Diagnose() run: the full SamplingRate
 *   DEMAND_INPUT_DEVICES  the hdaps input devices are enabled: the full SamplingRate
 *   DEMAND_MOVEMENT       a movement claim (ClaimMovement): MOVEMENT_RATE_HZ, and movement detection */
typedef enum Demand {
        DEMAND_CLAIM = 1u << 0,
        DEMAND_SENSOR_PROXY = 1u << 1,
        DEMAND_PROTECTION = 1u << 2,
        DEMAND_DIAGNOSIS = 1u << 3,
        DEMAND_INPUT_DEVICES = 1u << 4,
        DEMAND_MOVEMENT = 1u << 5,
} Demand;

/* poller_set_claim()'s rate for claims at the configured SamplingRate. */
#define POLLER_RATE_FULL UINT32_MAX

/* The poll path's view of the hardware (the HardwareState property). */
typedef enum HardwareState {
        HARDWARE_OK,      /* readouts arrive (or nobody polled yet) */
        HARDWARE_FAILING, /* the last poll ticks failed; polling goes on */
        HARDWARE_STOPPED, /* too many failures in a row: polling stopped, re-init with back-off */
} HardwareState;

/* Who follows each poll tick's readout from the backend (a diagnosis run, service/diagnose/): before()
 * runs right before backend_poll(), after() right after it with its result (r: its return; ro valid
 * when r == 0). Both run synchronously on the tick; either may be NULL. */
typedef struct PollHook {
        void (*before)(void *userdata);
        void (*after)(int r, const HdapsReadout *ro, void *userdata);
} PollHook;

typedef struct Poller {
        Context *context;
        unsigned demand;     /* Demand bits */
        unsigned claim_rate; /* the highest rate a claim asked for; POLLER_RATE_FULL: the configured */
        char *claimer;       /* who asked for it (the EffectiveRateReason) */

        unsigned poll_rate;     /* the EffectiveRate property: the poll timer's rate; 0: not polling */
        char *poll_rate_reason; /* the EffectiveRateReason property */
        /* EffectiveRateReasonCode (static): "unclaimed", "no-accelerometer", "suspended",
         * "hardware-stopped", "disk-protection", "diagnosis", "input-devices", "screen-rotation",
         * "claim", "claim-full-rate", "movement"; NULL: not computed yet ("unclaimed") */
        const char *poll_rate_reason_code;
        unsigned full_rate; /* the configured SamplingRate (poller_set_full_rate()): full-rate demands' */
        sd_event_source *poll_timer;
        sd_event_source *keep_stream; /* while polling: after each event loop iteration (a post source) */
        bool polling;                 /* the Claimed property */

        /* Health of the poll path */
        HardwareState hardware_state;
        char *last_error;              /* the LastError property; NULL: none yet */
        unsigned hard_errors;          /* consecutive poll ticks with a hard error */
        sd_event_source *reinit_timer; /* while stopped: the next re-init attempt */
        uint64_t reinit_delay_usec;    /* the back-off: 1 s doubling to 60 s */
        uint64_t busy_ticks;           /* ticks without a new readout (EC busy or not ready), ever */
        uint64_t busy_window_start_usec, busy_window_ticks, busy_window_busy;

        const PollHook *hook; /* NULL: none (poller_set_hook()) */
        void *hook_userdata;
} Poller;

/* An idle poller of c with the default SamplingRate as its full rate. */
void poller_init(Poller *p, Context *c);
/* Stops the timers and frees the strings. */
void poller_done(Poller *p);

/* Sets (on) or clears the demand bits d, then starts, stops or re-rates polling to match. */
void poller_set_demand(Poller *p, unsigned d, bool on);
/* The claims' highest rate (POLLER_RATE_FULL: the configured SamplingRate; 0: no claim, clears
 * DEMAND_CLAIM) and a claimer needing it (copied; for EffectiveRateReason). */
void poller_set_claim(Poller *p, unsigned rate, const char *claimer);
/* The device, suspend or the configuration changed (the core's own calls): starts, stops or re-rates
 * polling to match the demand. */
void poller_update(Poller *p);
/* The configured SamplingRate is now rate (config.c), the rate of the full-rate demands. The poller
 * alone sets the backend's sampling rate: to the rate in force this makes, when the backend does not
 * run that one already (one EC configuration command; none when the rate in force stays, e.g. below a
 * 20 Hz claim). Without an accelerometer it only keeps rate (the device is initialized with the
 * configuration). Returns 0, or the backend's negative errno with nothing changed. Re-arming the timer
 * and reporting EffectiveRate are poller_update()'s, after the configuration change was reported. */
int poller_set_full_rate(Poller *p, unsigned rate);
/* The device was initialized again (resume): the hardware state is ok again. */
void poller_hardware_reinitialized(Poller *p);
/* Stops polling and the re-init back-off (shutdown). */
void poller_stop(Poller *p);
const char *hardware_state_to_string(HardwareState s);
/* The HardwareState property, and the LastError property (NULL: none yet; owned by the poller). */
HardwareState poller_hardware_state(const Poller *p);
const char *poller_last_error(const Poller *p);
/* Sets the one hook of the poll ticks (hook borrowed and static; NULL: none), replacing any other. */
void poller_set_hook(Poller *p, const PollHook *hook, void *userdata);
