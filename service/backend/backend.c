/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backend selection: --backend=auto|ioperm|devport|sim|kernel; auto gathers the facts for
 * backend_choose(). */

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-choose.h"
#include "backend-kernel.h"
#include "backend.h"
#include "ec-detect.h"
#include "ec-sim.h"
#include "hdaps-models.h"
#include "kernel-sysfs.h"
#include "log.h"
#include "strutil.h"

static const char *const backend_kind_table[_BACKEND_KIND_MAX] = {
        [BACKEND_AUTO] = "auto", [BACKEND_IOPERM] = "ioperm", [BACKEND_DEVPORT] = "devport",
        [BACKEND_SIM] = "sim",   [BACKEND_KERNEL] = "kernel",
};

DEFINE_STRING_TABLE_LOOKUP(backend_kind, BackendKind);

#define BACKEND_NAME_IOPERM  "ec-ioperm"
#define BACKEND_NAME_DEVPORT "ec-devport"
#define BACKEND_NAME_SIM     "simulated"
#define DEVPORT_PATH_DEFAULT "/dev/port"
#define SYSROOT_DEFAULT      "/"

static const char *strempty(const char *s)
{
        return s ?: "";
}

Backend *backend_free(Backend *b)
{
        if (b)
                b->ops->free(b);
        return NULL;
}

/* With --port-log, puts the port log between the EC transport and *port; the capture log too. */
static int wrap_port_log(const BackendOptions *o, PortIO **port, char **ret_reason)
{
        int r = 0;

        if (o->port_log)
                r = port_log_wrap(TAKE_PTR(*port), o->port_log, port);
        if (r >= 0 && o->port_capture)
                r = port_log_wrap(TAKE_PTR(*port), o->port_capture, port);
        if (r < 0)
                (void) strprintf_to(ret_reason, "cannot set up the port log: %s", strerror(-r));
        return r;
}

/* Takes the EC lock, if there is one, before the first port access. */
static int take_lock(const BackendOptions *o, char **ret_reason)
{
        _cleanup_free_ char *error = NULL;
        int r;

        if (!o->ec_lock)
                return 0;
        r = port_lock_take(o->ec_lock, &error);
        if (r < 0)
                (void) strprintf_to(ret_reason, "%s", error ?: strerror(-r));
        return r;
}

static int open_sim(const BackendOptions *o, Backend **ret, char **ret_reason)
{
        _cleanup_(port_freep) PortIO *port = NULL;
        _cleanup_free_ char *error = NULL;
        SimOptions so = {
                .trace_path = o->trace_path,
                .trace_loop = o->trace_loop,
        };
        int r;

        for (const char *const *f = o->sim_faults; f && *f; f++) {
                if (so.n_faults >= SIM_FAULTS_MAX) {
                        (void) strprintf_to(ret_reason, "too many --sim-fault options (at most %d)",
                                            SIM_FAULTS_MAX);
                        return -E2BIG;
                }
                r = sim_fault_parse(*f, &so.faults[so.n_faults], &error);
                if (r < 0) {
                        (void) strprintf_to(ret_reason, "--sim-fault=%s: %s", *f,
                                            error ? error : strerror(-r));
                        return r;
                }
                so.n_faults++;
        }

        r = take_lock(o, ret_reason);
        if (r < 0)
                return r;
        r = port_open_sim(&so, &port, &error);
        if (r < 0) {
                (void) strprintf_to(ret_reason, "cannot start the EC emulator: %s",
                                    error ? error : strerror(-r));
                return r;
        }
        r = wrap_port_log(o, &port, ret_reason);
        if (r < 0)
                return r;

        r = backend_ec_new(TAKE_PTR(port), BACKEND_NAME_SIM, 0, ret);
        if (r < 0) {
                (void) strprintf_to(ret_reason, "cannot create the emulated EC backend: %s", strerror(-r));
                return r;
        }
        /* The injected faults are named, so that a report (tpaccelctl diagnose) says what was simulated. */
        _cleanup_free_ char *faults = NULL;
        for (const char *const *f = o->sim_faults; f && *f; f++) {
                char *joined = strprintf("%s%s%s", faults ?: "", faults ? ", " : "", *f);
                if (!joined)
                        return -ENOMEM;
                free(faults);
                faults = joined;
        }
        if (o->trace_path)
                return strprintf_to(ret_reason,
                                    "the EC emulator was requested (--backend=sim), replaying %s%s%s%s",
                                    o->trace_path, o->trace_loop ? " in a loop" : "",
                                    faults ? ", injected faults: " : "", faults ?: "");
        return strprintf_to(ret_reason,
                            "the EC emulator was requested (--backend=sim), with the demo motion%s%s",
                            faults ? ", injected faults: " : "", faults ?: "");
}

