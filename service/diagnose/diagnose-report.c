/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diagnosis report's content (diagnosis_report(), diagnose.h): the system facts (system-checks.h),
 * the backend, the EC's answers to read-only requests, the run's readout statistics, the tablet-mode
 * switch, and each problem found with what to do next; written by report-writer.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "diagnose-private.h"
#include "ec-protocol.h"
#include "report-writer.h"
#include "strutil.h"
#include "system-checks.h"
#include "tablet-mode.h"

static const char *strempty(const char *s)
{
        return s ?: "";
}

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

static void report_system(Diagnosis *d, Report *rep)
{
        _cleanup_(system_checks_done) SystemChecks sys = {};
        const EcDmi *dmi = &sys.dmi;

        if (system_checks_read(d->c->sysroot, &sys) < 0)
                d->oom = true;
        report_section(rep, "system", "System");
        report_str(rep, "board-vendor", "DMI board vendor:", dmi->board_vendor);
        report_str(rep, "product-name", "DMI product name:", dmi->product_name);
        report_str(rep, "product-version", "DMI product version:", dmi->product_version);
        report_bool(rep, "ec-oem-string", "EC OEM string:", dmi->has_ec_oem_string);
        report_bool(rep, "ec-probe-allowed", "EC probe allowed:", sys.probe_allowed);
        report_str(rep, "ec-probe-reason", "  why:", sys.probe_reason);
        if (sys.model)
                report_fmt(rep, "model-table", "Model table entry:", "%s \"%s\": axis code %u (source: %s)",
                           sys.model->vendor, sys.model->product_version, sys.model->axis_code,
                           strna(sys.model->source));
        else
                report_fmt(rep, "model-table",
                           "Model table entry:", "none for \"%s\": axis code 0 (normal) is assumed",
                           strempty(dmi->product_version));
        d->not_thinkpad = !sys.probe_allowed;
        if (!sys.probe_allowed && !d->c->has_accelerometer)
                problem(d,
                        "If this is a ThinkPad with an accelerometer (Active Protection System), send this "
                        "report to the issue tracker so that its model can be added; never force the EC "
                        "backends on another kind of machine.",
                        "This machine is not recognized as a ThinkPad with HDAPS: %s",
                        strna(sys.probe_reason));

        report_str(rep, "kernel-modules", "Kernel modules loaded:",
                   sys.modules ?: "none of hdaps, thinkpad_ec, tp_smapi, hdaps_ec, thinkpad_acpi");

        if (sys.ports_owner_result < 0)
                report_fmt(rep, "ports-owner", "Ports 0x1600-0x161F:", "unknown (%s)",
                           strerror(-sys.ports_owner_result));
        else
                report_str(rep, "ports-owner", "Ports 0x1600-0x161F:",
                           sys.ports_owner_result > 0 ? sys.ports_owner : "free (no kernel user)");

        if (!sys.lockdown)
                report_str(rep, "lockdown", "Kernel lockdown:", "not reported (no lockdown LSM)");
        else {
                report_fmt(
                        rep, "lockdown", "Kernel lockdown:", "%s%s", sys.lockdown,
                        sys.lockdown_forbids_ports
                                ? " (forbids ioperm() and writes to /dev/port: the EC backends cannot work)"
                                : "");
                if (sys.lockdown_forbids_ports)
                        problem(d,
                                "Load the hdaps or tp_smapi kernel driver (tpacceld then uses "
                                "--backend=kernel), or "
                                "boot without lockdown (it follows Secure Boot on many distributions).",
                                "Kernel lockdown is \"%s\"", sys.lockdown);
        }
}

