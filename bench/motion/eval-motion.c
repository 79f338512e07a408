/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eval-motion: replays labelled traces (tests/traces/) through the motion pipeline and scores the
 * result against the labels and the floors.
 *
 * Default: the daemon's pipeline, on the emulator in virtual time: port_open_sim(trace) -> EC transport
 * -> hdaps device (hdaps_poll every 20 ms) -> motion_feed(). --direct feeds the trace rows sampled at
 * 50 Hz straight to motion_feed() (no emulator; for comparing the two). --hdapsd DIR adds hdapsd's
 * decisions (DIR/NAME.parks, one "start_ms end_ms" line per park, from bench/motion/hdapsd-replay.py)
 * in the same table. --check exits 1 if any floor is missed. */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval-labels.h"
#include "eval-replay.h"
#include "motion.h"

#define EVAL_DROP_MAX_READOUTS  2   /* floor: every drop detected within 2 readouts of its onset */
#define EVAL_OTHER_MAX_READOUTS 10  /* knocks and lifts: within 200 ms at 50 Hz */
#define EVAL_FLIP_MAX_MS        500 /* floor: a deliberate turn flips within half a second */

typedef struct Detection {
        double ms;
        unsigned readout; /* index of the readout that reported it */
        const char *reason;
        double magnitude;
} Detection;

typedef struct Outcome {
        Detection shocks[EVAL_MAX_EVENTS];
        unsigned n_shocks;
        MotionOrientation orientations[EVAL_MAX_EVENTS];
        double orientation_ms[EVAL_MAX_EVENTS];
        unsigned n_orientations;
        double *readout_ms; /* when the data of every readout were taken, for latencies in readouts */
        unsigned n_readouts;
        unsigned repeats, missed;
} Outcome;

typedef struct Score {
        unsigned expected, detected, false_alarms;
        int worst_latency; /* readouts, -1 if none detected */
        char latencies[128];
        bool pass;
        char why[256];
} Score;

static void outcome_done(Outcome *o)
{
        free(o->readout_ms);
}

static bool arg_dump;
static double arg_sensitivity = MOTION_SENSITIVITY_DEFAULT;
static unsigned arg_phase_ms;

static int run_motion(const char *path, bool direct, Outcome *out, char **ret_error)
{
        _cleanup_(motion_freep) Motion *m = NULL;
        MotionConfig config = {
                .counts_per_g = EVAL_COUNTS_PER_G,
                .tilt_step = MOTION_TILT_STEP_DEFAULT,
                .shock_sensitivity = arg_sensitivity,
                .shock_hold_ms = MOTION_SHOCK_HOLD_MS_DEFAULT,
        };
        _cleanup_(replay_freep) Replay *replay = NULL;
        int r;

        r = motion_new(&config, &m);
        if (r < 0)
                return r;
        r = direct ? replay_open_direct(path, &replay, ret_error)
                   : replay_open_pipeline(path, arg_phase_ms, &replay, ret_error);
        if (r < 0)
                return r;

        size_t cap = 0;
        MotionSample s;
        while ((r = replay_next(replay, &s, ret_error)) > 0) {
                MotionEvents ev;
                double ms = replay_trace_ms(replay, s.time_usec);

                if (out->n_readouts == cap) {
                        cap = cap ? cap * 2 : 1024;
                        double *n = realloc(out->readout_ms, cap * sizeof(double));
                        if (!n)
                                return -ENOMEM;
                        out->readout_ms = n;
                }
                out->readout_ms[out->n_readouts++] = replay_last_data_ms(replay);
                if (s.new_readouts == 0)
                        out->repeats++;
                if (s.new_readouts > 1)
                        out->missed += s.new_readouts - 1;

                motion_feed(m, &s, &ev);
                if (arg_dump)
                        printf("#     %.0f ms (data %.0f ms): %d,%d rest %d,%d new %u kbd %d mouse %d -> "
                               "events 0x%x "
                               "pitch %.1f roll %.1f %s%s%s\n",
                               ms, replay_last_data_ms(replay), s.x, s.y, s.rest_x, s.rest_y, s.new_readouts,
                               s.keyboard, s.mouse, ev.mask, ev.pitch, ev.roll,
                               motion_orientation_to_string(ev.orientation), ev.shock_active ? " shock" : "",
                               (ev.mask & MOTION_EVENT_SHOCK) ? " ONSET" : "");
                if ((ev.mask & MOTION_EVENT_SHOCK) && out->n_shocks < EVAL_MAX_EVENTS)
                        out->shocks[out->n_shocks++] = (Detection) {
                                .ms = ms,
                                .readout = out->n_readouts - 1,
                                .reason = ev.shock_reason,
                                .magnitude = ev.shock_magnitude,
                        };
                if ((ev.mask & MOTION_EVENT_ORIENTATION) && out->n_orientations < EVAL_MAX_EVENTS) {
                        out->orientation_ms[out->n_orientations] = ms;
                        out->orientations[out->n_orientations++] = ev.orientation;
                }
        }
        return r;
}

