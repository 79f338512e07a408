/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diagnosis report (diagnose.h): readout statistics, the system checks, the EC's read-only answers,
 * and the text/JSON formatting. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "context.h"
#include "diagnose.h"
#include "ec-detect.h"
#include "ec-protocol.h"
#include "hdaps-models.h"
#include "log.h"
#include "port-log.h"
#include "strutil.h"
#include "tablet-mode.h"

#define DIAGNOSE_ERROR_KINDS     8 /* distinct errors counted by kind */
#define DIAGNOSE_PROBLEMS_MAX    24
#define DIAGNOSE_BUSY_RETRY_USEC 1000 /* standalone: -EBUSY (no new readout yet) is retried this often */
#define DIAGNOSE_SLACK_USEC      (2 * USEC_PER_SEC) /* a run may take this much longer than its readouts */
#define SYSROOT_DEFAULT          "/"
#define LOCKDOWN_PATH            "sys/kernel/security/lockdown"
#define IOPORTS_PATH             "proc/ioports"

/* The kernel modules that matter: the seeds' and tp_smapi's drivers and thinkpad_acpi. */
static const char *const diagnose_modules[] = {"hdaps", "thinkpad_ec", "tp_smapi", "hdaps_ec",
                                               "thinkpad_acpi"};

static bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

static const char *strempty(const char *s)
{
        return s ?: "";
}

typedef struct ErrorCount {
        int error; /* negative errno */
        unsigned count;
} ErrorCount;

typedef struct Moments {
        unsigned n;
        double sum, sum2;
        int min, max;
} Moments;

typedef struct Problem {
        char *what, *next;
} Problem;

struct Diagnosis {
        Context *c;
        unsigned wanted;
        uint64_t started_usec, deadline_usec;

        /* readouts */
        unsigned readouts, replies, missed, queued_max, polls;
        uint64_t queued_sum, first_ns, last_ns;
        Moments x, y, temperature;
        ErrorCount errors[DIAGNOSE_ERROR_KINDS];
        unsigned busy; /* -EBUSY: no new readout yet, or the EC stayed busy */

        /* the port log of one readout */
        bool capturing, captured_ok;
        char *port_log;

        Problem problems[DIAGNOSE_PROBLEMS_MAX];
        unsigned n_problems;
        bool oom;
        bool not_thinkpad; /* the DMI check failed (reported once, in the system section) */
};

int diagnosis_new(Context *c, Diagnosis **ret)
{
        Diagnosis *d = calloc(1, sizeof(*d));
        unsigned rate = c->config.sampling_rate ?: HDAPS_DEFAULT_SAMPLING_RATE;

        if (!d)
                return -ENOMEM;
        d->c = c;
        d->wanted = MIN(DIAGNOSE_READOUTS, rate * DIAGNOSE_MAX_SECONDS);
        d->started_usec = now_usec();
        d->deadline_usec =
                d->started_usec + (uint64_t) d->wanted * USEC_PER_SEC / rate + DIAGNOSE_SLACK_USEC;
        *ret = d;
        return 0;
}

Diagnosis *diagnosis_free(Diagnosis *d)
{
        if (!d)
                return NULL;
        if (d->capturing && d->c->port_capture) {
                _cleanup_free_ char *unused = NULL;
                (void) port_log_capture_stop(d->c->port_capture, &unused);
        }
        for (unsigned i = 0; i < d->n_problems; i++) {
                free(d->problems[i].what);
                free(d->problems[i].next);
        }
        free(d->port_log);
        free(d);
        return NULL;
}

uint64_t diagnosis_deadline_usec(const Diagnosis *d)
{
        return d->deadline_usec;
}

static void moments_add(Moments *m, int v)
{
        if (m->n == 0 || v < m->min)
                m->min = v;
        if (m->n == 0 || v > m->max)
                m->max = v;
        m->n++;
        m->sum += v;
        m->sum2 += (double) v * v;
}

static double moments_mean(const Moments *m)
{
        return m->n ? m->sum / m->n : 0.0;
}

static double moments_sd(const Moments *m)
{
        if (m->n < 2)
                return 0.0;
        double mean = moments_mean(m), var = (m->sum2 - m->n * mean * mean) / (m->n - 1);
        return var > 0 ? sqrt(var) : 0.0;
}

