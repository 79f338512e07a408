/* SPDX-License-Identifier: GPL-2.0-or-later */
/* context_apply_config() (config.h), the one path of a configuration change, in-process (rig.h). For
 * every setting: a daemon changes it as its D-Bus setter does once authorized (a copy of the
 * configuration in force with the one value changed, CONFIG_APPLY_CHANGE), a second daemon started the
 * same way reloads the state file the first one wrote (SIGHUP, CONFIG_APPLY_RELOAD); both end with the
 * same properties, reported the same change masks in the same order and sent the emulated EC the same
 * port accesses. The same for a change the device or the machine refuses (the setter answers an error,
 * the reload keeps the old value). Then: a change that cannot be saved changes nothing, and a change
 * whose last part is refused undoes the parts it applied. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input-devices.h"
#include "rig.h"
#include "strv.h"
#include "test-helpers.h"

/* What the properties of the accelerometer show, and what the device runs. */
typedef struct Snapshot {
        unsigned sampling_rate, oversampling_ratio, filter_order;
        bool invert, has_rest, input_devices;
        int rest_x, rest_y;
        double tilt_step, shock_sensitivity;
        char disks[64];
        unsigned axis_code;
        unsigned backend_rate, backend_ratio, backend_order; /* the backend's (EC's) configuration */
        int backend_rest_x, backend_rest_y;
        bool calibration_pending;
        bool ec_config_valid;
        unsigned ec_ratio, ec_order; /* OversamplingRatio and FilterOrder as read back */
        bool polling;
        unsigned poll_rate;
        char poll_rate_reason[160];
        const char *protection_state;
        bool input_devices_enabled;
        unsigned ec_rate;                                  /* the emulator's own */
        double motion_tilt_step, motion_shock_sensitivity; /* what motion processing runs */
        char protecting[64];                               /* the disks disk protection watches */
} Snapshot;

static Snapshot snapshot(Rig *r)
{
        Context *c = r->c;
        Snapshot s = {
                .sampling_rate = c->config.sampling_rate,
                .oversampling_ratio = c->config.oversampling_ratio,
                .filter_order = c->config.filter_order,
                .invert = c->config.invert,
                .has_rest = c->config.has_rest,
                .rest_x = c->config.rest_x,
                .rest_y = c->config.rest_y,
                .input_devices = c->config.input_devices,
                .tilt_step = c->config.tilt_step,
                .shock_sensitivity = c->config.shock_sensitivity,
                .axis_code = backend_get_axis_code(c->backend),
                .backend_rate = backend_get_config(c->backend)->sampling_rate,
                .backend_ratio = backend_get_config(c->backend)->oversampling_ratio,
                .backend_order = backend_get_config(c->backend)->filter_order,
                .backend_rest_x = backend_get_state(c->backend)->rest_x,
                .backend_rest_y = backend_get_state(c->backend)->rest_y,
                .calibration_pending = backend_get_state(c->backend)->calibration_pending,
                .ec_config_valid = c->ec_config_valid,
                .ec_ratio = c->ec_oversampling_ratio,
                .ec_order = c->ec_filter_order,
                .polling = c->poller.polling,
                .poll_rate = c->poller.poll_rate,
                .protection_state = protection_state(c),
                .input_devices_enabled = input_devices_enabled(c->input_devices),
                .ec_rate = rig_sim_status(r).ec_rate,
        };
        _cleanup_free_ char *disks = strv_join(c->config.protected_disks, " ");
        snprintf(s.disks, sizeof(s.disks), "%s", disks ? disks : "");
        snprintf(s.poll_rate_reason, sizeof(s.poll_rate_reason), "%s", strna(c->poller.poll_rate_reason));
        s.motion_tilt_step = motion_get_config(c->motion)->tilt_step;
        s.motion_shock_sensitivity = motion_get_config(c->motion)->shock_sensitivity;
        _cleanup_free_ char *protecting = strv_join((char **) disk_protect_get_disks(c->disk_protect), " ");
        snprintf(s.protecting, sizeof(s.protecting), "%s", protecting ? protecting : "");
        return s;
}

