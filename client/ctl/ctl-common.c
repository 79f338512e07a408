/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib-unix.h>

#include "ctl.h"

ExitStatus ctl_connect(Ctl *ctl)
{
        g_autoptr(GError) error = NULL;

        if (ctl->bus)
                return EXIT_STATUS_OK;

        ctl->bus = accel_bus_connect(ctl->target, ctl->address, &error);
        if (!ctl->bus) {
                g_autofree char *hint = accel_no_bus_hint(ctl->target, ctl->address);
                fprintf(stderr, _("tpaccelctl: cannot connect to the %s: %s\n"), ctl->bus_description,
                        error->message);
                fprintf(stderr, "tpaccelctl: %s\n", hint);
                return EXIT_STATUS_NO_SERVICE;
        }
        return EXIT_STATUS_OK;
}

GVariant *ctl_call(Ctl *ctl, const char *object, const char *interface, const char *method, GVariant *params,
                   const GVariantType *reply_type, GError **error)
{
        GDBusCallFlags flags = ctl->ask_password ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                                 : G_DBUS_CALL_FLAGS_NONE;

        return g_dbus_connection_call_sync(ctl->bus, ACCEL_BUS_NAME, object, interface, method, params,
                                           reply_type, flags, ACCEL_CALL_TIMEOUT_MS, /* cancellable= */ NULL,
                                           error);
}

GVariant *ctl_get_all(Ctl *ctl, GError **error)
{
        g_autoptr(GVariant) reply = NULL;
        GVariant *props;

        reply = ctl_call(ctl, ACCEL_OBJECT, "org.freedesktop.DBus.Properties", "GetAll",
                         g_variant_new("(s)", ACCEL_INTERFACE), G_VARIANT_TYPE("(a{sv})"), error);
        if (!reply)
                return NULL;
        g_variant_get(reply, "(@a{sv})", &props);
        return props;
}

ExitStatus ctl_claim(Ctl *ctl)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;

        reply = ctl_call(ctl, ACCEL_OBJECT, ACCEL_INTERFACE, "Claim", NULL, G_VARIANT_TYPE("()"), &error);
        if (!reply)
                return ctl_report_error(ctl, _("cannot claim the accelerometer"), error);
        return EXIT_STATUS_OK;
}

void ctl_release(Ctl *ctl)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;

        /* Never starts the service: a new instance holds no claim of ours. When the service is gone its
         * claims went with it: nothing to say. */
        reply = g_dbus_connection_call_sync(ctl->bus, ACCEL_BUS_NAME, ACCEL_OBJECT, ACCEL_INTERFACE,
                                            "Release", NULL, G_VARIANT_TYPE("()"),
                                            G_DBUS_CALL_FLAGS_NO_AUTO_START, ACCEL_CALL_TIMEOUT_MS,
                                            /* cancellable= */ NULL, &error);
        if (!reply && !accel_error_is_service_missing(error))
                fprintf(stderr, _("tpaccelctl: releasing the accelerometer failed, ignoring: %s\n"),
                        error->message);
}

ExitStatus ctl_acquire_stream(Ctl *ctl, AccelStreamFunc func, gpointer userdata, AccelStream **ret)
{
        g_autoptr(GError) error = NULL;

        *ret = accel_stream_acquire(ctl->bus, func, userdata, &error);
        if (!*ret)
                return ctl_report_error(ctl, _("cannot open the sample stream"), error);
        return EXIT_STATUS_OK;
}

/* Whether logind runs on the bus: without it there are no login sessions, and polkit does not ask
 * the terminal's agent for a caller outside a session (it finds no session to ask in). */