static void count_error(Diagnosis *d, int r)
{
        for (unsigned i = 0; i < DIAGNOSE_ERROR_KINDS; i++) {
                if (d->errors[i].error == r || d->errors[i].error == 0) {
                        d->errors[i].error = r;
                        d->errors[i].count++;
                        return;
                }
        }
}

void diagnosis_before_poll(Diagnosis *d)
{
        if (d->captured_ok || !d->c->port_capture || !d->c->backend || !backend_has_ports(d->c->backend))
                return;
        d->capturing = port_log_capture_start(d->c->port_capture) >= 0;
}

void diagnosis_after_poll(Diagnosis *d, int r, const HdapsReadout *ro)
{
        d->polls++;
        if (d->capturing) {
                char *text = NULL;
                d->capturing = false;
                /* Keep the first good readout's log; until there is one, the last failed attempt's. */
                if (port_log_capture_stop(d->c->port_capture, &text) >= 0 && (r != -EBUSY || !d->port_log)) {
                        free(d->port_log);
                        d->port_log = text;
                        d->captured_ok = r >= 0;
                } else
                        free(text);
        }
        if (r == -EBUSY) {
                d->busy++;
                return;
        }
        if (r < 0) {
                count_error(d, r);
                return;
        }
        if (d->replies == 0)
                d->first_ns = ro->time_ns;
        d->last_ns = ro->time_ns;
        d->replies++;
        d->readouts += MAX(ro->readouts, 1u);
        if (ro->readouts >= 2)
                d->missed += ro->readouts - 1;
        d->queued_sum += ro->queued;
        d->queued_max = MAX(d->queued_max, ro->queued);
        moments_add(&d->x, ro->x);
        moments_add(&d->y, ro->y);
        moments_add(&d->temperature, ro->temperature);
}

bool diagnosis_complete(const Diagnosis *d)
{
        return d->replies >= d->wanted;
}

/* ---- the report ---- */

static void problem(Diagnosis *d, const char *next, const char *format, ...) _printf_(3, 4);

static void problem(Diagnosis *d, const char *next, const char *format, ...)
{
        va_list ap;
        char *what = NULL;

        if (d->n_problems >= DIAGNOSE_PROBLEMS_MAX)
                return;
        va_start(ap, format);
        if (vasprintf(&what, format, ap) < 0)
                what = NULL;
        va_end(ap);
        if (!what || !(d->problems[d->n_problems].next = strdup(next))) {
                free(what);
                d->oom = true;
                return;
        }
        d->problems[d->n_problems++].what = what;
}

/* The report writer: one emitter, two formats. Text: "Label: value" lines under "== Section ==" headings;
 * JSON: one object per section, keys in kebab-case. */
typedef struct Report {
        FILE *f;
        bool json;
        bool first; /* nothing written yet in the current JSON object */
        bool in_section;
} Report;

static void json_string(FILE *f, const char *s)
{
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) (s ?: ""); *p; p++) {
                if (*p == '"' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p == '\n')
                        fputs("\\n", f);
                else if (*p < 0x20 || *p == 0x7F)
                        fprintf(f, "\\u%04x", *p);
                else
                        fputc(*p, f);
        }
        fputc('"', f);
}

static void json_key(Report *rep, const char *key)
{
        fputs(rep->first ? "" : ",", rep->f);
        fputs(rep->in_section ? "\n    " : "\n  ", rep->f);
        json_string(rep->f, key);
        fputs(": ", rep->f);
        rep->first = false;
}

static void section_end(Report *rep)
{
        if (!rep->in_section)
                return;
        if (rep->json)
                fputs("\n  }", rep->f);
        rep->in_section = false;
        rep->first = false;
}

static void section(Report *rep, const char *key, const char *title)
{
        section_end(rep);
        if (rep->json) {
                json_key(rep, key);
                fputc('{', rep->f);
                rep->first = true;
        } else
                fprintf(rep->f, "\n== %s ==\n", title);
        rep->in_section = true;
}

/* A string item; value NULL is JSON null, "-" in text. */
static void item_str(Report *rep, const char *key, const char *label, const char *value)
{
        if (rep->json) {
                json_key(rep, key);
                if (value)
                        json_string(rep->f, value);
                else
                        fputs("null", rep->f);
        } else
                fprintf(rep->f, "%-27s %s\n", label, value ?: "-");
}

static void item_fmt(Report *rep, const char *key, const char *label, const char *format, ...)
        _printf_(4, 5);

