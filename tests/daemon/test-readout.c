/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/daemon/readout.c in-process (rig.h): the labelled traces of tests/traces/ replayed by the
 * emulator, polled by the poller, through calibration and motion processing to the observer, in virtual
 * time: a drop raises one shock (its events before the properties they change, ShockActive held), the
 * traces that must not raise one do not, desk knocks raise one each unless the sensitivity is low, no shock
 * below the minimum rate, a turn raises Tilt events and two orientation changes without flicker,
 * scripts/demo.sh's tour turns every way without a shock; with no saved rest position the one at
 * initialization is the rest position, not the first readout a client asks for. The motion algorithms' own
 * tests are tests/motion/; the bus's Shock and Tilt signals are tests/bus/test_motion.py's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readout.h"
#include "rig.h"
#include "test-helpers.h"

#define DROP_AT_MS        5000 /* drop-*.csv: '# expect: shock at_ms=5000' */
#define SHOCK_HOLD_USEC   (1000 * USEC_PER_MSEC)
#define COUNTS_PER_G      157.0 /* the traces' scale */
#define NOISE_BAND_COUNTS 4.5   /* motion-params.h; docs/MOTION.md "Tilt event" */

static Rig *replay(const char *trace, const char *state, uint64_t ms)
{
        Rig *r = rig_new(&(RigOptions) {.trace = trace, .state = state});
        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_advance_ms(r, ms);
        return r;
}

/* The time of an event since the trace's time 0. */
static uint64_t since_t0_ms(const Rig *r, const RigEvent *e)
{
        return (e->usec - r->t0_usec) / USEC_PER_MSEC;
}

/* drop-30cm.csv with the first poll tick phase ms after the emulator started. Returns the shock's
 * reason (a static string), NULL unless there was exactly one. */
static const char *drop_at_phase(unsigned phase)
{
        Rig *r = rig_new(&(RigOptions) {.trace = "drop-30cm.csv"});
        const MotionState *ms = motion_get_state(r->c->motion);
        const char *reason = NULL;

        rig_advance_ms(r, phase);
        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_advance_ms(r, 10500);
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_SHOCK), 1);
        const RigEvent *shock = rig_motion_nth(r, MOTION_EVENT_SHOCK, 0);
        if (shock && rig_motion_count(r, MOTION_EVENT_SHOCK) == 1) {
                reason = shock->motion.shock_reason;
                CHECK(shock->motion.shock_magnitude > 0.05 && shock->motion.shock_magnitude < 2.0);
                /* Within two readouts of the drop (the floor of docs/evidence/MOTION-EVALUATION.md). */
                CHECK(since_t0_ms(r, shock) >= DROP_AT_MS);
                CHECK(since_t0_ms(r, shock) <= DROP_AT_MS + 2 * 20 + 20);
                /* The Shock event comes before the properties it changes, on the same readout. */
                const RigEvent *count = rig_change_nth(r, CHANGE_SHOCK_COUNT, 0);
                CHECK(count && count > shock && count->usec == shock->usec);
                CHECK_EQ(rig_change_count(r, CHANGE_LAST_SHOCK), 1);
                CHECK_EQ(ms->last_shock_usec, shock->motion.shock_time_usec);
        }
        CHECK_EQ(rig_change_count(r, CHANGE_SHOCK_COUNT), 1);
        CHECK_EQ(ms->shock_count, 1);
        /* ShockActive: true, then false once after the hold. */
        CHECK_EQ(rig_change_count(r, CHANGE_SHOCK_ACTIVE), 2);
        const RigEvent *on = rig_change_nth(r, CHANGE_SHOCK_ACTIVE, 0),
                       *off = rig_change_nth(r, CHANGE_SHOCK_ACTIVE, 1);
        CHECK(on && off && on->shock_active && !off->shock_active);
        CHECK(on && off && off->usec - on->usec >= SHOCK_HOLD_USEC * 9 / 10);
        CHECK(!ms->shock_active);
        /* Polling ran the whole time. */
        CHECK(r->new_readouts >= 50 * 10 * 9 / 10);
        rig_free(r);
        return reason;
}

