/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpacceld: the ThinkPad HDAPS accelerometer as a D-Bus system service. */

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "bus-face.h"
#include "diagnose.h"
#include "dump.h"
#include "idle-exit.h"
#include "input-devices.h"
#include "log.h"
#include "options.h"
#include "port-lock.h"
#include "privileges.h"
#include "strutil.h"
#include "time-util.h"

#define EXIT_USAGE 2

/* --port-log: the log and its file name, flushed and closed after the last port access. */
typedef struct PortLogFile {
        PortLog *log;
        const char *path;
} PortLogFile;

static void port_log_file_done(PortLogFile *f)
{
        int r;

        if (!f->log)
                return;
        r = port_log_flush(f->log);
        if (r < 0)
                log_error_errno(r, "tpacceld: --port-log=%s: writing failed, the log is incomplete: %m",
                                f->path);
        else
                log_info("Port log %s: %llu port accesses", f->path,
                         (unsigned long long) port_log_count(f->log));
        f->log = port_log_free(f->log);
}

/* The EC lock's file: --lock-file; else, for every backend with real ports, $RUNTIME_DIRECTORY/ec.lock
 * (the first directory if systemd lists several), else /run/tpaccel/ec.lock, below --sysroot if given
 * (a fake machine has its own EC). The emulator drives no real EC: it takes a lock only when
 * --lock-file is given. Returns 0 with *ret NULL when there is no lock to take. */
static int ec_lock_new(const Options *o, PortLock **ret)
{
        _cleanup_free_ char *path = NULL;
        const char *runtime_dir = getenv(PORT_LOCK_RUNTIME_DIR_ENV);
        bool create_dir = true;

        *ret = NULL;
        if (o->lock_file) {
                path = strdup(o->lock_file);
                create_dir = false;
        } else if (o->backend == BACKEND_SIM || o->backend == BACKEND_KERNEL)
                return 0;
        else if (o->sysroot)
                path = strprintf("%s%s/%s", o->sysroot, PORT_LOCK_RUNTIME_DIR, PORT_LOCK_FILE_NAME);
        else if (runtime_dir && *runtime_dir)
                path = strprintf("%.*s/%s", (int) strcspn(runtime_dir, ":"), runtime_dir,
                                 PORT_LOCK_FILE_NAME);
        else
                path = strprintf("%s/%s", PORT_LOCK_RUNTIME_DIR, PORT_LOCK_FILE_NAME);
        if (!path)
                return -ENOMEM;
        return port_lock_new(path, create_dir, ret);
}

/* hdapsd's stand-in for /sys/devices/platform/hdaps (hdapsd-sysfs.h): $RUNTIME_DIRECTORY/hdapsd (the
 * unit's RuntimeDirectory=tpaccel, which the hdapsd unit drop-in binds from; the first directory if systemd
 * lists several), else below --sysroot; else none (without systemd no drop-in arranges hdapsd's view). The
 * kernel driver's directory it defers to is below --sysroot too. Returns 0 with *ret NULL for none. */
static int hdapsd_sysfs_for(const Options *o, HdapsdSysfs **ret)
{
        _cleanup_free_ char *dir = NULL, *kernel_dir = NULL;
        const char *runtime_dir = getenv(PORT_LOCK_RUNTIME_DIR_ENV);

        *ret = NULL;
        if (runtime_dir && *runtime_dir)
                dir = strprintf("%.*s/%s", (int) strcspn(runtime_dir, ":"), runtime_dir,
                                HDAPSD_SYSFS_DIR_NAME);
        else if (o->sysroot)
                dir = strprintf("%s%s/%s", o->sysroot, PORT_LOCK_RUNTIME_DIR, HDAPSD_SYSFS_DIR_NAME);
        else
                return 0;
        kernel_dir = strprintf("%s/sys/devices/platform/hdaps", o->sysroot ?: "");
        if (!dir || !kernel_dir)
                return -ENOMEM;
        return hdapsd_sysfs_new(dir, kernel_dir, ret);
}

/* SIGHUP: the systemd convention for "reload your configuration" (ExecReload= in the unit). Said to
 * the service manager as systemd's reload protocol has it (RELOADING=1 with the time, then READY=1). */
