/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Polling: a CLOCK_MONOTONIC timer, armed only while something demands readouts (and the device is
 * present, awake and working), at the highest rate any demand needs (EffectiveRate): armed disk
 * protection, a diagnosis, the input devices and plain claims the configured SamplingRate, ClaimAtRate
 * claims their own, a SensorProxy claim SENSOR_PROXY_RATE_HZ, a movement claim MOVEMENT_RATE_HZ. The
 * backend's (EC's) sampling rate follows it, set as the 2006 patch series' sampling_rate attribute
 * sets it while polling (docs/PROTOCOL.md, on rate changes while polling). Each tick: one readout ->
 * readout_process() (readout.h). No demand: no timer at all. */

#include <errno.h>
#include <string.h>

#include "context.h"
#include "log.h"
#include "poll-schedule.h"
#include "readout.h"
#include "strutil.h"

#define POLL_ACCURACY_DIVISOR 10 /* timer slack: 10% of the period */
/* The 2006 patch series stops polling at the first hard error ("poll failed, disabling updates", tp_smapi
 * 0.43 hdaps_mousedev_poll). tpacceld tolerates a few in a row (a single fault of a working EC), then stops
 * and re-initializes the device with an exponential back-off; claims keep waiting meanwhile. */
#define POLL_HARD_ERRORS_MAX   5
#define REINIT_DELAY_MIN_USEC  (1 * USEC_PER_SEC)
#define REINIT_DELAY_MAX_USEC  (60 * USEC_PER_SEC)
#define BUSY_LOG_INTERVAL_USEC (60 * USEC_PER_SEC) /* at most one "EC busy" line per minute */
#define BUSY_LOG_MIN_PERCENT   10                  /* ... when this share of a window's ticks was busy */

static const char *const hardware_state_table[] = {
        [HARDWARE_OK] = "ok",
        [HARDWARE_FAILING] = "failing",
        [HARDWARE_STOPPED] = "stopped",
};

const char *hardware_state_to_string(HardwareState s)
{
        return (unsigned) s < ELEMENTSOF(hardware_state_table) ? hardware_state_table[s] : "ok";
}

HardwareState poller_hardware_state(const Poller *p)
{
        return p->hardware_state;
}

const char *poller_last_error(const Poller *p)
{
        return p->last_error;
}

void poller_set_hook(Poller *p, const PollHook *hook, void *userdata)
{
        p->hook = hook;
        p->hook_userdata = hook ? userdata : NULL;
}

static uint64_t poll_period_usec(const Poller *p)
{
        return USEC_PER_SEC / (p->poll_rate ?: p->full_rate);
}

void poller_init(Poller *p, Context *c)
{
        *p = (Poller) {.context = c, .full_rate = HDAPS_DEFAULT_SAMPLING_RATE};
}

void poller_done(Poller *p)
{
        poller_stop(p);
        p->poll_rate_reason = mfree(p->poll_rate_reason);
        p->last_error = mfree(p->last_error);
        p->claimer = mfree(p->claimer);
}

void poller_stop(Poller *p)
{
        p->poll_timer = sd_event_source_disable_unref(p->poll_timer);
        p->keep_stream = sd_event_source_disable_unref(p->keep_stream);
        p->reinit_timer = sd_event_source_disable_unref(p->reinit_timer);
}

static void set_hardware_state(Poller *p, HardwareState state)
{
        if (p->hardware_state == state)
                return;
        p->hardware_state = state;
        context_changed(p->context, CHANGE_MASK(CHANGE_HARDWARE_STATE));
}

static void set_last_error(Poller *p, const char *what, int r)
{
        char *e = strprintf("%s: %s", what, strerror(-r));
        if (!e)
                return;
        free(p->last_error);
        p->last_error = e;
        context_changed(p->context, CHANGE_MASK(CHANGE_LAST_ERROR));
}

