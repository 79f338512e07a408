/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reference driver as the emulator's oracle: tp_smapi 0.43's thinkpad_ec.c and hdaps.c,
 * unmodified, compiled at test time into a shared object against tpaccel's kernel shim (shim/kshim.h),
 * are driven here through module init, polling ticks, a sysfs read and module exit, on one emulator;
 * tpaccel's own transport and device layer (service/ec, service/hdaps) do the same on a second
 * emulator with the same options and seed, at the same virtual times. Both go through the port log.
 *
 * Checked per scenario (the default motion, each fault kind, the negative control):
 *   - strict mode: 0 protocol violations on either emulator (the control: exactly the one injected);
 *   - readouts: x, y and temperature equal on every tick where both got a readout;
 *   - the self-test, init and exit: access for access equal (port, value, time in us, so the delays
 *     too), except where a scenario names the reference's lines that explain the difference.
 * Prints one table row per scenario. Exit status 0 only if every scenario passed.
 *
 * Every difference tolerated, with the reference lines (tp_smapi 0.43) that explain it:
 *   - Tick outcomes (which ticks bring a readout) are shown, not compared, except the first two after
 *     init: both read the reply prefetched at init (hdaps.c hdaps_device_init(): "Just prefetch instead
 *     of reading" / `ret = thinkpad_ec_prefetch_row(&ec_accel_args);`; tpaccel's
 *     hdaps_start_polling() keeps it), which holds what the EC queued since its boot (BOOT_NS), so
 *     tpaccel must have a readout on each where the reference has one. Otherwise:
 *     . after a hard error the reference stops its timer (hdaps.c hdaps_mousedev_poll(): `printk(KERN_ERR
 *       "hdaps: poll failed, disabling updates
"); return;`): ticks marked x; tpacceld backs off instead;
 *     . after a prefetch told busy (SWMF still showing) the reference has nothing to read next tick
 *       (thinkpad_ec.c thinkpad_ec_prefetch_row(): `prefetch_jiffies = TPC_PREFETCH_JUNK;`, then
 *       thinkpad_ec_try_read_row(): `ret = -ENODATA;`), tpaccel reads synchronously (hdaps_poll()).
 *   - Readouts of different ages are not compared (the "aged" column; see the tick loop).
 *   - Accesses per tick: the reference never reads the older readout (hdaps.c __hdaps_update():
 *     `data.mask = (1 << EC_ACCEL_IDX_READOUTS) | (1 << EC_ACCEL_IDX_KMACT) | ... TEMP1 ... RETVAL`),
 *     tpaccel reads it when READOUTS says 2; with READOUTS 1 (scenario ratio-1) they must be equal.
 *   - Init with a configuration kept pending: compared up to the first 0x10 (InitCompare).
 *   - Exit is compared only when both inits worked: after a failed probe the reference still runs its
 *     shutdown at unload (hdaps.c hdaps_exit(): `hdaps_device_shutdown(); /+ ignore errors ... +/`),
 *     tpaccel powered off inside the failed init, or never powered on.
 *   - The sysfs read is not compared: the reference serves it from its cache when the last tick's
 *     readout is young (hdaps.c hdaps_update(): `age < (9*HZ)/(10*sampling_rate)`), tpaccel likewise
 *     but on its own clock.
 *
 * Usage: reference-runner REFERENCE.so SCENARIO...   (or "all"; "list" names them) */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ec-detect.h"
#include "ec-sim.h"
#include "ec.h"
#include "hdaps.h"
#include "log.h"
#include "port-log.h"
#include "shim/kshim.h"

#define TICKS          75 /* 1.5 s at 50 Hz: warm-up's ~1 s of READOUTS 0 and readouts after it */
#define NSEC_PER_JIFFY (NSEC_PER_SEC / HZ)
#define SEED           2606
#define BOOT_NS        (50 * NSEC_PER_MSEC) /* EC time before module init; faults start at 0.1 s */
#define TEXT_MAX       (256 * 1024)

