/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hdaps device: accelerometer commands over the EC transport. Facts: docs/PROTOCOL.md. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>

#include "calibration.h"
#include "ec-protocol.h"
#include "hdaps.h"
#include "log.h"

struct HdapsDevice {
        Ec *ec;
        HdapsConfig config;
        unsigned axis_code;
        HdapsState state;
        bool cache_stale;
        bool prefetch_failed; /* the last prefetch of the readout row failed */
        bool prefetch_polled; /* the poll path's prefetch (a tick's, or the start's) is out, unread */
        bool prefetch_init;   /* the last readout request was init's own prefetch */
        /* A configuration the EC kept pending at init (0x10 answered 0x06 through the whole budget): the
         * device polls with what the EC reported, and a poll tick retries the wanted one now and then. */
        bool config_degraded;
        bool config_refused; /* init found the EC answering 0x06 to the configuration (degraded or not) */
        HdapsConfig config_wanted;
        unsigned config_retries;
        uint64_t config_retry_ns; /* port-clock time of the next retry; UINT64_MAX: no more */
};

/* The readout row: the request is just the command. Read is only what the EC says is there
 * (tp_smapi 0.43 reads the same 16 bytes; docs/PROTOCOL.md, "Readout row 0x11"):
 * always READOUTS, the latest readout (Y1, X1, TEMP1) and KMACT, the bytes tp_smapi 0.43's
 * __hdaps_update() reads (RETVAL is TWR15, always read); the older readout (Y2, X2) and QUEUED only when
 * READOUTS, read first, says 2 (the EC queued more than one since the last reply: a reply with one
 * readout has none older, and nothing queued behind it to report). A steady tick is then 16 accesses,
 * as the reference's. */
static const EcRow readout_args = {.mask = EC_ROW_MASK_ARG0, .val = {[0] = EC_CMD_ACCEL_READOUT}};
#define READOUT_DATA_MASK                                                                                   \
        ((1u << EC_READOUT_IDX_READOUTS) | (3u << EC_READOUT_IDX_Y1) | (3u << EC_READOUT_IDX_X1) |          \
         (1u << EC_READOUT_IDX_TEMP1) | (1u << EC_READOUT_IDX_KMACT))
#define READOUT_OLDER_MASK                                                                                  \
        ((3u << EC_READOUT_IDX_Y2) | (3u << EC_READOUT_IDX_X2) | (1u << EC_READOUT_IDX_QUEUED))
static const EcReadMore readout_older = {
        .index = EC_READOUT_IDX_READOUTS,
        .min = 2,
        .mask = READOUT_OLDER_MASK,
};

int hdaps_new(Ec *ec, unsigned axis_code, HdapsDevice **ret)
{
        assert(ec);
        assert(ret);

        if (axis_code > HDAPS_AXIS_CODE_MAX)
                return -EINVAL;
        HdapsDevice *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->ec = ec;
        d->config = HDAPS_CONFIG_DEFAULT;
        d->axis_code = axis_code;
        d->cache_stale = true;
        calibration_request(&d->state); /* armed at load and on request only, never by an init */
        *ret = d;
        return 0;
}

HdapsDevice *hdaps_free(HdapsDevice *d)
{
        free(d);
        return NULL;
}

const HdapsState *hdaps_get_state(const HdapsDevice *d)
{
        assert(d);

        return &d->state;
}

const HdapsConfig *hdaps_get_config(const HdapsDevice *d)
{
        assert(d);

        return &d->config;
}

unsigned hdaps_get_axis_code(const HdapsDevice *d)
{
        assert(d);

        return d->axis_code;
}

static uint64_t now_ns(HdapsDevice *d)
{
        return port_now_ns(ec_port(d->ec));
}

static void sleep_ms(HdapsDevice *d, unsigned ms)
{
        port_delay_ns(ec_port(d->ec), (uint64_t) ms * NSEC_PER_MSEC);
}