TEST(a_drop_raises_one_shock_at_every_tick_phase)
{
        /* The tick phase decides which readout sees the collapse half done (the sensor settles over
         * ~25 ms): a drop from a tilted, hand-held position is a free fall at every phase, also where
         * the first readout of the fall, caught mid-collapse, is already a jolt (phases 0-3 ms here,
         * reported as a jolt before; docs/MOTION.md "Freefall test", step 2). */
        for (unsigned phase = 0; phase < 20; phase++) {
                const char *reason = drop_at_phase(phase);
                fprintf(stderr, "  phase %2u ms: %s\n", phase, strna(reason));
                CHECK_STREQ(reason, "freefall");
        }
}

static void no_shock_on(const char *trace, uint64_t ms, bool vibration)
{
        Rig *r = replay(trace, NULL, ms);
        const MotionState *s = motion_get_state(r->c->motion);

        fprintf(stderr, "  %s: vibration level %.3f g, %u readouts\n", trace, s->vibration_level,
                r->new_readouts);
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_SHOCK), 0);
        CHECK_EQ(rig_change_count(r, CHANGE_SHOCK_ACTIVE), 0);
        CHECK_EQ(s->shock_count, 0);
        CHECK(r->new_readouts >= 50 * (ms / 1000) * 9 / 10);
        if (vibration)
                CHECK(s->vibration_level > 0.01); /* the detector adapted to the vibration */
        if (strcmp(trace, "typing.csv") == 0)
                CHECK(rig_change_count(r, CHANGE_KEYBOARD_ACTIVITY) >= 1); /* the trace does type */
        rig_free(r);
}

TEST(typing_vibration_and_a_car_ride_raise_no_shock)
{
        no_shock_on("typing.csv", 15000, false);
        no_shock_on("vibration-desk.csv", 20000, true);
        no_shock_on("vibration-train.csv", 20000, true);
        no_shock_on("car-ride.csv", 30000,
                    true); /* a nearly flat machine, road bumps swinging through 0 g */
}

/* drop-flat-10cm.csv: a 4 deg machine dropped 10 cm, 0.07 g of in-plane collapse, the impact 143 ms
 * later. Returns whether a freefall shock was raised; every shock is after the drop. */
static bool flat_drop_freefall(const char *state, size_t *ret_shocks)
{
        Rig *r = replay("drop-flat-10cm.csv", state, 10000);
        bool freefall = false;

        *ret_shocks = rig_motion_count(r, MOTION_EVENT_SHOCK);
        for (size_t i = 0; i < *ret_shocks; i++) {
                const RigEvent *e = rig_motion_nth(r, MOTION_EVENT_SHOCK, i);
                CHECK(since_t0_ms(r, e) >= DROP_AT_MS);
                if (strcmp(e->motion.shock_reason, "freefall") == 0)
                        freefall = true;
        }
        rig_free(r);
        return freefall;
}

TEST(a_flat_drop_is_a_fall_unless_the_sensitivity_is_halved)
{
        size_t n;

        /* The default: the shallow collapse holds still, so it is a fall (before the impact). */
        CHECK(flat_drop_freefall(NULL, &n));
        CHECK_EQ(n, 1);
        /* At 0.5 the fall threshold (0.08 g) exceeds the 0.07 g collapse: no fall, at most the impact. */
        CHECK(!flat_drop_freefall("shock_sensitivity=0.5\n", &n));
        CHECK(n <= 1);
}

/* desk-knock.csv: knocks of 0.15, 0.25 and 0.4 g at 3, 6 and 9 s. Returns the shocks raised. */
static size_t desk_knocks(const char *state)
{
        static const uint64_t knock_ms[] = {3000, 6000, 9000};
        Rig *r = replay("desk-knock.csv", state, 10000);
        size_t n = rig_motion_count(r, MOTION_EVENT_SHOCK);

        for (size_t i = 0; i < n && n == ELEMENTSOF(knock_ms); i++) {
                /* Each within 200 ms of its knock (the floor for knocks in bench/motion/eval-motion.c),
                 * none before it. */
                uint64_t at = since_t0_ms(r, rig_motion_nth(r, MOTION_EVENT_SHOCK, i));
                CHECK(at >= knock_ms[i] && at <= knock_ms[i] + 200);
        }
        CHECK_EQ(rig_change_count(r, CHANGE_SHOCK_COUNT), n);
        CHECK_EQ(motion_get_state(r->c->motion)->shock_count, n);
        CHECK(r->new_readouts >= 50 * 10 * 9 / 10);
        rig_free(r);
        return n;
}