static void report_backend(Diagnosis *d, Report *rep)
{
        Context *c = d->c;
        HardwareState hardware_state = poller_hardware_state(&c->poller);
        const char *last_error = poller_last_error(&c->poller);
        char power[256] = "";

        report_section(rep, "backend", "Backend");
        report_str(rep, "name", "Backend:", c->backend ? backend_name(c->backend) : NULL);
        report_str(rep, "reason", "Why:", c->backend_reason);
        report_bool(rep, "has-accelerometer", "Accelerometer:", c->has_accelerometer);
        report_str(rep, "hardware-state", "Hardware state:", hardware_state_to_string(hardware_state));
        report_str(rep, "last-error", "Last error:", last_error);
        if (c->backend) {
                backend_describe_power(c->backend, power, sizeof(power));
                report_str(rep, "status", "Status:", power);
                report_str(rep, "model", "Model:",
                           c->backend->model && *c->backend->model ? c->backend->model : "unknown");
                report_num(rep, "axis-code", "Axis code in use:", backend_get_axis_code(c->backend), 0,
                           NULL);
        }
        if (!c->backend && !d->not_thinkpad)
                problem(d,
                        "Check the kernel modules, the ports owner and the lockdown above; send this report "
                        "to the issue tracker.",
                        "No backend could be opened: %s", strna(c->backend_reason));
        else if (c->has_accelerometer && hardware_state != HARDWARE_OK)
                problem(d,
                        "The EC failed while polling; tpacceld re-initializes it with a back-off. Send this "
                        "report with a port log to the issue tracker.",
                        "The hardware state is \"%s\": %s", hardware_state_to_string(hardware_state),
                        strna(last_error));
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
        report_fmt(rep, key, label, "failed: %s (%s)", strerror(-r), strerrorname_np(-r) ?: "?");
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

        report_section(rep, "ec", "EC answers (read-only requests)");
        if (!d->c->backend || !backend_has_ports(d->c->backend)) {
                report_str(rep, "available", "EC requests:",
                           d->c->backend ? "not with the kernel backend (the driver owns the EC)"
                                         : "no backend");
                return;
        }

        r = ec_request(d, EC_CMD_BATTERY_STATUS, -1, &data);
        if (r < 0)
                ec_failed(d, rep, "self-test", "Self-test (0x01):", "0x01 (self-test)", r);
        else
                report_fmt(rep, "self-test", "Self-test (0x01):", "ok, return code 0x%02x",
                           data.val[EC_IDX_RETVAL]);

        r = ec_request(d, EC_CMD_ACCEL_MODE, -1, &data);
        if (r < 0)
                ec_failed(d, rep, "mode-latch", "Mode latch (0x13):", "0x13 (mode latch)", r);
        else {
                uint8_t mode = data.val[EC_MODE_IDX_LATCH];
                report_fmt(rep, "mode-latch", "Mode latch (0x13):", "%u%s", mode,
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
                report_fmt(rep, "check", "Check (0x17/0x81):", "%02x %02x %02x",
                           data.val[EC_CHECK_IDX_FIRST], data.val[EC_CHECK_IDX_FIRST + 1],
                           data.val[EC_CHECK_IDX_FIRST + 2]);

        r = ec_request(d, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_GET_CONFIG, &data);
        if (r < 0)
                ec_failed(d, rep, "config", "Configuration (0x17/0x82):", "0x17/0x82 (configuration)", r);
        else {
                uint8_t st = data.val[EC_GETCFG_IDX_STATUS];
                unsigned rate = data.val[EC_GETCFG_IDX_RATE_LO] | (unsigned) data.val[EC_GETCFG_IDX_RATE_HI]
                                                                          << 8;
                report_fmt(rep, "config",
                           "Configuration (0x17/0x82):", "%s%s, EC rate %u Hz, filter order %u",
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

        report_section(rep, "readouts", "Readouts");
        if (!d->c->has_accelerometer) {
                report_str(rep, "taken", "Readouts:", "none (no accelerometer)");
                return;
        }
        report_fmt(rep, "configured", "Configured:", "%u Hz, oversampling %u, filter order %u",
                   cfg ? cfg->sampling_rate : 0, cfg ? cfg->oversampling_ratio : 0,
                   cfg ? cfg->filter_order : 0);
        report_num(rep, "wanted", "Readouts wanted:", d->wanted, 0, NULL);
        report_num(rep, "replies", "Readout replies:", d->replies, 0, NULL);
        report_num(rep, "rate-achieved-hz", "Rate achieved:", rate, 1, "Hz");
        report_num(rep, "older-readouts", "Older readouts in replies:", d->missed, 0,
                   "(the EC queued more than one)");
        report_num(rep, "queued-mean",
                   "Queued after a reply:", d->replies ? (double) d->queued_sum / d->replies : 0, 2,
                   "(mean)");
        report_num(rep, "queued-max", "Queued, most:", d->queued_max, 0, NULL);
        report_fmt(rep, "x", "x (counts):", "mean %.1f, sd %.2f, %d..%d", moments_mean(&d->x),
                   moments_sd(&d->x), d->x.min, d->x.max);
        report_fmt(rep, "y", "y (counts):", "mean %.1f, sd %.2f, %d..%d", moments_mean(&d->y),
                   moments_sd(&d->y), d->y.min, d->y.max);
        report_fmt(rep, "temperature", "Temperature (C):", "mean %.1f, sd %.2f",
                   moments_mean(&d->temperature), moments_sd(&d->temperature));
        report_num(rep, "busy", "Busy (no readout yet):", d->busy, 0, NULL);
        for (unsigned i = 0; i < DIAGNOSE_ERROR_KINDS && d->errors[i].error; i++) {
                _cleanup_free_ char *key =
                        strprintf("failed-%s", strerrorname_np(-d->errors[i].error) ?: "other");
                _cleanup_free_ char *label = strprintf("Failed (%s):", strerror(-d->errors[i].error));
                if (key && label)
                        report_num(rep, key, label, d->errors[i].count, 0, NULL);
                failed += d->errors[i].count;
        }
        report_num(rep, "failed", "Failed transactions:", failed, 0, NULL);

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
        report_section(rep, "tablet-mode", "Tablet-mode switch");
        if (d->c->tablet_mode) {
                report_str(rep, "device", "Device:", tablet_mode_device(d->c->tablet_mode));
                report_bool(rep, "tablet-mode", "Tablet mode:", tablet_mode_get(d->c->tablet_mode));
        } else
                report_str(rep, "device",
                           "Device:", "none (not a convertible, or thinkpad_acpi not loaded)");
}

static void report_problems(Diagnosis *d, Report *rep)
{
        ReportProblem problems[DIAGNOSE_PROBLEMS_MAX];

        for (unsigned i = 0; i < d->n_problems; i++)
                problems[i] = (ReportProblem) {d->problems[i].what, d->problems[i].next};
        report_problem_list(rep, problems, d->n_problems);
}

static void report_port_log(Diagnosis *d, Report *rep)
{
        const char *none = !d->c->backend || !backend_has_ports(d->c->backend) ? "none (no port backend)"
                           : !d->c->has_accelerometer                          ? "none (no readouts)"
                                                                               : "none captured";

        report_block(rep, "port-log",
                     d->captured_ok || !d->port_log ? "Port log of one readout"
                                                    : "Port log of one readout (failed)",
                     d->port_log, none);
}

int diagnosis_report(Diagnosis *d, const char *format, char **ret)
{
        _cleanup_free_ char *text = NULL;
        Report rep;
        time_t now = time(NULL);
        char date[64];
        struct tm tm;
        int r;

        if (!streq(format, DIAGNOSE_FORMAT_TEXT) && !streq(format, DIAGNOSE_FORMAT_JSON))
                return -EINVAL;
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        r = report_start(&rep, streq(format, DIAGNOSE_FORMAT_JSON), PACKAGE_VERSION, date);
        if (r < 0)
                return r;

        /* Problems are collected by the sections: drop those of an earlier report of the same run. */
        diagnosis_free_problems(d);
        d->oom = false;

        report_system(d, &rep);
        report_backend(d, &rep);
        report_ec(d, &rep);
        report_readouts(d, &rep);
        report_tablet(d, &rep);
        report_problems(d, &rep);
        report_port_log(d, &rep);

        r = report_finish(&rep, &text);
        if (r < 0)
                return r;
        if (d->oom)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return (int) d->n_problems;
}