static void check_same(const Snapshot *a, const Snapshot *b)
{
        CHECK_EQ(a->sampling_rate, b->sampling_rate);
        CHECK_EQ(a->oversampling_ratio, b->oversampling_ratio);
        CHECK_EQ(a->filter_order, b->filter_order);
        CHECK_EQ(a->invert, b->invert);
        CHECK_EQ(a->has_rest, b->has_rest);
        CHECK_EQ(a->rest_x, b->rest_x);
        CHECK_EQ(a->rest_y, b->rest_y);
        CHECK_EQ(a->input_devices, b->input_devices);
        CHECK(a->tilt_step == b->tilt_step);
        CHECK(a->shock_sensitivity == b->shock_sensitivity);
        CHECK_STREQ(a->disks, b->disks);
        CHECK_EQ(a->axis_code, b->axis_code);
        CHECK_EQ(a->backend_rate, b->backend_rate);
        CHECK_EQ(a->backend_ratio, b->backend_ratio);
        CHECK_EQ(a->backend_order, b->backend_order);
        CHECK_EQ(a->backend_rest_x, b->backend_rest_x);
        CHECK_EQ(a->backend_rest_y, b->backend_rest_y);
        CHECK_EQ(a->calibration_pending, b->calibration_pending);
        CHECK_EQ(a->ec_config_valid, b->ec_config_valid);
        CHECK_EQ(a->ec_ratio, b->ec_ratio);
        CHECK_EQ(a->ec_order, b->ec_order);
        CHECK_EQ(a->polling, b->polling);
        CHECK_EQ(a->poll_rate, b->poll_rate);
        CHECK_STREQ(a->poll_rate_reason, b->poll_rate_reason);
        CHECK_STREQ(a->protection_state, b->protection_state);
        CHECK_EQ(a->input_devices_enabled, b->input_devices_enabled);
        CHECK_EQ(a->ec_rate, b->ec_rate);
        CHECK(a->motion_tilt_step == b->motion_tilt_step);
        CHECK(a->motion_shock_sensitivity == b->motion_shock_sensitivity);
        CHECK_STREQ(a->protecting, b->protecting);
}

/* The change masks recorded since rig_forget(), in order; n of them. */
static size_t masks(const Rig *r, ChangeMask *out, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_CHANGED) {
                        if (n < max)
                                out[n] = r->events[i].mask;
                        n++;
                }
        return n;
}

static char *read_state(Rig *r)
{
        char path[256], *text = NULL;
        size_t size = 0;

        snprintf(path, sizeof(path), "%s/%s", r->state_dir, STATE_FILE_NAME);
        FILE *f = fopen(path, "re");
        if (!f)
                return strdup("");
        FILE *m = open_memstream(&text, &size);
        for (int ch; (ch = fgetc(f)) != EOF;)
                fputc(ch, m);
        fclose(m);
        fclose(f);
        return text;
}

/* A new list of one or two names. */
static char **disk_list(const char *a, const char *b)
{
        char **l = calloc(3, sizeof(char *));
        if (!l || !(l[0] = strdup(a)) || (b && !(l[1] = strdup(b))))
                abort();
        return l;
}

typedef struct Case {
        const char *name;
        RigOptions options;
        unsigned claim;  /* the claim in force during the change; 0: none */
        bool fault;      /* the emulated EC answers every 0x10 "change pending" during the change */
        ChangeBit bit;   /* the property the change is of */
        int setter;      /* what the setter returns: 0 or the negative errno of the refusal */
        ConfigPart part; /* the part that refuses it */
        void (*change)(StateConfig *next);
} Case;

static void set_rate_25(StateConfig *n)
{
        n->sampling_rate = 25;
}
static void set_rate_100(StateConfig *n)
{
        n->sampling_rate = 100;
}
static void set_ratio_3(StateConfig *n)
{
        n->oversampling_ratio = 3;
}
static void set_order_6(StateConfig *n)
{
        n->filter_order = 6;
}
static void set_invert(StateConfig *n)
{
        config_set_invert(n, true);
}
static void set_tilt_step(StateConfig *n)
{
        n->tilt_step = 3.5;
}
static void set_shock_sensitivity(StateConfig *n)
{
        n->shock_sensitivity = 2.5;
}
static void set_input_devices(StateConfig *n)
{
        n->input_devices = true;
}
static void set_disks_sda(StateConfig *n)
{
        strv_free(n->protected_disks);
        n->protected_disks = disk_list("sda", NULL);
}
static void set_disks_none(StateConfig *n)
{
        n->protected_disks = strv_free(n->protected_disks);
}

