/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl record FILE: write every readout into FILE in the emulator's trace format
 * (docs/EMULATOR.md: "time_ms,x,y,keyboard,mouse"), as raw counts before axis correction, for
 * --seconds=N or until Ctrl-C. The readouts come from the sample stream (accel-stream.h; the Sample
 * signal is decimated to 50 per second), whose holding is the claim at the full SamplingRate. Its
 * records carry axis-corrected counts; the axis code is a bijection (swap, negate), so the raw counts
 * are recovered exactly here with the AxisCode property, followed live. keyboard/mouse are the
 * record's activity flags, as the EC set them in that readout (what the emulator replays). --seconds=N
 * counts the records' own time from the first one, so the file holds N s of readouts. */
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
/* --seconds=N ends at N s of readouts; if they have not covered that N + this many seconds after the
 * start (the EC stopped answering, the machine slept), the recording ends anyway. */
#define RECORD_GRACE_SECONDS 2u
#define LIVE_INTERVAL_USEC   100000u /* the live line's update, in readout time */

typedef struct Recorder {
        Ctl *ctl;
        AccelClient *client; /* the proxy: AxisCode, SamplingRate, the service leaving */
        AccelStream *stream; /* every readout (AcquireStream); holding it is the claim */
        GMainLoop *loop;
        FILE *out;
        ExitStatus status;
        guint32 axis_code, rate;
        gboolean have_first;
        guint64 first_usec, last_usec, shown_usec;
        guint64 limit_usec; /* --seconds=N in readout time; 0: until Ctrl-C */
        gboolean complete;  /* the readouts covered limit_usec */
        gboolean timed_out; /* they had not, RECORD_GRACE_SECONDS past --seconds */
        guint64 rows;
        guint64 gaps;       /* records flagged ACCEL_STREAM_FLAG_MISSED: readouts missed before them */
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
        double at_ms = rec->have_first ? (double) (rec->last_usec - rec->first_usec) / 1000.0 : 0.0;
        guint32 code, rate;

        if (g_variant_lookup(changed, "AxisCode", "u", &code) && code <= AXIS_CODE_MAX) {
                if (code != rec->axis_code && rec->out)
                        fprintf(rec->out, "# axis code changed to %u at %.3f ms\n", code, at_ms);
                rec->axis_code = code;
        }
        if (g_variant_lookup(changed, "SamplingRate", "u", &rate)) {
                if (rate != rec->rate && rec->out)
                        fprintf(rec->out, "# rate changed to %u Hz at %.3f ms\n", rate, at_ms);
                rec->rate = rate;
        }
}

/* The service left or closed the stream: the recording ends here (once, whichever is seen first).
 * format takes the live line's break, then may take the bus's description. */
static void service_gone(Recorder *rec, const char *format)
{
        if (rec->status == EXIT_STATUS_NO_SERVICE)
                return;
        fprintf(stderr, format, rec->live ? "\n" : "", rec->ctl->bus_description);
        rec->status = EXIT_STATUS_NO_SERVICE;
        if (rec->loop)
                g_main_loop_quit(rec->loop);
}

static void on_record(const AccelStreamRecord *r, gpointer userdata)
{
        Recorder *rec = userdata;
        guint64 usec;
        int hw_x, hw_y;
        int n;

        if (!r) {
                service_gone(rec, _("%stpaccelctl: tpacceld closed the sample stream; the recording ends "
                                    "here\n"));
                return;
        }
        if (rec->complete || rec->write_errno)
                return; /* the loop is ending; what is still queued is past the end */
        usec = r->time_usec;
        if (!rec->have_first) {
                rec->first_usec = usec;
                rec->have_first = TRUE;
        } else if (usec <= rec->last_usec)
                return; /* the trace format needs increasing times */
        if (rec->limit_usec && usec - rec->first_usec >= rec->limit_usec) {
                rec->complete = TRUE; /* N s of readouts are in: this one is the first past them */
                g_main_loop_quit(rec->loop);
                return;
        }
        rec->last_usec = usec;
        axes_untransform(rec->axis_code, r->x, r->y, &hw_x, &hw_y);
        errno = 0;
        n = 0;
        if (r->flags & ACCEL_STREAM_FLAG_MISSED) {
                rec->gaps++;
                n = fprintf(rec->out, "# readouts were missed before the next row\n");
        }
        if (n < 0 ||
            fprintf(rec->out, "%.3f,%d,%d,%d,%d\n", (double) (usec - rec->first_usec) / 1000.0, hw_x, hw_y,
                    r->flags & ACCEL_STREAM_FLAG_KEYBOARD ? 1 : 0,
                    r->flags & ACCEL_STREAM_FLAG_MOUSE ? 1 : 0) < 0 ||
            (rec->to_stdout && fflush(rec->out) != 0)) {
                rec->write_errno = errno ?: EIO;
                /* To stdout, a reader that went away ("record - | head") ends the recording: exit 0. */
                rec->status =
                        rec->to_stdout && rec->write_errno == EPIPE ? EXIT_STATUS_OK : EXIT_STATUS_FAILURE;
                g_main_loop_quit(rec->loop);
                return;
        }
        rec->rows++;
        if (rec->live && (rec->rows == 1 || usec - rec->shown_usec >= LIVE_INTERVAL_USEC)) {
                rec->shown_usec = usec;
                printf("\r%8.1f s  x %6d  y %6d  %7llu readouts", (double) (usec - rec->first_usec) / 1e6,
                       hw_x, hw_y, (unsigned long long) rec->rows);
                fflush(stdout);
        }
}