static int on_reinit_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void arm_reinit(Poller *p)
{
        int r;

        if (!p->reinit_timer) {
                r = sd_event_add_time_relative(p->context->event, &p->reinit_timer, CLOCK_MONOTONIC,
                                               p->reinit_delay_usec, 0, on_reinit_timer, p);
                if (r < 0) {
                        log_error_errno(r, "Failed to start the re-initialization timer: %m");
                        return;
                }
                (void) sd_event_source_set_description(p->reinit_timer, "reinit");
                return;
        }
        (void) sd_event_source_set_time_relative(p->reinit_timer, p->reinit_delay_usec);
        (void) sd_event_source_set_enabled(p->reinit_timer, SD_EVENT_ONESHOT);
}

void poller_hardware_reinitialized(Poller *p)
{
        if (p->hardware_state == HARDWARE_STOPPED)
                log_info("The accelerometer works again after re-initialization; polling resumes");
        p->reinit_timer = sd_event_source_disable_unref(p->reinit_timer);
        p->hard_errors = 0;
        set_hardware_state(p, HARDWARE_OK);
        poller_update(p);
}

static int on_reinit_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Poller *p = userdata;
        int r;

        if (p->context->suspend.active || p->hardware_state != HARDWARE_STOPPED) {
                /* Asleep: resume re-initializes. Try again later anyway, in case resume failed. */
                if (p->hardware_state == HARDWARE_STOPPED)
                        arm_reinit(p);
                return 0;
        }
        r = context_init_device(p->context);
        if (r >= 0) {
                poller_hardware_reinitialized(p);
                return 0;
        }
        set_last_error(p, "re-initializing the accelerometer failed", r);
        p->reinit_delay_usec = MIN(p->reinit_delay_usec * 2, (uint64_t) REINIT_DELAY_MAX_USEC);
        log_debug_errno(r, "Re-initializing the accelerometer failed, next try in %llu s: %m",
                        (unsigned long long) (p->reinit_delay_usec / USEC_PER_SEC));
        arm_reinit(p);
        return 0;
}

/* A hard error of a poll tick: counted; after POLL_HARD_ERRORS_MAX in a row polling stops (logged
 * once) and the device is re-initialized with a back-off. */
static void poll_hard_error(Poller *p, int r)
{
        p->hard_errors++;
        set_last_error(p, "reading the accelerometer failed", r);
        if (p->hardware_state == HARDWARE_OK) {
                log_warning_errno(r, "Reading the accelerometer failed: %m; polling goes on");
                set_hardware_state(p, HARDWARE_FAILING);
        }
        if (p->hard_errors < POLL_HARD_ERRORS_MAX)
                return;

        log_error_errno(r,
                        "Reading the accelerometer failed %u times in a row (%m): polling stopped; "
                        "re-initializing in %d s, then with a back-off up to %d s",
                        p->hard_errors, (int) (REINIT_DELAY_MIN_USEC / USEC_PER_SEC),
                        (int) (REINIT_DELAY_MAX_USEC / USEC_PER_SEC));
        set_hardware_state(p, HARDWARE_STOPPED);
        p->reinit_delay_usec = REINIT_DELAY_MIN_USEC;
        arm_reinit(p);
        /* on_poll_timer() stops the timer (poller_wanted() is false while stopped). */
}

/* Ticks without a new readout lower the effective rate: counted, and logged at most once per
 * BUSY_LOG_INTERVAL_USEC when they were a noticeable share of the ticks. */
static void count_tick(Poller *p, bool busy, uint64_t now)
{
        if (p->busy_window_start_usec == 0)
                p->busy_window_start_usec = now;
        p->busy_window_ticks++;
        if (busy) {
                p->busy_ticks++;
                p->busy_window_busy++;
        }
        if (now - p->busy_window_start_usec < BUSY_LOG_INTERVAL_USEC)
                return;
        if (p->busy_window_busy * 100 >= p->busy_window_ticks * BUSY_LOG_MIN_PERCENT)
                log_warning("The EC was busy or had no new readout in %llu of %llu poll ticks over the last "
                            "%llu s (%llu since start): the effective rate is %.1f Hz, not %u Hz",
                            (unsigned long long) p->busy_window_busy,
                            (unsigned long long) p->busy_window_ticks,
                            (unsigned long long) ((now - p->busy_window_start_usec) / USEC_PER_SEC),
                            (unsigned long long) p->busy_ticks,
                            (double) (p->busy_window_ticks - p->busy_window_busy) * USEC_PER_SEC /
                                    (double) (now - p->busy_window_start_usec),
                            p->poll_rate);
        p->busy_window_start_usec = now;
        p->busy_window_ticks = p->busy_window_busy = 0;
}

