/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eval-movement: replays the labelled movement traces (tests/traces/movement/) through the daemon's
 * pipeline on the emulator in virtual time (emulator -> EC -> hdaps -> motion with movement watched), at
 * the rate a movement claim polls at (MOVEMENT_RATE_HZ) and at 50 Hz (disk protection or a full-rate
 * claim beside it), at ten poll phases each, and scores the Moved events against the labels: every
 * movement detected within EVAL_MOVEMENT_MAX_MS of its start, no Moved on the negatives. Prints one table
 * (docs/evidence/MOTION-EVALUATION.md, "Movement"); --check exits 1 if a floor is missed. */

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
#include "poller.h"

#define EVAL_MOVEMENT_MAX_MS   1000.0 /* floor: every movement detected within a second of its start */
#define EVAL_MOVEMENT_AFTER_MS 3000.0 /* Moved up to this long after a movement's end is part of it */
#define EVAL_PHASES            10     /* poll phases per rate */
#define EVAL_MAX_MOVES         256

typedef struct MovementLabel {
        double at_ms, until_ms;
        char kind[16];
} MovementLabel;

typedef struct MovementLabels {
        char name[64];
        bool none; /* no-movement */
        MovementLabel moves[EVAL_MAX_EVENTS];
        unsigned n_moves;
        double allowed_from[EVAL_MAX_EVENTS], allowed_to[EVAL_MAX_EVENTS];
        unsigned n_allowed;
} MovementLabels;

static int parse_movement_expect(const char *e, void *userdata)
{
        MovementLabels *l = userdata;
        MovementLabel m = {};
        double a, b;

        if (strcmp(e, "no-movement") == 0)
                l->none = true;
        else if (l->n_moves < EVAL_MAX_EVENTS &&
                 sscanf(e, "movement at_ms=%lf until_ms=%lf kind=%15s", &m.at_ms, &m.until_ms, m.kind) ==
                         3 &&
                 m.at_ms < m.until_ms)
                l->moves[l->n_moves++] = m;
        else if (l->n_allowed < EVAL_MAX_EVENTS &&
                 sscanf(e, "movement-allowed from_ms=%lf to_ms=%lf", &a, &b) == 2 && a <= b) {
                l->allowed_from[l->n_allowed] = a;
                l->allowed_to[l->n_allowed++] = b;
        } else
                return -EINVAL;
        return 0;
}