/* A daemon as the case starts it: calibrated by a full-rate claim's first readouts, then the case's
 * claim. */
static Rig *start(const Case *t)
{
        Rig *r = rig_new(&t->options);

        rig_claim(r, POLLER_RATE_FULL, ":1.1");
        rig_advance_ms(r, 300);
        if (!r->c->config.has_rest)
                abort();
        rig_claim(r, t->claim, t->claim ? ":1.2" : NULL);
        rig_advance_ms(r, 300);
        if (t->fault)
                rig_sim_fault(r, SIM_FAULT_PENDING, true);
        rig_forget(r);
        rig_capture_start(r);
        return r;
}

/* Stops recording: the port accesses (to free) and the state after the event loop ran what was due. */
static char *stop(Rig *r, const Case *t, Snapshot *ret)
{
        rig_advance_ms(r, 0);
        char *ports = rig_capture_stop(r);
        if (t->fault)
                rig_sim_fault(r, SIM_FAULT_PENDING, false);
        *ret = snapshot(r);
        return ports;
}

static void run_case(const Case *t)
{
        _cleanup_(state_config_done) StateConfig next = {};
        _cleanup_(config_error_done) ConfigError error = {};
        _cleanup_free_ char *before = NULL, *file = NULL, *setter_ports = NULL, *reload_ports = NULL;
        ChangeMask setter_masks[64], reload_masks[64], changed = 0;
        Snapshot old, a, b;
        int k;

        fprintf(stderr, "## %s\n", t->name);

        /* The setter */
        Rig *r = start(t);
        old = snapshot(r);
        before = read_state(r);
        if (state_config_copy(&next, &r->c->config) < 0)
                abort();
        t->change(&next);
        _cleanup_free_ char *asked = NULL;
        if (state_config_format(&next, &asked) < 0)
                abort();
        k = context_apply_config(r->c, &next, CONFIG_APPLY_CHANGE, &changed, &error);
        setter_ports = stop(r, t, &a);
        size_t n_setter = masks(r, setter_masks, ELEMENTSOF(setter_masks));
        CHECK_EQ(k, t->setter);
        file = read_state(r);
        if (t->setter == 0) {
                CHECK(changed & CHANGE_MASK(t->bit));
                CHECK(n_setter > 0 && (setter_masks[0] & CHANGE_MASK(t->bit)));
                CHECK_STREQ(file, asked); /* what the setter saved is what it was asked */
        } else {
                CHECK_EQ(error.part, t->part);
                CHECK_EQ(changed, 0);
                CHECK_STREQ(file, before); /* the old file written back */
                check_same(&old, &a);      /* nothing changed */
                CHECK(!(rig_changed(r) & CHANGE_MASK(t->bit)));
        }
        rig_advance_ms(r, 500);
        Snapshot a_later = snapshot(r);
        unsigned a_ticks = r->ticks;
        rig_free(r);

        /* The reload of the file the setter wrote (or was asked to write, when it refused) */
        r = start(t);
        rig_write_state(r, t->setter == 0 ? file : asked);
        context_reload(r->c);
        reload_ports = stop(r, t, &b);
        size_t n_reload = masks(r, reload_masks, ELEMENTSOF(reload_masks));
        rig_advance_ms(r, 500);
        Snapshot b_later = snapshot(r);
        unsigned b_ticks = r->ticks;
        rig_free(r);

        check_same(&a, &b);
        CHECK_EQ(n_setter, n_reload);
        for (size_t i = 0; i < MIN(n_setter, n_reload) && i < ELEMENTSOF(setter_masks); i++)
                CHECK_EQ(setter_masks[i], reload_masks[i]);
        CHECK_STREQ(setter_ports, reload_ports);
        if (strcmp(setter_ports, reload_ports) != 0)
                fprintf(stderr, "setter's port accesses:\n%s\nreload's:\n%s\n", setter_ports, reload_ports);
        check_same(&a_later, &b_later);
        CHECK_EQ(a_ticks, b_ticks);
}

