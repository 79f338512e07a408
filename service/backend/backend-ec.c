/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The EC backend: the user-space hdaps device on the EC transport, over any port backend. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "calibration.h"
#include "ec-detect.h"
#include "ec-sim.h"
#include "hdaps-models.h"
#include "log.h"

typedef struct BackendEc {
        Backend backend; /* first member: the ops receive &backend */
        Ec *ec;
        HdapsDevice *device;
        unsigned model_axis_code; /* the model's orientation; Invert flips both axes on top of it */
        bool invert;
        bool self_tested; /* the EC self-test passed once */
} BackendEc;

static BackendEc *to_ec(Backend *b)
{
        return (BackendEc *) b;
}

static int bec_init(Backend *b, const HdapsConfig *config)
{
        BackendEc *e = to_ec(b);
        int r;

        b->init_failure = NULL;
        b->init_note = NULL;
        /* The 2006 patch series' thinkpad_ec runs its self-test once, before any other use of the EC (module
         * load): a harmless battery status read that a real ThinkPad EC answers by the protocol. */
        if (!e->self_tested) {
                r = ec_self_test(e->ec);
                if (r < 0) {
                        b->init_failure = "the EC self-test (battery status row 0x01, as thinkpad_ec does "
                                          "at load) failed: the EC does not answer by the LPC channel 3 "
                                          "protocol here";
                        return r;
                }
                e->self_tested = true;
        }
        r = hdaps_init(e->device, config);
        if (r >= 0 && hdaps_config_degraded(e->device))
                b->init_note = "the EC keeps the configuration change pending (0x10 answers 0x06): polling "
                               "with the configuration the EC reports, and retrying the one asked for";
        else if (r >= 0 && hdaps_config_refused(e->device))
                b->init_note = "the EC keeps the configuration change pending (0x10 answers 0x06), but "
                               "already runs the configuration asked for; changes will be refused";
        return r;
}

static int bec_power_off(Backend *b, bool *ret_off)
{
        return hdaps_power_off(to_ec(b)->device, ret_off);
}

static int bec_poll(Backend *b, HdapsReadout *ret)
{
        HdapsDevice *d = to_ec(b)->device;
        bool degraded = hdaps_config_degraded(d), retrying = hdaps_config_retrying(d);
        int r = hdaps_poll(d, ret);

        if (degraded && !hdaps_config_degraded(d))
                b->init_note = NULL; /* the EC took the configuration at a retry: it runs what was asked */
        else if (retrying && !hdaps_config_retrying(d))
                b->init_note =
                        "the EC keeps the configuration change pending (0x10 answers 0x06): polling "
                        "with the configuration the EC reports; it refused the one asked for at every "
                        "retry";
        return r;
}

static void bec_set_streaming(Backend *b, bool on)
{
        int r;

        if (!on)
                return; /* the last tick's prefetch simply expires */
        r = hdaps_start_polling(to_ec(b)->device);
        if (r < 0)
                log_debug_errno(
                        r, "hdaps: the prefetch at the start of polling failed, the first tick reads: %m");
}

static void bec_keep_stream(Backend *b)
{
        int r = hdaps_keep_prefetch(to_ec(b)->device);
        if (r < 0)
                log_debug_errno(
                        r, "hdaps: making the prefetch again after another transaction failed, the next "
                           "tick reads: %m");
}

static int bec_update(Backend *b)
{
        return hdaps_update(to_ec(b)->device);
}

static const HdapsState *bec_get_state(Backend *b)
{
        return hdaps_get_state(to_ec(b)->device);
}

static const HdapsConfig *bec_get_config(Backend *b)
{
        return hdaps_get_config(to_ec(b)->device);
}

static int bec_set_sampling_rate(Backend *b, unsigned rate)
{
        return hdaps_set_sampling_rate(to_ec(b)->device, rate);
}

static int bec_set_oversampling_ratio(Backend *b, unsigned ratio)
{
        return hdaps_set_oversampling_ratio(to_ec(b)->device, ratio);
}

static int bec_set_filter_order(Backend *b, unsigned order)
{
        return hdaps_set_filter_order(to_ec(b)->device, order);
}

static int bec_set_fake_data_mode(Backend *b, bool on)
{
        return hdaps_set_fake_data_mode(to_ec(b)->device, on);
}