/* Readouts taken at or after onset_ms up to and including readout index i: 1 = the first readout that
 * could see the onset reported it. */
static int latency_readouts(const Outcome *o, double onset_ms, unsigned i)
{
        int n = 0;
        for (unsigned k = 0; k <= i && k < o->n_readouts; k++)
                if (o->readout_ms[k] >= onset_ms)
                        n++;
        return n;
}

/* Scores shock onsets (ms, with readout indices if readouts is true) against the labels. */
static void score_shocks(const Labels *l, const Outcome *o, const double *onsets,
                         const unsigned *readout_idx, unsigned n, Score *s)
{
        bool used[EVAL_MAX_EVENTS] = {};
        *s = (Score) {.worst_latency = -1, .pass = true};

        for (unsigned e = 0; e < l->n_shocks; e++) {
                const ShockLabel *x = &l->shocks[e];
                double end = e + 1 < l->n_shocks ? l->shocks[e + 1].at_ms : INFINITY;
                int max_readouts = x->drop ? EVAL_DROP_MAX_READOUTS : EVAL_OTHER_MAX_READOUTS;
                char buf[32];

                s->expected++;
                for (unsigned k = 0; k < n; k++) {
                        if (used[k] || onsets[k] < x->at_ms || onsets[k] >= end)
                                continue;
                        used[k] = true;
                        int lat = readout_idx ? latency_readouts(o, x->at_ms, readout_idx[k])
                                              : (int) floor((onsets[k] - x->at_ms) / EVAL_PERIOD_MS) + 1;
                        if (!isnan(x->impact_ms) && onsets[k] >= x->impact_ms) {
                                s->pass = false;
                                snprintf(s->why + strlen(s->why), sizeof(s->why) - strlen(s->why),
                                         "%s at %.0f ms detected at %.0f ms, not before its impact at %.0f "
                                         "ms; ",
                                         x->kind, x->at_ms, onsets[k], x->impact_ms);
                        } else if (!x->flat_drop && lat > max_readouts) {
                                s->pass = false;
                                snprintf(s->why + strlen(s->why), sizeof(s->why) - strlen(s->why),
                                         "%s at %.0f ms late (%d readouts); ", x->kind, x->at_ms, lat);
                        }
                        s->detected++;
                        s->worst_latency = MAX(s->worst_latency, lat);
                        snprintf(buf, sizeof(buf), "%s%d", s->latencies[0] ? "," : "", lat);
                        strncat(s->latencies, buf, sizeof(s->latencies) - strlen(s->latencies) - 1);
                        goto next;
                }
                s->pass = false;
                snprintf(s->why + strlen(s->why), sizeof(s->why) - strlen(s->why), "%s at %.0f ms missed; ",
                         x->kind, x->at_ms);
        next:;
        }

        for (unsigned k = 0; k < n; k++) {
                if (used[k] || labels_shock_allowed(l, onsets[k]))
                        continue;
                s->false_alarms++;
                s->pass = false;
                snprintf(s->why + strlen(s->why), sizeof(s->why) - strlen(s->why),
                         "false alarm at %.0f ms; ", onsets[k]);
        }
}