/* Opens one of the two real port backends and wraps it, with the axis code from the model table. */
static int open_real(BackendKind kind, const BackendOptions *o, Backend **ret, char **ret_error)
{
        _cleanup_(port_freep) PortIO *port = NULL;
        _cleanup_(ec_dmi_done) EcDmi dmi = {};
        const char *sysroot = o->sysroot ?: SYSROOT_DEFAULT;
        const char *devport = o->devport_path ?: DEVPORT_PATH_DEFAULT;
        Backend *b = NULL;
        int r;

        r = take_lock(o, ret_error);
        if (r < 0)
                return r;
        if (kind == BACKEND_IOPERM)
                r = port_open_ioperm(&port);
        else
                r = port_open_devport(devport, o->port_log, &port);
        if (r < 0) {
                if (kind == BACKEND_IOPERM)
                        (void) strprintf_to(ret_error, "ioperm() on ports 0x%X-0x%X failed: %s",
                                            EC_PORT_BASE, EC_PORT_BASE + EC_PORT_COUNT - 1, strerror(-r));
                else
                        (void) strprintf_to(ret_error, "%s cannot be opened: %s", devport, strerror(-r));
                return r;
        }
        r = wrap_port_log(o, &port, ret_error);
        if (r < 0)
                return r;

        r = ec_dmi_read(sysroot, &dmi);
        if (r < 0)
                return r;
        unsigned axis_code =
                hdaps_axis_code_for_model(strempty(dmi.board_vendor), strempty(dmi.product_version));

        r = backend_ec_new(TAKE_PTR(port),
                           kind == BACKEND_IOPERM ? BACKEND_NAME_IOPERM : BACKEND_NAME_DEVPORT, axis_code,
                           &b);
        if (r < 0) {
                (void) strprintf_to(ret_error, "cannot create the EC backend: %s", strerror(-r));
                return r;
        }
        if (dmi.product_version) {
                free(b->model);
                b->model = TAKE_PTR(dmi.product_version);
        }
        *ret = b;
        return 0;
}

static int open_kernel(const BackendOptions *o, Backend **ret, char **ret_reason)
{
        const char *sysroot = o->sysroot ?: SYSROOT_DEFAULT;
        int r;

        r = backend_kernel_new(sysroot, ret);
        if (r == -ENODEV) {
                _cleanup_free_ char *dir = kernel_hdaps_dir(sysroot);
                (void) strprintf_to(ret_reason,
                                    "the kernel backend was requested, but there is no hdaps device at %s "
                                    "(load the hdaps or tp_smapi module)",
                                    strempty(dir));
                return r;
        }
        if (r < 0) {
                (void) strprintf_to(ret_reason, "cannot open the kernel hdaps device: %s", strerror(-r));
                return r;
        }
        return strprintf_to(ret_reason, "the kernel backend was requested (%s hdaps driver)",
                            kernel_driver_flavour_to_string(backend_kernel_flavour(*ret)));
}

/* The facts of the safety checks, read below the sysroot: DMI, a kernel hdaps driver, another owner of
 * the ports. dmi and owner hold the strings f points to. */
