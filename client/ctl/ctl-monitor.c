/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl monitor: claim the accelerometer and print its signals, one line each, until Ctrl-C or
 * until the service leaves the bus. */
#include <stdio.h>

#include <glib-unix.h>

#include "ctl.h"

typedef struct Monitor {
        Ctl *ctl;
        GMainLoop *loop;
        ExitStatus status;
        char *orientation;
        gboolean claimed;
} Monitor;

static void print_event(const char *kind, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void print_event(const char *kind, const char *format, ...)
{
        g_autoptr(GDateTime) now = g_date_time_new_now_local();
        g_autofree char *stamp = g_date_time_format(now, "%H:%M:%S");
        g_autofree char *text = NULL;
        va_list ap;

        va_start(ap, format);
        text = g_strdup_vprintf(format, ap);
        va_end(ap);
        printf("%s.%03d  %-11s %s\n", stamp, g_date_time_get_microsecond(now) / 1000, kind, text);
}

static void note_orientation(Monitor *m, const char *orientation)
{
        if (g_strcmp0(m->orientation, orientation) == 0)
                return;
        g_free(m->orientation);
        m->orientation = g_strdup(orientation);
        print_event("orientation", "%s", orientation);
}

static void on_properties_changed(Monitor *m, GVariant *params)
{
        g_autoptr(GVariant) changed = NULL;
        const char *orientation;
        gboolean b;

        g_variant_get(params, "(&s@a{sv}@as)", NULL, &changed, NULL);
        if (g_variant_lookup(changed, "Orientation", "&s", &orientation))
                note_orientation(m, orientation);
        if (g_variant_lookup(changed, "ShockActive", "b", &b))
                print_event("shock", "%s", b ? _("active") : _("over"));
        if (g_variant_lookup(changed, "HasAccelerometer", "b", &b))
                print_event("device", "%s", b ? _("accelerometer appeared") : _("accelerometer gone"));
        if (g_variant_lookup(changed, "Suspended", "b", &b))
                print_event("power", "%s", b ? _("suspended") : _("resumed"));
}

static void on_signal(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                      const char *member, GVariant *params, gpointer userdata)
{
        Monitor *m = userdata;

        if (g_str_equal(member, "Sample") && g_variant_is_of_type(params, G_VARIANT_TYPE("(tii)"))) {
                guint64 usec;
                gint32 x, y;
                g_variant_get(params, "(tii)", &usec, &x, &y);
                print_event("sample", "x %5d  y %5d", x, y);
        } else if (g_str_equal(member, "Tilt") && g_variant_is_of_type(params, G_VARIANT_TYPE("(dds)"))) {
                double pitch, roll;
                const char *orientation;
                g_variant_get(params, "(dd&s)", &pitch, &roll, &orientation);
                print_event("tilt", _("pitch %+6.1f°  roll %+6.1f°  %s"), pitch, roll, orientation);
                note_orientation(m, orientation);
        } else if (g_str_equal(member, "Shock") && g_variant_is_of_type(params, G_VARIANT_TYPE("(dts)"))) {
                double magnitude;
                guint64 usec;
                const char *reason;
                g_variant_get(params, "(dt&s)", &magnitude, &usec, &reason);
                print_event("shock", "%.2f g (%s)", magnitude, reason);
        } else if (g_str_equal(member, "HeadsParked") &&
                   g_variant_is_of_type(params, G_VARIANT_TYPE("(asb)"))) {
                g_autofree const char **disks = NULL;
                g_autofree char *list = NULL;
                gboolean parked;
                g_variant_get(params, "(^a&sb)", &disks, &parked);
                list = disks[0] ? g_strjoinv(",", (char **) disks) : g_strdup(_("none"));
                print_event(parked ? "parked" : "unparked", "%s", list);
        } else if (g_str_equal(member, "PropertiesChanged") &&
                   g_variant_is_of_type(params, G_VARIANT_TYPE("(sa{sv}as)")))
                on_properties_changed(m, params);
}

static void on_name_vanished(GDBusConnection *bus, const char *name, gpointer userdata)
{
        Monitor *m = userdata;

        fprintf(stderr, _("tpaccelctl: tpacceld left the %s; stopping\n"), m->ctl->bus_description);
        m->claimed = FALSE;
        m->status = EXIT_STATUS_NO_SERVICE;
        g_main_loop_quit(m->loop);
}

static gboolean on_interrupt(gpointer userdata)
{
        Monitor *m = userdata;

        m->status = EXIT_STATUS_OK;
        g_main_loop_quit(m->loop);
        return G_SOURCE_CONTINUE;
}

/* Reads the properties and checks there is something to monitor, before anything is announced. */
static ExitStatus check_accelerometer(Monitor *m, GVariant **ret_props)
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
        *ret_props = g_steal_pointer(&props);
        return EXIT_STATUS_OK;
}