static void item_fmt(Report *rep, const char *key, const char *label, const char *format, ...)
{
        va_list ap;
        char *s = NULL;

        va_start(ap, format);
        if (vasprintf(&s, format, ap) < 0)
                s = NULL;
        va_end(ap);
        item_str(rep, key, label, s);
        free(s);
}

/* A number (JSON number, text with a unit). */
static void item_num(Report *rep, const char *key, const char *label, double value, int decimals,
                     const char *unit)
{
        if (rep->json) {
                json_key(rep, key);
                fprintf(rep->f, "%.*f", decimals, isfinite(value) ? value : 0.0);
        } else
                fprintf(rep->f, "%-27s %.*f%s%s\n", label, decimals, value, unit ? " " : "", unit ?: "");
}

static void item_bool(Report *rep, const char *key, const char *label, bool value)
{
        if (rep->json) {
                json_key(rep, key);
                fputs(value ? "true" : "false", rep->f);
        } else
                fprintf(rep->f, "%-27s %s\n", label, value ? "yes" : "no");
}

static char *read_line_at(const char *sysroot, const char *path)
{
        _cleanup_free_ char *full = strprintf("%s/%s", sysroot, path);
        _cleanup_fclose_ FILE *f = NULL;
        char buf[512];

        if (!full || !(f = fopen(full, "re")) || !fgets(buf, sizeof(buf), f))
                return NULL;
        buf[strcspn(buf, "\n")] = 0;
        return strdup(buf);
}

static void report_system(Diagnosis *d, Report *rep, const char *sysroot)
{
        _cleanup_(ec_dmi_done) EcDmi dmi = {};
        _cleanup_free_ char *owner = NULL, *lockdown = NULL, *modules = NULL;
        const ThinkpadModel *model = NULL;
        const char *probe_reason = NULL;
        bool probe;
        int r;

        section(rep, "system", "System");
        r = ec_dmi_read(sysroot, &dmi);
        if (r < 0)
                d->oom = true;
        item_str(rep, "board-vendor", "DMI board vendor:", dmi.board_vendor);
        item_str(rep, "product-name", "DMI product name:", dmi.product_name);
        item_str(rep, "product-version", "DMI product version:", dmi.product_version);
        item_bool(rep, "ec-oem-string", "EC OEM string:", dmi.has_ec_oem_string);
        probe = ec_dmi_allows_probe(&dmi, &probe_reason);
        item_bool(rep, "ec-probe-allowed", "EC probe allowed:", probe);
        item_str(rep, "ec-probe-reason", "  why:", probe_reason);
        if (dmi.board_vendor && dmi.product_version)
                model = thinkpad_model_lookup(dmi.board_vendor, dmi.product_version);
        if (model)
                item_fmt(rep, "model-table", "Model table entry:", "%s \"%s\": axis code %u (source: %s)",
                         model->vendor, model->product_version, model->axis_code, strna(model->source));
        else
                item_fmt(rep, "model-table",
                         "Model table entry:", "none for \"%s\": axis code 0 (normal) is assumed",
                         strempty(dmi.product_version));
        d->not_thinkpad = !probe;
        if (!probe && !d->c->has_accelerometer)
                problem(d,
                        "If this is a ThinkPad with an accelerometer (Active Protection System), send this "
                        "report to the issue tracker so that its model can be added; never force the EC "
                        "backends on another kind of machine.",
                        "This machine is not recognized as a ThinkPad with HDAPS: %s", strna(probe_reason));

        for (size_t i = 0; i < ELEMENTSOF(diagnose_modules); i++) {
                _cleanup_free_ char *path = strprintf("%s/sys/module/%s", sysroot, diagnose_modules[i]);
                if (path && access(path, F_OK) >= 0) {
                        char *joined = strprintf("%s%s%s", strempty(modules), modules ? " " : "",
                                                 diagnose_modules[i]);
                        free(modules);
                        modules = joined;
                }
        }
        item_str(rep, "kernel-modules", "Kernel modules loaded:",
                 modules
                         ?: "none of hdaps, thinkpad_ec, "
                            "tp_smapi, hdaps_ec, thinkpad_acpi");

        r = ec_ports_owner(sysroot, &owner);
        if (r < 0)
                item_fmt(rep, "ports-owner", "Ports 0x1600-0x161F:", "unknown (%s)", strerror(-r));
        else
                item_str(rep, "ports-owner",
                         "Ports 0x1600-0x161F:", r > 0 ? owner : "free (no kernel user)");

        lockdown = read_line_at(sysroot, LOCKDOWN_PATH);
        if (!lockdown)
                item_str(rep, "lockdown", "Kernel lockdown:", "not reported (no lockdown LSM)");
        else {
                const char *open = strchr(lockdown, '['), *close = open ? strchr(open, ']') : NULL;
                _cleanup_free_ char *mode =
                        open && close ? strndup(open + 1, close - open - 1) : strdup(lockdown);
                bool forbids = mode && !streq(mode, "none");
                item_fmt(rep, "lockdown", "Kernel lockdown:", "%s%s", strna(mode),
                         forbids ? " (forbids ioperm() and writes to /dev/port: the EC backends cannot work)"
                                 : "");
                if (forbids)
                        problem(d,
                                "Load the hdaps or tp_smapi kernel driver (tpacceld then uses "
                                "--backend=kernel), or "
                                "boot without lockdown (it follows Secure Boot on many distributions).",
                                "Kernel lockdown is \"%s\"", strna(mode));
        }
}