/* How the init sequences of the two may differ in a scenario. */
typedef enum InitCompare {
        INIT_EXACT, /* access for access, times included */
        /* Up to and including the first 0x10: the reference gives up on a pending configuration at
         * once (hdaps.c 0.43, hdaps_set_ec_config(): `if (data.val[0xF] == 0x06) ... return -EBUSY;`,
         * then hdaps_device_init(): `FAILED_INIT("hdaps_set_ec_config failed"); goto bad;`, and its
         * timer polls anyway), tpaccel retries within the 2006 patch series' budget (100 ms: its first ticks
         * come late and bring nothing new), reads the EC's configuration back (0x17/0x82) and polls with it
         * (hdaps_init(), docs/PROTOCOL.md). */
        INIT_UNTIL_CONFIG,
} InitCompare;

typedef struct Scenario {
        const char *name;
        const char *faults[2]; /* sim_fault_parse() syntax */
        InitCompare init;
        bool stray;     /* negative control: one stray TWR read injected on the reference's side */
        unsigned ratio; /* oversampling ratio set after init (sysfs / hdaps_set_oversampling_ratio()) */
        /* Every tick where both read the last tick's prefetched reply costs both the same accesses
         * (READOUTS 1: tpaccel reads what __hdaps_update() reads, docs/PROTOCOL.md "poll-one-readout"). */
        bool same_accesses;
        /* No accelerometer (mode latch 0): both refuse it at init, and neither ever gets a readout,
         * although the reference's timer polls 0x11 anyway (hdaps.c 0.43: hdaps_probe()'s failure does not
         * fail hdaps_init(), which registers the input device and, once opened, starts the timer). */
        bool no_accelerometer;
} Scenario;

/* Faults of the transport and of the readout hit the ticks only (0.1 s .. 0.8 s), so that both sides'
 * init and exit are clean and comparable; the faults that are about init itself are always on. */
static const Scenario scenarios[] = {
        {"default"},
        /* Oversampling 1: one EC sample per tick, READOUTS 1 on a steady tick: the reference's 16. */
        {"ratio-1", .ratio = 1, .same_accesses = true},
        {"end-status", {"end-status:1"}},
        {"busy", {"busy:0.2@0.1-0.8"}},
        {"silent", {"silent:0.1@0.1-0.8"}},
        {"bad-status", {"bad-status:0.1@0.1-0.8"}},
        {"retval", {"retval:0.1@0.1-0.8"}},
        {"pending", {"pending:1"}, .init = INIT_UNTIL_CONFIG},
        {"absent", {"absent:1"}, .no_accelerometer = true},
        {"zero-step", {"zero-step:1"}},
        {"swmf-after-read", {"swmf-after-read:1"}},
        {"no-readout", {"no-readout:0.3@0.1-0.8"}},
        {"warm-up", {"warm-up:1"}},
        {"mode-change", {"mode-change:1"}},
        {"stray-access", {}, .stray = true},
};

/* ---- the shim's side in the executable: one emulator, one capture, the reference's bus ---- */

static struct {
        PortIO *port; /* the reference's emulator, wrapped by the capture */
        bool verbose;
        const struct attribute_group *sysfs;
        struct platform_driver *driver;
        struct platform_device device;
        int probe_result;
        unsigned printk_lines;
} shim;