static bool score_orientation(const Labels *l, const Outcome *o, char *seq, size_t seq_size, char *why,
                              size_t why_size)
{
        bool pass = true;

        seq[0] = '\0';
        for (unsigned i = 0; i < o->n_orientations; i++) {
                strncat(seq, i ? "," : "", seq_size - strlen(seq) - 1);
                strncat(seq, motion_orientation_to_string(o->orientations[i]), seq_size - strlen(seq) - 1);
        }
        if (l->orientation[0] && strcmp(seq, l->orientation) != 0) {
                pass = false;
                snprintf(why + strlen(why), why_size - strlen(why), "orientation %s, expected %s; ", seq,
                         l->orientation);
        }
        for (unsigned f = 0; f < l->n_flips; f++) {
                const FlipLabel *x = &l->flips[f];
                bool found = false;
                for (unsigned i = 0; i < o->n_orientations; i++) {
                        double lat = o->orientation_ms[i] - x->at_ms;
                        if (o->orientations[i] != x->to || lat < 0)
                                continue;
                        found = true;
                        if (lat > EVAL_FLIP_MAX_MS) {
                                pass = false;
                                snprintf(why + strlen(why), why_size - strlen(why),
                                         "flip to %s %.0f ms late; ", motion_orientation_to_string(x->to),
                                         lat);
                        }
                        snprintf(seq + strlen(seq), seq_size - strlen(seq), " (%s +%.0f ms)",
                                 motion_orientation_to_string(x->to), lat);
                        break;
                }
                if (!found) {
                        pass = false;
                        snprintf(why + strlen(why), why_size - strlen(why), "no flip to %s; ",
                                 motion_orientation_to_string(x->to));
                }
        }
        return pass;
}

static int load_hdapsd(const char *dir, const char *trace_name, double *onsets, unsigned *n)
{
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s.parks", dir, trace_name) < 0)
                return -ENOMEM;
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        double a, b;
        *n = 0;
        while (*n < EVAL_MAX_EVENTS && fscanf(f, "%lf %lf", &a, &b) == 2)
                onsets[(*n)++] = a;
        return 0;
}

static const char *expected_summary(const Labels *l, char *buf, size_t size)
{
        if (l->n_shocks == 0)
                snprintf(buf, size, "%s", l->no_shock ? "no shock" : "any");
        else
                snprintf(buf, size, "%u %s", l->n_shocks, l->shocks[0].kind);
        return buf;
}