/* One command: request args, read data->mask, check RETVAL. Returns the transport's error, or the
 * RETVAL (>= 0) for the caller to map. */
static int command(HdapsDevice *d, const EcRow *args, EcRow *data)
{
        int r = ec_read_row(d->ec, args, data);
        if (r < 0) {
                char desc[16];
                log_debug("hdaps: command %s failed (STR3 0x%02x): %d", ec_row_describe(args, desc),
                          ec_last_str3(d->ec), r);
                return r;
        }
        return data->val[EC_IDX_RETVAL];
}

static int hdaps_get_mode(HdapsDevice *d, uint8_t *ret_mode)
{
        const EcRow args = {.mask = EC_ROW_MASK_ARG0, .val = {[0] = EC_CMD_ACCEL_MODE}};
        EcRow data = {.mask = 1u << EC_MODE_IDX_LATCH};
        int r = command(d, &args, &data);
        if (r < 0)
                return r;
        if (r != EC_RETVAL_OK)
                return -EOPNOTSUPP; /* "accelerometer not implemented" */
        *ret_mode = data.val[EC_MODE_IDX_LATCH];
        return 0;
}

static int hdaps_check(HdapsDevice *d)
{
        const EcRow args = {.mask = EC_ROW_MASK_ARG0 | (1u << EC_EXT_IDX_SUB),
                            .val = {[0] = EC_CMD_ACCEL_EXT, [EC_EXT_IDX_SUB] = EC_SUB_ACCEL_CHECK}};
        EcRow data = {.mask = 7u << EC_CHECK_IDX_FIRST};
        int r = command(d, &args, &data);
        if (r < 0)
                return r;
        const uint8_t *v = data.val + EC_CHECK_IDX_FIRST;
        bool spec = v[0] == EC_CHECK_SPEC_0 && v[1] == EC_CHECK_SPEC_1 && v[2] == EC_CHECK_SPEC_2;
        bool t61 = v[0] == EC_CHECK_T61_0 && v[1] == EC_CHECK_T61_1 && v[2] == EC_CHECK_T61_2;
        if (r != EC_RETVAL_OK || !(spec || t61)) {
                log_debug("hdaps: check answered %02x %02x %02x, RETVAL 0x%02x", v[0], v[1], v[2], r);
                return -ENODEV;
        }
        return 0;
}

static int set_power_once(HdapsDevice *d, unsigned on, unsigned unused)
{
        const EcRow args = {.mask = EC_ROW_MASK_ARG0 | (1u << EC_POWER_IDX_ON),
                            .val = {[0] = EC_CMD_ACCEL_POWER, [EC_POWER_IDX_ON] = on ? 1 : 0}};
        EcRow data = {.mask = 0};
        int r = command(d, &args, &data);
        if (r < 0)
                return r;
        return r == EC_RETVAL_OK ? 0 : -EIO;
}

/* 0x10 once. EC return codes: 0x03 -> -EINVAL, 0x06 -> -EBUSY, others -> -EIO. */
static int set_ec_config_once(HdapsDevice *d, unsigned ec_rate, unsigned order)
{
        const EcRow args = {
                .mask = EC_ROW_MASK_ARG0 | (1u << EC_CONFIG_IDX_RATE_LO) | (1u << EC_CONFIG_IDX_RATE_HI) |
                        (1u << EC_CONFIG_IDX_ORDER),
                .val = {[0] = EC_CMD_ACCEL_CONFIG,
                        [EC_CONFIG_IDX_RATE_LO] = ec_rate & 0xFF,
                        [EC_CONFIG_IDX_RATE_HI] = (ec_rate >> 8) & 0xFF,
                        [EC_CONFIG_IDX_ORDER] = order},
        };
        EcRow data = {.mask = 0};
        int r = command(d, &args, &data);
        if (r < 0)
                return r;
        switch (r) {
        case EC_RETVAL_OK:
                return 0;
        case EC_RETVAL_OUT_OF_RANGE:
                return -EINVAL;
        case EC_RETVAL_CHANGE_PENDING:
                return -EBUSY;
        default:
                return -EIO;
        }
}