TEST(desk_knocks_raise_three_shocks_unless_the_sensitivity_is_low)
{
        CHECK_EQ(desk_knocks(NULL), 3);
        /* At sensitivity 0.1 (thresholds x10) none of them counts. */
        CHECK_EQ(desk_knocks("shock_sensitivity=0.1\n"), 0);
}

TEST(no_shock_below_the_minimum_rate)
{
        /* lift-and-carry.csv: lifted at 2 s, carried, put down at 7 s. At the tray's 4 Hz claim the
         * lift and the put-down raised "drift" shocks once, although the detector is made for 50 Hz
         * readouts (docs/MOTION.md, "Minimum rate"); the tilt is followed all the same. */
        Rig *r = rig_new(&(RigOptions) {.trace = "lift-and-carry.csv"});
        rig_claim(r, 4, ":1.5");
        rig_advance_ms(r, 10000);

        CHECK_EQ(r->c->poller.poll_rate, 4);
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_SHOCK), 0);
        CHECK_EQ(rig_change_count(r, CHANGE_SHOCK_ACTIVE), 0);
        CHECK_EQ(motion_get_state(r->c->motion)->shock_count, 0);
        CHECK(rig_motion_count(r, MOTION_EVENT_TILT) > 0);
        CHECK(r->new_readouts >= 4 * 10 * 9 / 10);
        rig_free(r);
}

/* The Tilt events docs/MOTION.md promises for a 90 degree turn at an even pace over 40 readouts: one
 * whenever the angle moved by TiltStep and by more than the noise band can move it. */
static unsigned tilts_for_turn(double step)
{
        double sent = 0;
        unsigned n = 0;

        for (int i = 1; i <= 40; i++) {
                double angle = 90.0 * i / 40,
                       s = fabs(sin(sent * M_PI / 180)) + NOISE_BAND_COUNTS / COUNTS_PER_G;
                double band = asin(fmin(1.0, s)) * 180 / M_PI - fabs(sent);
                if (fabs(angle - sent) >= fmax(step, band)) {
                        n++;
                        sent = angle;
                }
        }
        return n;
}

/* rotate-*.csv: level, turned by 90 degrees over 0.8 s (2.343 s the flip), held from 2.8 s to 5.8 s,
 * turned back. Returns the tilt events seen. */
static size_t rotation(const char *turned_to, bool roll, double step)
{
        char trace[64], state[64];
        snprintf(trace, sizeof(trace), "rotate-%s.csv", turned_to);
        snprintf(state, sizeof(state), "tilt_step=%g\n", step);
        Rig *r = replay(trace, state, 4000);
        const MotionState *s = motion_get_state(r->c->motion);

        CHECK_STREQ(motion_orientation_to_string(s->orientation), turned_to);
        CHECK(fabs(roll ? s->roll : s->pitch) > 60);
        rig_advance_ms(r, 9500 - 4000);

        /* The first readout sets it, then it changes exactly twice: no flicker. */
        CHECK_EQ(rig_change_count(r, CHANGE_ORIENTATION), 3);
        const RigEvent *o[3];
        for (size_t i = 0; i < 3; i++)
                o[i] = rig_change_nth(r, CHANGE_ORIENTATION, i);
        CHECK(o[0] && o[0]->orientation == MOTION_ORIENTATION_NORMAL);
        CHECK(o[1] && strcmp(motion_orientation_to_string(o[1]->orientation), turned_to) == 0);
        CHECK(o[2] && o[2]->orientation == MOTION_ORIENTATION_NORMAL);
        /* Within 0.5 s of the trace's flip, not before the turn. */
        CHECK(o[1] && since_t0_ms(r, o[1]) > 2000 && since_t0_ms(r, o[1]) <= 2343 + 500);

        /* At most one Tilt per readout, each TiltStep from the last one or with a new orientation. */
        size_t n = rig_motion_count(r, MOTION_EVENT_TILT);
        const RigEvent *prev = NULL;
        for (size_t i = 0; i < n; i++) {
                const RigEvent *e = rig_motion_nth(r, MOTION_EVENT_TILT, i);
                CHECK(e->motion.pitch >= -90 && e->motion.pitch <= 90 && e->motion.roll >= -90 &&
                      e->motion.roll <= 90);
                if (prev) {
                        double moved = fmax(fabs(e->motion.pitch - prev->motion.pitch),
                                            fabs(e->motion.roll - prev->motion.roll));
                        CHECK(e->readouts > prev->readouts);
                        CHECK(moved >= step - 1e-9 || e->motion.orientation != prev->motion.orientation);
                }
                prev = e;
        }
        CHECK(n > 2 * tilts_for_turn(step) * 7 / 10);
        CHECK(n < r->new_readouts);
        /* Back to level, the state what the last event said. */
        CHECK(prev && fabs(s->pitch - prev->motion.pitch) <= step &&
              fabs(s->roll - prev->motion.roll) <= step);
        CHECK(fabs(s->pitch) + fabs(s->roll) < 5);
        CHECK_EQ(rig_change_count(r, CHANGE_PITCH), n);
        rig_free(r);
        return n;
}