static void usage(void)
{
        printf("Usage: eval-motion [--direct] [--hdapsd DIR] [--check] TRACE.csv...\n"
               "Replays labelled traces through the motion pipeline (emulator -> EC -> hdaps -> motion)\n"
               "and prints detections, latencies in readouts, false alarms and orientation sequences.\n"
               "  --direct      feed the trace rows straight to the motion layer (no emulator)\n"
               "  --hdapsd DIR  add hdapsd's parks from DIR/NAME.parks (bench/motion/hdapsd-replay.py)\n"
               "  --check       exit 1 if a floor is missed\n"
               "  --sensitivity S  ShockSensitivity (default 1; 0.1..10)\n"
               "  --phase MS    poll MS ms later (0..19, not with --direct): another tick phase\n"
               "  --dump        print every sample and the events it gave\n");
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                {"direct", no_argument, NULL, 'd'},      {"hdapsd", required_argument, NULL, 'H'},
                {"check", no_argument, NULL, 'c'},       {"dump", no_argument, NULL, 'D'},
                {"help", no_argument, NULL, 'h'},        {"sensitivity", required_argument, NULL, 's'},
                {"phase", required_argument, NULL, 'p'}, {}, /* end */
        };
        bool direct = false, check = false;
        const char *hdapsd_dir = NULL;
        int c;

        while ((c = getopt_long(argc, argv, "dH:cDhs:p:", options, NULL)) >= 0)
                switch (c) {
                case 'd':
                        direct = true;
                        break;
                case 'H':
                        hdapsd_dir = optarg;
                        break;
                case 'c':
                        check = true;
                        break;
                case 'D':
                        arg_dump = true;
                        break;
                case 'h':
                        usage();
                        return 0;
                case 's': {
                        char *end;
                        errno = 0;
                        arg_sensitivity = strtod(optarg, &end);
                        if (errno || end == optarg || *end || !(arg_sensitivity >= MOTION_SENSITIVITY_MIN) ||
                            arg_sensitivity > MOTION_SENSITIVITY_MAX) {
                                fprintf(stderr,
                                        "eval-motion: --sensitivity '%s' is not a number in %g..%g\n",
                                        optarg, MOTION_SENSITIVITY_MIN, MOTION_SENSITIVITY_MAX);
                                return 2;
                        }
                        break;
                }
                case 'p': {
                        char *end;
                        errno = 0;
                        unsigned long v = strtoul(optarg, &end, 10);
                        if (errno || end == optarg || *end || optarg[0] == '-' ||
                            v >= (unsigned long) EVAL_PERIOD_MS) {
                                fprintf(stderr,
                                        "eval-motion: --phase '%s' is not a whole number of ms in 0..%d\n",
                                        optarg, (int) EVAL_PERIOD_MS - 1);
                                return 2;
                        }
                        arg_phase_ms = (unsigned) v;
                        break;
                }
                default:
                        return 2;
                }
        if (optind >= argc) {
                usage();
                return 2;
        }

        printf("# eval-motion: %s, sensitivity %.1f, hold %u ms, %.0f counts/g, tick phase %u ms\n",
               direct ? "direct feed (trace rows at 50 Hz)"
                      : "emulator -> EC -> hdaps -> motion, virtual time",
               arg_sensitivity, MOTION_SHOCK_HOLD_MS_DEFAULT, EVAL_COUNTS_PER_G, direct ? 0 : arg_phase_ms);
        printf("%-18s %-11s | %-4s %-5s %-8s %-5s | %-4s %-5s %-8s %-5s | %s\n", "trace", "expected", "tpa",
               "false", "lat", "pass", "hda", "false", "lat", "pass", "orientation (tpaccel)");

        unsigned failed = 0, n_traces = 0;
        unsigned tot_exp = 0, tot_det = 0, tot_false = 0, h_det = 0, h_false = 0;
        bool have_h = false;
        for (int i = optind; i < argc; i++) {
                _cleanup_free_ char *error = NULL;
                Labels labels;
                Outcome o = {};
                int r;

                r = labels_load(argv[i], &labels, &error);
                if (r < 0) {
                        fprintf(stderr, "eval-motion: %s\n", error ?: strerror(-r));
                        return 1;
                }
                r = run_motion(argv[i], direct, &o, &error);
                if (r < 0) {
                        fprintf(stderr, "eval-motion: %s: %s\n", argv[i], error ?: strerror(-r));
                        outcome_done(&o);
                        return 1;
                }

                double onsets[EVAL_MAX_EVENTS];
                unsigned idx[EVAL_MAX_EVENTS];
                for (unsigned k = 0; k < o.n_shocks; k++) {
                        onsets[k] = o.shocks[k].ms;
                        idx[k] = o.shocks[k].readout;
                }
                Score s;
                score_shocks(&labels, &o, onsets, idx, o.n_shocks, &s);
                char seq[256], expbuf[32];
                bool orient_ok = score_orientation(&labels, &o, seq, sizeof(seq), s.why, sizeof(s.why));
                bool pass = s.pass && orient_ok;

                char hcols[192] = "-    -     -        -    ";
                if (hdapsd_dir) {
                        double h_onsets[EVAL_MAX_EVENTS];
                        unsigned hn = 0;
                        Score hs;
                        if (load_hdapsd(hdapsd_dir, labels.name, h_onsets, &hn) >= 0) {
                                score_shocks(&labels, NULL, h_onsets, NULL, hn, &hs);
                                snprintf(hcols, sizeof(hcols), "%u/%-2u %-5u %-8s %-5s", hs.detected,
                                         hs.expected, hs.false_alarms, hs.latencies[0] ? hs.latencies : "-",
                                         hs.pass ? "ok" : "FAIL");
                                h_det += hs.detected;
                                h_false += hs.false_alarms;
                                have_h = true;
                        }
                }

                printf("%-18s %-11s | %u/%-2u %-5u %-8s %-5s | %s | %s\n", labels.name,
                       expected_summary(&labels, expbuf, sizeof(expbuf)), s.detected, s.expected,
                       s.false_alarms, s.latencies[0] ? s.latencies : "-", pass ? "ok" : "FAIL", hcols, seq);
                for (unsigned k = 0; k < o.n_shocks; k++)
                        printf("#   %s: shock at %.0f ms, %s, %.3f g\n", labels.name, o.shocks[k].ms,
                               o.shocks[k].reason, o.shocks[k].magnitude);
                if (!pass)
                        printf("#   %s: FAIL: %s\n", labels.name, s.why);
                if (o.repeats || o.missed)
                        printf("#   %s: %u repeated readouts, %u missed readouts\n", labels.name, o.repeats,
                               o.missed);

                n_traces++;
                failed += !pass;
                tot_exp += s.expected;
                tot_det += s.detected;
                tot_false += s.false_alarms;
                outcome_done(&o);
        }

        printf("# total: %u traces, %u failed; tpaccel %u/%u shocks detected, %u false alarms", n_traces,
               failed, tot_det, tot_exp, tot_false);
        if (have_h)
                printf("; hdapsd %u/%u detected, %u false alarms", h_det, tot_exp, h_false);
        printf("\n");
        return check && failed ? 1 : 0;
}