/* Runs op, retrying "busy" (the EC, or a pending change) within the 2006 patch series' on-demand budget:
 * every HDAPS_READ_RETRY_MS for up to HDAPS_READ_TIMEOUT_MS. */
static int retry_busy(HdapsDevice *d, int (*op)(HdapsDevice *d, unsigned a, unsigned b), unsigned a,
                      unsigned b)
{
        int r = -EBUSY;
        for (unsigned waited = 0; waited <= HDAPS_READ_TIMEOUT_MS; waited += HDAPS_READ_RETRY_MS) {
                r = op(d, a, b);
                if (r != -EBUSY)
                        break;
                sleep_ms(d, HDAPS_READ_RETRY_MS);
        }
        return r;
}

static int hdaps_set_power(HdapsDevice *d, bool on)
{
        return retry_busy(d, set_power_once, on, 0);
}

static int set_ec_config(HdapsDevice *d, unsigned ec_rate, unsigned order)
{
        int r = retry_busy(d, set_ec_config_once, ec_rate, order);
        d->cache_stale = true;
        ec_invalidate(d->ec);
        return r;
}

static int send_fake_data_mode(HdapsDevice *d, bool on)
{
        const EcRow args = {
                .mask = EC_ROW_MASK_ARG0 | (1u << EC_EXT_IDX_SUB) | (1u << EC_FAKE_DATA_IDX_ON),
                .val = {[0] = EC_CMD_ACCEL_EXT,
                        [EC_EXT_IDX_SUB] = EC_SUB_ACCEL_FAKE_DATA,
                        [EC_FAKE_DATA_IDX_ON] = on},
        };
        EcRow data = {.mask = 0};
        int r = command(d, &args, &data);
        if (r < 0)
                return r;
        return r == EC_RETVAL_OK ? 0 : -EIO;
}

int hdaps_get_ec_config(HdapsDevice *d, unsigned *ret_ec_rate, unsigned *ret_order)
{
        assert(d);
        assert(ret_ec_rate);
        assert(ret_order);

        const EcRow args = {.mask = EC_ROW_MASK_ARG0 | (1u << EC_EXT_IDX_SUB),
                            .val = {[0] = EC_CMD_ACCEL_EXT, [EC_EXT_IDX_SUB] = EC_SUB_ACCEL_GET_CONFIG}};
        EcRow data = {.mask = (1u << EC_GETCFG_IDX_STATUS) | (1u << EC_GETCFG_IDX_RATE_LO) |
                              (1u << EC_GETCFG_IDX_RATE_HI) | (1u << EC_GETCFG_IDX_ORDER)};
        int r = command(d, &args, &data);
        if (r < 0)
                return r;
        if (r != EC_RETVAL_OK)
                return -EIO;
        uint8_t status = data.val[EC_GETCFG_IDX_STATUS];
        if (!(status & EC_GETCFG_POLLING))
                return -ENXIO;
        if (status & EC_GETCFG_PENDING)
                return -EBUSY;
        *ret_ec_rate = data.val[EC_GETCFG_IDX_RATE_LO] | (unsigned) data.val[EC_GETCFG_IDX_RATE_HI] << 8;
        *ret_order = data.val[EC_GETCFG_IDX_ORDER];
        return 0;
}

int hdaps_read_back_ec_config(HdapsDevice *d, unsigned *ret_ec_rate, unsigned *ret_order)
{
        int r = -EBUSY;

        assert(d);
        assert(ret_ec_rate);
        assert(ret_order);

        for (unsigned waited = 0; waited <= HDAPS_READ_TIMEOUT_MS; waited += HDAPS_READ_RETRY_MS) {
                r = hdaps_get_ec_config(d, ret_ec_rate, ret_order);
                if (r != -EBUSY)
                        break;
                sleep_ms(d, HDAPS_READ_RETRY_MS);
        }
        return r;
}