static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        (void) sd_notifyf(false, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=Reloading the state file",
                          (unsigned long long) now_usec());
        log_info("SIGHUP: reloading the state file");
        context_reload(userdata);
        (void) sd_notify(false, "READY=1\nSTATUS=Serving org.thinkpad.Accelerometer");
        return 0;
}

static int setup_signals(Context *c)
{
        sd_event_source *hup = NULL; /* made floating: the event loop owns it */
        sigset_t mask;
        int r;

        /* SIGTERM and SIGINT end the loop with status 0 (sd-event blocks them for us); the exit handler
         * runs the shutdown (context_shutdown()). */
        r = sd_event_set_signal_exit(c->event, true);
        if (r < 0)
                return log_error_errno(r, "Failed to handle SIGTERM/SIGINT: %m");
        /* SIGHUP would kill the daemon without its shutdown: it reloads instead. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(-errno, "Failed to block SIGHUP: %m");
        r = sd_event_add_signal(c->event, &hup, SIGHUP, on_sighup, c);
        if (r < 0)
                return log_error_errno(r, "Failed to handle SIGHUP: %m");
        /* Before any bus message: a call sent after the signal (the unit's ExecReload= pings the daemon
         * once it has sent SIGHUP) is answered only once the reload is done. */
        r = sd_event_source_set_priority(hup, SD_EVENT_PRIORITY_IMPORTANT);
        if (r >= 0)
                r = sd_event_source_set_floating(hup, true);
        sd_event_source_unref(hup);
        if (r < 0)
                return log_error_errno(r, "Failed to set up SIGHUP's handler: %m");
        return 0;
}

/* The port log (--port-log), the port log of one readout (diagnose.h), the EC lock and /dev/port below
 * --sysroot, into bo: first of all, so that a bad path fails before any port access. Each is the
 * caller's to free. Returns 0 or a negative errno (logged). */
static int open_port_parts(const Options *o, PortLogFile *port_log, PortLog **port_capture,
                           PortLock **ec_lock, char **devport_path, BackendOptions *bo)
{
        int r;

        if (o->port_log) {
                r = port_log_open(o->port_log, &port_log->log);
                if (r < 0)
                        return log_error_errno(r, "tpacceld: --port-log=%s: cannot create the file: %m",
                                               o->port_log);
                bo->port_log = port_log->log;
        }
        r = port_log_new_capture(port_capture);
        if (r < 0)
                return log_error_errno(r, "tpacceld: cannot set up: %m");
        bo->port_capture = *port_capture;
        r = ec_lock_new(o, ec_lock);
        if (r < 0)
                return log_error_errno(r, "tpacceld: cannot set up the EC lock: %m");
        bo->ec_lock = *ec_lock;
        bo->force = o->force;

        if (o->sysroot) {
                if (asprintf(devport_path, "%s/dev/port", o->sysroot) < 0) {
                        log_error("tpacceld: out of memory");
                        return -ENOMEM;
                }
                bo->devport_path = *devport_path;
        }
        return 0;
}

/* backend_open(). When it fails, another process driving the EC, a backend named on the command line
 * or --dump end the daemon (a negative errno, logged) before anything else, the bus name included;
 * otherwise the daemon serves HasAccelerometer=false (or diagnoses without a backend): 0 with *backend
 * NULL. */
static int open_backend(const Options *o, const BackendOptions *bo, const PortLogFile *port_log,
                        Backend **backend, char **reason)
{
        int r;

        r = backend_open(bo, backend, reason);
        if (r < 0) {
                if (!o->diagnose && (o->backend != BACKEND_AUTO || o->dump > 0 ||
                                     (bo->ec_lock && port_lock_refused(bo->ec_lock)))) {
                        log_error("tpacceld: %s", *reason ? *reason : strerror(-r));
                        return r;
                }
                log_warning("%s; %s", *reason ? *reason : strerror(-r),
                            o->diagnose ? "the diagnosis goes on without a backend"
                                        : "serving HasAccelerometer=false");
        } else
                log_info("Backend %s: %s", backend_name(*backend), *reason);
        if (bo->ec_lock && port_lock_held(bo->ec_lock))
                log_debug("Holding the EC lock %s", port_lock_path(bo->ec_lock));
        if (port_log->log && (!*backend || !backend_has_ports(*backend)))
                log_notice("Port log %s stays empty: %s", o->port_log,
                           *backend ? "the kernel backend makes no port access" : "no port backend is open");
        return 0;
}

