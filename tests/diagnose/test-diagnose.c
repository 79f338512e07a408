/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diagnosis report's parts on their own: the text/JSON writer (report-writer.h: escaping, null for a
 * missing string and for a number that is not finite, the sections, problems and block) and the system
 * checks on a fake sysroot (system-checks.h: kernel modules, lockdown, DMI). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-writer.h"
#include "system-checks.h"
#include "test-helpers.h"

static char root[] = "/tmp/tpaccel-diagnose-XXXXXX";

static void write_file(const char *rel, const char *content)
{
        test_write_file(root, rel, content, strlen(content));
}

static char *write_report(bool json)
{
        static const ReportProblem problems[] = {{"It \"broke\"", "Fix it"}, {"Again", "Report it"}};
        Report rep;
        char *text = NULL;

        CHECK_EQ(report_start(&rep, json, "1.2", "2026-01-02T03:04:05Z"), 0);
        report_section(&rep, "numbers", "Numbers");
        report_num(&rep, "nan", "NaN:", NAN, 1, "Hz");
        report_num(&rep, "inf", "Infinity:", INFINITY, 0, NULL);
        report_num(&rep, "rate", "Rate:", 24.96, 1, "Hz");
        report_section(&rep, "strings", "Strings");
        report_str(&rep, "none", "None:", NULL);
        report_str(&rep, "escaped", "Escaped:", "a\"b\\c\nd\te\x7f");
        report_fmt(&rep, "formatted", "Formatted:", "%u of %u", 3u, 4u);
        report_bool(&rep, "yes", "Yes:", true);
        report_problem_list(&rep, problems, ELEMENTSOF(problems));
        report_block(&rep, "log", "Log", NULL, "none captured");
        CHECK_EQ(report_finish(&rep, &text), 0);
        return text;
}

TEST(test_json)
{
        char *text = write_report(true);

        CHECK_STREQ(text, "{\n"
                          "  \"version\": \"1.2\",\n"
                          "  \"date\": \"2026-01-02T03:04:05Z\",\n"
                          "  \"numbers\": {\n"
                          "    \"nan\": null,\n"
                          "    \"inf\": null,\n"
                          "    \"rate\": 25.0\n"
                          "  },\n"
                          "  \"strings\": {\n"
                          "    \"none\": null,\n"
                          "    \"escaped\": \"a\\\"b\\\\c\\nd\\u0009e\\u007f\",\n"
                          "    \"formatted\": \"3 of 4\",\n"
                          "    \"yes\": true\n"
                          "  },\n"
                          "  \"problems\": [\n"
                          "    {\"problem\": \"It \\\"broke\\\"\", \"next\": \"Fix it\"},\n"
                          "    {\"problem\": \"Again\", \"next\": \"Report it\"}\n"
                          "  ],\n"
                          "  \"log\": null\n"
                          "}\n");
        free(text);
}

TEST(test_text)
{
        char *text = write_report(false);

        CHECK_STREQ(text, "tpaccel 1.2 diagnosis, 2026-01-02T03:04:05Z\n"
                          "\n== Numbers ==\n"
                          "NaN:                        nan Hz\n"
                          "Infinity:                   inf\n"
                          "Rate:                       25.0 Hz\n"
                          "\n== Strings ==\n"
                          "None:                       -\n"
                          "Escaped:                    a\"b\\c\nd\te\x7f\n"
                          "Formatted:                  3 of 4\n"
                          "Yes:                        yes\n"
                          "\n== Result ==\n"
                          "PROBLEM: It \"broke\".\n  Next: Fix it\n"
                          "PROBLEM: Again.\n  Next: Report it\n"
                          "\n== Log ==\nnone captured\n");
        free(text);
}

TEST(test_empty_problems_and_block)
{
        Report rep;
        char *text = NULL;

        CHECK_EQ(report_start(&rep, true, "1", "d"), 0);
        report_problem_list(&rep, NULL, 0);
        report_block(&rep, "log", "Log", "a,b\n", "none");
        CHECK_EQ(report_finish(&rep, &text), 0);
        CHECK_STREQ(text, "{\n  \"version\": \"1\",\n  \"date\": \"d\",\n  \"problems\": [],\n"
                          "  \"log\": \"a,b\\n\"\n}\n");
        free(text);

        CHECK_EQ(report_start(&rep, false, "1", "d"), 0);
        report_problem_list(&rep, NULL, 0);
        report_block(&rep, "log", "Log", "a,b\n", "none");
        CHECK_EQ(report_finish(&rep, &text), 0);
        CHECK_STREQ(text, "tpaccel 1 diagnosis, d\n\n== Result ==\nNo problem found.\n\n== Log ==\na,b\n");
        free(text);
}

TEST(test_system_checks)
{
        SystemChecks s;

        /* An empty tree: nothing known, nothing loaded, no lockdown LSM. */
        CHECK_EQ(system_checks_read(root, &s), 0);
        CHECK(s.dmi.board_vendor == NULL);
        CHECK(!s.probe_allowed);
        CHECK(s.probe_reason != NULL);
        CHECK(s.model == NULL);
        CHECK(s.modules == NULL);
        CHECK(s.lockdown == NULL);
        CHECK(!s.lockdown_forbids_ports);
        system_checks_done(&s);

        write_file("sys/class/dmi/id/board_vendor", "LENOVO\n");
        write_file("sys/class/dmi/id/product_version", "ThinkPad T60\n");
        write_file("sys/module/thinkpad_acpi/uevent", "");
        write_file("sys/module/hdaps/uevent", "");
        write_file("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
        CHECK_EQ(system_checks_read(root, &s), 0);
        CHECK_STREQ(s.dmi.board_vendor, "LENOVO");
        CHECK(s.probe_allowed);
        CHECK(s.model != NULL);
        CHECK_STREQ(s.modules, "hdaps thinkpad_acpi"); /* in the table's order */
        CHECK_STREQ(s.lockdown, "integrity");
        CHECK(s.lockdown_forbids_ports);
        system_checks_done(&s);

        write_file("sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
        CHECK_EQ(system_checks_read(root, &s), 0);
        CHECK_STREQ(s.lockdown, "none");
        CHECK(!s.lockdown_forbids_ports);
        system_checks_done(&s);
}

int main(void)
{
        test_scratch_make(root);
        RUN(test_json);
        RUN(test_text);
        RUN(test_empty_problems_and_block);
        RUN(test_system_checks);
        test_scratch_remove(root);
        return test_summary();
}
