/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The in-process rig of the daemon core (see rig.h). */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "rig.h"
#include "strv.h"

/* The virtual clock: starts at the real CLOCK_MONOTONIC of the first reading, then only
 * rig_advance_ms() moves it. */
static uint64_t virtual_ns;

static uint64_t real_monotonic_ns(void)
{
        struct timespec ts;
        (void) syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

/* Interposes libc's clock_gettime() for the whole process (the core's now_usec(), libsystemd's
 * sd-event); the other clocks are the kernel's. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
        switch (id) {
        case CLOCK_MONOTONIC:
        case CLOCK_MONOTONIC_COARSE:
        case CLOCK_MONOTONIC_RAW:
        case CLOCK_BOOTTIME:
                if (virtual_ns == 0)
                        virtual_ns = real_monotonic_ns();
                ts->tv_sec = (time_t) (virtual_ns / NSEC_PER_SEC);
                ts->tv_nsec = (long) (virtual_ns % NSEC_PER_SEC);
                return 0;
        default:
                return (int) syscall(SYS_clock_gettime, id, ts);
        }
}

/* The timerfds of the rig's event loop and when each is armed for (virtual ns, 0: disarmed): the timerfd
 * of a clock is armed for its earliest timer (every timer is exact here, see below), which is where
 * rig_advance_ms() jumps to. Interposed like clock_gettime(): libsystemd calls libc's. */
#define RIG_TIMERFDS_MAX 8
static struct {
        int fd;
        clockid_t clock;
        uint64_t armed_ns;
} timerfds[RIG_TIMERFDS_MAX];
static size_t n_timerfds;

static bool virtual_clock(clockid_t id)
{
        return id == CLOCK_MONOTONIC || id == CLOCK_BOOTTIME;
}

int timerfd_create(int clockid, int flags)
{
        int fd = (int) syscall(SYS_timerfd_create, clockid, flags);
        size_t i;

        if (fd < 0)
                return fd;
        for (i = 0; i < n_timerfds && timerfds[i].fd != fd; i++)
                ;
        if (i == RIG_TIMERFDS_MAX) {
                fprintf(stderr, "rig: more than %d timerfds\n", RIG_TIMERFDS_MAX);
                abort();
        }
        if (i == n_timerfds)
                n_timerfds++;
        timerfds[i].fd = fd;
        timerfds[i].clock = clockid;
        timerfds[i].armed_ns = 0;
        return fd;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *new_value, struct itimerspec *old_value)
{
        uint64_t ns = (uint64_t) new_value->it_value.tv_sec * NSEC_PER_SEC +
                      (uint64_t) new_value->it_value.tv_nsec;

        for (size_t i = 0; i < n_timerfds; i++)
                if (timerfds[i].fd == fd) {
                        if (ns > 0 && !virtual_clock(timerfds[i].clock)) {
                                fprintf(stderr,
                                        "rig: a timer on clock %d, which virtual time does not move\n",
                                        (int) timerfds[i].clock);
                                abort();
                        }
                        timerfds[i].armed_ns = ns == 0 || (flags & TFD_TIMER_ABSTIME) ? ns : virtual_ns + ns;
                }
        return (int) syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
}

/* The earliest armed timerfd (UINT64_MAX: none). */
static uint64_t next_timer_ns(void)
{
        uint64_t next = UINT64_MAX;
        for (size_t i = 0; i < n_timerfds; i++)
                if (timerfds[i].armed_ns > 0)
                        next = MIN(next, timerfds[i].armed_ns);
        return next;
}

/* Every timer of the core exact: sd-event then arms the timerfd for the earliest timer, not for a
 * coalesced time up to its accuracy later (the test executables link with --wrap for these, see
 * tests/daemon/meson.build). When a timer fires is unchanged: sd-event dispatches each once the clock
 * passed its time, whatever its accuracy. */
int __real_sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec,
                             uint64_t accuracy, sd_event_time_handler_t callback, void *userdata);
int __wrap_sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec,
                             uint64_t accuracy, sd_event_time_handler_t callback, void *userdata);