int hdaps_config_validate(const HdapsConfig *c, const char **ret_msg)
{
        const char *msg = NULL;

        assert(c);

        if (c->sampling_rate < HDAPS_SAMPLING_RATE_MIN || c->sampling_rate > HDAPS_SAMPLING_RATE_MAX)
                msg = "sampling rate must be between 1 and 1000 readouts per second";
        else if (c->oversampling_ratio < HDAPS_OVERSAMPLING_RATIO_MIN)
                msg = "oversampling ratio must be at least 1";
        else if ((uint64_t) c->sampling_rate * c->oversampling_ratio > EC_RATE_MAX)
                msg = "sampling rate x oversampling ratio (the EC rate) must be at most 65535";
        else if (c->filter_order < EC_FILTER_ORDER_MIN || c->filter_order > EC_FILTER_ORDER_MAX)
                msg = "filter order must be between 1 and 8";

        if (ret_msg)
                *ret_msg = msg;
        return msg ? -EINVAL : 0;
}

/* Init after the EC answered "change pending" (0x06) to every 0x10 of the 2006 patch series' budget.
 * tp_smapi 0.43 gives up on the device there (hdaps_device_init(): FAILED_INIT("hdaps_set_ec_config
 * failed")) and polls anyway, with whatever the EC does; tpaccel says so instead: it reads the configuration
 * the EC reports (0x17/0x82) and polls with it, keeping the sampling rate, and retries the wanted one later
 * (hdaps_poll()). Returns 0, or the read-back's error (-EBUSY: still pending there too, -ENXIO: the EC
 * is not sampling) when there is nothing to poll with. */
static int degrade_to_ec_config(HdapsDevice *d, const HdapsConfig *config)
{
        unsigned ec_rate, order;
        int r = hdaps_get_ec_config(d, &ec_rate, &order);

        if (r < 0)
                return r;
        if (ec_rate == 0 || order < EC_FILTER_ORDER_MIN || order > EC_FILTER_ORDER_MAX)
                return -ENXIO;
        d->config_refused = true;
        if (ec_rate == config->sampling_rate * config->oversampling_ratio && order == config->filter_order) {
                log_info(
                        "hdaps: the EC answers 0x06 (change pending) to the configuration, but already runs "
                        "it (EC rate %u, filter order %u)",
                        ec_rate, order);
                return 0;
        }
        d->config = *config;
        d->config.oversampling_ratio = MAX(ec_rate / config->sampling_rate, 1u);
        d->config.filter_order = order;
        d->config.fake_data_mode = false;
        d->config_wanted = *config;
        d->config_degraded = true;
        d->config_retries = 0;
        d->config_retry_ns = now_ns(d) + HDAPS_CONFIG_RETRY_INTERVAL_MS * NSEC_PER_MSEC;
        log_warning("hdaps: the EC keeps a configuration change pending (0x10 answered 0x06 for %u ms): "
                    "polling with the configuration it reports (EC rate %u, filter order %u) instead of EC "
                    "rate %u, filter order %u; retrying that every %u s, %u times at most",
                    HDAPS_READ_TIMEOUT_MS, ec_rate, order,
                    config->sampling_rate * config->oversampling_ratio, config->filter_order,
                    HDAPS_CONFIG_RETRY_INTERVAL_MS / 1000, HDAPS_CONFIG_RETRIES);
        return 0;
}

/* Init failed after the power-on command was sent: the accelerometer is switched off again (0x14 0), so
 * a failed init never leaves it powered (tp_smapi 0.43 leaves that to module unload). */
