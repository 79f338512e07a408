/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl set, calibrate and pause: the polkit-guarded methods. Quiet on success. */
#include <stdio.h>

#include "accel-props.h"
#include "ctl.h"

#define ACTION_CONFIGURE "org.thinkpad.accelerometer.configure"
#define ACTION_CALIBRATE "org.thinkpad.accelerometer.calibrate"

static ExitStatus call_accel_method(Ctl *ctl, const char *method, GVariant *params, const char *action,
                                    const char *context)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;
        ExitStatus status;

        status = ctl_connect(ctl);
        if (status != EXIT_STATUS_OK) {
                if (params)
                        g_variant_unref(g_variant_ref_sink(params));
                return status;
        }

        ctl_polkit_agent_open(ctl, action);
        reply = ctl_call(ctl, ACCEL_OBJECT, ACCEL_INTERFACE, method, params, G_VARIANT_TYPE("()"), &error);
        ctl_polkit_agent_close(ctl);
        if (!reply)
                return ctl_report_error(ctl, context, error);
        return EXIT_STATUS_OK;
}

ExitStatus ctl_set(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autofree char *context = NULL;
        const AccelProperty *prop;
        GVariant *params;

        if (n_args < 1)
                return ctl_usage_error(_("set needs a KEY and a VALUE (see 'tpaccelctl set --help')"));
        prop = accel_property_by_key(args[0]);
        if (!prop)
                return ctl_usage_error(_("unknown key \"%s\" (see 'tpaccelctl set --help' for the keys)"),
                                       args[0]);
        if (!prop->set_method)
                return ctl_usage_error(
                        _("%s is read-only; settable keys are listed by 'tpaccelctl set --help'"),
                        prop->key);
        if (n_args < 2)
                return ctl_usage_error(_("set %s needs a VALUE"), prop->key);

        params = accel_property_parse(prop, args + 1, n_args - 1, &error);
        if (!params)
                return ctl_usage_error("%s", error->message);

        context = g_strdup_printf(_("cannot set %s"), prop->key);
        return call_accel_method(ctl, prop->set_method, params, ACTION_CONFIGURE, context);
}

ExitStatus ctl_calibrate(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;
        g_autoptr(GVariant) rest = NULL;
        ExitStatus status;
        gint32 x, y;

        if (n_args > 0)
                return ctl_usage_error(_("calibrate takes no arguments, got \"%s\""), args[0]);

        status = call_accel_method(ctl, "Calibrate", NULL, ACTION_CALIBRATE, _("cannot calibrate"));
        if (status != EXIT_STATUS_OK)
                return status;

        reply = ctl_call(ctl, ACCEL_OBJECT, "org.freedesktop.DBus.Properties", "Get",
                         g_variant_new("(ss)", ACCEL_INTERFACE, "RestPosition"), G_VARIANT_TYPE("(v)"),
                         &error);
        if (!reply)
                return ctl_report_error(ctl, _("calibrated, but cannot read the new rest position"), error);
        g_variant_get(reply, "(v)", &rest);
        if (!g_variant_is_of_type(rest, G_VARIANT_TYPE("(ii)"))) {
                fprintf(stderr, _("tpaccelctl: calibrated, but RestPosition has type %s\n"),
                        g_variant_get_type_string(rest));
                return EXIT_STATUS_FAILURE;
        }
        g_variant_get(rest, "(ii)", &x, &y);
        printf(_("Rest position: %d %d\n"), x, y);
        return EXIT_STATUS_OK;
}

/* A pause of nothing is made (it applies to disks protected later in the pause), but the user likely
 * thought some were protected: say so. */
static void note_no_protected_disks(Ctl *ctl)
{
        g_autoptr(GVariant) props = ctl_get_all(ctl, NULL);
        g_autofree const char **disks = NULL;

        if (props && g_variant_lookup(props, "ProtectedDisks", "^a&s", &disks) && !disks[0])
                fprintf(stderr, _("tpaccelctl: note: no disks are protected (tpaccelctl set protected-disks "
                                  "sda), so there is nothing to pause now\n"));
}

ExitStatus ctl_pause(Ctl *ctl, char **args, int n_args)
{
        guint64 seconds;
        g_autoptr(GError) error = NULL;
        ExitStatus status;

        if (n_args != 1)
                return ctl_usage_error(
                        _("pause takes exactly one argument, SECONDS (0 resumes protection)"));
        if (!g_ascii_string_to_unsigned(args[0], 10, 0, G_MAXUINT32, &seconds, &error))
                return ctl_usage_error(_("pause: \"%s\" is not a number of seconds"), args[0]);

        status = call_accel_method(ctl, "Pause", g_variant_new("(u)", (guint32) seconds), ACTION_CONFIGURE,
                                   _("cannot pause disk protection"));
        if (status == EXIT_STATUS_OK && seconds > 0)
                note_no_protected_disks(ctl);
        return status;
}