TEST(a_turn_raises_tilts_and_two_orientation_changes)
{
        CHECK(rotation("left-up", true, 1.0) > 0);
        CHECK(rotation("bottom-up", false, 1.0) > 0);
        /* TiltStep 10 thins the events out (about 50 with 1 on the same trace). */
        CHECK(rotation("right-up", true, 10.0) < 40);
}

TEST(rest_raises_no_tilt_beyond_the_first)
{
        Rig *r = replay("rest.csv", NULL, 5000);

        CHECK(rig_motion_count(r, MOTION_EVENT_TILT) <= 1);
        CHECK_EQ(rig_change_count(r, CHANGE_ORIENTATION), 1);
        CHECK_EQ(motion_get_state(r->c->motion)->orientation, MOTION_ORIENTATION_NORMAL);
        rig_free(r);
}

/* The rest position read at start (context_new(), before the observer is set) is written to the state
 * file; the readouts a claim brings later keep it. */
TEST(the_rest_position_read_at_start_is_persisted)
{
        Rig *r = rig_new(&(RigOptions) {.trace = "rest.csv"});
        Context *c = r->c;
        char path[256], text[4096] = "";

        CHECK(c->config.has_rest);
        CHECK(!backend_get_state(c->backend)->calibration_pending);
        snprintf(path, sizeof(path), "%s/%s", r->state_dir, STATE_FILE_NAME);
        FILE *f = fopen(path, "re");
        CHECK(f != NULL);
        if (f) {
                size_t n = fread(text, 1, sizeof(text) - 1, f);
                text[n] = '\0';
                fclose(f);
        }
        char want[64];
        snprintf(want, sizeof(want), "rest_position=%d,%d\n", c->config.rest_x, c->config.rest_y);
        CHECK(strstr(text, want) != NULL);
        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_advance_ms(r, 2000);
        CHECK(r->new_readouts > 0);
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 0);
        rig_free(r);
}

/* Level (the traces' rest, -498,-439) for 200 ms, then rolled to 30 degrees (x +78 counts: asin(78/157))
 * by 400 ms, and held. */
#define LEVEL_THEN_ROLL_30                                                                                  \
        "# SYNTHETIC trace for test-readout.c: level for 200 ms, then a roll to 30 deg, held\n"             \
        "time_ms,x,y,keyboard,mouse\n"                                                                      \
        "0,-498,-439,0,0\n"                                                                                 \
        "200,-498,-439,0,0\n"                                                                               \
        "400,-420,-439,0,0\n"
#define LEVEL_X     (-498)
#define LEVEL_Y     (-439)
#define REST_SLACK  2   /* counts: the EC's filter and oversampling */
#define ANGLE_SLACK 2.0 /* degrees */

/* A second past the emulator's start on LEVEL_THEN_ROLL_30 (the roll held), with nothing polling:
 * what a read of Pitch and Roll does (one on-demand readout) shows the roll against the level rest. */
