/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* AcquireStream() from a GLib client: every readout as a record (org.thinkpad.Accelerometer.xml
 * documents the layout), delivered in the main loop. Holding the stream is a claim at the full
 * SamplingRate; freeing it releases. */

#include <gio/gio.h>

typedef struct AccelStreamRecord {
        guint64 time_usec; /* CLOCK_MONOTONIC time of the readout */
        gint32 x, y;       /* axis-corrected raw counts */
        guint32 flags;     /* ACCEL_STREAM_FLAG_* */
        guint32 reserved;
} AccelStreamRecord;
G_STATIC_ASSERT(sizeof(AccelStreamRecord) == 24);

#define ACCEL_STREAM_FLAG_KEYBOARD     (1u << 0)
#define ACCEL_STREAM_FLAG_MOUSE        (1u << 1)
#define ACCEL_STREAM_FLAG_SHOCK_ACTIVE (1u << 2)
#define ACCEL_STREAM_FLAG_MISSED       (1u << 3) /* a readout was missed before this one */

/* record: the next record; NULL once: the stream ended (the service closed it or left). */
typedef void (*AccelStreamFunc)(const AccelStreamRecord *record, gpointer userdata);

typedef struct AccelStream AccelStream;

/* Calls AcquireStream() on tpacceld (bus name, object and interface of accel-bus.h) and watches the fd
 * in the thread-default main context. NULL with *error set if the call fails or the service answers
 * with a record size this client does not know. */
AccelStream *accel_stream_acquire(GDBusConnection *bus, AccelStreamFunc func, gpointer userdata,
                                  GError **error);
/* Closes the stream (releasing its claim); func is not called any more. */
void accel_stream_free(AccelStream *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AccelStream, accel_stream_free)