void shim_printk(const char *fmt, ...)
{
        va_list ap;

        shim.printk_lines++;
        if (!shim.verbose)
                return;
        fputs("reference: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
}

uint8_t shim_inb(uint16_t port)
{
        return port_inb(shim.port, port);
}

void shim_outb(uint8_t value, uint16_t port)
{
        port_outb(shim.port, port, value);
}

void shim_delay_ns(uint64_t ns)
{
        port_delay_ns(shim.port, ns);
}

uint64_t shim_jiffies(void)
{
        return port_now_ns(shim.port) / NSEC_PER_JIFFY;
}

int shim_down_interruptible(struct semaphore *s)
{
        if (s->count <= 0) {
                fprintf(stderr, "shim: down_interruptible() on a held semaphore (one thread)\n");
                abort();
        }
        s->count--;
        return 0;
}

int shim_down_trylock(struct semaphore *s)
{
        if (s->count <= 0)
                return 1;
        s->count--;
        return 0;
}

void shim_up(struct semaphore *s)
{
        s->count++;
}

int shim_mod_timer(struct timer_list *t, unsigned long expires)
{
        int was = t->pending;
        t->expires = expires;
        t->pending = true;
        return was;
}

int shim_del_timer_sync(struct timer_list *t)
{
        int was = t->pending;
        t->pending = false;
        return was;
}

void *shim_request_region(unsigned long start, unsigned long n, const char *name)
{
        (void) n, (void) name;
        return (void *) start; /* granted */
}

void shim_release_region(unsigned long start, unsigned long n)
{
        (void) start, (void) n;
}

/* An IBM ThinkPad T42 (not in hdaps.c's orientation list: axis code 0) with the EC's OEM string. */
static const struct dmi_device oem_string = {.type = DMI_DEV_TYPE_OEM_STRING,
                                             .name = "IBM ThinkPad Embedded Controller -[1RHT71WW-3.04 ]-"};

const struct dmi_device *shim_dmi_find_device(int type, const char *name, const struct dmi_device *from)
{
        (void) name;
        return type == DMI_DEV_TYPE_OEM_STRING && !from ? &oem_string : NULL;
}

int shim_dmi_check_system(const struct dmi_system_id *list)
{
        int n = 0;
        for (const struct dmi_system_id *d = list; d->ident; d++) {
                bool match = true;
                for (unsigned i = 0; i < 4 && d->matches[i].slot != DMI_NONE; i++) {
                        const char *have = d->matches[i].slot == DMI_BOARD_VENDOR ? "IBM" : "ThinkPad T42";
                        if (!strstr(have, d->matches[i].substr))
                                match = false;
                }
                if (match) {
                        n++;
                        if (d->callback && d->callback(d))
                                break;
                }
        }
        return n;
}

int shim_sysfs_create_group(struct kobject *k, const struct attribute_group *g)
{
        k->group = g;
        shim.sysfs = g;
        return 0;
}

void shim_sysfs_remove_group(struct kobject *k, const struct attribute_group *g)
{
        (void) g;
        k->group = NULL;
        shim.sysfs = NULL;
}

int shim_platform_driver_register(struct platform_driver *drv)
{
        shim.driver = drv;
        return 0;
}

void shim_platform_driver_unregister(struct platform_driver *drv)
{
        (void) drv;
        shim.driver = NULL;
}

/* The driver core binds the registered driver: its probe runs now, and a failing probe leaves the
 * device registered (the module loads; hdaps.c 0.43 then polls through its input device anyway). */
struct platform_device *shim_platform_device_register_simple(const char *name, int id, void *res, unsigned n)
{
        (void) name, (void) id, (void) res, (void) n;
        shim.probe_result = shim.driver && shim.driver->probe ? shim.driver->probe(&shim.device) : -ENODEV;
        return &shim.device;
}

void shim_platform_device_unregister(struct platform_device *pdev)
{
        (void) pdev;
}

/* ---- the reference object ---- */

typedef struct RefApi {
        int (*ec_init)(void);
        void (*ec_exit)(void);
        int (*hdaps_init)(void);
        void (*hdaps_exit)(void);
        struct timer_list *(*timer)(void);
        int (*open)(void);
        void (*close)(void);
        void (*state)(int *x, int *y, int *temp, int *stale);
        long (*position_show)(char *buf);
        long (*store)(const char *name, const char *buf);
} RefApi;

static int ref_load(const char *path, RefApi *api)
{
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                fprintf(stderr, "cannot load the reference object: %s\n", dlerror());
                return -ENOENT;
        }
#define SYM(field, name)                                                                                    \
        do {                                                                                                \
                *(void **) &api->field = dlsym(h, name);                                                    \
                if (!api->field) {                                                                          \
                        fprintf(stderr, "reference object lacks %s\n", name);                               \
                        return -ENOENT;                                                                     \
                }                                                                                           \
        } while (0)
        SYM(ec_init, "ref_thinkpad_ec_init");
        SYM(ec_exit, "ref_thinkpad_ec_exit");
        SYM(hdaps_init, "ref_hdaps_init");
        SYM(hdaps_exit, "ref_hdaps_exit");
        SYM(timer, "ref_hdaps_timer");
        SYM(open, "ref_hdaps_open");
        SYM(close, "ref_hdaps_close");
        SYM(state, "ref_hdaps_state");
        SYM(position_show, "ref_hdaps_position_show");
        SYM(store, "ref_hdaps_store");
#undef SYM
        return 0;
}