static void poll_once(Poller *p)
{
        Context *c = p->context;
        HdapsReadout ro;
        int r;

        if (p->hook && p->hook->before)
                p->hook->before(p->hook_userdata);
        r = backend_poll(c->backend, &ro);
        count_tick(p, r == -EBUSY, now_usec());
        if (p->hook && p->hook->after)
                p->hook->after(r, &ro, p->hook_userdata);
        if (r == -EBUSY)
                return; /* no new readout this tick: keep the cached values */
        if (r < 0) {
                poll_hard_error(p, r);
                return;
        }
        if (p->hardware_state == HARDWARE_FAILING)
                log_info("Reading the accelerometer works again after %u failures", p->hard_errors);
        p->hard_errors = 0;
        set_hardware_state(p, HARDWARE_OK);

        readout_process(c, &ro);
}

static int on_poll_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Poller *p = userdata;
        Context *c = p->context;
        uint64_t period = poll_period_usec(p), ran = now_usec();

        poll_once(p);
        context_follow_backend_note(c); /* a tick may have retried a pending configuration */
        if (p->hardware_state == HARDWARE_STOPPED) {
                poller_update(p); /* drops this timer; sd-event keeps it alive until we return */
                return 0;
        }
        if (c->observer && c->observer->tick)
                c->observer->tick(c, c->observer_userdata); /* may stop polling: then s is gone */
        if (!p->poll_timer)
                return 0;

        (void) sd_event_source_set_time(s, poll_schedule_next(usec, ran, period));
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

/* After every event loop iteration while polling: a D-Bus call, the diagnosis or a configuration change
 * may have ended the next tick's prefetch; the backend makes it again once, after the whole burst. */
static int on_keep_stream(sd_event_source *s, void *userdata)
{
        Poller *p = userdata;

        if (p->context->backend && p->poll_timer)
                backend_keep_stream(p->context->backend);
        return 0;
}

/* The device is there and working: polling could run, and the backend's rate can be set. */
static bool device_usable(const Poller *p)
{
        const Context *c = p->context;
        return c->has_accelerometer && !c->suspend.active && p->hardware_state != HARDWARE_STOPPED;
}

static bool poller_wanted(const Poller *p)
{
        return device_usable(p) && p->demand != 0;
}

