/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The diagnosis report (tpaccelctl diagnose; org.thinkpad.Accelerometer.Diagnose; tpacceld --diagnose):
 * what a user pastes into a bug report. It gathers the system facts (DMI, model table, kernel modules,
 * /proc/ioports, lockdown, backend and why), the EC's answers to read-only requests (self-test, mode
 * latch, check, configuration read-back), statistics of a run of readouts at the configured rate with
 * the port log of one readout, and the tablet-mode switch; every problem found comes with what to do
 * next. Formats: text or JSON (the same content; report-writer.h). Port access happens only through the
 * context's backend, from the caller's thread: in the daemon the readouts are the poller's own ticks,
 * which the run follows through the poller's hook (poller_set_hook()).
 * The layer above the daemon core: the core never calls it; the D-Bus face (bus/diagnose-bus.c) and
 * tpacceld --diagnose (main/) do. Its files: diagnose.c (the run and its statistics), diagnose-report.c
 * (what the report says), system-checks.c (DMI, kernel modules, ports owner, lockdown) and
 * report-writer.c (text/JSON). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "macros.h"

typedef struct Context Context;
typedef struct Diagnosis Diagnosis;

#define DIAGNOSE_READOUTS    100u /* readouts taken, at most DIAGNOSE_MAX_SECONDS worth of them */
#define DIAGNOSE_MAX_SECONDS 10u
#define DIAGNOSE_FORMAT_TEXT "text"
#define DIAGNOSE_FORMAT_JSON "json"

/* A new run for c (borrowed, outlives the run): the number of readouts follows c's sampling rate. While it
 * exists the run is the poller's hook and takes every poll tick as a readout; one run at a time.
 * Returns 0 or -ENOMEM. */
int diagnosis_new(Context *c, Diagnosis **ret);
Diagnosis *diagnosis_free(Diagnosis *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(Diagnosis *, diagnosis_free);

/* The time the run may take in microseconds (then it reports what it has). */
uint64_t diagnosis_deadline_usec(const Diagnosis *d);

/* All the readouts are in. */
bool diagnosis_complete(const Diagnosis *d);

/* Runs the checks that need no readouts (including the EC's read-only requests) and formats the whole
 * report in format ("text" or "json"). Returns the number of problems named (>= 0) with *ret (free it),
 * -EINVAL for another format, or -ENOMEM. */
int diagnosis_report(Diagnosis *d, const char *format, char **ret);

/* No bus (tpacceld --diagnose): takes the readouts itself at the configured rate, prints the report to
 * out and powers the accelerometer off. Returns the number of problems the report names, or a negative
 * errno when no report could be made. */
int diagnose_standalone(Context *c, const char *format, FILE *out);

/* In the daemon the run in progress is the D-Bus face's (BusFace.diagnosis), started by Diagnose()
 * (bus/diagnose-bus.c), which sets DEMAND_DIAGNOSIS while it lasts: the poller's ticks are its readouts. */
