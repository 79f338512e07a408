/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl record FILE: claim the accelerometer and write every Sample into FILE in the emulator's
 * trace format (docs/EMULATOR.md: "time_ms,x,y,keyboard,mouse"), as raw counts before axis correction,
 * for --seconds=N or until Ctrl-C. The Sample signal carries axis-corrected counts; the axis code is a
 * bijection (swap, negate), so the raw counts are recovered exactly here with the AxisCode property,
 * followed live. keyboard/mouse are the KeyboardActivity/MouseActivity properties (activity within the
 * last 100 ms) at the time of the sample. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "config.h"
#include "accel-client.h"
#include "ctl.h"

/* The axis code bits, as service/hdaps/hdaps-models.h defines them (tp_smapi 0.33 scheme): the swap is
 * applied first, then bit 0 negates both axes, then bit 1 negates X. */
#define AXIS_SWAP        0x4
#define AXIS_NEGATE_BOTH 0x1
#define AXIS_NEGATE_X    0x2
#define AXIS_CODE_MAX    7

#define RECORD_SECONDS_MAX (24u * 3600u)

typedef struct Recorder {
        Ctl *ctl;
        AccelClient *client; /* the proxy (AxisCode, activity) and the Sample signal */
        GMainLoop *loop;
        FILE *out;
        ExitStatus status;
        guint32 axis_code;
        gboolean keyboard, mouse;
        gboolean have_first;
        guint64 first_usec, last_usec;
        guint64 rows;
        gboolean live;      /* stdout is a terminal: one line kept up to date */
        gboolean to_stdout; /* FILE is "-": the trace goes to stdout, the messages to stderr */
        guint output_watch; /* ctl_watch_output_closed() while recording to stdout; 0: none or fired */
        int write_errno;
} Recorder;

/* Undoes hdaps_axes_transform(): corrected (x, y) back to the hardware readout. */
static void axes_untransform(unsigned code, int x, int y, int *ret_hw_x, int *ret_hw_y)
{
        if (code & AXIS_NEGATE_X)
                x = -x;
        if (code & AXIS_NEGATE_BOTH) {
                x = -x;
                y = -y;
        }
        if (code & AXIS_SWAP) {
                int t = x;
                x = y;
                y = t;
        }
        *ret_hw_x = x;
        *ret_hw_y = y;
}

static void on_properties_changed(GDBusProxy *proxy, GVariant *changed, const char *const *invalidated,
                                  gpointer userdata)
{
        Recorder *rec = userdata;
        guint32 code;

        if (g_variant_lookup(changed, "AxisCode", "u", &code) && code <= AXIS_CODE_MAX) {
                if (code != rec->axis_code && rec->out)
                        fprintf(rec->out, "# axis code changed to %u at %.3f ms\n", code,
                                rec->have_first ? (double) (rec->last_usec - rec->first_usec) / 1000.0
                                                : 0.0);
                rec->axis_code = code;
        }
        (void) g_variant_lookup(changed, "KeyboardActivity", "b", &rec->keyboard);
        (void) g_variant_lookup(changed, "MouseActivity", "b", &rec->mouse);
}

static void on_sample(Recorder *rec, guint64 usec, int x, int y)
{
        int hw_x, hw_y;

        if (!rec->have_first) {
                rec->first_usec = usec;
                rec->have_first = TRUE;
        } else if (usec <= rec->last_usec)
                return; /* the trace format needs increasing times */
        rec->last_usec = usec;
        axes_untransform(rec->axis_code, x, y, &hw_x, &hw_y);
        if (rec->write_errno)
                return;
        errno = 0;
        if (fprintf(rec->out, "%.3f,%d,%d,%d,%d\n", (double) (usec - rec->first_usec) / 1000.0, hw_x, hw_y,
                    rec->keyboard ? 1 : 0, rec->mouse ? 1 : 0) < 0 ||
            (rec->to_stdout && fflush(rec->out) != 0)) {
                rec->write_errno = errno ?: EIO;
                /* To stdout, a reader that went away ("record - | head") ends the recording: exit 0. */
                rec->status =
                        rec->to_stdout && rec->write_errno == EPIPE ? EXIT_STATUS_OK : EXIT_STATUS_FAILURE;
                g_main_loop_quit(rec->loop);
                return;
        }
        rec->rows++;
        if (rec->live && rec->rows % 5 == 1) {
                printf("\r%8.1f s  x %6d  y %6d  %7llu readouts", (double) (usec - rec->first_usec) / 1e6,
                       hw_x, hw_y, (unsigned long long) rec->rows);
                fflush(stdout);
        }
}

static void on_sample_signal(TpaccelAccelerometer *proxy, guint64 time_usec, gint x, gint y,
                             gpointer userdata)
{
        on_sample(userdata, time_usec, x, y);
}