static void on_name_owner(GObject *proxy, GParamSpec *pspec, gpointer userdata)
{
        Recorder *rec = userdata;
        g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(proxy));

        if (!owner)
                service_gone(rec, _("%stpaccelctl: tpacceld left the %s; the recording ends here\n"));
}

/* Makes the proxy, after ctl_record() asked (and so started) the service: the header then comes from
 * properties the proxy keeps up to date from its GetAll on. NULL and the error reported in *ret_status
 * on failure. */
static GVariant *follow_service(Recorder *rec, ExitStatus *ret_status)
{
        g_autoptr(GError) error = NULL;
        TpaccelAccelerometer *proxy;

        rec->client = accel_client_new_sync(rec->ctl->bus, 0, &error);
        if (!rec->client) {
                *ret_status =
                        ctl_report_error(rec->ctl, _("cannot read the accelerometer's properties"), error);
                return NULL;
        }
        proxy = accel_client_get_proxy(rec->client);
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
        g_clear_pointer(&rec->stream, accel_stream_free); /* releases the claim */
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

static gboolean on_deadline(gpointer userdata)
{
        Recorder *rec = userdata;

        rec->timed_out = TRUE;
        g_main_loop_quit(rec->loop);
        return G_SOURCE_CONTINUE; /* removed by ctl_record() */
}

/* The header: comments naming what was recorded (model, axis code, rate, date), then the column line. */
static ExitStatus write_header(Recorder *rec, GVariant *props)
{
        g_autoptr(GDateTime) now = g_date_time_new_now_utc();
        g_autofree char *date = g_date_time_format_iso8601(now);
        const char *model = "", *backend = "";
        guint32 ratio = 0, order = 0;
        gboolean invert = FALSE;

        (void) g_variant_lookup(props, "Model", "&s", &model);
        (void) g_variant_lookup(props, "Backend", "&s", &backend);
        (void) g_variant_lookup(props, "SamplingRate", "u", &rec->rate);
        (void) g_variant_lookup(props, "OversamplingRatio", "u", &ratio);
        (void) g_variant_lookup(props, "FilterOrder", "u", &order);
        (void) g_variant_lookup(props, "AxisCode", "u", &rec->axis_code);
        (void) g_variant_lookup(props, "Invert", "b", &invert);
        if (rec->axis_code > AXIS_CODE_MAX)
                rec->axis_code = 0;

        fprintf(rec->out,
                "# RECORDING made by tpaccelctl %s record on %s; not synthetic.\n"
                "# model: %s\n"
                "# backend: %s\n"
                "# axis code %u (invert %s): the x,y columns are raw counts before axis correction\n"
                "# rate %u Hz (every readout), oversampling %u, EC filter order %u\n"
                "# keyboard/mouse: the EC's activity flags in each readout\n"
                "# scenario: (describe what the machine did, e.g. \"on a desk, typing\"; see "
                "docs/REPORTING.md)\n",
                PACKAGE_VERSION, date, model[0] ? model : "unknown", backend[0] ? backend : "none",
                rec->axis_code, invert ? "yes" : "no", rec->rate, ratio, order);
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
                status = ctl_acquire_stream(ctl, on_record, &rec, &rec.stream); /* the claim */
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
        rec.limit_usec = (guint64) ctl->seconds * G_USEC_PER_SEC;
        if (ctl->seconds > 0) /* the readouts' time ends it; this only if they stop coming */
                timer = g_timeout_add_seconds(ctl->seconds + RECORD_GRACE_SECONDS, on_deadline, &rec);
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

        if (rec.live)
                printf("\n");
        if (rec.gaps && !rec.write_errno)
                fprintf(rec.out, "# readouts were missed before %llu of the rows\n",
                        (unsigned long long) rec.gaps);
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
        if (rec.gaps)
                fprintf(stderr,
                        ngettext(
                                "tpaccelctl: readouts were missed before %llu row (the EC was busy, or "
                                "tpacceld or tpaccelctl fell behind); a comment in the file marks the gap\n",
                                "tpaccelctl: readouts were missed before %llu rows (the EC was busy, or "
                                "tpacceld or tpaccelctl fell behind); comments in the file mark the gaps\n",
                                rec.gaps),
                        (unsigned long long) rec.gaps);
        if (rec.timed_out)
                fprintf(stderr, _("tpaccelctl: the readouts stopped coming before they covered %u s\n"),
                        ctl->seconds);
        return rec.status;
}
