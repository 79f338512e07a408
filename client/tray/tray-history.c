/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tray-history.h"

void sample_history_init(SampleHistory *h, size_t capacity, guint64 span_usec)
{
        g_assert(capacity > 0);
        *h = (SampleHistory) {
                .samples = g_new0(HistorySample, capacity),
                .capacity = capacity,
                .span_usec = span_usec,
        };
}

void sample_history_done(SampleHistory *h)
{
        g_clear_pointer(&h->samples, g_free);
        h->count = h->start = 0;
}

void sample_history_clear(SampleHistory *h)
{
        h->count = h->start = 0;
}

const HistorySample *sample_history_get(const SampleHistory *h, size_t i)
{
        g_assert(i < h->count);
        return &h->samples[(h->start + i) % h->capacity];
}

void sample_history_push(SampleHistory *h, guint64 time_usec, int x, int y)
{
        if (h->count > 0 && time_usec < sample_history_get(h, h->count - 1)->time_usec)
                sample_history_clear(h);

        if (h->count == h->capacity) {
                h->start = (h->start + 1) % h->capacity;
                h->count--;
        }
        h->samples[(h->start + h->count) % h->capacity] = (HistorySample) {time_usec, x, y};
        h->count++;

        while (h->count > 1 && time_usec - sample_history_get(h, 0)->time_usec > h->span_usec) {
                h->start = (h->start + 1) % h->capacity;
                h->count--;
        }
}
