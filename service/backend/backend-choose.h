/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The automatic backend choice (--backend=auto) as a pure function of facts gathered elsewhere
 * (backend.c reads them from DMI, /proc/ioports, /sys/module and the hdaps sysfs device, and tries
 * the port backends only when the choice depends on them). Order: a loaded kernel hdaps driver wins
 * (it owns the ports and already serves the data); then DMI must say ThinkPad EC; then another owner of
 * the ports refuses direct access; then ioperm, then /dev/port. */

#include <stdbool.h>

#include "backend.h"

typedef enum KernelDriverFlavour {
        KERNEL_DRIVER_NONE,     /* no /sys/devices/platform/hdaps device */
        KERNEL_DRIVER_MAINLINE, /* drivers/platform/x86/hdaps.c: variance, temp2, invert bits = negate X/Y */
        KERNEL_DRIVER_TP_SMAPI, /* tp_smapi's hdaps: sampling_rate & co, invert = axis code 0..7 */
        _KERNEL_DRIVER_FLAVOUR_MAX,
        _KERNEL_DRIVER_FLAVOUR_INVALID = -EINVAL,
} KernelDriverFlavour;

/* "none", "mainline", "tp_smapi". */
const char *kernel_driver_flavour_to_string(KernelDriverFlavour f);

typedef struct BackendFacts {
        bool dmi_allows_probe;
        const char *dmi_reason;  /* ec_dmi_allows_probe()'s sentence */
        const char *ports_owner; /* ec_ports_owner()'s description; NULL: the ports look free */
        KernelDriverFlavour kernel_driver;
        bool ioperm_ok;           /* ioperm() on the EC ports was granted */
        const char *ioperm_error; /* why not, when tried; NULL when not tried */
        bool devport_ok;          /* /dev/port opened read-write */
        const char *devport_error;
} BackendFacts;

/* Decides. On success returns 0 with *ret_kind BACKEND_KERNEL, BACKEND_IOPERM or BACKEND_DEVPORT;
 * -ENODEV when there is no usable way to the accelerometer; -ENOMEM. *ret_reason (free it) is always set
 * on 0 and -ENODEV: one sentence saying why, and what to do for the EC features where that applies. */
int backend_choose(const BackendFacts *f, BackendKind *ret_kind, char **ret_reason);

/* Whether backend_choose() needs the port backends tried (ioperm_ok/devport_ok) to decide. */
bool backend_choice_needs_port_access(const BackendFacts *f);

/* The safety checks of auto, for an explicitly requested port backend (--backend=ioperm or devport,
 * named by kind): no kernel hdaps driver is loaded, DMI shows a ThinkPad with HDAPS, and nothing else
 * owns the EC ports (ioperm_ok and devport_ok are not looked at). Returns 0 when every check passes,
 * with *ret_reason saying so; -EPERM when one fails, with *ret_reason naming every failed check and
 * --force; with force, 0 and *ret_reason naming the checks overridden. -ENOMEM. *ret_reason is always
 * set on 0 and -EPERM (free it). */
int backend_check_direct_access(const BackendFacts *f, BackendKind kind, bool force, char **ret_reason);