/* ---- one side: an emulator behind a capture ---- */

typedef struct Side {
        PortIO *sim;  /* the emulator (owned by port) */
        PortIO *port; /* the capture's wrapper */
        PortLog *log;
} Side;

static void side_open(Side *s, const Scenario *sc)
{
        SimOptions o = {.virtual_time = true, .seed = SEED};
        char *error = NULL;
        PortIO *sim = NULL;

        for (unsigned i = 0; i < ELEMENTSOF(sc->faults) && sc->faults[i]; i++)
                if (sim_fault_parse(sc->faults[i], &o.faults[o.n_faults++], &error) < 0) {
                        fprintf(stderr, "%s: %s\n", sc->faults[i], error);
                        exit(EXIT_FAILURE);
                }
        if (port_open_sim(&o, &sim, &error) < 0 || port_log_new_capture(&s->log) < 0 ||
            port_log_wrap(sim, s->log, &s->port) < 0) {
                fprintf(stderr, "cannot open the emulator: %s\n", error ? error : "no memory");
                exit(EXIT_FAILURE);
        }
        s->sim = sim;
}

static void side_advance_to(Side *s, uint64_t t_ns)
{
        uint64_t now = port_now_ns(s->port);
        if (t_ns > now)
                ec_sim_advance_ns(s->sim, t_ns - now);
}

static void capture_start(Side *s)
{
        if (port_log_capture_start(s->log) < 0)
                abort();
}

/* The capture's accesses without the header line; *ret_n counts them. */
static char *capture_stop(Side *s, unsigned *ret_n)
{
        char *text = NULL;
        if (port_log_capture_stop(s->log, &text) < 0)
                abort();
        char *body = strchr(text, '\n');
        char *copy = strdup(body ? body + 1 : "");
        unsigned n = 0;
        for (const char *p = copy; *p; p++)
                n += *p == '\n';
        free(text);
        if (ret_n)
                *ret_n = n;
        return copy;
}

/* The requests of a capture: the bytes written, TWR0 first, TWR15 last ("10 fa 00 02 01"), one per line. */
static char *requests_of(const char *csv)
{
        char *out = calloc(1, TEXT_MAX);
        size_t len = 0;
        const char *line = csv;

        while (*line) {
                unsigned t, port, value;
                char dir[4];
                if (sscanf(line, "%u,%3[a-z],0x%x,0x%x", &t, dir, &port, &value) == 4 &&
                    !strcmp(dir, "out") && len + 8 < TEXT_MAX) {
                        if (port == EC_PORT_TWR0 && len && out[len - 1] != '\n')
                                out[len++] = '\n'; /* a request abandoned before TWR15 */
                        len += (size_t) sprintf(out + len, "%02x%s", value,
                                                port == EC_PORT_TWR15 ? "\n" : " ");
                }
                const char *nl = strchr(line, '\n');
                if (!nl)
                        break;
                line = nl + 1;
        }
        return out;
}

/* True when a tick's capture requests a row before it reads one: a synchronous read of data of now, not
 * the reply to the previous tick's prefetch (data one period old). */
static bool read_fresh(const char *csv)
{
        const char *out = strstr(csv, ",out,0x1610,"), *in = strstr(csv, ",in,0x1610,");
        return out && in && out < in;
}