/* What must be opened while still privileged, for the service only (not --dump): the tablet-mode switch
 * (root:input 0660; for the sensor proxy or the diagnosis) and /dev/uinput (root's: the hdaps input
 * devices are made when SetInputDevices(true) asks), whose failure is kept in *input_devices_error.
 * Returns 0 or a negative errno (logged). */
static int open_privileged_devices(const Options *o, TabletMode **tablet_mode, InputDevices **input_devices,
                                   int *input_devices_error)
{
        HdapsdSysfs *sysfs = NULL;
        int r;

        if ((o->sensor_proxy != SENSOR_PROXY_NO || o->diagnose) && o->dump == 0)
                sensor_proxy_open_tablet_mode(o->input_dir, tablet_mode);

        if (o->dump > 0 || o->diagnose)
                return 0;
        r = input_devices_open(NULL, input_devices);
        if (r < 0) {
                *input_devices_error = r;
                log_debug_errno(r, "No hdaps input devices: %s cannot be opened: %m",
                                INPUT_DEVICES_UINPUT_PATH);
                return 0;
        }
        r = hdapsd_sysfs_for(o, &sysfs);
        if (r < 0)
                return log_error_errno(r, "tpacceld: cannot set up hdapsd's sysfs stand-in: %m");
        input_devices_set_hdapsd_sysfs(*input_devices, sysfs);
        return 0;
}