int __real_sd_event_add_time_relative(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec,
                                      uint64_t accuracy, sd_event_time_handler_t callback, void *userdata);
int __wrap_sd_event_add_time_relative(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec,
                                      uint64_t accuracy, sd_event_time_handler_t callback, void *userdata);
int __real_sd_event_source_set_time_accuracy(sd_event_source *s, uint64_t usec);
int __wrap_sd_event_source_set_time_accuracy(sd_event_source *s, uint64_t usec);

int __wrap_sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec,
                             uint64_t accuracy, sd_event_time_handler_t callback, void *userdata)
{
        return __real_sd_event_add_time(e, s, clock, usec, 1, callback, userdata);
}

int __wrap_sd_event_add_time_relative(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec,
                                      uint64_t accuracy, sd_event_time_handler_t callback, void *userdata)
{
        return __real_sd_event_add_time_relative(e, s, clock, usec, 1, callback, userdata);
}

int __wrap_sd_event_source_set_time_accuracy(sd_event_source *s, uint64_t usec)
{
        return __real_sd_event_source_set_time_accuracy(s, 1);
}

uint64_t rig_now_usec(void)
{
        return now_usec();
}

static RigEvent *record(Rig *r, RigEventKind kind)
{
        if (r->n_events == r->allocated) {
                size_t n = r->allocated ? r->allocated * 2 : 256;
                RigEvent *e = reallocarray(r->events, n, sizeof(RigEvent));
                if (!e)
                        abort();
                r->events = e;
                r->allocated = n;
        }
        RigEvent *e = &r->events[r->n_events++];
        *e = (RigEvent) {
                .kind = kind,
                .usec = now_usec(),
                .hardware_state = r->c->poller.hardware_state,
                .polling = r->c->poller.polling,
                .poll_rate = r->c->poller.poll_rate,
                .protection_state = protection_state(r->c),
                .readouts = r->readouts,
        };
        if (r->c->motion) {
                e->orientation = motion_get_state(r->c->motion)->orientation;
                e->shock_active = motion_get_state(r->c->motion)->shock_active;
        }
        return e;
}

static void on_changed(Context *c, ChangeMask mask, void *userdata)
{
        Rig *r = userdata;
        assert(mask != 0); /* the observer's contract */
        record(r, RIG_CHANGED)->mask = mask;
}

static void on_readout(Context *c, const ReadoutEvent *e, void *userdata)
{
        Rig *r = userdata;
        r->readouts++;
        if (e->readout->readouts > 0)
                r->new_readouts++;
}

static void on_motion(Context *c, const MotionEvents *ev, void *userdata)
{
        record(userdata, RIG_MOTION)->motion = *ev;
}

static void on_heads_parked(Context *c, char *const *disks, bool parked, void *userdata)
{
        record(userdata, RIG_HEADS_PARKED)->parked = parked;
}

static void on_tick(Context *c, void *userdata)
{
        Rig *r = userdata;
        r->ticks++;
}

static void on_shutdown(Context *c, void *userdata)
{
        record(userdata, RIG_SHUTDOWN);
}

static const ContextObserver recorder = {
        .changed = on_changed,
        .readout = on_readout,
        .motion = on_motion,
        .heads_parked = on_heads_parked,
        .tick = on_tick,
        .shutdown = on_shutdown,
};

static void write_file(const char *path, const char *text)
{
        char dir[512];

        snprintf(dir, sizeof(dir), "%s", path);
        for (char *p = dir + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void) mkdir(dir, 0755);
                        *p = '/';
                }
        FILE *f = fopen(path, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
                fprintf(stderr, "rig: cannot write %s: %m\n", path);
                abort();
        }
}

static PortIO *open_sim(const char *trace)
{
        _cleanup_free_ char *path = NULL, *error = NULL;
        SimOptions so = {.virtual_time = true, .seed = 7};
        PortIO *port;

        if (trace && trace[0] == '/')
                so.trace_path = trace;
        else if (trace) {
                const char *top = getenv("TOP_SRCDIR");
                if (asprintf(&path, "%s/tests/traces/%s", top ?: ".", trace) < 0)
                        abort();
                so.trace_path = path;
        }
        if (port_open_sim(&so, &port, &error) < 0) {
                fprintf(stderr, "rig: the emulator does not start: %s\n", strna(error));
                abort();
        }
        return port;
}