static void check_level_rest_and_roll(Rig *r)
{
        Context *c = r->c;
        double pitch, roll;
        MotionOrientation orientation;

        rig_advance_ms(r, 1000); /* past the roll */
        CHECK(!c->poller.polling);
        CHECK_EQ(r->ticks, 0);
        readout_current_angles(c, &pitch, &roll, &orientation);
        CHECK(c->config.has_rest);
        CHECK(abs(c->config.rest_x - LEVEL_X) <= REST_SLACK);
        CHECK(abs(c->config.rest_y - LEVEL_Y) <= REST_SLACK);
        CHECK_EQ(backend_get_state(c->backend)->rest_x, c->config.rest_x);
        CHECK_EQ(backend_get_state(c->backend)->rest_y, c->config.rest_y);
        CHECK(fabs(roll - 30.0) <= ANGLE_SLACK);
        CHECK(fabs(pitch) <= ANGLE_SLACK);
        if (fabs(roll - 30.0) > ANGLE_SLACK || fabs(pitch) > ANGLE_SLACK)
                fprintf(stderr, "pitch %.1f, roll %.1f, rest (%d, %d)\n", pitch, roll, c->config.rest_x,
                        c->config.rest_y);
}

/* No rest position saved: the daemon reads it when it initializes the device (the laptop as it was at
 * start), not from whatever readout a client asks for first, later. Nothing claims, nothing polls. */
TEST(the_rest_position_is_read_at_start_not_at_the_first_readout_asked_for)
{
        Rig *r = rig_new(&(RigOptions) {.trace_text = LEVEL_THEN_ROLL_30});

        check_level_rest_and_roll(r);
        rig_free(r);
}

/* Likewise when a backend comes (the kernel driver's coming and going) and no rest position was taken. */
TEST(a_new_backend_without_rest_position_reads_it_at_initialization)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true, .trace_text = LEVEL_THEN_ROLL_30});
        char path[128];

        CHECK(!r->c->config.has_rest);
        snprintf(path, sizeof(path), "%s/%s", r->dir, RIG_TRACE_FILE);
        rig_switch_backend(r, rig_open_sim_backend(r, path), "the EC emulator came");
        CHECK(r->c->has_accelerometer);
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 1);
        check_level_rest_and_roll(r);
        rig_free(r);
}

/* An accelerometer with no readout yet at initialization (the EC's warm-up after power-on): the
 * calibration stays armed, and the first readout later takes the rest position, as before. */
TEST(without_a_readout_at_initialization_the_first_readout_takes_the_rest_position)
{
        Rig *r = rig_new(&(RigOptions) {.trace_text = LEVEL_THEN_ROLL_30, .warm_up_at_start = true});
        Context *c = r->c;

        CHECK(c->has_accelerometer);
        CHECK(!c->config.has_rest);
        CHECK(backend_get_state(c->backend)->calibration_pending);
        rig_advance_ms(r, 1500); /* the warm-up is over, the roll held */
        CHECK(!c->config.has_rest);
        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_advance_ms(r, 200);
        CHECK(c->config.has_rest);
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 1);
        CHECK(abs(c->config.rest_x - (LEVEL_X + 78)) <= REST_SLACK);
        rig_free(r);
}

/* A reader of a property never writes: its on-demand readout (here Pitch/Roll's; Position's and
 * Temperature's are the same readout_refresh()) may finish a calibration, but the rest position is taken
 * and saved right after the reader, from a deferred event, not inside it. */
TEST(a_reader_never_writes_the_state_file)
{
        Rig *r = rig_new(&(RigOptions) {.trace_text = LEVEL_THEN_ROLL_30, .warm_up_at_start = true});
        Context *c = r->c;
        double pitch, roll;
        MotionOrientation orientation;
        char path[256];

        snprintf(path, sizeof(path), "%s/%s", r->state_dir, STATE_FILE_NAME);
        rig_advance_ms(r, 1500); /* the warm-up is over, the roll held; nothing polls */
        CHECK(backend_get_state(c->backend)->calibration_pending);
        CHECK(access(path, F_OK) < 0);
        rig_forget(r);
        readout_current_angles(c, &pitch, &roll, &orientation);
        CHECK(!backend_get_state(c->backend)->calibration_pending); /* the readout finished it */
        CHECK(!c->config.has_rest);
        CHECK(access(path, F_OK) < 0); /* not written by the reader */
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 0);

        rig_advance_ms(r, 0); /* right after the reader */
        CHECK(c->config.has_rest);
        CHECK(abs(c->config.rest_x - (LEVEL_X + 78)) <= REST_SLACK);
        CHECK_EQ(access(path, F_OK), 0);
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 1);
        rig_free(r);
}

