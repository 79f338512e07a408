/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl monitor: claim the accelerometer (and watch for movement) and print its signals, one line
 * each, until Ctrl-C or until the service leaves the bus. */
#include <errno.h>
#include <stdio.h>

#include <glib-unix.h>

#include "accel-client.h"
#include "accel-words.h"
#include "accel-props.h"
#include "ctl.h"

typedef struct Monitor {
        Ctl *ctl;
        AccelClient *client; /* the proxy and the signals printed */
        GMainLoop *loop;
        ExitStatus status;
        char *orientation;
        gboolean claimed;
        gboolean watching_movement; /* holds a movement claim (ClaimMovement) */
        AccelStream *stream;        /* --samples: every readout (AcquireStream) */
        gboolean output_closed;     /* writing to stdout failed: the loop ends, nothing more is printed */
        guint output_watch;         /* ctl_watch_output_closed(); 0: none or fired */
} Monitor;

static void monitor_output_failed(Monitor *m, int r)
{
        m->output_closed = TRUE;
        if (r != -EPIPE) {
                fprintf(stderr, _("tpaccelctl: writing the output failed: %s\n"), g_strerror(-r));
                m->status = EXIT_STATUS_FAILURE;
        } else
                m->status = EXIT_STATUS_OK; /* the reader has what it wanted */
        if (m->loop)
                g_main_loop_quit(m->loop);
}

static void print_event(Monitor *m, const char *kind, const char *format, ...) G_GNUC_PRINTF(3, 4);

/* One line; when stdout fails the loop ends: quietly with EXIT_STATUS_OK when the reader went away
 * (EPIPE: "monitor | head -3"), with an error otherwise. Nothing more is written then. */
static void print_event(Monitor *m, const char *kind, const char *format, ...)
{
        g_autoptr(GDateTime) now = g_date_time_new_now_local();
        g_autofree char *stamp = g_date_time_format(now, "%H:%M:%S");
        g_autofree char *text = NULL;
        va_list ap;
        int r;

        if (m->output_closed)
                return;
        va_start(ap, format);
        text = g_strdup_vprintf(format, ap);
        va_end(ap);
        r = ctl_output_line(stdout, "%s.%03d  %-11s %s\n", stamp, g_date_time_get_microsecond(now) / 1000,
                            kind, text);
        if (r < 0)
                monitor_output_failed(m, r);
}

static void note_orientation(Monitor *m, const char *orientation)
{
        if (g_strcmp0(m->orientation, orientation) == 0)
                return;
        g_free(m->orientation);
        m->orientation = g_strdup(orientation);
        print_event(m, "orientation", "%s", orientation);
}

static void on_properties_changed(GDBusProxy *proxy, GVariant *changed, const char *const *invalidated,
                                  gpointer userdata)
{
        Monitor *m = userdata;
        const char *orientation;
        gboolean b;

        if (g_variant_lookup(changed, "Orientation", "&s", &orientation))
                note_orientation(m, orientation);
        if (g_variant_lookup(changed, "ShockActive", "b", &b))
                print_event(m, "shock", "%s", b ? _("active") : _("over"));
        if (g_variant_lookup(changed, "HasAccelerometer", "b", &b))
                print_event(m, "device", "%s", b ? _("accelerometer appeared") : _("accelerometer gone"));
        if (g_variant_lookup(changed, "Suspended", "b", &b))
                print_event(m, "power", "%s", b ? _("suspended") : _("resumed"));
        if (g_variant_lookup(changed, "Moving", "b", &b) && !b)
                print_event(m, "moving", "%s", _("over: at rest again"));
}

static void on_tilt(TpaccelAccelerometer *proxy, double pitch, double roll, const char *orientation,
                    gpointer userdata)
{
        print_event(userdata, "tilt", _("pitch %+6.1f°  roll %+6.1f°  %s"), accel_display_round(pitch, 1),
                    accel_display_round(roll, 1), orientation);
        note_orientation(userdata, orientation);
}

static void on_shock(TpaccelAccelerometer *proxy, double magnitude, guint64 time_usec, const char *reason,
                     gpointer userdata)
{
        print_event(userdata, "shock", "%.2f g (%s)", magnitude, accel_shock_reason_words(reason));
}

static void on_moved(TpaccelAccelerometer *proxy, guint64 time_usec, double strength, gpointer userdata)
{
        print_event(userdata, "moved", _("%.2f g from where it rested"), strength);
}