Backend *rig_open_sim_backend(Rig *r, const char *trace)
{
        PortIO *port = open_sim(trace), *wrapped;
        Backend *b;

        if (!r->capture && port_log_new_capture(&r->capture) < 0)
                abort();
        if (port_log_wrap(port, r->capture, &wrapped) < 0 || backend_ec_new(wrapped, "simulated", 0, &b) < 0)
                abort();
        r->port = port;
        return b;
}

void rig_capture_start(Rig *r)
{
        if (!r->capture || port_log_capture_start(r->capture) < 0)
                abort();
}

char *rig_capture_stop(Rig *r)
{
        _cleanup_free_ char *csv = NULL;
        char *out, *o;

        if (!r->capture || port_log_capture_stop(r->capture, &csv) < 0)
                abort();
        out = o = malloc(strlen(csv) + 1);
        if (!out)
                abort();
        /* Each line without its first field (the time: the accesses and their values are what counts). */
        for (const char *line = csv; *line;) {
                const char *end = strchrnul(line, '\n'), *comma = memchr(line, ',', (size_t) (end - line));
                const char *from = comma ? comma + 1 : line;
                memcpy(o, from, (size_t) (end - from));
                o += end - from;
                if (*end == '\n')
                        *o++ = '\n';
                line = *end ? end + 1 : end;
        }
        *o = '\0';
        return out;
}

