/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The motion sources behind the emulated accelerometer: the demo and trace playback. */
#include <math.h>

#include "sim-motion.h"
#include "sim-random.h"

/* Demo: slow tilts (degrees, periods in ms). */
#define DEMO_TILT_X_DEG        3.0
#define DEMO_TILT_X_PERIOD_MS  11000.0
#define DEMO_DRIFT_X_DEG       1.0
#define DEMO_DRIFT_X_PERIOD_MS 43000.0
#define DEMO_TILT_Y_DEG        2.0
#define DEMO_TILT_Y_PERIOD_MS  17000.0
/* Sensor noise: +-DEMO_NOISE_COUNTS, a new value every DEMO_NOISE_STEP_NS. */
#define DEMO_NOISE_COUNTS  1.0
#define DEMO_NOISE_STEP_NS 100000u
/* Bumps: a damped oscillation, at most one per segment. */
#define DEMO_BUMP_SEGMENT_MS   7000.0
#define DEMO_BUMP_PROBABILITY  0.35
#define DEMO_BUMP_START_MAX_MS 6000.0
#define DEMO_BUMP_LENGTH_MS    1000.0
#define DEMO_BUMP_AMP_MIN      10.0
#define DEMO_BUMP_AMP_EXTRA    20.0
#define DEMO_BUMP_DECAY_MS     120.0
#define DEMO_BUMP_FREQ_HZ      9.0
#define DEMO_BUMP_Y_SHARE      0.6
/* Typing: keystroke jitter +-DEMO_TYPING_JITTER counts, one keystroke every DEMO_KEYSTROKE_MS. */
#define DEMO_TYPING_JITTER 2.0
#define DEMO_KEYSTROKE_MS  80.0
/* Demo bursts cover at most DEMO_BURST_SCAN_MAX segments when asked about a long interval. */
#define DEMO_BURST_SCAN_MAX 64

enum {
        SALT_PHASE_X = 1,
        SALT_PHASE_DRIFT,
        SALT_PHASE_Y,
        SALT_NOISE_X,
        SALT_NOISE_Y,
        SALT_BUMP,
        SALT_BUMP_AT,
        SALT_BUMP_AMP,
        SALT_TYPING,
        SALT_TYPING_AT,
        SALT_TYPING_LEN,
        SALT_KEYSTROKE,
        SALT_MOUSE,
        SALT_MOUSE_AT,
        SALT_MOUSE_LEN,
};

/* A kind of activity burst: at most one per segment, present with a probability, starting within
 * [0, start_max) of the segment and lasting len_min + [0, len_extra). */
typedef struct DemoBurst {
        uint32_t salt, salt_at, salt_len;
        double segment_ms, probability, start_max_ms, len_min_ms, len_extra_ms;
} DemoBurst;

static const DemoBurst demo_typing = {
        .salt = SALT_TYPING,
        .salt_at = SALT_TYPING_AT,
        .salt_len = SALT_TYPING_LEN,
        .segment_ms = 5000,
        .probability = 0.3,
        .start_max_ms = 2500,
        .len_min_ms = 1000,
        .len_extra_ms = 1500,
};

static const DemoBurst demo_mouse = {
        .salt = SALT_MOUSE,
        .salt_at = SALT_MOUSE_AT,
        .salt_len = SALT_MOUSE_LEN,
        .segment_ms = 6000,
        .probability = 0.2,
        .start_max_ms = 3000,
        .len_min_ms = 500,
        .len_extra_ms = 1000,
};

static bool burst_in_segment(uint32_t seed, const DemoBurst *b, uint64_t seg, double *ret_start,
                             double *ret_end)
{
        if (sim_hash_unit(seed, b->salt, seg) >= b->probability)
                return false;
        *ret_start = (double) seg * b->segment_ms + sim_hash_unit(seed, b->salt_at, seg) * b->start_max_ms;
        *ret_end = *ret_start + b->len_min_ms + sim_hash_unit(seed, b->salt_len, seg) * b->len_extra_ms;
        return true;
}

static bool burst_overlaps(uint32_t seed, const DemoBurst *b, double from_ms, double to_ms)
{
        uint64_t first = (uint64_t) (from_ms / b->segment_ms), last = (uint64_t) (to_ms / b->segment_ms);
        double start, end;

        if (last - first >= DEMO_BURST_SCAN_MAX)
                first = last - DEMO_BURST_SCAN_MAX + 1;
        for (uint64_t seg = first; seg <= last; seg++)
                if (burst_in_segment(seed, b, seg, &start, &end) && start <= to_ms && end > from_ms)
                        return true;
        return false;
}

static double demo_bump(uint32_t seed, double t_ms)
{
        uint64_t seg = (uint64_t) (t_ms / DEMO_BUMP_SEGMENT_MS);
        double dt;

        if (sim_hash_unit(seed, SALT_BUMP, seg) >= DEMO_BUMP_PROBABILITY)
                return 0;
        dt = t_ms - (double) seg * DEMO_BUMP_SEGMENT_MS -
             sim_hash_unit(seed, SALT_BUMP_AT, seg) * DEMO_BUMP_START_MAX_MS;
        if (dt < 0 || dt >= DEMO_BUMP_LENGTH_MS)
                return 0;
        double amp = DEMO_BUMP_AMP_MIN + sim_hash_unit(seed, SALT_BUMP_AMP, seg) * DEMO_BUMP_AMP_EXTRA;
        return amp * exp(-dt / DEMO_BUMP_DECAY_MS) * sin(2 * M_PI * DEMO_BUMP_FREQ_HZ * dt / 1000.0);
}