static void power_off_after_failed_init(HdapsDevice *d)
{
        int r = hdaps_set_power(d, false);
        ec_invalidate(d->ec);
        if (r < 0)
                log_warning_errno(r, "hdaps: init failed after powering the accelerometer on, and powering "
                                     "it off again (0x14 0) failed too: %m");
        else
                log_debug("hdaps: init failed after powering the accelerometer on: powered it off again");
}

bool hdaps_config_degraded(const HdapsDevice *d)
{
        assert(d);

        return d->config_degraded;
}

bool hdaps_config_retrying(const HdapsDevice *d)
{
        assert(d);

        return d->config_degraded && d->config_retry_ns != UINT64_MAX;
}

bool hdaps_config_refused(const HdapsDevice *d)
{
        assert(d);

        return d->config_refused;
}

int hdaps_init(HdapsDevice *d, const HdapsConfig *config)
{
        const char *msg;
        uint8_t mode;
        int r;

        assert(d);

        if (hdaps_config_validate(config, &msg) < 0)
                return log_error_errno(-EINVAL, "hdaps: bad configuration: %s", msg);
        d->prefetch_polled = false; /* polling starts afresh after init (hdaps_start_polling) */
        d->prefetch_init = false;

        r = hdaps_get_mode(d, &mode);
        if (r == -EOPNOTSUPP)
                return log_error_errno(-ENODEV, "hdaps: the EC says the accelerometer is not implemented");
        if (r < 0)
                return log_error_errno(r, "hdaps: reading the accelerometer mode failed (STR3 0x%02x): %m",
                                       ec_last_str3(d->ec));
        if (mode == EC_MODE_NONE)
                return log_error_errno(-ENODEV, "hdaps: the EC reports no accelerometer (mode latch 0x00)");
        /* Lenovo kept adding mode values beyond 1..3 (tp_smapi 0.24+): log, do not refuse. */
        log_debug("hdaps: mode latch 0x%02x", mode);
        d->state.mode = mode;

        r = hdaps_check(d);
        if (r < 0)
                return log_error_errno(r == -ENODEV ? -ENODEV : r,
                                       "hdaps: accelerometer check (0x17/0x81) failed: %m");

        d->config_degraded = d->config_refused = false;
        r = hdaps_set_power(d, true);
        if (r < 0) {
                power_off_after_failed_init(d); /* the 0x14 1 may have reached the EC */
                return log_error_errno(r, "hdaps: powering the accelerometer on failed: %m");
        }

        r = set_ec_config(d, config->sampling_rate * config->oversampling_ratio, config->filter_order);
        if (r == -EBUSY) {
                int k = degrade_to_ec_config(d, config);
                if (k < 0)
                        log_debug_errno(k,
                                        "hdaps: reading the EC's own configuration (0x17/0x82) failed: %m");
                else
                        r = 0;
        }
        if (r < 0) {
                power_off_after_failed_init(d);
                return log_error_errno(r, "hdaps: configuring EC rate %u, filter order %u failed: %m",
                                       config->sampling_rate * config->oversampling_ratio,
                                       config->filter_order);
        }

        /* tp_smapi 0.38 dropped 0x17/0x83 from the init sequence; every later model was only ever run
         * without it. It is sent only when fake data is wanted, and a refusal does not fail init. */
        if (!d->config_degraded) {
                d->config = *config;
                d->config.fake_data_mode = false;
        }
        if (config->fake_data_mode) {
                r = send_fake_data_mode(d, true);
                if (r < 0)
                        log_warning_errno(
                                r,
                                "hdaps: the EC refused fake-data mode (0x17/0x83), reading real data: %m");
                else
                        d->config.fake_data_mode = true;
        }
        d->cache_stale = true;

        /* Prefetch the first readout instead of reading it, to avoid the ~1 s delay on load; the 2006 patch
         * series and tp_smapi 0.43 invalidate and wait 200 us first, and fail init if the prefetch fails. */
        ec_invalidate(d->ec);
        port_delay_ns(ec_port(d->ec), (uint64_t) HDAPS_INIT_PREFETCH_DELAY_US * NSEC_PER_USEC);
        r = ec_prefetch_row(d->ec, &readout_args);
        d->prefetch_failed = r < 0;
        d->prefetch_init = r == 0;
        if (r < 0) {
                uint8_t str3 = ec_last_str3(d->ec);
                ec_invalidate(d->ec);
                power_off_after_failed_init(d);
                d->config_degraded = false;
                return log_error_errno(
                        r, "hdaps: the initial prefetch of the readout row failed (STR3 0x%02x): %m", str3);
        }
        return 0;
}