static void report_backend(Diagnosis *d, Report *rep)
{
        Context *c = d->c;
        char power[256] = "";

        section(rep, "backend", "Backend");
        item_str(rep, "name", "Backend:", c->backend ? backend_name(c->backend) : NULL);
        item_str(rep, "reason", "Why:", c->backend_reason);
        item_bool(rep, "has-accelerometer", "Accelerometer:", c->has_accelerometer);
        item_str(rep, "hardware-state",
                 "Hardware state:", hardware_state_to_string(c->poller.hardware_state));
        item_str(rep, "last-error", "Last error:", c->poller.last_error);
        if (c->backend) {
                backend_describe_power(c->backend, power, sizeof(power));
                item_str(rep, "status", "Status:", power);
                item_str(rep, "model",
                         "Model:", c->backend->model && *c->backend->model ? c->backend->model : "unknown");
                item_num(rep, "axis-code", "Axis code in use:", backend_get_axis_code(c->backend), 0, NULL);
        }
        if (!c->backend && !d->not_thinkpad)
                problem(d,
                        "Check the kernel modules, the ports owner and the lockdown above; send this report "
                        "to the issue tracker.",
                        "No backend could be opened: %s", strna(c->backend_reason));
        else if (c->has_accelerometer && c->poller.hardware_state != HARDWARE_OK)
                problem(d,
                        "The EC failed while polling; tpacceld re-initializes it with a back-off. Send this "
                        "report with a port log to the issue tracker.",
                        "The hardware state is \"%s\": %s",
                        hardware_state_to_string(c->poller.hardware_state), strna(c->poller.last_error));
        else if (!c->has_accelerometer)
                problem(d,
                        "If the machine has an accelerometer, send this report with a port log "
                        "(tpacceld --port-log=FILE --dump=10) to the issue tracker.",
                        "The accelerometer was not initialized: %s", strna(c->backend_reason));
        else if (c->backend && c->backend->init_note)
                problem(d,
                        "Power the machine off and on (the EC keeps its state across reboots); if it "
                        "persists, send this report with a port log to the issue tracker.",
                        "The accelerometer runs, but not as asked: %s", c->backend->init_note);
}

/* One read-only EC request through the backend: the reply bytes named, or the error. */
static int ec_request(Diagnosis *d, uint8_t cmd, int sub, EcRow *data)
{
        EcRow args = {.mask = EC_ROW_MASK_ARG0};

        args.val[0] = cmd;
        if (sub >= 0) {
                args.mask |= 1u << EC_EXT_IDX_SUB;
                args.val[EC_EXT_IDX_SUB] = (uint8_t) sub;
        }
        if (cmd == EC_CMD_BATTERY_STATUS) {
                args.mask |= EC_ROW_MASK_ARG15;
                args.val[EC_IDX_RETVAL] = EC_BATTERY_SELFTEST_ARG15;
        }
        data->mask = 0xFFFF;
        return backend_read_row(d->c->backend, &args, data);
}