static void on_name_owner(GObject *proxy, GParamSpec *pspec, gpointer userdata)
{
        Recorder *rec = userdata;
        g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(proxy));

        if (owner || rec->status == EXIT_STATUS_NO_SERVICE)
                return;
        fprintf(stderr, _("%stpaccelctl: tpacceld left the %s; the recording ends here\n"),
                rec->live ? "\n" : "", rec->ctl->bus_description);
        rec->status = EXIT_STATUS_NO_SERVICE;
        g_main_loop_quit(rec->loop);
}

/* Makes the proxy and subscribes to Sample, after check_accelerometer() started the service: the
 * header then comes from properties the proxy keeps up to date from its GetAll on. NULL and the
 * error reported in *ret_status on failure. */
static GVariant *follow_service(Recorder *rec, ExitStatus *ret_status)
{
        g_autoptr(GError) error = NULL;
        TpaccelAccelerometer *proxy;

        rec->client = accel_client_new_sync(rec->ctl->bus, ACCEL_SIGNAL_SAMPLE, &error);
        if (!rec->client) {
                *ret_status =
                        ctl_report_error(rec->ctl, _("cannot read the accelerometer's properties"), error);
                return NULL;
        }
        proxy = accel_client_get_proxy(rec->client);
        g_signal_connect(proxy, "sample", G_CALLBACK(on_sample_signal), rec);
        g_signal_connect(proxy, "g-properties-changed", G_CALLBACK(on_properties_changed), rec);
        g_signal_connect(proxy, "notify::g-name-owner", G_CALLBACK(on_name_owner), rec);
        if (!accel_client_is_present(rec->client)) { /* it left since check_accelerometer() */
                fprintf(stderr, _("%stpaccelctl: tpacceld left the %s; the recording ends here\n"), "",
                        rec->ctl->bus_description);
                *ret_status = EXIT_STATUS_NO_SERVICE;
                return NULL;
        }
        return accel_client_dup_properties(rec->client);
}

static void stop_following(Recorder *rec)
{
        if (!rec->client)
                return;
        g_signal_handlers_disconnect_by_data(accel_client_get_proxy(rec->client), rec);
        g_clear_pointer(&rec->client, accel_client_free);
}

static gboolean on_output_closed(gpointer userdata)
{
        Recorder *rec = userdata;

        rec->output_watch = 0;
        rec->write_errno = EPIPE; /* the reader of "record -" went away: the recording ends, exit 0 */
        g_main_loop_quit(rec->loop);
        return G_SOURCE_REMOVE;
}

static gboolean on_stop(gpointer userdata)
{
        Recorder *rec = userdata;

        g_main_loop_quit(rec->loop);
        return G_SOURCE_CONTINUE;
}

/* The header: comments naming what was recorded (model, axis code, rate, date), then the column line. */
static ExitStatus write_header(Recorder *rec, GVariant *props)
{
        g_autoptr(GDateTime) now = g_date_time_new_now_utc();
        g_autofree char *date = g_date_time_format_iso8601(now);
        const char *model = "", *backend = "";
        guint32 rate = 0, ratio = 0, order = 0;
        gboolean invert = FALSE;

        (void) g_variant_lookup(props, "Model", "&s", &model);
        (void) g_variant_lookup(props, "Backend", "&s", &backend);
        (void) g_variant_lookup(props, "SamplingRate", "u", &rate);
        (void) g_variant_lookup(props, "OversamplingRatio", "u", &ratio);
        (void) g_variant_lookup(props, "FilterOrder", "u", &order);
        (void) g_variant_lookup(props, "AxisCode", "u", &rec->axis_code);
        (void) g_variant_lookup(props, "Invert", "b", &invert);
        (void) g_variant_lookup(props, "KeyboardActivity", "b", &rec->keyboard);
        (void) g_variant_lookup(props, "MouseActivity", "b", &rec->mouse);
        if (rec->axis_code > AXIS_CODE_MAX)
                rec->axis_code = 0;

        fprintf(rec->out,
                "# RECORDING made by tpaccelctl %s record on %s; not synthetic.\n"
                "# model: %s\n"
                "# backend: %s\n"
                "# axis code %u (invert %s): the x,y columns are raw counts before axis correction\n"
                "# rate %u Hz, oversampling %u, EC filter order %u; keyboard/mouse: activity within 100 ms\n"
                "# scenario: (describe what the machine did, e.g. \"on a desk, typing\"; see "
                "docs/REPORTING.md)\n",
                PACKAGE_VERSION, date, model[0] ? model : "unknown", backend[0] ? backend : "none",
                rec->axis_code, invert ? "yes" : "no", rate, ratio, order);
        fprintf(rec->out, "time_ms,x,y,keyboard,mouse\n");
        return EXIT_STATUS_OK;
}

static ExitStatus parse_args(Ctl *ctl, char **args, int n_args, const char **ret_path)
{
        if (n_args < 1)
                return ctl_usage_error(_("record needs a FILE to write"));
        if (n_args > 1)
                return ctl_usage_error(_("record takes one FILE, got \"%s\" too"), args[1]);
        if (ctl->seconds > RECORD_SECONDS_MAX)
                return ctl_usage_error(_("--seconds: at most %u"), RECORD_SECONDS_MAX);
        *ret_path = args[0];
        return EXIT_STATUS_OK;
}