static const Case cases[] = {
        {"SamplingRate, a full-rate claim",
         {},
         POLLER_RATE_FULL,
         false,
         CHANGE_SAMPLING_RATE,
         0,
         0,
         set_rate_25},
        {"SamplingRate, a claim at 10 Hz", {}, 10, false, CHANGE_SAMPLING_RATE, 0, 0, set_rate_100},
        {"SamplingRate, not polling", {}, 0, false, CHANGE_SAMPLING_RATE, 0, 0, set_rate_25},
        {"SamplingRate, refused by the EC",
         {},
         POLLER_RATE_FULL,
         true,
         CHANGE_SAMPLING_RATE,
         -EBUSY,
         CONFIG_PART_DEVICE,
         set_rate_25},
        {"OversamplingRatio", {}, POLLER_RATE_FULL, false, CHANGE_OVERSAMPLING_RATIO, 0, 0, set_ratio_3},
        {"OversamplingRatio, a claim at 10 Hz", {}, 10, false, CHANGE_OVERSAMPLING_RATIO, 0, 0, set_ratio_3},
        {"FilterOrder", {}, POLLER_RATE_FULL, false, CHANGE_FILTER_ORDER, 0, 0, set_order_6},
        {"FilterOrder, refused by the EC",
         {},
         0,
         true,
         CHANGE_FILTER_ORDER,
         -EBUSY,
         CONFIG_PART_DEVICE,
         set_order_6},
        {"Invert", {}, POLLER_RATE_FULL, false, CHANGE_INVERT, 0, 0, set_invert},
        {"TiltStep", {}, POLLER_RATE_FULL, false, CHANGE_TILT_STEP, 0, 0, set_tilt_step},
        {"ShockSensitivity", {}, 0, false, CHANGE_SHOCK_SENSITIVITY, 0, 0, set_shock_sensitivity},
        {"InputDevices, without uinput",
         {},
         0,
         false,
         CHANGE_INPUT_DEVICES,
         -ENODEV,
         CONFIG_PART_INPUT_DEVICES,
         set_input_devices},
        {"ProtectedDisks", {.disks = true}, 0, false, CHANGE_PROTECTED_DISKS, 0, 0, set_disks_sda},
        {"ProtectedDisks off",
         {.disks = true, .state = "protected_disks=sda\n"},
         0,
         false,
         CHANGE_PROTECTED_DISKS,
         0,
         0,
         set_disks_none},
        {"ProtectedDisks, a missing disk",
         {},
         0,
         false,
         CHANGE_PROTECTED_DISKS,
         -ENOENT,
         CONFIG_PART_DISKS,
         set_disks_sda},
};

TEST(setter_and_reload_apply_alike)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case(&cases[i]);
}

TEST(unsaved_change_changes_nothing)
{
        Rig *r = rig_new(&(RigOptions) {});
        _cleanup_(state_config_done) StateConfig next = {};
        _cleanup_(config_error_done) ConfigError error = {};
        char path[256];

        rig_claim(r, POLLER_RATE_FULL, ":1.1");
        rig_advance_ms(r, 300);
        Snapshot old = snapshot(r);
        snprintf(path, sizeof(path), "%s/%s", r->state_dir, STATE_FILE_NAME);
        CHECK_EQ(unlink(path), 0);
        CHECK_EQ(mkdir(path, 0700), 0); /* the state file cannot be written */

        if (state_config_copy(&next, &r->c->config) < 0)
                abort();
        next.sampling_rate = 25;
        next.tilt_step = 7;
        rig_forget(r);
        rig_capture_start(r);
        CHECK(context_apply_config(r->c, &next, CONFIG_APPLY_CHANGE, NULL, &error) < 0);
        _cleanup_free_ char *ports = rig_capture_stop(r);
        CHECK_EQ(error.part, CONFIG_PART_SAVE);
        CHECK_EQ(error.error, -EISDIR);
        CHECK_EQ(rig_changed(r), 0);
        CHECK_STREQ(ports, "dir,port,value\n"); /* not one port access */
        Snapshot now = snapshot(r);
        check_same(&old, &now);
        CHECK_EQ(rmdir(path), 0);
        rig_free(r);
}