/* scripts/demo.sh's motion (scripts/demo-tour.csv, 26 s; tests/traces/gen-traces.py's demo tour) at the
 * tray icon's 4 Hz and at the full rate: the orientation goes right-up, left-up and bottom-up, each time
 * back to normal, with no flicker and no shock; the angles reach every held one (roll 15, 60, -15, -60,
 * pitch 15, 60, -20 degrees), so every step of the tray's icon comes by (tray_icon_step(), the tray's
 * test-tray-logic.c); test_tray.py's demo test watches the first lean on a real tray. */
static void demo_tour(unsigned rate)
{
        static const MotionOrientation want[] = {MOTION_ORIENTATION_NORMAL, MOTION_ORIENTATION_RIGHT_UP,
                                                 MOTION_ORIENTATION_NORMAL, MOTION_ORIENTATION_LEFT_UP,
                                                 MOTION_ORIENTATION_NORMAL, MOTION_ORIENTATION_BOTTOM_UP,
                                                 MOTION_ORIENTATION_NORMAL};
        static const double rolls[] = {15, 60, -15, -60}, pitches[] = {15, 60, -20};
        _cleanup_free_ char *trace = NULL;
        const char *top = getenv("TOP_SRCDIR");

        CHECK(asprintf(&trace, "%s/scripts/demo-tour.csv", top ?: ".") > 0);
        Rig *r = rig_new(&(RigOptions) {.trace = trace});
        rig_claim(r, rate, ":1.5");
        rig_advance_ms(r, 26000);

        CHECK_EQ(rig_change_count(r, CHANGE_ORIENTATION), ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                const RigEvent *e = rig_change_nth(r, CHANGE_ORIENTATION, i);
                CHECK(e && e->orientation == want[i]);
        }
        CHECK_EQ(rig_motion_count(r, MOTION_EVENT_SHOCK), 0);
        CHECK_EQ(rig_change_count(r, CHANGE_SHOCK_ACTIVE), 0);
        for (size_t k = 0; k < ELEMENTSOF(rolls) + ELEMENTSOF(pitches); k++) {
                bool is_roll = k < ELEMENTSOF(rolls);
                double target = is_roll ? rolls[k] : pitches[k - ELEMENTSOF(rolls)];
                bool reached = false;
                for (size_t i = 0; i < rig_motion_count(r, MOTION_EVENT_TILT); i++) {
                        const RigEvent *e = rig_motion_nth(r, MOTION_EVENT_TILT, i);
                        reached |=
                                fabs((is_roll ? e->motion.roll : e->motion.pitch) - target) <= ANGLE_SLACK;
                }
                if (!reached)
                        fprintf(stderr, "the demo tour at %u Hz: no tilt to %s %g\n", rate,
                                is_roll ? "roll" : "pitch", target);
                CHECK(reached);
        }
        rig_free(r);
}

TEST(the_demo_tour_turns_every_way_without_a_shock)
{
        demo_tour(4); /* the tray icon's rate (TRAY_ICON_RATE_HZ) */
        demo_tour(POLLER_RATE_FULL);
}

int main(void)
{
        RUN(a_drop_raises_one_shock_at_every_tick_phase);
        RUN(typing_vibration_and_a_car_ride_raise_no_shock);
        RUN(a_flat_drop_is_a_fall_unless_the_sensitivity_is_halved);
        RUN(desk_knocks_raise_three_shocks_unless_the_sensitivity_is_low);
        RUN(no_shock_below_the_minimum_rate);
        RUN(a_turn_raises_tilts_and_two_orientation_changes);
        RUN(the_demo_tour_turns_every_way_without_a_shock);
        RUN(rest_raises_no_tilt_beyond_the_first);
        RUN(the_rest_position_read_at_start_is_persisted);
        RUN(the_rest_position_is_read_at_start_not_at_the_first_readout_asked_for);
        RUN(a_new_backend_without_rest_position_reads_it_at_initialization);
        RUN(without_a_readout_at_initialization_the_first_readout_takes_the_rest_position);
        RUN(a_reader_never_writes_the_state_file);
        return test_summary();
}
