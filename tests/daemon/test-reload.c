/* SPDX-License-Identifier: GPL-2.0-or-later */
/* context_reload() (SIGHUP) in-process (rig.h): what changed in the state file is applied to the
 * emulated EC, motion processing and disk protection and reported once per property; what did not
 * change is not reported; a bad file changes nothing; a missing one means the defaults. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "test-helpers.h"

/* The properties a configuration value stands for (the read-back of the EC's configuration reports
 * OversamplingRatio and FilterOrder after every reload, as after every initialization). */
static const ChangeMask CONFIG_BITS =
        CHANGE_MASK(CHANGE_SAMPLING_RATE) | CHANGE_MASK(CHANGE_INVERT) | CHANGE_MASK(CHANGE_AXIS_CODE) |
        CHANGE_MASK(CHANGE_REST_POSITION) | CHANGE_MASK(CHANGE_TILT_STEP) |
        CHANGE_MASK(CHANGE_SHOCK_SENSITIVITY) | CHANGE_MASK(CHANGE_INPUT_DEVICES) |
        CHANGE_MASK(CHANGE_PROTECTED_DISKS) | CHANGE_MASK(CHANGE_PROTECTION_STATE);

TEST(reload_applies_and_reports_what_changed)
{
        Rig *r = rig_new(&(RigOptions) {});
        Context *c = r->c;

        rig_claim(r, POLLER_RATE_FULL, ":1.5");
        rig_advance_ms(r, 500);
        CHECK(c->config.has_rest); /* calibrated at the first readouts, kept by a file without it */
        int rest_x = c->config.rest_x, rest_y = c->config.rest_y;

        rig_write_state(r, "sampling_rate=25\nfilter_order=6\ntilt_step=3.5\ninvert=1\n");
        rig_forget(r);
        context_reload(c);
        CHECK_EQ(c->config.sampling_rate, 25);
        CHECK_EQ(c->config.filter_order, 6);
        CHECK(c->config.tilt_step == 3.5);
        CHECK(c->config.invert);
        /* ... carried into the inverted axes, as the backend carries its own (and SetInvert does). */
        CHECK(c->config.has_rest && c->config.rest_x == -rest_x && c->config.rest_y == -rest_y);
        CHECK_EQ(backend_get_state(c->backend)->rest_x, -rest_x);
        CHECK_EQ(rig_change_count(r, CHANGE_SAMPLING_RATE), 1);
        CHECK(rig_change_count(r, CHANGE_FILTER_ORDER) >= 1); /* and the read-back */
        CHECK_EQ(rig_change_count(r, CHANGE_TILT_STEP), 1);
        CHECK_EQ(rig_change_count(r, CHANGE_INVERT), 1);
        CHECK(rig_changed_bit(r, CHANGE_AXIS_CODE)); /* invert flips the axes */
        CHECK(!rig_changed_bit(r, CHANGE_SHOCK_SENSITIVITY));
        CHECK_EQ(rig_change_count(r, CHANGE_REST_POSITION), 1);
        CHECK(!rig_changed_bit(r, CHANGE_PROTECTED_DISKS));
        CHECK(!rig_changed_bit(r, CHANGE_INPUT_DEVICES));
        /* The claim at the full rate follows the new SamplingRate; the EC got the reloaded values. */
        CHECK(c->poller.polling);
        CHECK_EQ(c->poller.poll_rate, 25);
        CHECK(rig_changed_bit(r, CHANGE_EFFECTIVE_RATE));
        rig_forget(r);
        rig_advance_ms(r, 1000);
        CHECK(r->ticks >= 24 && r->ticks <= 26);
        EcSimStatus st = rig_sim_status(r);
        CHECK_EQ(st.ec_rate, 25 * 5);
        CHECK_EQ(st.filter_order, 6);
        CHECK(c->ec_config_valid);
        CHECK_EQ(c->ec_filter_order, 6);

        /* The same file again: nothing of the configuration is reported. */
        rig_forget(r);
        context_reload(c);
        CHECK_EQ(rig_changed(r) & CONFIG_BITS, 0);
        CHECK(c->poller.polling);

        /* A bad file changes nothing at all. */
        rig_write_state(r, "sampling_rate=banana\n");
        rig_forget(r);
        context_reload(c);
        CHECK_EQ(rig_changed(r), 0);
        CHECK_EQ(c->config.sampling_rate, 25);
        CHECK_EQ(c->poller.poll_rate, 25);

        /* No file: the defaults. */
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", r->state_dir, STATE_FILE_NAME);
        CHECK_EQ(unlink(path), 0);
        rig_forget(r);
        context_reload(c);
        CHECK_EQ(c->config.sampling_rate, 50);
        CHECK(!c->config.invert);
        CHECK(rig_changed_bit(r, CHANGE_SAMPLING_RATE));
        CHECK(rig_changed_bit(r, CHANGE_INVERT));
        CHECK_EQ(c->poller.poll_rate, 50);
        CHECK(access(path, F_OK) < 0); /* a reload never writes the file */
        rig_free(r);
}

TEST(reload_arms_and_disarms_protection)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true});
        Context *c = r->c;

        rig_write_state(r, "protected_disks=sda\n");
        rig_forget(r);
        context_reload(c);
        CHECK_STREQ(protection_state(c), "armed");
        CHECK_EQ(rig_change_count(r, CHANGE_PROTECTED_DISKS), 1);
        CHECK_EQ(rig_change_count(r, CHANGE_PROTECTION_STATE), 1);
        CHECK(c->poller.polling);
        CHECK(rig_changed_bit(r, CHANGE_POLLING));

        /* A disk that cannot be protected keeps the old ones. */
        rig_write_state(r, "protected_disks=sdz\n");
        rig_forget(r);
        context_reload(c);
        CHECK_STREQ(protection_state(c), "armed");
        CHECK(!rig_changed_bit(r, CHANGE_PROTECTED_DISKS));
        CHECK(c->config.protected_disks && strcmp(c->config.protected_disks[0], "sda") == 0);

        rig_write_state(r, "");
        rig_forget(r);
        context_reload(c);
        CHECK_STREQ(protection_state(c), "off");
        CHECK(rig_changed_bit(r, CHANGE_PROTECTED_DISKS));
        CHECK(rig_changed_bit(r, CHANGE_PROTECTION_STATE));
        CHECK(!c->poller.polling);
        rig_free(r);
}

TEST(reload_without_accelerometer_keeps_device_settings)
{
        Rig *r = rig_new(&(RigOptions) {.no_accelerometer = true});
        Context *c = r->c;

        rig_write_state(r, "sampling_rate=25\ntilt_step=3.5\n");
        rig_forget(r);
        context_reload(c);
        CHECK_EQ(c->config.sampling_rate, 50); /* nothing to apply it to */
        CHECK(!rig_changed_bit(r, CHANGE_SAMPLING_RATE));
        CHECK(c->config.tilt_step == 3.5); /* motion settings need no device */
        CHECK(rig_changed_bit(r, CHANGE_TILT_STEP));
        rig_free(r);
}

int main(void)
{
        RUN(reload_applies_and_reports_what_changed);
        RUN(reload_arms_and_disarms_protection);
        RUN(reload_without_accelerometer_keeps_device_settings);
        return test_summary();
}
