/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccelctl diagnose [--json]: prints the diagnosis report. With tpacceld running, it asks the daemon
 * (org.thinkpad.Accelerometer.Diagnose, open to everyone); without it, as root, it runs the same checks
 * with "tpacceld --diagnose" (which takes the EC lock like the daemon). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <unistd.h>

#include "config.h"
#include "ctl.h"

/* Tests point this at the build tree's tpacceld; normally the installed one. */
#define TPACCELD_PATH_ENV "TPACCELCTL_TPACCELD"

/* Replaces tpaccelctl with tpacceld --diagnose; returns only on failure. */
static ExitStatus exec_tpacceld(Ctl *ctl)
{
        const char *path = g_getenv(TPACCELD_PATH_ENV) ?: TPACCELD_PATH;
        g_autofree char *format = g_strdup_printf("--diagnose=%s", ctl->json ? "json" : "text");
        char *argv[] = {(char *) path, format, NULL};

        fprintf(stderr,
                _("tpaccelctl: tpacceld is not running on the %s; running the checks with %s --diagnose\n"),
                ctl->bus_description, path);
        fflush(stdout);
        execv(path, argv);
        fprintf(stderr, _("tpaccelctl: cannot run %s: %s\n"), path, g_strerror(errno));
        return EXIT_STATUS_FAILURE;
}

static ExitStatus no_service(Ctl *ctl, const char *why)
{
        if (geteuid() == 0)
                return exec_tpacceld(ctl);
        fprintf(stderr,
                _("tpaccelctl: %s; run \"tpaccelctl diagnose\" as root to run the checks without the "
                  "service "
                  "(they need root for the EC ports)\n"),
                why);
        return EXIT_STATUS_NO_SERVICE;
}

/* Whether the report lists a problem: a "PROBLEM: " line in the text, a non-empty "problems" array
 * in JSON (tpacceld writes "[]" for none). The exit status then says so to scripts. A JSON report that
 * does not parse counts as one. */
static gboolean report_names_a_problem(const char *report, gboolean json)
{
        g_autoptr(JsonParser) parser = NULL;
        JsonNode *root, *problems;

        if (!json)
                return g_str_has_prefix(report, "PROBLEM: ") || strstr(report, "\nPROBLEM: ");
        parser = json_parser_new();
        if (!json_parser_load_from_data(parser, report, -1, NULL))
                return TRUE;
        root = json_parser_get_root(parser);
        if (!root || !JSON_NODE_HOLDS_OBJECT(root))
                return TRUE;
        problems = json_object_get_member(json_node_get_object(root), "problems");
        return problems && JSON_NODE_HOLDS_ARRAY(problems) &&
               json_array_get_length(json_node_get_array(problems)) > 0;
}

ExitStatus ctl_diagnose(Ctl *ctl, char **args, int n_args)
{
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;
        g_autofree char *why = NULL;
        const char *report;

        if (n_args > 0)
                return ctl_usage_error(_("diagnose takes no arguments, got \"%s\""), args[0]);

        ctl->bus = accel_bus_connect(ctl->target, ctl->address, &error);
        if (!ctl->bus) {
                why = g_strdup_printf(_("cannot connect to the %s: %s"), ctl->bus_description,
                                      error->message);
                return no_service(ctl, why);
        }
        reply = ctl_call(ctl, ACCEL_OBJECT, ACCEL_INTERFACE, "Diagnose",
                         g_variant_new("(s)", ctl->json ? "json" : "text"), G_VARIANT_TYPE("(s)"), &error);
        if (!reply) {
                if (accel_error_is_service_missing(error)) {
                        why = accel_error_describe(error, ctl->bus_description);
                        return no_service(ctl, why);
                }
                return ctl_report_error(ctl, _("the diagnosis failed"), error);
        }
        g_variant_get(reply, "(&s)", &report);
        fputs(report, stdout);
        return report_names_a_problem(report, ctl->json) ? EXIT_STATUS_FAILURE : EXIT_STATUS_OK;
}