static void on_heads_parked(TpaccelAccelerometer *proxy, const char *const *disks, gboolean parked,
                            gpointer userdata)
{
        g_autofree char *list = disks[0] ? g_strjoinv(",", (char **) disks) : g_strdup(_("none"));

        print_event(userdata, parked ? "parked" : "unparked", "%s", list);
}

/* --samples: every readout, from the sample stream (AcquireStream; the Sample signal is decimated to 50
 * per second), with the record's flags. */
static void on_record(const AccelStreamRecord *r, gpointer userdata)
{
        Monitor *m = userdata;

        if (!r) {
                fprintf(stderr, _("tpaccelctl: tpacceld closed the sample stream; stopping\n"));
                m->status = EXIT_STATUS_NO_SERVICE;
                g_main_loop_quit(m->loop);
                return;
        }
        print_event(m, "sample", "x %5d  y %5d%s%s%s%s", r->x, r->y,
                    r->flags & ACCEL_STREAM_FLAG_KEYBOARD ? "  keyboard" : "",
                    r->flags & ACCEL_STREAM_FLAG_MOUSE ? "  mouse" : "",
                    r->flags & ACCEL_STREAM_FLAG_SHOCK_ACTIVE ? "  shock" : "",
                    r->flags & ACCEL_STREAM_FLAG_MISSED ? "  (missed one before)" : "");
}

static ExitStatus samples_start(Monitor *m)
{
        return ctl_acquire_stream(m->ctl, on_record, m, &m->stream);
}

static void samples_stop(Monitor *m)
{
        g_clear_pointer(&m->stream, accel_stream_free);
}

static void on_name_owner(GObject *proxy, GParamSpec *pspec, gpointer userdata)
{
        Monitor *m = userdata;
        g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(proxy));

        if (owner)
                return;
        fprintf(stderr, _("tpaccelctl: tpacceld left the %s; stopping\n"), m->ctl->bus_description);
        m->claimed = FALSE;
        m->status = EXIT_STATUS_NO_SERVICE;
        g_main_loop_quit(m->loop);
}

static gboolean on_output_closed(gpointer userdata)
{
        Monitor *m = userdata;

        m->output_watch = 0;
        monitor_output_failed(m, -EPIPE);
        return G_SOURCE_REMOVE;
}

static gboolean on_interrupt(gpointer userdata)
{
        Monitor *m = userdata;

        m->status = EXIT_STATUS_OK;
        g_main_loop_quit(m->loop);
        return G_SOURCE_CONTINUE;
}

/* Asks the service (starting it if need be, as every tpaccelctl command does) whether there is
 * something to monitor, before anything is announced. */
static ExitStatus check_accelerometer(Monitor *m)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) props = ctl_get_all(m->ctl, &error);
        gboolean has_accelerometer = FALSE;
        const char *reason = "";

        if (!props)
                return ctl_report_error(m->ctl, _("cannot read the accelerometer's properties"), error);
        (void) g_variant_lookup(props, "HasAccelerometer", "b", &has_accelerometer);
        if (!has_accelerometer) {
                (void) g_variant_lookup(props, "BackendReason", "&s", &reason);
                fprintf(stderr, _("tpaccelctl: nothing to monitor: %s\n"),
                        reason[0] ? reason : _("there is no accelerometer"));
                return EXIT_STATUS_NO_ACCELEROMETER;
        }
        return EXIT_STATUS_OK;
}

/* Makes the proxy and subscribes to what is printed: before claiming, so that nothing sent right after
 * the claim is missed. */
static ExitStatus follow_service(Monitor *m)
{
        g_autoptr(GError) error = NULL;
        AccelSignals signals =
                ACCEL_SIGNAL_TILT | ACCEL_SIGNAL_SHOCK | ACCEL_SIGNAL_HEADS_PARKED | ACCEL_SIGNAL_MOVED;
        TpaccelAccelerometer *proxy;

        m->client = accel_client_new_sync(m->ctl->bus, 0, &error);
        if (!m->client)
                return ctl_report_error(m->ctl, _("cannot read the accelerometer's properties"), error);
        proxy = accel_client_get_proxy(m->client);
        g_signal_connect(proxy, "tilt", G_CALLBACK(on_tilt), m);
        g_signal_connect(proxy, "shock", G_CALLBACK(on_shock), m);
        g_signal_connect(proxy, "heads-parked", G_CALLBACK(on_heads_parked), m);
        g_signal_connect(proxy, "moved", G_CALLBACK(on_moved), m);
        g_signal_connect(proxy, "g-properties-changed", G_CALLBACK(on_properties_changed), m);
        g_signal_connect(proxy, "notify::g-name-owner", G_CALLBACK(on_name_owner), m);
        accel_client_set_signals(m->client, signals);

        if (!accel_client_is_present(m->client)) { /* it left since check_accelerometer() */
                fprintf(stderr, _("tpaccelctl: tpacceld left the %s; stopping\n"), m->ctl->bus_description);
                return EXIT_STATUS_NO_SERVICE;
        }
        return m->ctl->samples ? samples_start(m) : EXIT_STATUS_OK;
}