Rig *rig_new(const RigOptions *o)
{
        Rig *r = calloc(1, sizeof(Rig));
        Backend *b = NULL;
        int k;

        if (!r)
                abort();
        snprintf(r->dir, sizeof(r->dir), "/tmp/tpaccel-test-daemon-XXXXXX");
        if (!mkdtemp(r->dir))
                abort();
        snprintf(r->state_dir, sizeof(r->state_dir), "%s/state", r->dir);
        snprintf(r->sysfs_root, sizeof(r->sysfs_root), "%s/sysfs", r->dir);
        if (mkdir(r->state_dir, 0700) < 0 || mkdir(r->sysfs_root, 0755) < 0)
                abort();
        if (o->disks) {
                char p[256];
                snprintf(p, sizeof(p), "%s/block/sda/queue/rotational", r->sysfs_root);
                write_file(p, "1\n");
                snprintf(p, sizeof(p), "%s/block/sda/removable", r->sysfs_root);
                write_file(p, "0\n");
                snprintf(p, sizeof(p), "%s/block/sda/device/unload_heads", r->sysfs_root);
                write_file(p, "0\n");
        }
        if (o->state)
                rig_write_state(r, o->state);

        const char *trace = o->trace;
        char trace_path[128];
        if (o->trace_text) {
                snprintf(trace_path, sizeof(trace_path), "%s/%s", r->dir, RIG_TRACE_FILE);
                write_file(trace_path, o->trace_text);
                trace = trace_path;
        }

        r->step_every_ms = o->step_every_ms;
        n_timerfds = 0; /* the previous rig's event loop is gone */
        r->t0_usec = now_usec();
        if (!o->no_accelerometer)
                b = rig_open_sim_backend(r, trace);
        if (b && o->pending_at_start)
                rig_sim_fault(r, SIM_FAULT_PENDING, true);
        if (b && o->warm_up_at_start)
                rig_sim_fault(r, SIM_FAULT_WARM_UP, true);
        r->backend_options = (BackendOptions) {.kind = BACKEND_KERNEL, .sysroot = r->dir};
        ContextOptions co = {
                .state_dir = r->state_dir,
                .sysfs_root = r->sysfs_root,
                .sysroot = r->dir,
                .backend_options = o->kernel_watch ? &r->backend_options : NULL,
                .exit_idle_sec = o->exit_idle_sec,
        };
        k = context_new(&co, b, b ? "the EC emulator was asked for" : "no accelerometer here", &r->c);
        if (k < 0)
                abort();
        context_set_observer(r->c, &recorder, r);
        if (context_start(r->c, &co) < 0)
                abort();

        /* The interposed clock is what sd-event sees: otherwise no timer would fire in virtual time. */
        uint64_t t0 = now_usec(), ev;
        rig_advance_ms(r, 1);
        if (sd_event_now(r->c->event, CLOCK_MONOTONIC, &ev) < 0 || ev != t0 + USEC_PER_MSEC ||
            now_usec() != t0 + USEC_PER_MSEC) {
                fprintf(stderr, "rig: sd-event does not run on the virtual clock\n");
                abort();
        }
        return r;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

void rig_free(Rig *r)
{
        if (!r)
                return;
        if (r->port) {
                EcSimStatus st = rig_sim_status(r);
                if (st.protocol_violations > 0) {
                        /* The daemon core never makes the EC leave the 2006 patch series' protocol. */
                        fprintf(stderr, "rig: %llu protocol violations, the last: %s\n",
                                (unsigned long long) st.protocol_violations, st.last_violation);
                        abort();
                }
        }
        context_free(r->c);
        port_log_free(r->capture); /* after the backends that wrapped their ports with it */
        (void) nftw(r->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        free(r->events);
        free(r);
}

/* Dispatches everything due now; returns whether anything was. */
static bool run_due(Rig *r)
{
        sd_event *e = r->c->event;
        bool any = false;

        for (;;) {
                if (sd_event_get_state(e) == SD_EVENT_FINISHED) {
                        r->exited = true;
                        return any;
                }
                if (sd_event_run(e, 0) <= 0)
                        return any;
                any = true;
        }
}

/* Moves virtual time to the next millisecond step at which a timer is due, at most to end_ns, and
 * dispatches what is due then. Stepping every millisecond would fire the same timers at the same steps,
 * and nothing changes between them: after run_due() found nothing to do, the state only changes when a
 * timer comes due (every event source of the core is a timer or something the test does between calls). */
static void advance_one(Rig *r, uint64_t end_ns)
{
        uint64_t step = NSEC_PER_MSEC, next;

        if (!run_due(r) && !r->step_every_ms) {
                next = next_timer_ns();
                if (next > virtual_ns && next != UINT64_MAX)
                        step = (next - virtual_ns + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC * NSEC_PER_MSEC;
                else if (next == UINT64_MAX)
                        step = end_ns - virtual_ns;
        }
        step = MIN(step, end_ns - virtual_ns);
        virtual_ns += step;
        if (r->port && r->c->backend)
                ec_sim_advance_ns(r->port, step);
        run_due(r);
}

void rig_advance_ms(Rig *r, uint64_t ms)
{
        uint64_t end = virtual_ns + ms * NSEC_PER_MSEC;

        run_due(r);
        while (virtual_ns < end && !r->exited)
                advance_one(r, end);
}

long rig_advance_until(Rig *r, bool (*cond)(Rig *r), uint64_t max_ms)
{
        uint64_t start = virtual_ns, end = start + max_ms * NSEC_PER_MSEC;

        for (;;) {
                if (cond(r))
                        return (long) ((virtual_ns - start) / NSEC_PER_MSEC);
                if (r->exited || virtual_ns >= end)
                        return -1;
                advance_one(r, end);
        }
}

void rig_forget(Rig *r)
{
        r->n_events = 0;
        r->ticks = r->readouts = r->new_readouts = 0;
}

ChangeMask rig_changed(const Rig *r)
{
        ChangeMask m = 0;
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_CHANGED)
                        m |= r->events[i].mask;
        return m;
}

const RigEvent *rig_change_nth(const Rig *r, ChangeBit b, size_t n)
{
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_CHANGED && (r->events[i].mask & CHANGE_MASK(b)) && n-- == 0)
                        return &r->events[i];
        return NULL;
}

size_t rig_change_count(const Rig *r, ChangeBit b)
{
        size_t n = 0;
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_CHANGED && (r->events[i].mask & CHANGE_MASK(b)))
                        n++;
        return n;
}