static int load_labels(const char *path, MovementLabels *ret, char **ret_error)
{
        int r;

        *ret = (MovementLabels) {};
        r = labels_read(path, ret->name, sizeof(ret->name), parse_movement_expect, ret, ret_error);
        if (r < 0)
                return r;
        if (ret->none == (ret->n_moves > 0)) {
                if (asprintf(ret_error, "%s: expects neither or both no-movement and a movement", path) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        return 0;
}

/* One replay: the trace-time (ms) of every Moved, as the host read the readout that raised it. */
static int replay_moves(const char *path, unsigned rate_hz, unsigned phase_ms, double *moves,
                        unsigned *ret_n, char **ret_error)
{
        _cleanup_(replay_freep) Replay *r = NULL;
        _cleanup_(motion_freep) Motion *m = NULL;
        MotionConfig config = {
                .counts_per_g = EVAL_COUNTS_PER_G,
                .tilt_step = MOTION_TILT_STEP_DEFAULT,
                .shock_sensitivity = MOTION_SENSITIVITY_DEFAULT,
                .shock_hold_ms = MOTION_SHOCK_HOLD_MS_DEFAULT,
        };
        MotionSample s;
        int k;

        *ret_n = 0;
        k = replay_open_pipeline_at(path, rate_hz, phase_ms, &r, ret_error);
        if (k < 0)
                return k;
        k = motion_new(&config, &m);
        if (k < 0)
                return k;
        while ((k = replay_next(r, &s, ret_error)) > 0) {
                MotionEvents ev;

                s.rate_hz = rate_hz;
                s.watch_movement = true;
                motion_feed(m, &s, &ev);
                if ((ev.mask & MOTION_EVENT_MOVED) && *ret_n < EVAL_MAX_MOVES)
                        moves[(*ret_n)++] = replay_trace_ms(r, s.time_usec);
        }
        return k;
}

typedef struct Score {
        unsigned runs, missed, false_alarms;
        double worst_ms, best_ms; /* latency of the first Moved after a movement's start */
} Score;

static bool allowed(const MovementLabels *l, double ms)
{
        for (unsigned i = 0; i < l->n_allowed; i++)
                if (ms >= l->allowed_from[i] && ms <= l->allowed_to[i])
                        return true;
        for (unsigned i = 0; i < l->n_moves; i++)
                if (ms >= l->moves[i].at_ms && ms <= l->moves[i].until_ms + EVAL_MOVEMENT_AFTER_MS)
                        return true;
        return false;
}

static void score_run(const MovementLabels *l, const double *moves, unsigned n, Score *sc)
{
        sc->runs++;
        for (unsigned i = 0; i < l->n_moves; i++) {
                const MovementLabel *x = &l->moves[i];
                bool found = false;
                for (unsigned j = 0; j < n && !found; j++)
                        if (moves[j] >= x->at_ms && moves[j] <= x->at_ms + EVAL_MOVEMENT_MAX_MS) {
                                found = true;
                                sc->worst_ms = MAX(sc->worst_ms, moves[j] - x->at_ms);
                                sc->best_ms = MIN(sc->best_ms, moves[j] - x->at_ms);
                        }
                if (!found)
                        sc->missed++;
        }
        for (unsigned j = 0; j < n; j++)
                if (!allowed(l, moves[j]))
                        sc->false_alarms++;
}

static void help(void)
{
        printf("Usage: eval-movement [--check] [--rate HZ]... TRACE...\n"
               "Replays labelled movement traces through the pipeline with movement watched, at %d Hz and "
               "50 Hz (or each --rate), %d poll phases each; prints latencies and false alarms.\n",
               MOVEMENT_RATE_HZ, EVAL_PHASES);
}

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                {"check", no_argument, NULL, 'c'},
                {"rate", required_argument, NULL, 'r'},
                {"help", no_argument, NULL, 'h'},
                {},
        };
        unsigned rates[8], n_rates = 0;
        bool check = false, ok = true;
        unsigned total_moves = 0, total_negatives = 0, total_failed = 0;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'c':
                        check = true;
                        break;
                case 'r': {
                        char *end;
                        unsigned long v = strtoul(optarg, &end, 10);
                        if (*end || v < 1 || v > 1000 || n_rates == ELEMENTSOF(rates)) {
                                fprintf(stderr,
                                        "eval-movement: --rate %s: a rate of 1..1000 Hz (at most %zu)\n",
                                        optarg, ELEMENTSOF(rates));
                                return 2;
                        }
                        rates[n_rates++] = (unsigned) v;
                        break;
                }
                case 'h':
                        help();
                        return 0;
                default:
                        return 2;
                }
        if (optind >= argc) {
                help();
                return 2;
        }
        if (n_rates == 0) {
                rates[n_rates++] = MOVEMENT_RATE_HZ;
                rates[n_rates++] = 50;
        }

        printf("# eval-movement: emulator -> EC -> hdaps -> motion (movement watched), virtual time, %d "
               "poll "
               "phases per rate;\n# latency: movement start -> the readout raising Moved (worst/best over "
               "the "
               "phases), floor %.0f ms\n",
               EVAL_PHASES, EVAL_MOVEMENT_MAX_MS);
        printf("%-22s %-10s", "trace", "expected");
        for (unsigned i = 0; i < n_rates; i++)
                printf(" | %4u Hz %-9s %-5s %-4s", rates[i], "latency", "false", "pass");
        printf("\n");

        for (int a = optind; a < argc; a++) {
                _cleanup_free_ char *error = NULL;
                MovementLabels l;
                int k = load_labels(argv[a], &l, &error);
                if (k < 0) {
                        fprintf(stderr, "eval-movement: %s\n", error ? error : strerror(-k));
                        return 2;
                }
                printf("%-22s %-10s", l.name, l.none ? "none" : l.moves[0].kind);
                if (l.none)
                        total_negatives++;
                else
                        total_moves += l.n_moves;
                bool trace_ok = true;
                for (unsigned i = 0; i < n_rates; i++) {
                        Score sc = {.best_ms = INFINITY};
                        unsigned period_ms = 1000 / rates[i];
                        for (unsigned p = 0; p < EVAL_PHASES; p++) {
                                double moves[EVAL_MAX_MOVES];
                                unsigned n;
                                k = replay_moves(argv[a], rates[i], p * period_ms / EVAL_PHASES, moves, &n,
                                                 &error);
                                if (k < 0) {
                                        fprintf(stderr, "eval-movement: %s\n", error ? error : strerror(-k));
                                        return 2;
                                }
                                score_run(&l, moves, n, &sc);
                        }
                        bool pass = sc.missed == 0 && sc.false_alarms == 0;
                        char latency[32] = "-";
                        if (l.n_moves > 0 && isfinite(sc.best_ms))
                                snprintf(latency, sizeof(latency), "%.0f/%.0f", sc.worst_ms, sc.best_ms);
                        if (sc.missed > 0)
                                snprintf(latency, sizeof(latency), "%u missed", sc.missed);
                        printf(" | %7s %-9s %-5u %-4s", "", latency, sc.false_alarms, pass ? "ok" : "FAIL");
                        trace_ok = trace_ok && pass;
                }
                printf("\n");
                if (!trace_ok)
                        total_failed++;
                ok = ok && trace_ok;
        }
        printf("# total: %u movements, %u negatives, %u traces failed\n", total_moves, total_negatives,
               total_failed);
        return check && !ok ? 1 : 0;
}
