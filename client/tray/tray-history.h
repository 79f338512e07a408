/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The last seconds of samples for the window's plot: a ring buffer that forgets samples older than
 * its span (relative to the newest) or beyond its capacity. */

#include <glib.h>

typedef struct HistorySample {
        guint64 time_usec;
        int x, y;
} HistorySample;

typedef struct SampleHistory {
        HistorySample *samples;
        size_t capacity;
        size_t start, count;
        guint64 span_usec;
} SampleHistory;

/* Initializes an empty history holding up to capacity samples spanning span_usec. */
void sample_history_init(SampleHistory *h, size_t capacity, guint64 span_usec);
void sample_history_done(SampleHistory *h);
void sample_history_clear(SampleHistory *h);

/* Appends a sample. A sample older than the newest one clears the history first (the clock went back:
 * a restarted service), then old ones fall off. */
void sample_history_push(SampleHistory *h, guint64 time_usec, int x, int y);

/* The i-th sample, oldest first (i < h->count). */
const HistorySample *sample_history_get(const SampleHistory *h, size_t i);
