/* SPDX-License-Identifier: GPL-2.0-or-later */
/* context_switch_backend() in-process (rig.h), what backend-watch.c does when the kernel driver comes
 * or goes: polling stops before the old backend goes away, the new one is initialized with the
 * configuration, polling resumes for the demands that were kept, and HasAccelerometer, Backend,
 * BackendReason and AxisCode are reported together. */
#include <string.h>

#include "backend-kernel.h"
#include "rig.h"
#include "test-helpers.h"

static const ChangeMask SWITCH_MASK = CHANGE_MASK(CHANGE_HAS_ACCELEROMETER) | CHANGE_MASK(CHANGE_BACKEND) |
                                      CHANGE_MASK(CHANGE_BACKEND_REASON) | CHANGE_MASK(CHANGE_AXIS_CODE);

static bool switch_reported(const Rig *r)
{
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_CHANGED && r->events[i].mask == SWITCH_MASK)
                        return true;
        return false;
}

TEST(backend_goes_and_comes_back)
{
        Rig *r = rig_new(&(RigOptions) {.state = "filter_order=6\n"});
        Context *c = r->c;

        rig_claim(r, 10, ":1.5");
        rig_advance_ms(r, 500);
        CHECK(c->poller.polling);

        rig_forget(r);
        rig_switch_backend(r, NULL, "the hdaps driver went away");
        CHECK(!c->has_accelerometer);
        CHECK(c->backend == NULL);
        CHECK_STREQ(c->backend_reason, "the hdaps driver went away");
        CHECK(switch_reported(r));
        CHECK(rig_changed_bit(r, CHANGE_POLLING));
        CHECK(!c->poller.polling);
        CHECK(c->poller.poll_timer == NULL);
        CHECK_STREQ(c->poller.poll_rate_reason, "not polling: there is no accelerometer");
        CHECK(c->poller.demand & DEMAND_CLAIM); /* the claim waits */
        rig_advance_ms(r, 5000);
        CHECK_EQ(r->ticks, 0);

        rig_forget(r);
        Backend *b = rig_open_sim_backend(r, NULL);
        rig_switch_backend(r, b, "the EC emulator again");
        CHECK(c->has_accelerometer);
        CHECK(c->backend == b);
        CHECK_STREQ(c->backend_reason, "the EC emulator again");
        CHECK(switch_reported(r));
        CHECK(c->poller.polling);
        CHECK_EQ(c->poller.poll_rate, 10);
        CHECK_STREQ(c->poller.poll_rate_reason, "a claim by :1.5 at 10 Hz");
        rig_advance_ms(r, 1000);
        CHECK(r->ticks >= 9 && r->ticks <= 11);
        CHECK(r->new_readouts >= 5);
        EcSimStatus st = rig_sim_status(r);
        CHECK(st.powered);
        CHECK_EQ(st.filter_order, 6); /* initialized with the configuration */
        CHECK_EQ(st.ec_rate, 10 * 5);
        rig_free(r);
}

TEST(a_backend_that_fails_to_initialize_is_no_accelerometer)
{
        Rig *r = rig_new(&(RigOptions) {});
        Context *c = r->c;

        rig_claim(r, 10, ":1.5");
        Backend *b = rig_open_sim_backend(r, NULL);
        rig_sim_fault(r, SIM_FAULT_ABSENT, true);
        rig_forget(r);
        rig_switch_backend(r, b, "another backend");
        CHECK(!c->has_accelerometer);
        CHECK(switch_reported(r));
        CHECK(!c->poller.polling);
        CHECK(c->backend_reason &&
              strstr(c->backend_reason, "another backend, but initializing the accelerometer failed"));
        rig_free(r);
}

static bool has_accelerometer(Rig *r)
{
        return r->c->has_accelerometer;
}

static bool no_accelerometer(Rig *r)
{
        return !r->c->has_accelerometer;
}

TEST(the_watch_follows_the_kernel_driver)
{
        /* --backend=kernel before the driver is loaded: no accelerometer, a claim waits. */
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true, .kernel_watch = true});
        Context *c = r->c;

        CHECK(c->backend_watch != NULL);
        rig_claim(r, 10, ":1.5");
        CHECK(!c->poller.polling);

        /* The watch looks every 2 s (BACKEND_WATCH_INTERVAL_USEC). */
        rig_forget(r);
        rig_kernel_driver(r, KERNEL_DRIVER_MAINLINE);
        long ms = rig_advance_until(r, has_accelerometer, 3000);
        CHECK(ms >= 0 && ms <= 2000 + 250 + 1);
        CHECK(switch_reported(r));
        CHECK(c->backend && strcmp(backend_name(c->backend), "kernel") == 0);
        CHECK(c->poller.polling);
        CHECK_EQ(c->poller.poll_rate, 10);
        rig_forget(r);
        rig_advance_ms(r, 1000);
        CHECK(r->ticks >= 9 && r->ticks <= 11);

        rig_forget(r);
        rig_kernel_driver(r, KERNEL_DRIVER_NONE);
        ms = rig_advance_until(r, no_accelerometer, 3000);
        CHECK(ms >= 0 && ms <= 2000 + 250 + 1);
        CHECK(switch_reported(r));
        CHECK(!c->poller.polling);
        CHECK(c->poller.demand & DEMAND_CLAIM);
        CHECK(c->backend == NULL);
        CHECK(c->backend_reason && strstr(c->backend_reason, "--backend=kernel waits for it to come back"));

        /* ... and it comes back, tp_smapi's this time. */
        rig_forget(r);
        rig_kernel_driver(r, KERNEL_DRIVER_TP_SMAPI);
        CHECK(rig_advance_until(r, has_accelerometer, 3000) >= 0);
        CHECK(switch_reported(r));
        CHECK(c->backend && backend_kernel_flavour(c->backend) == KERNEL_DRIVER_TP_SMAPI);
        CHECK(c->poller.polling);
        rig_free(r);
}

/* The kernel driver's backend reads a readout at init, which takes the rest position: the configuration
 * takes it then (saved, reported), not at the first reader's readout, which never writes. */
TEST(the_kernel_drivers_first_rest_position_is_taken_at_initialization)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true, .kernel_watch = true});
        Context *c = r->c;

        CHECK(!c->config.has_rest);
        rig_forget(r);
        rig_kernel_driver(r, KERNEL_DRIVER_MAINLINE);
        CHECK(rig_advance_until(r, has_accelerometer, 3000) >= 0);
        CHECK(c->config.has_rest);
        CHECK(!backend_get_state(c->backend)->calibration_pending);
        CHECK_EQ(c->config.rest_x, backend_get_state(c->backend)->rest_x);
        CHECK_EQ(c->config.rest_y, backend_get_state(c->backend)->rest_y);
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 1);
        rig_free(r);
}

int main(void)
{
        RUN(backend_goes_and_comes_back);
        RUN(a_backend_that_fails_to_initialize_is_no_accelerometer);
        RUN(the_watch_follows_the_kernel_driver);
        RUN(the_kernel_drivers_first_rest_position_is_taken_at_initialization);
        return test_summary();
}
