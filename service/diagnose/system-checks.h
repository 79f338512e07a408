/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The system facts a diagnosis reports, read from files under a sysroot ("/" normally, a fake tree in
 * tests) and nothing else: DMI and whether it allows probing the EC, the model table's entry, the kernel
 * modules that matter, the owner of the EC's ports (/proc/ioports) and the kernel lockdown. No port
 * access, no daemon state. */

#include <stdbool.h>

#include "ec-detect.h"
#include "thinkpad-models.h"

typedef struct SystemChecks {
        EcDmi dmi;
        bool probe_allowed;         /* ec_dmi_allows_probe() */
        const char *probe_reason;   /* static: why (not) */
        const ThinkpadModel *model; /* the model table's entry; NULL: none */
        char *modules;              /* which of hdaps, thinkpad_ec, tp_smapi, hdaps_ec, thinkpad_acpi are
                                     * loaded, space-separated; NULL: none */
        int ports_owner_result;     /* ec_ports_owner(): 1 owned, 0 free, or a negative errno */
        char *ports_owner;          /* who owns ports 0x1600-0x161F when ports_owner_result is 1 */
        char *lockdown;             /* the lockdown mode in force ("none", "integrity", ...); NULL: no LSM */
        bool lockdown_forbids_ports; /* a lockdown mode that forbids ioperm() and writes to /dev/port */
} SystemChecks;

/* Reads the facts under sysroot (NULL: "/") into *ret (done with system_checks_done() in every case).
 * Missing files leave their facts unknown. Returns 0 or -ENOMEM. */
int system_checks_read(const char *sysroot, SystemChecks *ret);
void system_checks_done(SystemChecks *s);