static int gather_facts(const BackendOptions *o, BackendFacts *f, EcDmi *dmi, char **owner)
{
        const char *sysroot = o->sysroot ?: SYSROOT_DEFAULT;
        int r;

        r = ec_dmi_read(sysroot, dmi);
        if (r < 0)
                return r;
        f->dmi_allows_probe = ec_dmi_allows_probe(dmi, &f->dmi_reason);
        f->kernel_driver = kernel_hdaps_detect(sysroot);
        r = ec_ports_owner(sysroot, owner);
        if (r < 0)
                return r;
        f->ports_owner = *owner;
        return 0;
}

/* --backend=ioperm or devport: auto's safety checks (unless --force), then the lock, then the ports. */
static int open_direct(const BackendOptions *o, Backend **ret, char **ret_reason)
{
        _cleanup_(ec_dmi_done) EcDmi dmi = {};
        _cleanup_free_ char *owner = NULL, *checks = NULL;
        BackendFacts f = {};
        int r;

        r = gather_facts(o, &f, &dmi, &owner);
        if (r < 0)
                return r;
        r = backend_check_direct_access(&f, o->kind, o->force, &checks);
        if (r < 0) {
                *ret_reason = TAKE_PTR(checks);
                return r;
        }
        r = open_real(o->kind, o, ret, ret_reason);
        if (r < 0)
                return r;
        return strprintf_to(ret_reason, "the %s backend was requested; %s", backend_kind_to_string(o->kind),
                            checks);
}

/* Gathers the facts, tries port access only where the choice depends on it, and lets backend_choose()
 * decide. */
static int open_auto(const BackendOptions *o, Backend **ret, char **ret_reason)
{
        const char *sysroot = o->sysroot ?: SYSROOT_DEFAULT;
        _cleanup_(ec_dmi_done) EcDmi dmi = {};
        _cleanup_free_ char *owner = NULL, *ioperm_error = NULL, *devport_error = NULL;
        _cleanup_(backend_freep) Backend *ioperm = NULL, *devport = NULL;
        BackendFacts f = {};
        BackendKind kind;
        int r;

        r = gather_facts(o, &f, &dmi, &owner);
        if (r < 0)
                return r;

        if (backend_choice_needs_port_access(&f)) {
                /* The lock comes before trying the ports; held by another process: stop here. */
                r = take_lock(o, ret_reason);
                if (r < 0)
                        return r;
                f.ioperm_ok = open_real(BACKEND_IOPERM, o, &ioperm, &ioperm_error) >= 0;
                f.ioperm_error = ioperm_error;
                if (!f.ioperm_ok) {
                        f.devport_ok = open_real(BACKEND_DEVPORT, o, &devport, &devport_error) >= 0;
                        f.devport_error = devport_error;
                }
        }

        r = backend_choose(&f, &kind, ret_reason);
        if (r < 0)
                return r;
        switch (kind) {
        case BACKEND_IOPERM:
                *ret = TAKE_PTR(ioperm);
                return 0;
        case BACKEND_DEVPORT:
                *ret = TAKE_PTR(devport);
                return 0;
        case BACKEND_KERNEL:
                r = backend_kernel_new(sysroot, ret);
                if (r < 0)
                        (void) strprintf_to(ret_reason,
                                            "no accelerometer: the kernel hdaps device went away "
                                            "while it was being opened (%s)",
                                            strerror(-r));
                return r;
        default:
                return -EINVAL;
        }
}

int backend_open(const BackendOptions *o, Backend **ret, char **ret_reason)
{
        int r;

        assert(o);
        assert(ret);
        assert(ret_reason);

        *ret_reason = NULL;

        switch (o->kind) {
        case BACKEND_SIM:
                r = open_sim(o, ret, ret_reason);
                break;

        case BACKEND_IOPERM:
        case BACKEND_DEVPORT:
                r = open_direct(o, ret, ret_reason);
                break;

        case BACKEND_KERNEL:
                r = open_kernel(o, ret, ret_reason);
                break;

        case BACKEND_AUTO:
                r = open_auto(o, ret, ret_reason);
                break;

        default:
                (void) strprintf_to(ret_reason, "unknown backend kind %d", (int) o->kind);
                return -EINVAL;
        }

        if (r < 0 && !*ret_reason)
                (void) strprintf_to(ret_reason, "%s", strerror(-r));
        return r;
}