TEST(refused_part_undoes_the_others)
{
        Rig *r = rig_new(&(RigOptions) {.disks = true});
        _cleanup_(state_config_done) StateConfig next = {};
        _cleanup_(config_error_done) ConfigError error = {};

        rig_claim(r, POLLER_RATE_FULL, ":1.1");
        rig_advance_ms(r, 300);
        Snapshot old = snapshot(r);
        _cleanup_free_ char *before = read_state(r);

        /* The rates are applied first; the disks, last, are refused: the rates are set back. */
        if (state_config_copy(&next, &r->c->config) < 0)
                abort();
        next.sampling_rate = 20;
        next.oversampling_ratio = 10;
        next.tilt_step = 7;
        strv_free(next.protected_disks);
        next.protected_disks = disk_list("sda", "sdz");
        _cleanup_free_ char *asked = NULL;
        if (!next.protected_disks || state_config_format(&next, &asked) < 0)
                abort();
        rig_forget(r);
        rig_capture_start(r);
        CHECK_EQ(context_apply_config(r->c, &next, CONFIG_APPLY_CHANGE, NULL, &error), -ENOENT);
        _cleanup_free_ char *ports = rig_capture_stop(r);
        CHECK_EQ(error.part, CONFIG_PART_DISKS);
        CHECK(error.message && strstr(error.message, "sdz"));
        CHECK(strlen(ports) > strlen("dir,port,value\n")); /* the rates went to the EC, and back */
        rig_advance_ms(r, 0);
        Snapshot now = snapshot(r);
        check_same(&old, &now);
        CHECK_EQ(now.ec_rate, 50 * 5);
        _cleanup_free_ char *after = read_state(r);
        CHECK_STREQ(after, before);
        CHECK(!(rig_changed(r) & (CHANGE_MASK(CHANGE_SAMPLING_RATE) | CHANGE_MASK(CHANGE_TILT_STEP) |
                                  CHANGE_MASK(CHANGE_PROTECTED_DISKS))));

        /* A reload of that file applies what it can and keeps the old disks. */
        rig_write_state(r, asked);
        rig_forget(r);
        context_reload(r->c);
        CHECK_EQ(r->c->config.sampling_rate, 20);
        CHECK_EQ(r->c->config.oversampling_ratio, 10);
        CHECK(r->c->config.tilt_step == 7);
        CHECK_EQ(strv_length(r->c->config.protected_disks), 0);
        CHECK_EQ(rig_sim_status(r).ec_rate, 20 * 10);
        CHECK(rig_changed_bit(r, CHANGE_SAMPLING_RATE));
        CHECK(!rig_changed_bit(r, CHANGE_PROTECTED_DISKS));
        rig_free(r);
}

/* Input devices the state file enables but that cannot be made (no uinput here) are tried again with
 * every change, and refuse none: another setting changes, the first readouts calibrate. */
TEST(input_devices_that_cannot_be_made_refuse_no_other_change)
{
        Rig *r = rig_new(&(RigOptions) {.state = "input_devices=1\n"});
        _cleanup_(state_config_done) StateConfig next = {};

        CHECK(r->c->config.input_devices);
        rig_claim(r, POLLER_RATE_FULL, ":1.1");
        rig_advance_ms(r, 300);
        CHECK(r->c->config.has_rest);
        if (state_config_copy(&next, &r->c->config) < 0)
                abort();
        next.tilt_step = 4;
        rig_forget(r);
        CHECK_EQ(context_apply_config(r->c, &next, CONFIG_APPLY_CHANGE, NULL, NULL), 0);
        CHECK(r->c->config.tilt_step == 4);
        CHECK(r->c->config.input_devices);
        CHECK_EQ(rig_change_count(r, CHANGE_TILT_STEP), 1);
        CHECK(!rig_changed_bit(r, CHANGE_INPUT_DEVICES));
        rig_free(r);
}