static void ec_failed(Diagnosis *d, Report *rep, const char *key, const char *label, const char *name, int r)
{
        item_fmt(rep, key, label, "failed: %s (%s)", strerror(-r), strerrorname_np(-r) ?: "?");
        problem(d,
                r == -EBUSY || r == -ETIMEDOUT
                        ? "The EC does not answer in time: another program may drive it (see the ports "
                          "owner "
                          "above), or the firmware is stuck; a cold boot (power off, battery out) resets it."
                        : "The EC answered off protocol: send this report with its port log to the issue "
                          "tracker.",
                "EC request %s failed: %s", name, strerror(-r));
}

static void report_ec(Diagnosis *d, Report *rep)
{
        EcRow data;
        int r;

        section(rep, "ec", "EC answers (read-only requests)");
        if (!d->c->backend || !backend_has_ports(d->c->backend)) {
                item_str(rep, "available", "EC requests:",
                         d->c->backend ? "not with the kernel backend (the driver owns the EC)"
                                       : "no backend");
                return;
        }

        r = ec_request(d, EC_CMD_BATTERY_STATUS, -1, &data);
        if (r < 0)
                ec_failed(d, rep, "self-test", "Self-test (0x01):", "0x01 (self-test)", r);
        else
                item_fmt(rep, "self-test", "Self-test (0x01):", "ok, return code 0x%02x",
                         data.val[EC_IDX_RETVAL]);

        r = ec_request(d, EC_CMD_ACCEL_MODE, -1, &data);
        if (r < 0)
                ec_failed(d, rep, "mode-latch", "Mode latch (0x13):", "0x13 (mode latch)", r);
        else {
                uint8_t mode = data.val[EC_MODE_IDX_LATCH];
                item_fmt(rep, "mode-latch", "Mode latch (0x13):", "%u%s", mode,
                         mode == EC_MODE_NONE ? " (no accelerometer)" : "");
                if (mode == EC_MODE_NONE)
                        problem(d,
                                "The EC says this machine has no accelerometer. If it has one (Active "
                                "Protection "
                                "System in the BIOS setup), send this report to the issue tracker.",
                                "The EC's mode latch is 0");
        }

        r = ec_request(d, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_CHECK, &data);
        if (r < 0)
                ec_failed(d, rep, "check", "Check (0x17/0x81):", "0x17/0x81 (check)", r);
        else
                item_fmt(rep, "check", "Check (0x17/0x81):", "%02x %02x %02x", data.val[EC_CHECK_IDX_FIRST],
                         data.val[EC_CHECK_IDX_FIRST + 1], data.val[EC_CHECK_IDX_FIRST + 2]);

        r = ec_request(d, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_GET_CONFIG, &data);
        if (r < 0)
                ec_failed(d, rep, "config", "Configuration (0x17/0x82):", "0x17/0x82 (configuration)", r);
        else {
                uint8_t st = data.val[EC_GETCFG_IDX_STATUS];
                unsigned rate = data.val[EC_GETCFG_IDX_RATE_LO] | (unsigned) data.val[EC_GETCFG_IDX_RATE_HI]
                                                                          << 8;
                item_fmt(rep, "config", "Configuration (0x17/0x82):", "%s%s, EC rate %u Hz, filter order %u",
                         st & EC_GETCFG_POLLING ? "polling" : "not polling",
                         st & EC_GETCFG_PENDING ? ", change pending" : "", rate,
                         data.val[EC_GETCFG_IDX_ORDER]);
                if (d->c->has_accelerometer && !(st & EC_GETCFG_POLLING))
                        problem(d,
                                "The accelerometer is powered off or its rate is 0: restart tpacceld; if "
                                "this "
                                "stays, send this report to the issue tracker.",
                                "The EC is not polling the accelerometer");
        }
}