int hdaps_power_off(HdapsDevice *d, bool *ret_off)
{
        assert(d);

        /* tp_smapi 0.43: stop EC sampling only once the power-off worked (the 2006 patch series tried both).
         */
        int r;

        d->prefetch_polled = d->prefetch_init = false;
        d->config_degraded = false;
        r = hdaps_set_power(d, false);
        if (ret_off)
                *ret_off = r >= 0;
        if (r >= 0)
                r = set_ec_config(d, HDAPS_SHUTDOWN_EC_RATE, HDAPS_SHUTDOWN_ORDER);
        ec_invalidate(d->ec);
        d->cache_stale = true;
        return r;
}

static int16_t le16(const uint8_t *p)
{
        return (int16_t) (p[0] | p[1] << 8);
}

static bool recent(uint64_t now, uint64_t then)
{
        return then != 0 && now - then < HDAPS_ACTIVITY_REMEMBER_MS * NSEC_PER_MSEC;
}

static void refresh_activity(HdapsDevice *d, uint64_t now)
{
        d->state.keyboard_activity = recent(now, d->state.last_keyboard_ns);
        d->state.mouse_activity = recent(now, d->state.last_mouse_ns);
}

/* Parses a readout row into *ret and the cache. -EIO on a nonzero RETVAL, -EBUSY with no readout. */
static int parse_readout(HdapsDevice *d, const EcRow *data, HdapsReadout *ret)
{
        uint8_t retval = data->val[EC_IDX_RETVAL];
        if (retval != EC_RETVAL_OK) {
                log_debug("hdaps: readout RETVAL 0x%02x", retval);
                return -EIO;
        }
        unsigned readouts = data->val[EC_READOUT_IDX_READOUTS];
        if (readouts < 1)
                return -EBUSY; /* nothing new yet: try later */

        uint64_t now = now_ns(d);
        HdapsReadout r = {
                .time_ns = now,
                .temperature = data->val[EC_READOUT_IDX_TEMP1],
                .readouts = readouts,
                .queued =
                        (data->mask & (1u << EC_READOUT_IDX_QUEUED)) ? data->val[EC_READOUT_IDX_QUEUED] : 0,
                .keyboard = data->val[EC_READOUT_IDX_KMACT] & EC_KMACT_KEYBOARD,
                .mouse = data->val[EC_READOUT_IDX_KMACT] & EC_KMACT_MOUSE,
        };
        hdaps_axes_transform(d->axis_code, le16(data->val + EC_READOUT_IDX_X1),
                             le16(data->val + EC_READOUT_IDX_Y1), &r.x, &r.y);
        if (readouts >= 2 && (data->mask & READOUT_OLDER_MASK) == READOUT_OLDER_MASK)
                hdaps_axes_transform(d->axis_code, le16(data->val + EC_READOUT_IDX_X2),
                                     le16(data->val + EC_READOUT_IDX_Y2), &r.missed_x, &r.missed_y);

        HdapsState *s = &d->state;
        s->x = r.x;
        s->y = r.y;
        s->temperature = r.temperature;
        s->last_readout_ns = now;
        s->n_readouts += readouts;
        s->valid = true;
        if (r.keyboard)
                s->last_keyboard_ns = now;
        if (r.mouse)
                s->last_mouse_ns = now;
        refresh_activity(d, now);
        (void) calibration_readout(s, r.x, r.y);
        d->cache_stale = false;

        if (ret)
                *ret = r;
        return 0;
}