/* The rate polling needs now and why (a new string); 0 when nothing polls. */
static unsigned wanted_rate(const Poller *p, char **ret_reason, const char **ret_code)
{
        const Context *c = p->context;
        unsigned full = p->full_rate, rate = 0, claimed;
        const char *claimer = NULL;

        if (!poller_wanted(p)) {
                if (!c->has_accelerometer) {
                        *ret_reason = strdup("not polling: there is no accelerometer");
                        *ret_code = "no-accelerometer";
                } else if (c->suspend.active) {
                        *ret_reason = strdup("not polling: suspended");
                        *ret_code = "suspended";
                } else if (p->hardware_state == HARDWARE_STOPPED) {
                        *ret_reason = strdup("not polling: the hardware failed (HardwareState stopped)");
                        *ret_code = "hardware-stopped";
                } else {
                        *ret_reason = strdup("not polling: nothing claims the accelerometer");
                        *ret_code = "unclaimed";
                }
                return 0;
        }
        if (p->demand & DEMAND_PROTECTION) {
                *ret_reason = strprintf("disk protection is armed (the full SamplingRate, %u Hz)", full);
                *ret_code = "disk-protection";
                return full;
        }
        if (p->demand & DEMAND_DIAGNOSIS) {
                *ret_reason = strprintf("a diagnosis is running (the full SamplingRate, %u Hz)", full);
                *ret_code = "diagnosis";
                return full;
        }
        if (p->demand & DEMAND_INPUT_DEVICES) {
                *ret_reason =
                        strprintf("the input devices are enabled (the full SamplingRate, %u Hz)", full);
                *ret_code = "input-devices";
                return full;
        }
        claimed = p->demand & DEMAND_CLAIM ? MIN(p->claim_rate, full) : 0;
        claimer = p->claimer;
        if ((p->demand & DEMAND_SENSOR_PROXY) && MIN((unsigned) SENSOR_PROXY_RATE_HZ, full) > claimed) {
                rate = MIN((unsigned) SENSOR_PROXY_RATE_HZ, full);
                *ret_reason = strprintf("a net.hadess.SensorProxy claim (screen rotation, %u Hz)", rate);
                *ret_code = "screen-rotation";
                return rate;
        }
        if ((c->poller.demand & DEMAND_MOVEMENT) && MIN((unsigned) MOVEMENT_RATE_HZ, full) > claimed) {
                rate = MIN((unsigned) MOVEMENT_RATE_HZ, full);
                *ret_reason = strprintf("a movement claim (movement detection, %u Hz)", rate);
                *ret_code = "movement";
                return rate;
        }
        *ret_reason = strprintf("a claim by %s at %u Hz%s", strna(claimer), claimed,
                                claimed == full ? " (the full SamplingRate)" : "");
        *ret_code = claimed == full ? "claim-full-rate" : "claim";
        return claimed;
}

/* The rate the backend is to run: the polling rate, or when nobody polls the configured one (SamplingRate
 * x ratio: what on-demand readers and the EC's own configuration, 0x17/0x82, then show). */
static unsigned backend_rate_for(const Poller *p, unsigned polling_rate)
{
        return polling_rate ?: p->full_rate;
}

/* Sets the backend's sampling rate to rate, unless it runs that one already (the backend's own
 * configuration says which it runs). The EC's config change drops the prefetched readout; the next tick
 * then does the bounded full read, so no readout is lost. Returns 0 or the backend's negative errno. */
static int set_backend_rate(Poller *p, unsigned rate)
{
        Backend *b = p->context->backend;
        int r;

        if (backend_get_config(b)->sampling_rate == rate)
                return 0;
        r = backend_set_sampling_rate(b, rate);
        if (r < 0)
                return r;
        log_debug("The accelerometer samples at %u Hz now", rate);
        return 0;
}

/* Brings the rate in force (EffectiveRate) to what polling needs: the backend's rate and the timer. */
static void apply_rate(Poller *p)
{
        Context *c = p->context;
        _cleanup_free_ char *reason = NULL;
        const char *code = NULL;
        unsigned rate = wanted_rate(p, &reason, &code);
        bool changed = rate != p->poll_rate;
        int r;

        if (device_usable(p)) {
                r = set_backend_rate(p, backend_rate_for(p, rate));
                /* Kernel drivers without a rate attribute poll at their own rate: reading slower is fine. */
                if (r < 0 && r != -EOPNOTSUPP)
                        log_warning_errno(r,
                                          "Setting the accelerometer's sampling rate to %u Hz failed, "
                                          "polling at %u Hz anyway: %m",
                                          backend_rate_for(p, rate), rate);
        }
        if (changed) {
                log_debug("Polling rate %u Hz: %s", rate, strna(reason));
                if ((p->demand & DEMAND_PROTECTION) && rate > 0 && rate < MOTION_SHOCK_MIN_RATE_HZ)
                        log_warning("Disk protection is armed, but polling runs at %u Hz, below the %u Hz "
                                    "shock detection needs (ShockMinRate): no shock will park the heads; "
                                    "set SamplingRate to %u or more",
                                    rate, MOTION_SHOCK_MIN_RATE_HZ, MOTION_SHOCK_MIN_RATE_HZ);
                p->poll_rate = rate;
                if (p->poll_timer && rate > 0) {
                        uint64_t period = poll_period_usec(p);
                        (void) sd_event_source_set_time_accuracy(p->poll_timer,
                                                                 MAX(period / POLL_ACCURACY_DIVISOR, 1u));
                        (void) sd_event_source_set_time_relative(p->poll_timer, period);
                        (void) sd_event_source_set_enabled(p->poll_timer, SD_EVENT_ONESHOT);
                }
                context_changed(c, CHANGE_MASK(CHANGE_EFFECTIVE_RATE));
        }
        if (reason && (!p->poll_rate_reason || !streq(reason, p->poll_rate_reason))) {
                free(p->poll_rate_reason);
                p->poll_rate_reason = TAKE_PTR(reason);
                p->poll_rate_reason_code = code;
                context_changed(c, CHANGE_MASK(CHANGE_EFFECTIVE_RATE_REASON));
        }
}