static void report_readouts(Diagnosis *d, Report *rep)
{
        const HdapsConfig *cfg = d->c->backend ? backend_get_config(d->c->backend) : NULL;
        double span_s = d->replies > 1 ? (double) (d->last_ns - d->first_ns) / NSEC_PER_SEC : 0.0;
        double rate = span_s > 0 ? (d->replies - 1) / span_s : 0.0;
        unsigned failed = 0;

        section(rep, "readouts", "Readouts");
        if (!d->c->has_accelerometer) {
                item_str(rep, "taken", "Readouts:", "none (no accelerometer)");
                return;
        }
        item_fmt(rep, "configured", "Configured:", "%u Hz, oversampling %u, filter order %u",
                 cfg ? cfg->sampling_rate : 0, cfg ? cfg->oversampling_ratio : 0,
                 cfg ? cfg->filter_order : 0);
        item_num(rep, "wanted", "Readouts wanted:", d->wanted, 0, NULL);
        item_num(rep, "replies", "Readout replies:", d->replies, 0, NULL);
        item_num(rep, "rate-achieved-hz", "Rate achieved:", rate, 1, "Hz");
        item_num(rep, "missed", "Older readouts in replies:", d->missed, 0, "(the EC queued more than one)");
        item_num(rep, "queued-mean",
                 "Queued after a reply:", d->replies ? (double) d->queued_sum / d->replies : 0, 2, "(mean)");
        item_num(rep, "queued-max", "Queued, most:", d->queued_max, 0, NULL);
        item_fmt(rep, "x", "x (counts):", "mean %.1f, sd %.2f, %d..%d", moments_mean(&d->x),
                 moments_sd(&d->x), d->x.min, d->x.max);
        item_fmt(rep, "y", "y (counts):", "mean %.1f, sd %.2f, %d..%d", moments_mean(&d->y),
                 moments_sd(&d->y), d->y.min, d->y.max);
        item_fmt(rep, "temperature", "Temperature (C):", "mean %.1f, sd %.2f", moments_mean(&d->temperature),
                 moments_sd(&d->temperature));
        item_num(rep, "busy", "Busy (no readout yet):", d->busy, 0, NULL);
        for (unsigned i = 0; i < DIAGNOSE_ERROR_KINDS && d->errors[i].error; i++) {
                _cleanup_free_ char *key =
                        strprintf("failed-%s", strerrorname_np(-d->errors[i].error) ?: "other");
                _cleanup_free_ char *label = strprintf("Failed (%s):", strerror(-d->errors[i].error));
                if (key && label)
                        item_num(rep, key, label, d->errors[i].count, 0, NULL);
                failed += d->errors[i].count;
        }
        item_num(rep, "failed", "Failed transactions:", failed, 0, NULL);

        if (d->replies < d->wanted)
                problem(d,
                        "Readouts stall: look at the failures above and the port log below; send both to "
                        "the "
                        "issue tracker.",
                        "Only %u of %u readouts arrived in time", d->replies, d->wanted);
        if (failed > 0)
                problem(d,
                        "Transactions fail: another program may drive the EC (see the ports owner), or the "
                        "firmware answers differently from the protocol; send this report to the issue "
                        "tracker.",
                        "%u of %u readout transactions failed", failed, d->polls);
        if (d->polls > 10 && d->busy * 4 > d->polls)
                problem(d,
                        "The EC was often busy: another program may drive it (see the ports owner), or the "
                        "firmware is slow; send this report with its port log to the issue tracker.",
                        "The EC had no readout ready (busy) in %u of %u attempts", d->busy, d->polls);
        if (cfg && d->replies > 10 && rate < 0.8 * cfg->sampling_rate)
                problem(d,
                        "The machine is loaded or the EC is slow; try a lower sampling rate "
                        "(tpaccelctl set sampling-rate 25) and report it.",
                        "Readouts came at %.1f Hz instead of %u Hz", rate, cfg->sampling_rate);
        if (d->x.n > 10 && (moments_sd(&d->x) > 20 || moments_sd(&d->y) > 20))
                problem(d, "Run the diagnosis again with the machine at rest on a desk.",
                        "The position moved a lot during the readouts (sd x %.1f, y %.1f counts)",
                        moments_sd(&d->x), moments_sd(&d->y));
}

static void report_tablet(Diagnosis *d, Report *rep)
{
        section(rep, "tablet-mode", "Tablet-mode switch");
        if (d->c->tablet_mode) {
                item_str(rep, "device", "Device:", tablet_mode_device(d->c->tablet_mode));
                item_bool(rep, "tablet-mode", "Tablet mode:", tablet_mode_get(d->c->tablet_mode));
        } else
                item_str(rep, "device", "Device:", "none (not a convertible, or thinkpad_acpi not loaded)");
}