/* --dump=N: N readouts of backend as CSV on stdout. Returns the exit status. */
static int run_dump(const Options *o, Backend *backend, const char *reason)
{
        _cleanup_free_ char *state_path = NULL;

        if (o->state_dir && asprintf(&state_path, "%s/%s", o->state_dir, STATE_FILE_NAME) < 0) {
                log_error("tpacceld: out of memory");
                return EXIT_FAILURE;
        }
        return dump_readouts(backend, reason, state_path, o->dump, stdout) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --diagnose: the report on stdout. Returns the exit status: 1 when the report names a problem. */
static int run_diagnose(Context *c, const char *format)
{
        int r;

        r = diagnose_standalone(c, format, stdout);
        if (r < 0) {
                log_error_errno(r, "tpacceld: cannot make the diagnosis report: %m");
                return EXIT_FAILURE;
        }
        return r > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The service: the bus face of c in *face (the caller frees it, before c), the signals, the event loop
 * until a signal, the idle exit or the bus's end. Returns the exit status. */
static int serve(const Options *o, Context *c, BusFace **face, const ContextOptions *co)
{
        BusOptions bus_options = {
                .session = o->session,
                .address = o->address,
                .sensor_proxy = o->sensor_proxy,
        };
        int r;

        r = bus_face_new(c, face);
        if (r < 0)
                return EXIT_FAILURE;
        if (setup_signals(c) < 0)
                return EXIT_FAILURE; /* every return from here on shuts down through bus_face_free() */
        (void) sd_event_set_watchdog(c->event, true);

        r = bus_start(*face, &bus_options, co);
        if (r < 0)
                return EXIT_FAILURE;

        (void) sd_notify(false, "READY=1\nSTATUS=Serving org.thinkpad.Accelerometer");
        r = sd_event_loop(c->event);
        (void) sd_notify(false, "STOPPING=1");
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        else if (r == 0)
                log_info("Exiting (signal)");
        else if (r == IDLE_EXIT_EVENT_CODE)
                log_info("Exiting (idle: no accelerometer and no calls)");
        else
                log_error("Exiting (bus connection lost): every claim and stream is gone and disk "
                          "protection is off until tpacceld starts again (the unit restarts it, "
                          "Restart=on-failure)");

        context_shutdown(c); /* normally done already by the exit handler */
        return r == 0 || r == IDLE_EXIT_EVENT_CODE ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The daemon's steps in order: the port's parts, the backend, the privileged devices, dropping
 * privileges, then --dump, or the core and --diagnose, or the service. Returns the exit status. */
static int run(const Options *o)
{
        /* Declared first, so freed last: after the context, whose shutdown makes the last port access. */
        _cleanup_(port_log_file_done) PortLogFile port_log = {.path = o->port_log};
        _cleanup_(port_log_freep) PortLog *port_capture =
                NULL; /* the port log of one readout (diagnose.h) */
        _cleanup_(port_lock_freep) PortLock *ec_lock = NULL;
        _cleanup_free_ char *devport_path = NULL; /* outlives the context, whose watch borrows it */
        _cleanup_(context_freep) Context *c = NULL;
        _cleanup_(bus_face_freep) BusFace *face = NULL; /* freed first: the face before its core */
        _cleanup_(backend_freep) Backend *backend = NULL;
        _cleanup_free_ char *reason = NULL;
        _cleanup_(tablet_mode_freep) TabletMode *tablet_mode = NULL;
        _cleanup_(input_devices_freep) InputDevices *input_devices = NULL;
        int input_devices_error = 0; /* opening /dev/uinput failed so (ContextOptions) */
        const char *sim_faults[SIM_FAULTS_MAX + 1] = {};
        BackendOptions bo = {
                .kind = o->backend,
                .trace_path = o->trace,
                .trace_loop = o->trace_loop,
                .sim_faults = sim_faults,
                .sysroot = o->sysroot, /* NULL: the real /sys, /proc and /dev */
        };
        ContextOptions co = {
                .state_dir = o->state_dir,
                .sysfs_root = o->sysfs_root,
                .sysroot = o->sysroot,
                .backend_options = &bo,
                .exit_idle_sec = o->exit_idle_sec,
        };
        int r;

        memcpy(sim_faults, o->sim_faults, sizeof(sim_faults));

        if (open_port_parts(o, &port_log, &port_capture, &ec_lock, &devport_path, &bo) < 0 ||
            open_backend(o, &bo, &port_log, &backend, &reason) < 0 ||
            open_privileged_devices(o, &tablet_mode, &input_devices, &input_devices_error) < 0)
                return EXIT_FAILURE;

        /* Port access is held now (ioperm grant or open /dev/port): nothing else needs privileges. */
        if (privileges_drop(o->user, o->state_dir, ec_lock ? port_lock_created_dir(ec_lock) : NULL) < 0)
                return EXIT_FAILURE;

        if (o->dump > 0)
                return run_dump(o, backend, reason);

        co.port_capture = port_capture;
        co.tablet_mode = TAKE_PTR(tablet_mode);
        co.input_devices = TAKE_PTR(input_devices);
        co.input_devices_error = input_devices_error;
        r = context_new(&co, TAKE_PTR(backend), reason, &c);
        if (r < 0) {
                log_error_errno(r, "tpacceld: cannot set up: %m");
                return EXIT_FAILURE;
        }

        if (o->diagnose)
                return run_diagnose(c, o->diagnose);
        return serve(o, c, &face, &co);
}

/* Every allocation from MMAP_THRESHOLD on is a mapping of its own, returned to the kernel when freed.
 * glibc's default threshold grows to the largest block freed (up to 32 MiB): a 30 MiB call's buffer would
 * then come from the heap, where the small allocations of a running poll pin it, and the next one beside
 * it: two calls' worth of memory for good (63 MiB measured against 33 MiB, docs/evidence/HARDENING.md).
 * Setting the threshold fixes it at this value. */
#define MMAP_THRESHOLD (128 * 1024)

int main(int argc, char *argv[])
{
        Options o;

        if (options_parse(argc, argv, &o) < 0)
                return EXIT_USAGE;
        if (o.help) {
                options_help(program_invocation_short_name);
                return EXIT_SUCCESS;
        }
        if (o.sim_fault_help) {
                options_sim_fault_help();
                return EXIT_SUCCESS;
        }
        if (o.version) {
                printf("tpacceld %s\n", PACKAGE_VERSION);
                return EXIT_SUCCESS;
        }
        log_set_max_level(o.verbose ? LOG_DEBUG : LOG_INFO);
        /* Activated by a D-Bus daemon without systemd, stderr is the bus's /dev/null: use syslog. */
        (void) log_target_auto("tpacceld");
        if (mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) != 1)
                log_warning("Could not fix malloc's mmap threshold: big calls may stay in the heap");

        return run(&o);
}