/* In a poll tick, between the read and the next prefetch (so the prefetch is not lost to it): one 0x10
 * with the configuration init wanted, when its time has come. Bounded: HDAPS_CONFIG_RETRIES tries,
 * HDAPS_CONFIG_RETRY_INTERVAL_MS apart; the outcome is logged once (taken, or given up). */
static void retry_wanted_config(HdapsDevice *d)
{
        const HdapsConfig *w = &d->config_wanted;
        unsigned ec_rate = w->sampling_rate * w->oversampling_ratio;

        if (!d->config_degraded || now_ns(d) < d->config_retry_ns)
                return;
        d->config_retries++;
        int r = set_ec_config_once(d, ec_rate, w->filter_order);
        d->cache_stale = true;
        if (r == 0) {
                d->config.oversampling_ratio = w->oversampling_ratio;
                d->config.filter_order = w->filter_order;
                d->config_degraded = false;
                log_info("hdaps: the EC took the configuration (EC rate %u, filter order %u) at retry %u",
                         ec_rate, w->filter_order, d->config_retries);
                return;
        }
        if (d->config_retries >= HDAPS_CONFIG_RETRIES) {
                d->config_retry_ns = UINT64_MAX;
                log_warning_errno(r,
                                  "hdaps: the EC still refuses the configuration (EC rate %u, filter order "
                                  "%u) after %u retries; keeping its own: %m",
                                  ec_rate, w->filter_order, d->config_retries);
                return;
        }
        d->config_retry_ns = now_ns(d) + HDAPS_CONFIG_RETRY_INTERVAL_MS * NSEC_PER_MSEC;
}

int hdaps_poll(HdapsDevice *d, HdapsReadout *ret)
{
        EcRow data = {.mask = READOUT_DATA_MASK};
        int r, k;

        assert(d);

        /* The fast path of the 2006 patch series' timer: read the prefetched reply once, no retries. */
        d->prefetch_init = false;
        r = ec_try_read_row_more(d->ec, &readout_args, &data, &readout_older);
        /* Nothing prefetched although the last prefetch did not fail hard: it expired (a period longer
         * than the prefetch's 100 ms, sampling rates below 10 Hz), the EC was still busy (SWMF) when it
         * was made, or a configuration change dropped it. Then the 2006 patch series' read_row path: request
         * and read, bounded. After a hard failure there is no such read: a failing EC gets one request per
         * tick, no more. */
        if (r == -ENODATA && !d->prefetch_failed)
                r = ec_read_row_more(d->ec, &readout_args, &data, &readout_older);

        retry_wanted_config(d);

        /* Prefetch the next readout even after an error, so the next tick is quick (PATCH 03/12 of the 2006
         * patch series). */
        k = ec_prefetch_row(d->ec, &readout_args);
        d->prefetch_failed = k < 0 && k != -EBUSY; /* busy (SWMF still showing) is not failing */
        d->prefetch_polled = k == 0;

        if (r == 0)
                return parse_readout(d, &data, ret);
        if (r == -ENODATA || r == -EBUSY)
                /* Not ready: no new readout this tick, unless the EC is failing outright. */
                return k < 0 && k != -EBUSY ? k : -EBUSY;
        return r;
}