static double tilt_counts(double degrees)
{
        return SIM_DEMO_COUNTS_PER_G * sin(degrees * M_PI / 180.0);
}

static void demo_position(uint32_t seed, uint64_t t_ns, double *ret_x, double *ret_y)
{
        double t_ms = (double) t_ns / 1e6;
        double px = 2 * M_PI * sim_hash_unit(seed, SALT_PHASE_X, 0);
        double pd = 2 * M_PI * sim_hash_unit(seed, SALT_PHASE_DRIFT, 0);
        double py = 2 * M_PI * sim_hash_unit(seed, SALT_PHASE_Y, 0);
        uint64_t noise_step = t_ns / DEMO_NOISE_STEP_NS;
        double start, end;

        double tilt_x = DEMO_TILT_X_DEG * sin(2 * M_PI * t_ms / DEMO_TILT_X_PERIOD_MS + px) +
                        DEMO_DRIFT_X_DEG * sin(2 * M_PI * t_ms / DEMO_DRIFT_X_PERIOD_MS + pd);
        double tilt_y = DEMO_TILT_Y_DEG * sin(2 * M_PI * t_ms / DEMO_TILT_Y_PERIOD_MS + py);
        double bump = demo_bump(seed, t_ms);

        double x = SIM_DEMO_REST_X + tilt_counts(tilt_x) + bump;
        double y = SIM_DEMO_REST_Y + tilt_counts(tilt_y) + DEMO_BUMP_Y_SHARE * bump;
        x += DEMO_NOISE_COUNTS * (2 * sim_hash_unit(seed, SALT_NOISE_X, noise_step) - 1);
        y += DEMO_NOISE_COUNTS * (2 * sim_hash_unit(seed, SALT_NOISE_Y, noise_step) - 1);

        uint64_t seg = (uint64_t) (t_ms / demo_typing.segment_ms);
        if (burst_in_segment(seed, &demo_typing, seg, &start, &end) && t_ms >= start && t_ms < end) {
                uint64_t key = (uint64_t) (t_ms / DEMO_KEYSTROKE_MS);
                x += DEMO_TYPING_JITTER * (2 * sim_hash_unit(seed, SALT_KEYSTROKE, key) - 1);
                y += DEMO_TYPING_JITTER * (2 * sim_hash_unit(seed, SALT_KEYSTROKE, key + 1) - 1);
        }

        *ret_x = x;
        *ret_y = y;
}

/* Maps motion time to trace time: looping restarts after the last row's time. */
static double trace_time(const SimMotion *m, uint64_t t_ns)
{
        double t_ms = (double) t_ns / 1e6, d = trace_duration_ms(m->trace);

        if (m->loop && d > 0)
                t_ms = fmod(t_ms, d);
        return t_ms;
}

/* First row with time_ms > t (n_rows if none). */
static size_t first_row_after(const Trace *t, double time_ms)
{
        size_t lo = 0, hi = t->n_rows;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (t->rows[mid].time_ms <= time_ms)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* Activity in trace time [from_ms, to_ms]: the row holding at from_ms, and every row after it up to
 * to_ms. */
static void trace_activity(const Trace *t, double from_ms, double to_ms, bool *kb, bool *mouse)
{
        bool k, mo;

        trace_sample(t, from_ms, NULL, NULL, &k, &mo);
        *kb |= k;
        *mouse |= mo;
        for (size_t i = first_row_after(t, from_ms); i < t->n_rows && t->rows[i].time_ms <= to_ms; i++) {
                *kb |= t->rows[i].keyboard;
                *mouse |= t->rows[i].mouse;
                if (*kb && *mouse)
                        return;
        }
}

void sim_motion_position(const SimMotion *m, uint64_t t_ns, double *ret_x, double *ret_y)
{
        if (!m->trace) {
                demo_position(m->seed, t_ns, ret_x, ret_y);
                return;
        }
        trace_sample(m->trace, trace_time(m, t_ns), ret_x, ret_y, NULL, NULL);
}

void sim_motion_activity(const SimMotion *m, uint64_t from_ns, uint64_t to_ns, bool *ret_keyboard,
                         bool *ret_mouse)
{
        bool kb = false, mouse = false;

        if (to_ns < from_ns)
                to_ns = from_ns;

        if (!m->trace) {
                double from_ms = (double) from_ns / 1e6, to_ms = (double) to_ns / 1e6;
                kb = burst_overlaps(m->seed, &demo_typing, from_ms, to_ms);
                mouse = burst_overlaps(m->seed, &demo_mouse, from_ms, to_ms);
        } else {
                double d = trace_duration_ms(m->trace);
                double span = (double) (to_ns - from_ns) / 1e6;

                if (!m->loop || d <= 0)
                        trace_activity(m->trace, (double) from_ns / 1e6, (double) to_ns / 1e6, &kb, &mouse);
                else if (span >= d)
                        trace_activity(m->trace, 0, d, &kb, &mouse);
                else {
                        double from_ms = trace_time(m, from_ns), to_ms = from_ms + span;
                        if (to_ms <= d)
                                trace_activity(m->trace, from_ms, to_ms, &kb, &mouse);
                        else { /* wraps around the end of the trace */
                                trace_activity(m->trace, from_ms, d, &kb, &mouse);
                                trace_activity(m->trace, 0, to_ms - d, &kb, &mouse);
                        }
                }
        }

        *ret_keyboard = kb;
        *ret_mouse = mouse;
}

void sim_motion_done(SimMotion *m)
{
        m->trace = trace_free(m->trace);
}
