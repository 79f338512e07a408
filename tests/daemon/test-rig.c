/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rig itself (rig.h): jumping to the next due timer changes nothing. Each scenario runs twice, once
 * jumping and once visiting every millisecond step (RigOptions.step_every_ms, the rig's former way), and
 * must record the same events at the same virtual times with the same state, the same ticks and
 * readouts, and the same answers from rig_advance_until(). The scenarios cover each timer of the core:
 * poll ticks and rate changes, a drop with disks protected (the park's hold), the hard-error back-off,
 * a pause of protection and the idle exit. */
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "test-helpers.h"

/* What a scenario leaves for the comparison: its rig (freed by compare()), rig_advance_until()'s answers. */
typedef struct Run {
        Rig *r;
        long until[2];
} Run;

static bool heads_parked(Rig *r)
{
        return rig_heads_parked_count(r, true) > 0;
}

static bool hardware_stopped(Rig *r)
{
        return r->c->poller.hardware_state == HARDWARE_STOPPED;
}

static bool hardware_ok(Rig *r)
{
        return r->c->poller.hardware_state == HARDWARE_OK;
}

static bool exited(Rig *r)
{
        return r->exited;
}

static void drop_protected(Run *run, bool step)
{
        Rig *r = rig_new(&(RigOptions) {.trace = "drop-30cm.csv", .disks = true, .step_every_ms = step});
        run->r = r;
        CHECK_EQ(rig_protect(r, (char *[]) {(char *) "sda", NULL}), 0);
        rig_advance_ms(r, 1000);
        rig_claim(r, 10, ":1.5"); /* protection's full rate wins over a 10 Hz claim */
        run->until[0] = rig_advance_until(r, heads_parked, 8000);
        rig_advance_ms(r, 4000); /* the hold, the unpark */
        CHECK_EQ(protection_pause(r->c, 3), 0);
        rig_advance_ms(r, 5000); /* the pause ends by itself */
        rig_claim(r, 0, NULL);
        rig_advance_ms(r, 777);
}

static void hard_errors(Run *run, bool step)
{
        Rig *r = rig_new(&(RigOptions) {.step_every_ms = step});
        run->r = r;
        rig_claim(r, 25, ":1.5");
        rig_advance_ms(r, 333);
        rig_sim_fault(r, SIM_FAULT_SILENT, true);
        run->until[0] = rig_advance_until(r, hardware_stopped, 2000);
        rig_advance_ms(r, 10 * 1000); /* re-initialization tries at 1, 3, 7 s */
        rig_sim_fault(r, SIM_FAULT_SILENT, false);
        run->until[1] = rig_advance_until(r, hardware_ok, 10 * 1000);
        rig_advance_ms(r, 1500);
}

static void idle_exit(Run *run, bool step)
{
        Rig *r =
                rig_new(&(RigOptions) {.no_accelerometer = true, .exit_idle_sec = 5, .step_every_ms = step});
        run->r = r;
        rig_claim(r, 10, ":1.5");
        rig_advance_ms(r, 7 * 1000);
        rig_claim(r, 0, NULL);
        rig_advance_ms(r, 2345);
        idle_exit_note_call(r->c->idle_exit);
        run->until[0] = rig_advance_until(r, exited, 10 * 1000);
}

static void compare(const char *name, void (*scenario)(Run *run, bool step))
{
        Run jump = {}, step = {};

        /* One rig at a time: they share the process's clock and timerfds. */
        scenario(&jump, false);
        Rig *a = jump.r;
        RigEvent *events = a->events;
        size_t n = a->n_events;
        uint64_t t0 = a->t0_usec;
        unsigned ticks = a->ticks, readouts = a->readouts, new_readouts = a->new_readouts;
        bool exited_a = a->exited;
        a->events = NULL; /* rig_free() records the shutdown in a new one */
        a->n_events = a->allocated = 0;
        rig_free(a);

        scenario(&step, true);
        Rig *b = step.r;
        fprintf(stderr, "  %s: %zu events, %u ticks, %u readouts\n", name, n, ticks, readouts);
        CHECK(n > 0);
        CHECK_EQ(n, b->n_events);
        for (size_t i = 0; i < n && i < b->n_events; i++) {
                const RigEvent *x = &events[i], *y = &b->events[i];
                bool same = x->kind == y->kind && x->usec - t0 == y->usec - b->t0_usec &&
                            x->mask == y->mask && x->parked == y->parked &&
                            x->motion.mask == y->motion.mask && x->readouts == y->readouts &&
                            x->hardware_state == y->hardware_state && x->polling == y->polling &&
                            x->poll_rate == y->poll_rate &&
                            strcmp(x->protection_state, y->protection_state) == 0 &&
                            x->orientation == y->orientation && x->shock_active == y->shock_active;
                CHECK(same);
                if (!same) {
                        fprintf(stderr, "  event %zu differs: kind %d/%d at %llu/%llu us\n", i, x->kind,
                                y->kind, (unsigned long long) (x->usec - t0),
                                (unsigned long long) (y->usec - b->t0_usec));
                        break;
                }
        }
        CHECK_EQ(ticks, b->ticks);
        CHECK_EQ(readouts, b->readouts);
        CHECK_EQ(new_readouts, b->new_readouts);
        CHECK_EQ(exited_a, b->exited);
        for (size_t i = 0; i < ELEMENTSOF(jump.until); i++)
                CHECK_EQ(jump.until[i], step.until[i]);
        free(events);
        rig_free(b);
}

TEST(jumping_to_the_next_timer_records_what_stepping_records)
{
        compare("a drop with disks protected, a pause", drop_protected);
        compare("hard errors, the re-initialization back-off", hard_errors);
        compare("the idle exit", idle_exit);
}

int main(void)
{
        RUN(jumping_to_the_next_timer_records_what_stepping_records);
        return test_summary();
}