/* One EC configuration command per change, under every kind of demand: the poller alone sets the
 * backend's sampling rate (to the rate in force), configuration only tells it the configured one changed.
 * Each single change sends the EC at most one 0x10 (each drops the prefetched readout), exactly one when
 * the EC's configuration (the rate in force x OversamplingRatio, FilterOrder) changes, none when it stays
 * (a SamplingRate above a 20 Hz claim's rate); the EC then runs the rate in force. Counted on the port
 * log: a request's TWR0 write of 0x10. */
typedef struct Demanded {
        const char *name;
        RigOptions options;
        void (*demand)(Rig *r);
} Demanded;

static void demand_none(Rig *r)
{
        rig_claim(r, 0, NULL);
}
static void demand_claim(Rig *r)
{
        rig_claim(r, POLLER_RATE_FULL, ":1.2"); /* Claim; a stream's claim is the same to the core */
}
static void demand_claim_at_rate(Rig *r)
{
        rig_claim(r, 10, ":1.2");
}
static void demand_sensor_proxy(Rig *r)
{
        rig_claim(r, 0, NULL);
        poller_set_demand(&r->c->poller, DEMAND_SENSOR_PROXY, true); /* 20 Hz */
}
static void demand_protection(Rig *r)
{
        rig_claim(r, 0, NULL);
        char *sda[] = {(char *) "sda", NULL};
        if (rig_protect(r, sda) < 0)
                abort();
}

static const Demanded demands[] = {
        {"nothing polls", {}, demand_none},
        {"a Claim (or a stream)", {}, demand_claim},
        {"a ClaimAtRate at 10 Hz", {}, demand_claim_at_rate},
        {"a SensorProxy claim (20 Hz)", {}, demand_sensor_proxy},
        {"armed disk protection", {.disks = true}, demand_protection},
};

typedef struct Change {
        const char *name;
        void (*change)(StateConfig *next); /* a configuration change, as its setter makes it */
        ChangeBit bit;                     /* the property it changes */
        bool fake_data_mode;               /* instead: SetFakeDataMode true */
} Change;

static const Change changes[] = {
        {"SamplingRate 50 -> 25", set_rate_25, CHANGE_SAMPLING_RATE},
        {"SamplingRate 50 -> 100", set_rate_100, CHANGE_SAMPLING_RATE},
        {"OversamplingRatio", set_ratio_3, CHANGE_OVERSAMPLING_RATIO},
        {"FilterOrder", set_order_6, CHANGE_FILTER_ORDER},
        {"Invert", set_invert, CHANGE_INVERT},
        {"TiltStep", set_tilt_step, CHANGE_TILT_STEP},
        {"FakeDataMode", NULL, CHANGE_FAKE_DATA_MODE, true},
};

/* What the D-Bus setter does once authorized. */
static int make_change(Rig *r, const Change *t)
{
        _cleanup_(state_config_done) StateConfig next = {};

        if (t->fake_data_mode)
                return context_set_fake_data_mode(r->c, true);
        if (state_config_copy(&next, &r->c->config) < 0)
                abort();
        t->change(&next);
        return context_apply_config(r->c, &next, CONFIG_APPLY_CHANGE, NULL, NULL);
}

static size_t count_lines(const char *text, const char *line)
{
        size_t n = 0;
        for (const char *p = text; (p = strstr(p, line)); p += strlen(line))
                n++;
        return n;
}