void poller_set_demand(Poller *p, unsigned d, bool on)
{
        unsigned demand = on ? p->demand | d : p->demand & ~d;

        if (demand == p->demand)
                return;
        p->demand = demand;
        poller_update(p);
}

void poller_set_claim(Poller *p, unsigned rate, const char *claimer)
{
        if (rate > 0 && claimer && (!p->claimer || !streq(p->claimer, claimer))) {
                char *copy = strdup(claimer);
                if (copy) {
                        free(p->claimer);
                        p->claimer = copy;
                }
        } else if (rate == 0)
                p->claimer = mfree(p->claimer);
        p->claim_rate = rate;
        p->demand = rate > 0 ? p->demand | DEMAND_CLAIM : p->demand & ~DEMAND_CLAIM;
        poller_update(p);
}

void poller_update(Poller *p)
{
        Context *c = p->context;
        bool want = poller_wanted(p);
        int r;

        apply_rate(p);
        if (want && !p->poll_timer) {
                uint64_t period = poll_period_usec(p);
                r = sd_event_add_time_relative(c->event, &p->poll_timer, CLOCK_MONOTONIC, period,
                                               MAX(period / POLL_ACCURACY_DIVISOR, 1u), on_poll_timer, p);
                if (r < 0) {
                        log_error_errno(r, "Failed to start the polling timer: %m");
                        want = false;
                } else {
                        (void) sd_event_source_set_description(p->poll_timer, "poll");
                        r = sd_event_add_post(c->event, &p->keep_stream, on_keep_stream, p);
                        if (r < 0) /* only costs a readout after a configuration change */
                                log_debug_errno(r, "Failed to add the keep-stream source: %m");
                        else
                                (void) sd_event_source_set_description(p->keep_stream, "keep-stream");
                        if (c->motion)
                                motion_reset(c->motion);
                        backend_set_streaming(c->backend, true);
                        log_debug("Polling started at %u Hz", p->poll_rate);
                }
        } else if (!want && p->poll_timer) {
                p->poll_timer = sd_event_source_disable_unref(p->poll_timer);
                p->keep_stream = sd_event_source_disable_unref(p->keep_stream);
                if (c->backend)
                        backend_set_streaming(c->backend, false);
                log_debug("Polling stopped");
        }

        if (want != p->polling) {
                p->polling = want;
                context_changed(c, CHANGE_MASK(CHANGE_POLLING));
        }
}

int poller_set_full_rate(Poller *p, unsigned rate)
{
        _cleanup_free_ char *reason = NULL;
        const char *code = NULL;
        unsigned old = p->full_rate;
        int r;

        p->full_rate = rate;
        if (!device_usable(p))
                return 0;
        r = set_backend_rate(p, backend_rate_for(p, wanted_rate(p, &reason, &code)));
        if (r < 0)
                p->full_rate = old;
        return r;
}