/* Movement is watched while monitor runs (a movement claim), so that its Moved events show. A service
 * that cannot (an older one) only means no movement events: said once, monitor goes on. */
static void watch_movement(Monitor *m, gboolean on)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;

        if (on == m->watching_movement)
                return;
        reply = g_dbus_connection_call_sync(m->ctl->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE,
                                            on ? "ClaimMovement" : "ReleaseMovement", NULL,
                                            G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                            ACCEL_CALL_TIMEOUT_MS, /* cancellable= */ NULL, &error);
        if (reply)
                m->watching_movement = on;
        else if (on)
                fprintf(stderr, _("tpaccelctl: movement is not watched, no movement events: %s\n"),
                        error->message);
        else if (!accel_error_is_service_missing(error))
                fprintf(stderr, _("tpaccelctl: releasing the movement claim failed, ignoring: %s\n"),
                        error->message);
}

static void print_header(Monitor *m)
{
        TpaccelAccelerometer *proxy = accel_client_get_proxy(m->client);
        const char *model = tpaccel_accelerometer_get_model(proxy);
        const char *backend = tpaccel_accelerometer_get_backend(proxy);
        const char *orientation = tpaccel_accelerometer_get_orientation(proxy);

        if (!orientation)
                orientation = "undefined";
        int r = ctl_output_line(
                stdout, _("Monitoring %s (backend %s) at %u Hz, orientation %s. Press Ctrl-C to stop.\n"),
                model && model[0] ? model : _("an unknown model"),
                backend && backend[0] ? backend : _("none"), tpaccel_accelerometer_get_sampling_rate(proxy),
                orientation);
        if (r < 0)
                monitor_output_failed(m, r);
        m->orientation = g_strdup(orientation);
}

static void stop_following(Monitor *m)
{
        if (!m->client)
                return;
        samples_stop(m);
        g_signal_handlers_disconnect_by_data(accel_client_get_proxy(m->client), m);
        g_clear_pointer(&m->client, accel_client_free);
}

ExitStatus ctl_monitor(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GMainLoop) loop = NULL;
        Monitor m = {.ctl = ctl, .status = EXIT_STATUS_OK};
        guint sigint, sigterm;
        ExitStatus status;

        if (n_args > 0)
                return ctl_usage_error(_("monitor takes no arguments, got \"%s\""), args[0]);

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        /* Check, subscribe, claim, and only then announce. */
        status = check_accelerometer(&m);
        if (status == EXIT_STATUS_OK)
                status = follow_service(&m);
        if (status == EXIT_STATUS_OK)
                status = ctl_claim(ctl);
        if (status != EXIT_STATUS_OK) {
                stop_following(&m);
                return status;
        }
        m.claimed = TRUE;
        watch_movement(&m, TRUE);
        print_header(&m);

        loop = g_main_loop_new(NULL, FALSE);
        m.loop = loop;
        sigint = g_unix_signal_add(SIGINT, on_interrupt, &m);
        sigterm = g_unix_signal_add(SIGTERM, on_interrupt, &m);
        m.output_watch = ctl_watch_output_closed(on_output_closed, &m);

        if (!m.output_closed)
                g_main_loop_run(loop);

        g_source_remove(sigint);
        g_source_remove(sigterm);
        if (m.output_watch)
                g_source_remove(m.output_watch);
        stop_following(&m);

        if (m.claimed) {
                watch_movement(&m, FALSE);
                ctl_release(ctl);
        }
        if (m.status == EXIT_STATUS_OK && !m.output_closed)
                (void) ctl_output_line(stdout, _("Released the accelerometer.\n"));
        g_free(m.orientation);
        return m.status;
}
