/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The state of a diagnosis run, shared by the files of this folder only: diagnose.c takes the readouts
 * and keeps their statistics, diagnose-report.c turns them and the checks into the report. */

#include <stdbool.h>
#include <stdint.h>

#include "context.h"
#include "diagnose.h"

#define DIAGNOSE_ERROR_KINDS  8 /* distinct errors counted by kind */
#define DIAGNOSE_PROBLEMS_MAX 24

typedef struct ErrorCount {
        int error; /* negative errno */
        unsigned count;
} ErrorCount;

typedef struct Problem {
        char *what, *next;
} Problem;

typedef struct Moments {
        unsigned n;
        double sum, sum2;
        int min, max;
} Moments;

struct Diagnosis {
        Context *c;
        unsigned wanted;
        uint64_t started_usec, deadline_usec;

        /* readouts */
        unsigned readouts, replies, missed, queued_max, polls;
        uint64_t queued_sum, first_ns, last_ns;
        Moments x, y, temperature;
        ErrorCount errors[DIAGNOSE_ERROR_KINDS];
        unsigned busy; /* -EBUSY: no new readout yet, or the EC stayed busy */

        /* the port log of one readout */
        bool capturing, captured_ok;
        char *port_log;

        Problem problems[DIAGNOSE_PROBLEMS_MAX];
        unsigned n_problems;
        bool oom;
        bool not_thinkpad; /* the DMI check failed (reported once, in the system section) */
};

/* The mean and the sample standard deviation of m (0 with too few values). */
double moments_mean(const Moments *m);
double moments_sd(const Moments *m);

/* Frees the problems a report named (the next report names them afresh). */
void diagnosis_free_problems(Diagnosis *d);