static void report_problems(Diagnosis *d, Report *rep)
{
        section_end(rep);
        if (rep->json) {
                json_key(rep, "problems");
                fputc('[', rep->f);
                for (unsigned i = 0; i < d->n_problems; i++) {
                        fprintf(rep->f, "%s\n    {\"problem\": ", i ? "," : "");
                        json_string(rep->f, d->problems[i].what);
                        fputs(", \"next\": ", rep->f);
                        json_string(rep->f, d->problems[i].next);
                        fputc('}', rep->f);
                }
                fputs(d->n_problems ? "\n  ]" : "]", rep->f);
                return;
        }
        fputs("\n== Result ==\n", rep->f);
        if (d->n_problems == 0)
                fputs("No problem found.\n", rep->f);
        for (unsigned i = 0; i < d->n_problems; i++)
                fprintf(rep->f, "PROBLEM: %s.\n  Next: %s\n", d->problems[i].what, d->problems[i].next);
}

static void report_port_log(Diagnosis *d, Report *rep)
{
        const char *none = !d->c->backend || !backend_has_ports(d->c->backend) ? "none (no port backend)"
                           : !d->c->has_accelerometer                          ? "none (no readouts)"
                                                                               : "none captured";
        if (rep->json) {
                json_key(rep, "port-log");
                if (d->port_log)
                        json_string(rep->f, d->port_log);
                else
                        fputs("null", rep->f);
                return;
        }
        fprintf(rep->f, "\n== Port log of one readout%s ==\n%s%s",
                d->captured_ok || !d->port_log ? "" : " (failed)", d->port_log ?: none,
                d->port_log ? "" : "\n");
}

int diagnosis_report(Diagnosis *d, const char *format, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        Report rep = {.first = true};
        const char *sysroot = d->c->sysroot ?: SYSROOT_DEFAULT;
        time_t now = time(NULL);
        char date[64];
        struct tm tm;

        if (!streq(format, DIAGNOSE_FORMAT_TEXT) && !streq(format, DIAGNOSE_FORMAT_JSON))
                return -EINVAL;
        rep.json = streq(format, DIAGNOSE_FORMAT_JSON);
        rep.f = open_memstream(&buf, &size);
        if (!rep.f)
                return -ENOMEM;
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));

        /* Problems are collected by the sections: drop those of an earlier report of the same run. */
        for (unsigned i = 0; i < d->n_problems; i++) {
                free(d->problems[i].what);
                free(d->problems[i].next);
        }
        d->n_problems = 0;

        if (rep.json) {
                fputc('{', rep.f);
                json_key(&rep, "version");
                json_string(rep.f, PACKAGE_VERSION);
                json_key(&rep, "date");
                json_string(rep.f, date);
        } else
                fprintf(rep.f, "tpaccel %s diagnosis, %s\n", PACKAGE_VERSION, date);

        report_system(d, &rep, sysroot);
        report_backend(d, &rep);
        report_ec(d, &rep);
        report_readouts(d, &rep);
        report_tablet(d, &rep);
        report_problems(d, &rep);
        report_port_log(d, &rep);
        if (rep.json)
                fputs("\n}\n", rep.f);

        if (fclose(rep.f) != 0 || d->oom)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return (int) d->n_problems;
}

/* ---- tpacceld --diagnose ---- */

static void sleep_until_usec(uint64_t t)
{
        struct timespec ts = {.tv_sec = t / USEC_PER_SEC, .tv_nsec = (t % USEC_PER_SEC) * NSEC_PER_USEC};

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

int diagnose_standalone(Context *c, const char *format, FILE *out)
{
        _cleanup_(diagnosis_freep) Diagnosis *d = NULL;
        _cleanup_free_ char *text = NULL;
        int r;

        r = diagnosis_new(c, &d);
        if (r < 0)
                return r;
        if (c->has_accelerometer) {
                uint64_t period = USEC_PER_SEC / (c->config.sampling_rate ?: HDAPS_DEFAULT_SAMPLING_RATE);
                uint64_t next = now_usec();

                while (!diagnosis_complete(d) && now_usec() < d->deadline_usec) {
                        HdapsReadout ro;

                        sleep_until_usec(next);
                        diagnosis_before_poll(d);
                        r = backend_poll(c->backend, &ro);
                        diagnosis_after_poll(d, r, &ro);
                        next = r == -EBUSY ? now_usec() + DIAGNOSE_BUSY_RETRY_USEC
                                           : MAX(next + period, now_usec());
                }
        }
        r = diagnosis_report(d, format, &text);
        if (r < 0)
                return r;
        fputs(text, out);
        fflush(out);
        if (c->has_accelerometer) {
                int k = backend_power_off(c->backend);
                if (k < 0)
                        log_warning_errno(k, "Failed to power the accelerometer off: %m");
        }
        return r;
}