int hdaps_start_polling(HdapsDevice *d)
{
        assert(d);

        /* Right after init: init's own prefetch is out, and the EC may still be making its reply (SWMF),
         * which would refuse a new request busy and leave nothing prefetched. That reply holds what the
         * EC sampled until init: kept, when it is still valid at the first tick. */
        if (d->prefetch_init &&
            ec_row_prefetched(d->ec, &readout_args, NSEC_PER_SEC / d->config.sampling_rate)) {
                d->prefetch_init = false;
                d->prefetch_failed = false;
                d->prefetch_polled = true;
                return 0;
        }
        d->prefetch_init = false;
        int r = ec_prefetch_row_afresh(d->ec, &readout_args);

        d->prefetch_failed = r < 0 && r != -EBUSY; /* as after a tick's prefetch */
        d->prefetch_polled = r == 0;
        return r;
}

int hdaps_keep_prefetch(HdapsDevice *d)
{
        assert(d);

        if (!d->prefetch_polled || !ec_prefetch_junked(d->ec))
                return 0;
        return hdaps_start_polling(d);
}

int hdaps_update(HdapsDevice *d)
{
        assert(d);

        uint64_t now = now_ns(d);
        uint64_t fresh_ns = NSEC_PER_SEC * 9 / 10 / d->config.sampling_rate;

        if (!d->cache_stale && d->state.valid && now - d->state.last_readout_ns < fresh_ns) {
                refresh_activity(d, now);
                return 0;
        }

        int r = -EBUSY;
        d->prefetch_init = false;
        for (unsigned waited = 0; waited <= HDAPS_READ_TIMEOUT_MS; waited += HDAPS_READ_RETRY_MS) {
                EcRow data = {.mask = READOUT_DATA_MASK};
                r = ec_read_row_more(d->ec, &readout_args, &data, &readout_older);
                d->prefetch_failed = ec_prefetch_row(d->ec, &readout_args) < 0;
                if (r == 0)
                        r = parse_readout(d, &data, NULL);
                if (r != -EBUSY)
                        break;
                sleep_ms(d, HDAPS_READ_RETRY_MS);
        }
        return r;
}

void hdaps_invalidate_cache(HdapsDevice *d)
{
        assert(d);

        d->cache_stale = true;
}

void hdaps_calibrate(HdapsDevice *d)
{
        assert(d);
        calibration_request(&d->state);
}

void hdaps_set_rest(HdapsDevice *d, int rest_x, int rest_y)
{
        assert(d);
        calibration_set_rest(&d->state, rest_x, rest_y);
}

int hdaps_set_axis_code(HdapsDevice *d, unsigned code)
{
        assert(d);

        if (code > HDAPS_AXIS_CODE_MAX)
                return -EINVAL;
        if (code != d->axis_code) {
                d->axis_code = code;
                hdaps_calibrate(d); /* a new orientation makes the old rest position meaningless */
                d->cache_stale = true;
        }
        return 0;
}

/* Applies a new configuration: validated, then sent to the EC; the old one stays on any error. */
static int apply_config(HdapsDevice *d, const HdapsConfig *c)
{
        int r = hdaps_config_validate(c, NULL);
        if (r < 0)
                return r;
        r = set_ec_config(d, c->sampling_rate * c->oversampling_ratio, c->filter_order);
        if (r < 0)
                return r;
        d->config = *c;
        return 0;
}

int hdaps_set_sampling_rate(HdapsDevice *d, unsigned rate)
{
        assert(d);

        HdapsConfig c = d->config;
        c.sampling_rate = rate;
        return apply_config(d, &c);
}

int hdaps_set_oversampling_ratio(HdapsDevice *d, unsigned ratio)
{
        assert(d);

        HdapsConfig c = d->config;
        c.oversampling_ratio = ratio;
        return apply_config(d, &c);
}

int hdaps_set_filter_order(HdapsDevice *d, unsigned order)
{
        assert(d);

        HdapsConfig c = d->config;
        c.filter_order = order;
        return apply_config(d, &c);
}

int hdaps_set_fake_data_mode(HdapsDevice *d, bool on)
{
        assert(d);

        int r = send_fake_data_mode(d, on);
        if (r < 0)
                return r;
        d->config.fake_data_mode = on;
        d->cache_stale = true;
        return 0;
}
