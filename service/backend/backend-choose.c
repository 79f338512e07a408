/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The automatic backend choice: pure, from facts (see backend-choose.h). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend-choose.h"
#include "macros.h"
#include "strutil.h"

static const char *const kernel_driver_flavour_table[_KERNEL_DRIVER_FLAVOUR_MAX] = {
        [KERNEL_DRIVER_NONE] = "none",
        [KERNEL_DRIVER_MAINLINE] = "mainline",
        [KERNEL_DRIVER_TP_SMAPI] = "tp_smapi",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(kernel_driver_flavour, KernelDriverFlavour, );

bool backend_choice_needs_port_access(const BackendFacts *f)
{
        return f->kernel_driver == KERNEL_DRIVER_NONE && !f->ports_owner && f->dmi_allows_probe;
}

int backend_choose(const BackendFacts *f, BackendKind *ret_kind, char **ret_reason)
{
        int r;

        *ret_reason = NULL;

        if (f->kernel_driver != KERNEL_DRIVER_NONE) {
                r = strprintf_to(
                        ret_reason,
                        "auto: the kernel's %s hdaps driver is loaded and owns the EC ports, so the "
                        "accelerometer is read through its sysfs device (unload and blacklist the "
                        "module for the EC features)",
                        kernel_driver_flavour_to_string(f->kernel_driver));
                if (r < 0)
                        return r;
                *ret_kind = BACKEND_KERNEL;
                return 0;
        }

        if (!f->dmi_allows_probe) {
                r = strprintf_to(ret_reason, "no accelerometer: %s, and no kernel hdaps driver is loaded",
                                 f->dmi_reason ?: "this is not known to be a ThinkPad");
                return r < 0 ? r : -ENODEV;
        }

        if (f->ports_owner) {
                r = strprintf_to(
                        ret_reason,
                        "no accelerometer: the EC ports are in use by %s, which offers no hdaps device; "
                        "load the hdaps module for the kernel backend, or unload %s for direct EC "
                        "access",
                        f->ports_owner, f->ports_owner);
                return r < 0 ? r : -ENODEV;
        }

        if (f->ioperm_ok) {
                r = strprintf_to(ret_reason, "auto: %s, the EC ports are free and ioperm() works",
                                 f->dmi_reason);
                if (r < 0)
                        return r;
                *ret_kind = BACKEND_IOPERM;
                return 0;
        }

        if (f->devport_ok) {
                r = strprintf_to(ret_reason, "auto: %s and the EC ports are free; %s, so /dev/port is used",
                                 f->dmi_reason, f->ioperm_error ?: "ioperm() is not available");
                if (r < 0)
                        return r;
                *ret_kind = BACKEND_DEVPORT;
                return 0;
        }

        r = strprintf_to(ret_reason,
                         "no accelerometer: %s and the EC ports are free, but %s, and %s (tpacceld needs "
                         "CAP_SYS_RAWIO, and kernel lockdown forbids both)",
                         f->dmi_reason, f->ioperm_error ?: "ioperm() is not available",
                         f->devport_error ?: "/dev/port is not available");
        return r < 0 ? r : -ENODEV;
}

int backend_check_direct_access(const BackendFacts *f, BackendKind kind, bool force, char **ret_reason)
{
        _cleanup_free_ char *driver = NULL, *dmi = NULL, *owner = NULL;
        const char *name = kind == BACKEND_IOPERM ? "ioperm" : "devport";
        int r;

        *ret_reason = NULL;

        if (f->kernel_driver != KERNEL_DRIVER_NONE) {
                driver = strprintf("the kernel's %s hdaps driver is loaded and owns the EC ports (use "
                                   "--backend=kernel, or unload and blacklist the module)",
                                   kernel_driver_flavour_to_string(f->kernel_driver));
                if (!driver)
                        return -ENOMEM;
        }
        if (!f->dmi_allows_probe) {
                dmi = strprintf("%s", f->dmi_reason ?: "this is not known to be a ThinkPad with HDAPS");
                if (!dmi)
                        return -ENOMEM;
        }
        if (f->ports_owner) {
                owner = strprintf("the EC ports are in use by %s", f->ports_owner);
                if (!owner)
                        return -ENOMEM;
        }

        if (!driver && !dmi && !owner) {
                r = strprintf_to(ret_reason,
                                 "%s, the EC ports are free and no kernel hdaps driver is loaded",
                                 f->dmi_reason ?: "DMI shows a ThinkPad with HDAPS");
                return r < 0 ? r : 0;
        }

        _cleanup_free_ char *failed =
                strprintf("%s%s%s%s%s", driver ?: "", driver && (dmi || owner) ? "; " : "", dmi ?: "",
                          dmi && owner ? "; " : "", owner ?: "");
        if (!failed)
                return -ENOMEM;
        if (force) {
                r = strprintf_to(ret_reason, "--force overrides the safety checks: %s", failed);
                return r < 0 ? r : 0;
        }
        r = strprintf_to(ret_reason,
                         "--backend=%s refused: %s (the checks of --backend=auto; --force drives the ports "
                         "anyway)",
                         name, failed);
        return r < 0 ? r : -EPERM;
}