/* Creates path for writing; an existing file is never overwritten. */
static ExitStatus open_output(const char *path, FILE **ret)
{
        int fd;
        FILE *f;

        if (g_str_equal(path, "-")) {
                *ret = stdout;
                return EXIT_STATUS_OK;
        }
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

        if (fd < 0) {
                fprintf(stderr, _("tpaccelctl: cannot create %s: %s%s\n"), path, g_strerror(errno),
                        errno == EEXIST ? _(" (an existing file is never overwritten; choose another name)")
                                        : "");
                return errno == EEXIST ? EXIT_STATUS_USAGE : EXIT_STATUS_FAILURE;
        }
        f = fdopen(fd, "w");
        if (!f) {
                fprintf(stderr, _("tpaccelctl: cannot write %s: %s\n"), path, g_strerror(errno));
                close(fd);
                (void) unlink(path);
                return EXIT_STATUS_FAILURE;
        }
        *ret = f;
        return EXIT_STATUS_OK;
}

ExitStatus ctl_record(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) props = NULL;
        g_autoptr(GMainLoop) loop = NULL;
        Recorder rec = {.ctl = ctl, .status = EXIT_STATUS_OK};
        guint sigint, sigterm, timer = 0;
        const char *path = NULL, *shown;
        FILE *msg;
        ExitStatus status;

        status = parse_args(ctl, args, n_args, &path);
        if (status != EXIT_STATUS_OK)
                return status;
        rec.to_stdout = g_str_equal(path, "-");
        rec.live = !rec.to_stdout && isatty(STDOUT_FILENO);
        msg = rec.to_stdout ? stderr : stdout;
        shown = rec.to_stdout ? _("standard output") : path;
        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        /* Ask the service (starting it if need be), then follow it. */
        props = ctl_get_all(ctl, &error);
        if (!props)
                status = ctl_report_error(ctl, _("cannot read the accelerometer's properties"), error);
        else {
                gboolean has = FALSE;
                (void) g_variant_lookup(props, "HasAccelerometer", "b", &has);
                if (!has) {
                        fprintf(stderr, _("tpaccelctl: there is no accelerometer to record; "
                                          "run \"tpaccelctl diagnose\" to see why\n"));
                        status = EXIT_STATUS_NO_ACCELEROMETER;
                }
        }
        if (status == EXIT_STATUS_OK) {
                g_variant_unref(props);
                props = follow_service(&rec, &status);
        }
        if (status == EXIT_STATUS_OK)
                status = open_output(path, &rec.out);
        if (status == EXIT_STATUS_OK)
                status = write_header(&rec, props);
        if (status == EXIT_STATUS_OK)
                status = ctl_claim(ctl);
        if (status != EXIT_STATUS_OK) {
                stop_following(&rec);
                if (rec.out && !rec.to_stdout) {
                        fclose(rec.out);
                        (void) unlink(path);
                }
                return status;
        }

        if (ctl->seconds > 0)
                fprintf(msg, _("Recording to %s for %u s.\n"), shown, ctl->seconds);
        else
                fprintf(msg, _("Recording to %s. Press Ctrl-C to stop.\n"), shown);

        loop = g_main_loop_new(NULL, FALSE);
        rec.loop = loop;
        sigint = g_unix_signal_add(SIGINT, on_stop, &rec);
        sigterm = g_unix_signal_add(SIGTERM, on_stop, &rec);
        if (ctl->seconds > 0)
                timer = g_timeout_add_seconds(ctl->seconds, on_stop, &rec);
        if (rec.to_stdout)
                rec.output_watch = ctl_watch_output_closed(on_output_closed, &rec);

        g_main_loop_run(loop);

        if (timer)
                g_source_remove(timer);
        g_source_remove(sigint);
        g_source_remove(sigterm);
        if (rec.output_watch)
                g_source_remove(rec.output_watch);
        stop_following(&rec);

        if (rec.status != EXIT_STATUS_NO_SERVICE)
                ctl_release(ctl);
        if (rec.live)
                printf("\n");
        if ((rec.to_stdout ? fflush(rec.out) : fclose(rec.out)) != 0 && !rec.write_errno)
                rec.write_errno = errno ?: EIO;
        if (rec.to_stdout && rec.write_errno == EPIPE)
                return EXIT_STATUS_OK; /* the reader has what it wanted */
        if (rec.write_errno) {
                fprintf(stderr, _("tpaccelctl: writing %s failed: %s; the recording is incomplete\n"), shown,
                        g_strerror(rec.write_errno));
                return EXIT_STATUS_FAILURE;
        }
        fprintf(msg, _("Recorded %llu readouts over %.1f s into %s.\n"), (unsigned long long) rec.rows,
                rec.rows ? (double) (rec.last_usec - rec.first_usec) / 1e6 : 0.0, shown);
        return rec.status;
}
