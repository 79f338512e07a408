/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* tpaccelctl's context and the helpers its commands share. Every command returns an ExitStatus and
 * prints its own errors (to stderr, once, with context). */

#include <stdio.h>
#include <sys/types.h>

#include <gio/gio.h>

#include "accel-bus.h"
#include "accel-stream.h"
#include "client-i18n.h"

typedef struct Ctl {
        BusTarget target;
        char *address;
        char *bus_description;
        GDBusConnection *bus; /* connected lazily by ctl_connect() */
        gboolean json;
        gboolean samples;
        gboolean ask_password;
        guint16 data_mask;
        const char *polkit_action; /* the action the current command needs, NULL for reads */
        pid_t polkit_agent;        /* pkttyagent started for this process, 0 if none */
        gboolean polkit_agent_ran; /* pkttyagent was started for the last guarded call (kept after close) */
        guint seconds;             /* record --seconds; 0: until Ctrl-C */
} Ctl;

/* Connects to the bus once. EXIT_STATUS_OK, or an error printed and its status returned. */
ExitStatus ctl_connect(Ctl *ctl);

/* Calls a method on tpacceld (object and interface given), with interactive authorization unless
 * --no-ask-password. Returns the reply, or NULL with *error set. */
GVariant *ctl_call(Ctl *ctl, const char *object, const char *interface, const char *method, GVariant *params,
                   const GVariantType *reply_type, GError **error);

/* Before a polkit-guarded call: when stdin is a terminal, not root, and --no-ask-password is not given,
 * starts pkttyagent for this process (as systemctl does) so that polkit can ask for a password there.
 * Failing to start it is not an error: the call then fails with a hint. ctl_done() stops it. */
void ctl_polkit_agent_open(Ctl *ctl, const char *action);
void ctl_polkit_agent_close(Ctl *ctl);

/* All org.thinkpad.Accelerometer properties as a{sv}, or NULL with *error set. */
GVariant *ctl_get_all(Ctl *ctl, GError **error);

/* Claims the accelerometer: EXIT_STATUS_OK, or the error printed and its status returned. */
ExitStatus ctl_claim(Ctl *ctl);

/* Releases the accelerometer; a failure is printed as a warning and otherwise ignored. */
void ctl_release(Ctl *ctl);

/* Opens the sample stream (accel_stream_acquire(): every readout to func, and a claim at the full
 * SamplingRate while held) into *ret: EXIT_STATUS_OK, or the error printed and its status returned. */
ExitStatus ctl_acquire_stream(Ctl *ctl, AccelStreamFunc func, gpointer userdata, AccelStream **ret);

/* Prints "tpaccelctl: CONTEXT: words: message" (plus how to start the service if it is missing, or how
 * to get authorized when polkit refused) and returns the exit status that goes with the error. */
ExitStatus ctl_report_error(Ctl *ctl, const char *context, const GError *error);

/* Writes one formatted line (or more) to out and flushes it. Returns 0, or a negative errno when the
 * write failed: -EPIPE when the reader went away (e.g. "tpaccelctl monitor | head -3"; SIGPIPE is
 * ignored), which every output loop takes as its end with EXIT_STATUS_OK. */
int ctl_output_line(FILE *out, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* When stdout is a pipe or a socket: calls on_closed(userdata) once its reader went away (POLLERR on
 * our end), so that an output loop with nothing to print ends too ("monitor | head -1"). Returns the
 * source id to remove, 0 when stdout is something else. */
guint ctl_watch_output_closed(GSourceFunc on_closed, gpointer userdata);

/* Prints a usage error and returns EXIT_STATUS_USAGE. */
ExitStatus ctl_usage_error(const char *format, ...) G_GNUC_PRINTF(1, 2);

/* The commands. args are the words after the command name. */
ExitStatus ctl_status(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_get(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_set(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_calibrate(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_pause(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_monitor(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_ec(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_record(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_diagnose(Ctl *ctl, char **args, int n_args);
ExitStatus ctl_alarm(Ctl *ctl, char **args, int n_args);