static gboolean have_logind(Ctl *ctl)
{
        g_autoptr(GVariant) reply = NULL;
        gboolean has = FALSE;

        if (!ctl->bus)
                return TRUE; /* unknown: do not claim otherwise */
        reply = g_dbus_connection_call_sync(ctl->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus", "NameHasOwner",
                                            g_variant_new("(s)", "org.freedesktop.login1"),
                                            G_VARIANT_TYPE("(b)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
        if (!reply)
                return TRUE;
        g_variant_get(reply, "(b)", &has);
        return has;
}

/* How to get authorized, when polkit refused or had nobody to ask for a password. */
static void print_polkit_hint(Ctl *ctl, const GError *error)
{
        g_autofree char *name = g_dbus_error_get_remote_error(error);
        const char *action = ctl->polkit_action;

        if (!action || geteuid() == 0)
                return;
        if (ctl->polkit_agent_ran && !have_logind(ctl) &&
            (g_strcmp0(name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0 ||
             g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))) {
                /* pkttyagent ran, but polkit never asked it: there is no login session to ask in. */
                fprintf(stderr,
                        _("tpaccelctl: polkit cannot ask for a password here: there is no login session "
                          "(logind is not running), so polkit does not use the terminal's agent. Run the "
                          "command as root (e.g. su -c 'tpaccelctl ...'), or allow the action %s with a "
                          "polkit rule (see tpaccelctl(1))\n"),
                        action);
                return;
        }
        if (g_strcmp0(name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0) {
                if (!ctl->ask_password)
                        fprintf(stderr,
                                _("tpaccelctl: polkit wants a password; leave out --no-ask-password to "
                                  "be asked for it on the terminal\n"));
                else if (isatty(STDIN_FILENO) && !ctl->polkit_agent_ran)
                        fprintf(stderr,
                                _("tpaccelctl: polkit wants a password and there is no agent to ask for it "
                                  "(pkttyagent, polkit's terminal agent, is not installed); run the command "
                                  "as root, or allow the action %s with a polkit rule (see "
                                  "tpaccelctl(1))\n"),
                                action);
                else
                        fprintf(stderr,
                                _("tpaccelctl: polkit wants a password and there is no agent to ask for it; "
                                  "run "
                                  "tpaccelctl in a terminal, run it as root, or allow the action %s with a "
                                  "polkit rule (see tpaccelctl(1))\n"),
                                action);
        } else if (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
                fprintf(stderr,
                        _("tpaccelctl: to be allowed, run it as root or allow the action %s with a polkit "
                          "rule "
                          "(see tpaccelctl(1))\n"),
                        action);
}

ExitStatus ctl_report_error(Ctl *ctl, const char *context, const GError *error)
{
        g_autofree char *words = accel_error_describe(error, ctl->bus_description);

        if (accel_error_is_service_missing(error)) {
                g_autofree char *hint = accel_service_missing_hint(ctl->target, ctl->address);
                fprintf(stderr, "tpaccelctl: %s; %s\n", words, hint);
        } else {
                fprintf(stderr, "tpaccelctl: %s: %s\n", context, words);
                print_polkit_hint(ctl, error);
        }
        return accel_error_exit_status(error);
}

ExitStatus ctl_usage_error(const char *format, ...)
{
        va_list ap;
        g_autofree char *message = NULL;

        va_start(ap, format);
        message = g_strdup_vprintf(format, ap);
        va_end(ap);
        fprintf(stderr, _("tpaccelctl: %s\nTry 'tpaccelctl --help' for more information.\n"), message);
        return EXIT_STATUS_USAGE;
}

int ctl_output_line(FILE *out, const char *format, ...)
{
        va_list ap;
        int n;

        clearerr(out); /* errno then comes from this write */
        errno = 0;
        va_start(ap, format);
        n = vfprintf(out, format, ap);
        va_end(ap);
        if (n < 0 || fflush(out) != 0)
                return -(errno ?: EIO);
        return 0;
}

typedef struct OutputWatch {
        GSourceFunc on_closed;
        gpointer userdata;
} OutputWatch;

static gboolean on_output_error(int fd, GIOCondition condition, gpointer userdata)
{
        OutputWatch *w = userdata;

        w->on_closed(w->userdata);
        return G_SOURCE_REMOVE;
}

guint ctl_watch_output_closed(GSourceFunc on_closed, gpointer userdata)
{
        struct stat st;
        OutputWatch *w;

        if (fstat(STDOUT_FILENO, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
                return 0;
        w = g_new(OutputWatch, 1);
        *w = (OutputWatch) {.on_closed = on_closed, .userdata = userdata};
        /* No event asked for: poll() reports POLLERR on a pipe's write end once the reader closed it. */
        return g_unix_fd_add_full(G_PRIORITY_DEFAULT, STDOUT_FILENO, G_IO_ERR, on_output_error, w, g_free);
}
