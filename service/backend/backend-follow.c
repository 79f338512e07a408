/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel hdaps driver coming and going at run time (see backend-follow.h). */

#include <errno.h>
#include <string.h>

#include "backend-follow.h"
#include "backend-kernel.h"
#include "kernel-sysfs.h"
#include "log.h"
#include "strutil.h"

KernelDriverFlavour backend_follow_probe(const char *sysroot)
{
        return kernel_hdaps_detect(sysroot);
}

static int driver_appeared(const BackendOptions *o, Backend *current, bool current_works,
                           KernelDriverFlavour flavour, Backend **ret, char **ret_reason)
{
        const char *name = kernel_driver_flavour_to_string(flavour);
        Backend *b = NULL;
        int r;

        if (backend_kernel_flavour(current) == flavour && current_works)
                return 0;

        r = backend_kernel_new(o->sysroot, &b);
        if (r < 0) {
                log_warning_errno(
                        r, "The kernel's %s hdaps driver appeared, but its device cannot be opened: %m",
                        name);
                return 0;
        }
        if (current && backend_kernel_flavour(current) == KERNEL_DRIVER_NONE && current_works)
                log_warning("The kernel's %s hdaps driver was loaded while tpacceld drove the EC (%s): "
                            "it owns the ports now, switching to it",
                            name, backend_name(current));
        *ret = b;
        *ret_reason = strprintf("the kernel's %s hdaps driver appeared while tpacceld ran, so the "
                                "accelerometer is read through its sysfs device",
                                name);
        return 1;
}

static int driver_went_away(const BackendOptions *o, Backend *current, Backend **ret, char **ret_reason)
{
        _cleanup_free_ char *why = NULL;
        Backend *b = NULL;
        int r;

        if (backend_kernel_flavour(current) == KERNEL_DRIVER_NONE)
                return 0; /* not ours: nothing changes */

        *ret = NULL;
        if (o->kind == BACKEND_KERNEL) {
                *ret_reason = strdup("the kernel hdaps driver went away (module unloaded); "
                                     "--backend=kernel waits for it to come back");
                return 1;
        }

        r = backend_open(o, &b, &why);
        if (r < 0) {
                *ret_reason = strprintf("the kernel hdaps driver went away (module unloaded); %s; "
                                        "restart tpacceld to try the EC directly (it gives up its "
                                        "port privileges after starting)",
                                        why ?: strerror(-r));
                return 1;
        }
        *ret = b;
        *ret_reason = strprintf("the kernel hdaps driver went away (module unloaded); %s", why);
        return 1;
}

int backend_follow_kernel_driver(const BackendOptions *o, Backend *current, bool current_works,
                                 KernelDriverFlavour before, KernelDriverFlavour now, Backend **ret,
                                 char **ret_reason)
{
        log_debug("hdaps sysfs device: %s -> %s", kernel_driver_flavour_to_string(before),
                  kernel_driver_flavour_to_string(now));
        if (o->kind != BACKEND_AUTO && o->kind != BACKEND_KERNEL) {
                log_notice("The kernel hdaps driver %s; not switching because --backend=%s was given",
                           now == KERNEL_DRIVER_NONE ? "went away" : "appeared",
                           backend_kind_to_string(o->kind));
                return 0;
        }
        if (now == KERNEL_DRIVER_NONE)
                return driver_went_away(o, current, ret, ret_reason);
        return driver_appeared(o, current, current_works, now, ret, ret_reason);
}
