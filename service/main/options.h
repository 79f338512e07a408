/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpacceld's command line. options_parse() is pure apart from printing: it fills Options with pointers
 * into argv, and on bad input prints one line naming the option to stderr and returns -EINVAL (the
 * caller exits with status 2). */

#include <stdbool.h>

#include "backend.h"
#include "bus-sensorproxy.h"
#include "ec-sim.h"

#define DUMP_READOUTS_MAX 10000000u

typedef struct Options {
        bool session;                               /* --session (default: --system) */
        const char *address;                        /* --address=ADDR */
        BackendKind backend;                        /* --backend= */
        const char *trace;                          /* --trace=FILE */
        bool trace_loop;                            /* --trace-loop */
        const char *sim_faults[SIM_FAULTS_MAX + 1]; /* --sim-fault=KIND[:P], NULL-terminated */
        unsigned n_sim_faults;
        const char *state_dir;  /* --state-dir=DIR, or $STATE_DIRECTORY, or the built-in default */
        const char *sysfs_root; /* --sysfs-root=DIR */
        const char *sysroot;    /* --sysroot=DIR: backend detection reads DIR/sys, DIR/proc, DIR/dev */
        unsigned exit_idle_sec; /* --exit-idle-time=SEC: 0 = never */
        const char *user;       /* --user=NAME: switch to it after acquiring port access */
        unsigned dump;          /* --dump=N: 0 = run the service */
        const char *diagnose;   /* --diagnose[=text|json]: NULL = run the service */
        const char *port_log;   /* --port-log=FILE: every port access as CSV */
        const char *lock_file;  /* --lock-file=PATH: NULL = the default (see port-lock.h) */
        bool force;             /* --force: ioperm/devport without auto's safety checks */

        SensorProxyMode sensor_proxy; /* --sensor-proxy=auto|yes|no */
        const char *input_dir;        /* --input-dir=DIR: where the tablet-mode switch is looked for */

        bool verbose;
        bool help, version;
        bool sim_fault_help; /* --sim-fault=help */
} Options;

int options_parse(int argc, char *argv[], Options *ret);
void options_help(const char *program);
/* --sim-fault=help: every fault kind's name, one a line, from the emulator's table. */
void options_sim_fault_help(void);