const RigEvent *rig_motion_nth(const Rig *r, unsigned kind, size_t n)
{
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_MOTION && (r->events[i].motion.mask & kind) && n-- == 0)
                        return &r->events[i];
        return NULL;
}

size_t rig_motion_count(const Rig *r, unsigned kind)
{
        size_t n = 0;
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_MOTION && (r->events[i].motion.mask & kind))
                        n++;
        return n;
}

size_t rig_heads_parked_count(const Rig *r, bool parked)
{
        size_t n = 0;
        for (size_t i = 0; i < r->n_events; i++)
                if (r->events[i].kind == RIG_HEADS_PARKED && r->events[i].parked == parked)
                        n++;
        return n;
}

void rig_claim(Rig *r, unsigned rate, const char *claimer)
{
        poller_set_claim(&r->c->poller, rate, claimer);
        run_due(r);
}

int rig_protect(Rig *r, char *const *disks)
{
        StateConfig next = {};
        int k;

        if (state_config_copy(&next, &r->c->config) < 0)
                abort();
        strv_free(next.protected_disks);
        next.protected_disks = NULL;
        if (disks && !(next.protected_disks = strv_copy(disks)))
                abort();
        k = context_apply_config(r->c, &next, CONFIG_APPLY_CHANGE, NULL, NULL);
        run_due(r);
        return k;
}

void rig_write_state(Rig *r, const char *text)
{
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", r->state_dir, STATE_FILE_NAME);
        write_file(p, text);
}

const char *rig_unload_heads(Rig *r, char buf[static 32])
{
        char p[256];
        snprintf(p, sizeof(p), "%s/block/sda/device/unload_heads", r->sysfs_root);
        FILE *f = fopen(p, "re");
        buf[0] = '\0';
        if (f) {
                if (!fgets(buf, 32, f))
                        buf[0] = '\0';
                fclose(f);
        }
        buf[strcspn(buf, "\n")] = '\0';
        return buf;
}

void rig_switch_backend(Rig *r, Backend *b, const char *reason)
{
        if (!b)
                r->port = NULL; /* goes away with the old backend */
        char *copy = strdup(reason);
        if (!copy)
                abort();
        context_switch_backend(r->c, b, copy);
        run_due(r);
}

void rig_kernel_driver(Rig *r, KernelDriverFlavour flavour)
{
        /* Both flavours' attributes; tp_smapi has no variance and temp2, mainline no rate, ratio, order. */
        static const struct {
                const char *name, *text;
                bool mainline, tp_smapi;
        } attrs[] = {
                {"position", "(-498,-439)\n", true, true},
                {"variance", "(0,0)\n", true, false},
                {"temp1", "34\n", true, true},
                {"temp2", "35\n", true, false},
                {"keyboard_activity", "0\n", true, true},
                {"mouse_activity", "0\n", true, true},
                {"calibrate", "(-498,-439)\n", true, true},
                {"invert", "0\n", true, true},
                {"sampling_rate", "50\n", false, true},
                {"oversampling_ratio", "5\n", false, true},
                {"running_avg_filter_order", "2\n", false, true},
        };
        char p[512];

        for (size_t i = 0; i < ELEMENTSOF(attrs); i++) {
                bool want = (flavour == KERNEL_DRIVER_MAINLINE && attrs[i].mainline) ||
                            (flavour == KERNEL_DRIVER_TP_SMAPI && attrs[i].tp_smapi);
                snprintf(p, sizeof(p), "%s/sys/devices/platform/hdaps/%s", r->dir, attrs[i].name);
                if (want)
                        write_file(p, attrs[i].text);
                else
                        (void) unlink(p);
        }
}

EcSimStatus rig_sim_status(Rig *r)
{
        EcSimStatus st = {};
        if (r->port)
                ec_sim_get_status(r->port, &st);
        return st;
}

void rig_sim_fault(Rig *r, SimFaultKind kind, bool on)
{
        SimFault f = {.kind = kind, .probability = 1.0};
        ec_sim_set_faults(r->port, on ? &f : NULL, on ? 1 : 0);
}