TEST(one_ec_command_per_change)
{
        for (size_t d = 0; d < ELEMENTSOF(demands); d++)
                for (size_t i = 0; i < ELEMENTSOF(changes); i++) {
                        Rig *r = rig_new(&demands[d].options);

                        fprintf(stderr, "## %s, %s\n", changes[i].name, demands[d].name);
                        rig_claim(r, POLLER_RATE_FULL, ":1.1"); /* the first readouts calibrate */
                        rig_advance_ms(r, 300);
                        demands[d].demand(r);
                        rig_advance_ms(r, 300);
                        EcSimStatus before = rig_sim_status(r);

                        rig_forget(r);
                        rig_capture_start(r);
                        CHECK_EQ(make_change(r, &changes[i]), 0);
                        CHECK(rig_changed_bit(r, changes[i].bit)); /* reported by the core */
                        rig_advance_ms(r, 500);
                        _cleanup_free_ char *ports = rig_capture_stop(r);
                        EcSimStatus after = rig_sim_status(r);

                        size_t commands = count_lines(ports, "out,0x1610,0x10\n");
                        bool ec_changed =
                                after.ec_rate != before.ec_rate || after.filter_order != before.filter_order;
                        CHECK_EQ(commands, ec_changed ? 1 : 0);
                        unsigned in_force =
                                r->c->poller.polling ? r->c->poller.poll_rate : context_full_rate(r->c);
                        CHECK_EQ(after.ec_rate, in_force * r->c->config.oversampling_ratio);
                        CHECK_EQ(after.filter_order, r->c->config.filter_order);
                        CHECK_EQ(after.fake_data_mode, changes[i].fake_data_mode);
                        rig_free(r);
                }
}

/* Start-up is a reload from the defaults: a daemon started with a state file ends as one started
 * without it that then reloads it (SIGHUP), every setting through the parts table
 * (context_apply_config()). Both then poll for a full-rate claim alike. The one deliberate difference,
 * InputDevices that cannot be made, stays configured at start (test below) where a reload keeps them
 * off. */
typedef struct StartCase {
        const char *state;
        bool disks;
} StartCase;

/* With a rate in the file the rest position is in it too: the first one, taken at init when there is
 * none, is a readout at the rate init sets (the file's at start, the defaults' before a reload). */
static const StartCase start_cases[] = {
        {"sampling_rate=25\nrest_position=-480,-440\n"},
        {"sampling_rate=200\noversampling_ratio=3\nfilter_order=6\nrest_position=-480,-440\n"},
        {"invert=1\n"},
        {"invert=1\nrest_position=-400,-420\n"},
        {"tilt_step=3.5\nshock_sensitivity=2.5\n"},
        {"protected_disks=sda\n", true},
        {"protected_disks=sda sdz\n", true}, /* refused: no disk protected */
        {"sampling_rate=20\nprotected_disks=sda\ntilt_step=7\nrest_position=-480,-440\n", true},
};

TEST(start_up_applies_as_reload_does)
{
        for (size_t i = 0; i < ELEMENTSOF(start_cases); i++) {
                const StartCase *t = &start_cases[i];

                fprintf(stderr, "## start-up with %s", t->state);
                Rig *started = rig_new(&(RigOptions) {.state = t->state, .disks = t->disks});
                Rig *reloaded = rig_new(&(RigOptions) {.disks = t->disks});
                rig_write_state(reloaded, t->state);
                context_reload(reloaded->c);
                rig_advance_ms(started, 0);
                rig_advance_ms(reloaded, 0);
                Snapshot a = snapshot(started), b = snapshot(reloaded);
                check_same(&a, &b);

                rig_claim(started, POLLER_RATE_FULL, ":1.1");
                rig_claim(reloaded, POLLER_RATE_FULL, ":1.1");
                unsigned ticks_a = started->ticks, ticks_b = reloaded->ticks;
                rig_advance_ms(started, 500);
                rig_advance_ms(reloaded, 500);
                a = snapshot(started);
                b = snapshot(reloaded);
                check_same(&a, &b);
                CHECK_EQ(started->ticks - ticks_a, reloaded->ticks - ticks_b);
                rig_free(started);
                rig_free(reloaded);
        }
}

int main(void)
{
        RUN(setter_and_reload_apply_alike);
        RUN(unsaved_change_changes_nothing);
        RUN(refused_part_undoes_the_others);
        RUN(input_devices_that_cannot_be_made_refuse_no_other_change);
        RUN(one_ec_command_per_change);
        RUN(start_up_applies_as_reload_does);
        return test_summary();
}