/* The first line where two texts differ, for a failure message. */
static void first_difference(const char *a, const char *b, char *buf, size_t n)
{
        unsigned line = 1;
        const char *la = a, *lb = b;
        while (*a && *a == *b) {
                if (*a == '\n') {
                        line++;
                        la = a + 1;
                        lb = b + 1;
                }
                a++, b++;
        }
        snprintf(buf, n, "line %u: reference '%.*s', tpaccel '%.*s'", line, (int) strcspn(la, "\n"), la,
                 (int) strcspn(lb, "\n"), lb);
}

/* ---- one scenario ---- */

typedef struct Result {
        unsigned failures;
        char ref_ticks[TICKS + 1], tp_ticks[TICKS + 1];
        unsigned ref_readouts, tp_readouts, both, equal, aged;
        unsigned long ref_acc, tp_acc; /* accesses on ticks that got a readout */
        unsigned ref_acc_n, tp_acc_n;
        uint64_t ref_violations, tp_violations;
        int ref_probe, tp_init;
} Result;

static void check(Result *res, bool ok, const char *scenario, const char *fmt, ...)
{
        va_list ap;
        if (ok)
                return;
        res->failures++;
        fprintf(stderr, "FAIL %s: ", scenario);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

static void compare_sequence(Result *res, const char *scenario, const char *what, const char *ref,
                             const char *tp)
{
        char diff[512];
        if (strcmp(ref, tp) == 0)
                return;
        first_difference(ref, tp, diff, sizeof(diff));
        check(res, false, scenario, "%s differs, %s", what, diff);
}

/* Cuts a request list after its first 0x10 request (INIT_UNTIL_CONFIG). */
static void cut_after_config(char *requests)
{
        char *p = strstr(requests, "10 ");
        while (p && p != requests && p[-1] != '\n')
                p = strstr(p + 1, "10 ");
        if (p) {
                char *nl = strchr(p, '\n');
                if (nl)
                        nl[1] = 0;
        }
}

static int run_scenario(const RefApi *ref, const Scenario *sc, Result *res)
{
        Side a = {}, b = {};
        char buf[64];
        int r;

        side_open(&a, sc);
        side_open(&b, sc);
        shim.port = a.port;
        /* The EC samples from its boot on, before any driver loads (docs/EMULATOR.md): both inits find
         * readouts queued, as on a machine that has been up a while, and init's prefetch holds them. */
        ec_sim_advance_ns(a.sim, BOOT_NS);
        ec_sim_advance_ns(b.sim, BOOT_NS);

        /* Module init: thinkpad_ec's self-test, then hdaps (its probe inits the device). tpaccel: the
         * self-test (ec-detect.c), then hdaps_init() with the 2006 patch series' defaults (50 Hz x 5,
         * order 2). */
        capture_start(&a);
        r = ref->ec_init();
        check(res, r == 0, sc->name, "thinkpad_ec_init() failed: %d", r);
        _cleanup_free_ char *ref_selftest = capture_stop(&a, NULL);
        capture_start(&a);
        r = ref->hdaps_init();
        check(res, r == 0, sc->name, "hdaps_init() failed: %d", r);
        res->ref_probe = shim.probe_result;
        _cleanup_free_ char *ref_init = capture_stop(&a, NULL);

        _cleanup_(ec_freep) Ec *ec = NULL;
        _cleanup_(hdaps_freep) HdapsDevice *dev = NULL;
        if (ec_new(b.port, &ec) < 0 || hdaps_new(ec, 0, &dev) < 0)
                abort();
        capture_start(&b);
        r = ec_self_test(ec);
        check(res, r == 0, sc->name, "tpaccel's self-test failed: %d", r);
        _cleanup_free_ char *tp_selftest = capture_stop(&b, NULL);
        capture_start(&b);
        res->tp_init = hdaps_init(dev, &HDAPS_CONFIG_DEFAULT);
        _cleanup_free_ char *tp_init = capture_stop(&b, NULL);

        compare_sequence(res, sc->name, "self-test", ref_selftest, tp_selftest);
        if (sc->init == INIT_EXACT) {
                compare_sequence(res, sc->name, "init", ref_init, tp_init);
                check(res, (res->ref_probe == 0) == (res->tp_init == 0), sc->name,
                      "init outcome differs: reference probe %d, tpaccel %d", res->ref_probe, res->tp_init);
        } else {
                _cleanup_free_ char *rq = requests_of(ref_init), *tq = requests_of(tp_init);
                cut_after_config(rq);
                cut_after_config(tq);
                compare_sequence(res, sc->name, "init requests up to the first 0x10", rq, tq);
        }

        if (sc->ratio) {
                char value[16];
                snprintf(value, sizeof(value), "%u\n", sc->ratio);
                /* Once init's configuration took effect: the reference gives up on a pending one. */
                side_advance_to(&b, port_now_ns(a.port) + 100 * NSEC_PER_MSEC);
                side_advance_to(&a, port_now_ns(b.port));
                uint64_t t0 = port_now_ns(a.port);
                capture_start(&a);
                long n = ref->store("oversampling_ratio", value);
                check(res, n == (long) strlen(value), sc->name, "oversampling_ratio store failed: %ld", n);
                _cleanup_free_ char *ref_config = capture_stop(&a, NULL);
                side_advance_to(&b, t0);
                capture_start(&b);
                r = hdaps_set_oversampling_ratio(dev, sc->ratio);
                check(res, r == 0, sc->name, "hdaps_set_oversampling_ratio() failed: %d", r);
                _cleanup_free_ char *tp_config = capture_stop(&b, NULL);
                compare_sequence(res, sc->name, "configuration", ref_config, tp_config);
        }

        /* Polling: the reference's input device is opened (its timer starts); tpaccel starts polling as
         * the daemon does (hdaps_start_polling(): init's prefetch kept, hdaps.h). Then one tick per timer
         * expiry; tpaccel ticks at the same virtual times. */
        side_advance_to(&b, port_now_ns(a.port));
        r = ref->open();
        check(res, r == 0, sc->name, "input open failed: %d", r);
        bool tp_polling = res->tp_init == 0;
        if (tp_polling)
                (void) hdaps_start_polling(dev);

        struct timer_list *timer = ref->timer();
        for (unsigned i = 0; i < TICKS; i++) {
                char ro = 'x', to = 'x'; /* x: no tick (the reference disabled its timer) */
                int x = 0, y = 0, temp = 0, stale = 1;
                bool ref_fresh = false;
                unsigned ref_n = 0;
                unsigned n;

                /* The tick's time: the reference timer's expiry, or one period on if it stopped. */
                uint64_t tick_ns =
                        timer->pending ? (uint64_t) timer->expires * NSEC_PER_JIFFY
                                       : port_now_ns(a.port) + NSEC_PER_SEC / HDAPS_DEFAULT_SAMPLING_RATE;
                side_advance_to(&a, tick_ns);
                if (timer->pending) {
                        timer->pending = false;
                        capture_start(&a);
                        timer->function(timer);
                        _cleanup_free_ char *csv = capture_stop(&a, &n);
                        if (shim.verbose)
                                fprintf(stderr, "reference tick %u:\n%s", i, csv);
                        ref->state(&x, &y, &temp, &stale);
                        ro = stale ? '.' : 'R';
                        ref_fresh = read_fresh(csv);
                        ref_n = n;
                        if (!stale) {
                                res->ref_readouts++;
                                res->ref_acc += n;
                                res->ref_acc_n++;
                        }
                }

                if (tp_polling) {
                        HdapsReadout out;
                        side_advance_to(&b, tick_ns);
                        capture_start(&b);
                        r = hdaps_poll(dev, &out);
                        _cleanup_free_ char *csv = capture_stop(&b, &n);
                        if (shim.verbose)
                                fprintf(stderr, "tpaccel tick %u: %d\n%s", i, r, csv);
                        to = r == 0 ? 'R' : r == -EBUSY ? '.' : 'E';
                        if (r == 0) {
                                res->tp_readouts++;
                                res->tp_acc += n;
                                res->tp_acc_n++;
                        }
                        /* Both readouts must be of the same age to be equal: a reply prefetched at
                         * the last tick holds the EC's data of then, a synchronous read the data of
                         * now. The reference reads only prefetched replies on its timer (hdaps.c 0.43,
                         * hdaps_mousedev_poll(): `ret = __hdaps_update(1);`, the fast path that
                         * returns -ENODATA when the prefetch failed), tpaccel reads synchronously
                         * when the prefetch was -EBUSY (hdaps_poll()), so that a tick after an EC
                         * still showing SWMF gets a readout: different samples, not compared. */
                        if (sc->same_accesses && r == 0 && ro == 'R' && !ref_fresh && !read_fresh(csv))
                                check(res, n == ref_n, sc->name, "tick %u: %u accesses, the reference %u", i,
                                      n, ref_n);
                        if (r == 0 && ro == 'R' && ref_fresh != read_fresh(csv))
                                res->aged++;
                        else if (r == 0 && ro == 'R') {
                                res->both++;
                                bool eq = out.x == x && out.y == y && out.temperature == temp;
                                res->equal += eq;
                                check(res, eq, sc->name,
                                      "tick %u: reference (%d,%d) %d C, tpaccel (%d,%d) %d C", i, x, y, temp,
                                      out.x, out.y, out.temperature);
                        }
                }
                res->ref_ticks[i] = ro;
                res->tp_ticks[i] = to;

                /* The negative control: one TWR read no driver makes, between two ticks. */
                if (sc->stray && i == TICKS / 2)
                        (void) shim_inb(EC_PORT_TWR0 + 3);
        }

        /* Polling right after init: the first two ticks bring a readout wherever the reference's do
         * (hdaps_start_polling() keeps init's prefetch, hdaps.h). */
        if (sc->init == INIT_EXACT && res->tp_init == 0)
                for (unsigned i = 0; i < 2; i++)
                        check(res, res->ref_ticks[i] != 'R' || res->tp_ticks[i] == 'R', sc->name,
                              "tick %u after init: the reference got a readout, tpaccel '%c'", i,
                              res->tp_ticks[i]);

        if (sc->no_accelerometer) {
                check(res, res->ref_probe != 0 && res->tp_init == -ENODEV, sc->name,
                      "an absent accelerometer was not refused (reference probe %d, tpaccel init %d)",
                      res->ref_probe, res->tp_init);
                check(res, res->ref_readouts == 0 && res->tp_readouts == 0, sc->name,
                      "readouts without an accelerometer: reference %u, tpaccel %u (docs/EMULATOR.md, "
                      "fault absent)",
                      res->ref_readouts, res->tp_readouts);
        }

        /* A sysfs read (the on-demand path of both), then module exit. */
        (void) ref->position_show(buf);
        if (tp_polling)
                (void) hdaps_update(dev);
        ref->close();

        /* Module exit 10 ms later, at the same time on both. */
        side_advance_to(&b, port_now_ns(a.port) + 10 * NSEC_PER_MSEC);
        side_advance_to(&a, port_now_ns(b.port));
        capture_start(&a);
        ref->hdaps_exit();
        ref->ec_exit();
        _cleanup_free_ char *ref_exit = capture_stop(&a, NULL);
        capture_start(&b);
        if (res->tp_init == 0)
                (void) hdaps_power_off(dev, NULL);
        _cleanup_free_ char *tp_exit = capture_stop(&b, NULL);
        if (res->ref_probe == 0 && res->tp_init == 0)
                compare_sequence(res, sc->name, "exit", ref_exit, tp_exit);

        res->ref_violations = ec_sim_protocol_violations(a.sim);
        res->tp_violations = ec_sim_protocol_violations(b.sim);
        if (sc->stray) {
                EcSimStatus st;
                ec_sim_get_status(a.sim, &st);
                check(res, res->ref_violations == 1, sc->name,
                      "the stray access was not reported: %llu violations",
                      (unsigned long long) res->ref_violations);
        } else
                check(res, res->ref_violations == 0, sc->name,
                      "the emulator reported %llu protocol violations of the reference driver",
                      (unsigned long long) res->ref_violations);
        check(res, res->tp_violations == 0, sc->name,
              "the emulator reported %llu protocol violations of tpaccel",
              (unsigned long long) res->tp_violations);

        shim.port = NULL;
        dev = hdaps_free(dev);
        ec = ec_free(ec); /* frees b's port */
        port_free(a.port);
        port_log_free(a.log);
        port_log_free(b.log);
        return 0;
}

static void print_row(const Scenario *sc, const Result *r)
{
        printf("%-16s %6.1f %6.1f  %3u/%-3u %3u/%-3u %4u  %5llu %5llu  %s\n", sc->name,
               r->ref_acc_n ? (double) r->ref_acc / r->ref_acc_n : 0.0,
               r->tp_acc_n ? (double) r->tp_acc / r->tp_acc_n : 0.0, r->ref_readouts, r->tp_readouts,
               r->equal, r->both, r->aged, (unsigned long long) r->ref_violations,
               (unsigned long long) r->tp_violations, r->failures ? "FAIL" : "ok");
        printf("    reference %s\n    tpaccel   %s\n", r->ref_ticks, r->tp_ticks);
}

/* Each scenario in a child: the reference object's statics start afresh. */
static int run_child(const char *so, const Scenario *sc)
{
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                RefApi api = {};
                Result res = {};
                if (ref_load(so, &api) < 0)
                        _exit(2);
                memset(res.ref_ticks, ' ', TICKS);
                memset(res.tp_ticks, ' ', TICKS);
                run_scenario(&api, sc, &res);
                print_row(sc, &res);
                fflush(stdout);
                _exit(res.failures ? 1 : 0);
        }
        int status;
        if (waitpid(pid, &status, 0) < 0)
                return -errno;
        if (!WIFEXITED(status)) {
                printf("%-16s crashed (signal %d)\n", sc->name, WTERMSIG(status));
                return 1;
        }
        return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
        unsigned failed = 0;

        log_set_max_level(getenv("REFERENCE_VERBOSE") ? LOG_DEBUG : LOG_ERR);
        shim.verbose = getenv("REFERENCE_VERBOSE");
        if (argc >= 2 && !strcmp(argv[1], "list")) {
                for (size_t i = 0; i < ELEMENTSOF(scenarios); i++)
                        printf("%s\n", scenarios[i].name);
                return 0;
        }
        if (argc >= 2 && !strcmp(argv[1], "fault-kinds")) { /* each needs a scenario of its name */
                for (unsigned k = 0; k < _SIM_FAULT_MAX; k++)
                        printf("%s\n", sim_fault_kind_to_string(k));
                return 0;
        }
        if (argc < 3) {
                fprintf(stderr, "usage: %s REFERENCE.so SCENARIO...|all\n       %s list|fault-kinds\n",
                        argv[0], argv[0]);
                return 2;
        }
        printf("%-16s %6s %6s  %-7s %-7s %4s  %5s %5s\n", "scenario", "acc/R", "acc/R", "readouts", "equal",
               "aged", "viol", "viol");
        printf("%-16s %6s %6s  %-7s %-7s %4s  %5s %5s\n", "", "ref", "tpacc", "ref/tp", "/both", "", "ref",
               "tp");
        for (int i = 2; i < argc; i++) {
                bool found = false;
                for (size_t k = 0; k < ELEMENTSOF(scenarios); k++)
                        if (!strcmp(argv[i], "all") || !strcmp(argv[i], scenarios[k].name)) {
                                found = true;
                                failed += run_child(argv[1], &scenarios[k]) != 0;
                        }
                if (!found) {
                        fprintf(stderr, "unknown scenario '%s' (try: %s list)\n", argv[i], argv[0]);
                        return 2;
                }
        }
        printf("acc/R: port accesses per tick that got a readout; aged: both got one, of different ages\n"
               "ticks: R readout, . none (not ready / READOUTS 0), E error, x no tick\n");
        return failed ? 1 : 0;
}
