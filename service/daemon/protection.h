/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Disk protection, the daemon side: arming (protected disks set and not paused) demands polling
 * (DEMAND_PROTECTION), a shock parks the heads (re-armed while it lasts, see disk-protect.h), quiet
 * unparks them, and Pause() suspends all of it for a while. Changes are reported to the observer
 * (ProtectedDisks, Parked, ParkCount, ProtectionState, PausedUntil; the heads_parked event). */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

typedef struct Context Context;

#define PAUSE_SECONDS_MAX 3600

typedef struct Protection {
        uint64_t paused_until_usec; /* the PausedUntil property; 0: not paused */
        sd_event_source *pause_timer;
        const char *last_state; /* the ProtectionState last reported, to report changes only */
} Protection;

void protection_done(Protection *p);

bool protection_armed(const Context *c);
/* "off", "paused", "parked" or "armed" (the ProtectionState property). */
const char *protection_state(const Context *c);
/* Per readout: park while a shock is active, unpark after it. */
void protection_tick(Context *c, bool shock_active, uint64_t now);
/* Protects disks from now on (none: unparks); the caller persists them and reports the change
 * (context_apply_config() does both, config.h). Returns 0,
 * -EOPNOTSUPP without disk protection, or another negative errno with *ret_message (may be NULL) saying
 * why a disk cannot be protected; then nothing changed. */
int protection_set_disks(Context *c, char *const *disks, char **ret_message);
/* Pauses protection for seconds (0: resumes now). Returns 0 or a negative errno (logged). */
int protection_pause(Context *c, unsigned seconds);
/* Unparks (shutdown, sleep). */
void protection_release(Context *c);
/* Reports ProtectionState if it changed since the last report, and the demand for polling. */
void protection_state_changed(Context *c);