static void print_header(Monitor *m, GVariant *props)
{
        const char *model = "", *backend = "", *orientation = "undefined";
        guint32 rate = 0;

        (void) g_variant_lookup(props, "Model", "&s", &model);
        (void) g_variant_lookup(props, "Backend", "&s", &backend);
        (void) g_variant_lookup(props, "SamplingRate", "u", &rate);
        (void) g_variant_lookup(props, "Orientation", "&s", &orientation);
        printf(_("Monitoring %s (backend %s) at %u Hz, orientation %s. Press Ctrl-C to stop.\n"),
               model[0] ? model : _("an unknown model"), backend[0] ? backend : _("none"), rate,
               orientation);
        m->orientation = g_strdup(orientation);
}

static void unsubscribe_all(GDBusConnection *bus, const guint *ids, size_t n_ids, guint props_id)
{
        for (size_t i = 0; i < n_ids; i++)
                if (ids[i] != 0)
                        g_dbus_connection_signal_unsubscribe(bus, ids[i]);
        g_dbus_connection_signal_unsubscribe(bus, props_id);
}

ExitStatus ctl_monitor(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GMainLoop) loop = NULL;
        g_autoptr(GVariant) props = NULL;
        Monitor m = {.ctl = ctl, .status = EXIT_STATUS_OK};
        static const char *const members[] = {"Tilt", "Shock", "HeadsParked", "Sample"};
        guint subscriptions[G_N_ELEMENTS(members)] = {0};
        guint props_subscription, watch, sigint, sigterm;
        ExitStatus status;

        if (n_args > 0)
                return ctl_usage_error(_("monitor takes no arguments, got \"%s\""), args[0]);

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK)
                return status;

        /* Subscribe before claiming so that nothing sent right after the claim is missed. */
        for (size_t i = 0; i < G_N_ELEMENTS(members); i++) {
                if (g_str_equal(members[i], "Sample") && !ctl->samples)
                        continue;
                subscriptions[i] = g_dbus_connection_signal_subscribe(
                        ctl->bus, ACCEL_BUS_NAME, ACCEL_INTERFACE, members[i], ACCEL_OBJECT,
                        /* arg0= */ NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_signal, &m, NULL);
        }
        props_subscription = ctl_subscribe_properties_changed(ctl, on_signal, &m);

        /* Check, claim, and only then announce. */
        status = check_accelerometer(&m, &props);
        if (status == EXIT_STATUS_OK)
                status = ctl_claim(ctl);
        if (status != EXIT_STATUS_OK) {
                unsubscribe_all(ctl->bus, subscriptions, G_N_ELEMENTS(subscriptions), props_subscription);
                return status;
        }
        m.claimed = TRUE;
        print_header(&m, props);

        loop = g_main_loop_new(NULL, FALSE);
        m.loop = loop;
        watch = g_bus_watch_name_on_connection(ctl->bus, ACCEL_BUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                               /* name_appeared= */ NULL, on_name_vanished, &m, NULL);
        sigint = g_unix_signal_add(SIGINT, on_interrupt, &m);
        sigterm = g_unix_signal_add(SIGTERM, on_interrupt, &m);

        g_main_loop_run(loop);

        g_source_remove(sigint);
        g_source_remove(sigterm);
        g_bus_unwatch_name(watch);
        unsubscribe_all(ctl->bus, subscriptions, G_N_ELEMENTS(subscriptions), props_subscription);

        if (m.claimed)
                ctl_release(ctl);
        if (m.status == EXIT_STATUS_OK)
                printf(_("Released the accelerometer.\n"));
        g_free(m.orientation);
        return m.status;
}