static int bec_set_invert(Backend *b, bool invert)
{
        BackendEc *e = to_ec(b);
        unsigned code = e->model_axis_code ^ (invert ? HDAPS_AXIS_NEGATE_BOTH : 0);
        int r;

        if (invert == e->invert)
                return 0;

        /* Negating both axes negates the rest position too, so a calibration survives the change. */
        const HdapsState *s = hdaps_get_state(e->device);
        bool had_rest = calibration_has_rest(s);
        int rest_x = -s->rest_x, rest_y = -s->rest_y;

        r = hdaps_set_axis_code(e->device, code);
        if (r < 0)
                return r;
        if (had_rest)
                hdaps_set_rest(e->device, rest_x, rest_y);
        e->invert = invert;
        return 0;
}

static void bec_calibrate(Backend *b)
{
        hdaps_calibrate(to_ec(b)->device);
}

static void bec_set_rest(Backend *b, int rest_x, int rest_y)
{
        hdaps_set_rest(to_ec(b)->device, rest_x, rest_y);
}

static unsigned bec_get_axis_code(Backend *b)
{
        return hdaps_get_axis_code(to_ec(b)->device);
}

static int bec_read_row(Backend *b, const EcRow *args, EcRow *data)
{
        int r;

        r = ec_row_validate_request(args);
        if (r < 0)
                return r;
        return ec_read_row(to_ec(b)->ec, args, data);
}

static int bec_get_ec_config(Backend *b, unsigned *ret_ec_rate, unsigned *ret_order)
{
        return hdaps_read_back_ec_config(to_ec(b)->device, ret_ec_rate, ret_order);
}

static void bec_describe_power(Backend *b, char *buf, size_t size)
{
        PortIO *port = port_innermost(ec_port(to_ec(b)->ec));

        if (!port_is_sim(port)) {
                snprintf(buf, size, "EC on port backend '%s'", port_backend_name(port));
                return;
        }

        EcSimStatus st;
        ec_sim_get_status(port, &st);
        snprintf(buf, size, "emulated EC: powered=%s ec_rate=%u transactions=%llu protocol_violations=%llu",
                 st.powered ? "yes" : "no", st.ec_rate, (unsigned long long) st.transactions,
                 (unsigned long long) st.protocol_violations);
}

static void bec_free(Backend *b)
{
        BackendEc *e = to_ec(b);

        hdaps_free(e->device);
        ec_free(e->ec);
        free(e->backend.model);
        free(e);
}

static const BackendOps backend_ec_ops = {
        .init = bec_init,
        .power_off = bec_power_off,
        .poll = bec_poll,
        .update = bec_update,
        .set_streaming = bec_set_streaming,
        .keep_stream = bec_keep_stream,
        .get_state = bec_get_state,
        .get_config = bec_get_config,
        .set_sampling_rate = bec_set_sampling_rate,
        .set_oversampling_ratio = bec_set_oversampling_ratio,
        .set_filter_order = bec_set_filter_order,
        .set_fake_data_mode = bec_set_fake_data_mode,
        .set_invert = bec_set_invert,
        .calibrate = bec_calibrate,
        .set_rest = bec_set_rest,
        .get_axis_code = bec_get_axis_code,
        .read_row = bec_read_row,
        .describe_power = bec_describe_power,
        .get_ec_config = bec_get_ec_config,
        .free = bec_free,
};

int backend_ec_new(PortIO *port, const char *name, unsigned axis_code, Backend **ret)
{
        _cleanup_(port_freep) PortIO *p = port;
        _cleanup_(ec_freep) Ec *ec = NULL;
        _cleanup_(hdaps_freep) HdapsDevice *device = NULL;
        _cleanup_free_ char *model = NULL;
        BackendEc *e;
        int r;

        model = strdup("");
        if (!model)
                return -ENOMEM;

        r = ec_new(TAKE_PTR(p), &ec);
        if (r < 0)
                return r;

        r = hdaps_new(ec, axis_code, &device);
        if (r < 0)
                return r;

        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;

        *e = (BackendEc) {
                .backend =
                        {
                                .ops = &backend_ec_ops,
                                .name = name,
                                .model = TAKE_PTR(model),
                                .counts_per_g = HDAPS_COUNTS_PER_G_DEFAULT,
                                .has_ports = true,
                        },
                .device = TAKE_PTR(device),
                .ec = TAKE_PTR(ec),
                .model_axis_code = axis_code,
        };
        *ret = &e->backend;
        return 0;
}
