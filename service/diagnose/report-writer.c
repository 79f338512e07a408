/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diagnosis report's text/JSON writer (report-writer.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "report-writer.h"

#define LABEL_WIDTH "27" /* text: values start in one column */

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

int report_start(Report *rep, bool json, const char *version, const char *date)
{
        *rep = (Report) {.json = json, .first = true};
        rep->f = open_memstream(&rep->buf, &rep->size);
        if (!rep->f)
                return -ENOMEM;
        if (json) {
                fputc('{', rep->f);
                json_key(rep, "version");
                json_string(rep->f, version);
                json_key(rep, "date");
                json_string(rep->f, date);
        } else
                fprintf(rep->f, "tpaccel %s diagnosis, %s\n", version, date);
        return 0;
}

int report_finish(Report *rep, char **ret)
{
        section_end(rep);
        if (rep->json)
                fputs("\n}\n", rep->f);
        if (fclose(rep->f) != 0)
                rep->oom = true;
        rep->f = NULL;
        if (rep->oom) {
                rep->buf = mfree(rep->buf);
                return -ENOMEM;
        }
        *ret = TAKE_PTR(rep->buf);
        return 0;
}

void report_section(Report *rep, const char *key, const char *title)
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

void report_str(Report *rep, const char *key, const char *label, const char *value)
{
        if (rep->json) {
                json_key(rep, key);
                if (value)
                        json_string(rep->f, value);
                else
                        fputs("null", rep->f);
        } else
                fprintf(rep->f, "%-" LABEL_WIDTH "s %s\n", label, value ?: "-");
}

void report_fmt(Report *rep, const char *key, const char *label, const char *format, ...)
{
        va_list ap;
        char *s = NULL;

        va_start(ap, format);
        if (vasprintf(&s, format, ap) < 0) {
                s = NULL;
                rep->oom = true;
        }
        va_end(ap);
        report_str(rep, key, label, s);
        free(s);
}

void report_num(Report *rep, const char *key, const char *label, double value, int decimals,
                const char *unit)
{
        if (rep->json) {
                json_key(rep, key);
                if (isfinite(value))
                        fprintf(rep->f, "%.*f", decimals, value);
                else
                        fputs("null", rep->f);
        } else
                fprintf(rep->f, "%-" LABEL_WIDTH "s %.*f%s%s\n", label, decimals, value, unit ? " " : "",
                        unit ?: "");
}

void report_bool(Report *rep, const char *key, const char *label, bool value)
{
        if (rep->json) {
                json_key(rep, key);
                fputs(value ? "true" : "false", rep->f);
        } else
                fprintf(rep->f, "%-" LABEL_WIDTH "s %s\n", label, value ? "yes" : "no");
}

void report_problem_list(Report *rep, const ReportProblem *problems, size_t n)
{
        section_end(rep);
        if (rep->json) {
                json_key(rep, "problems");
                fputc('[', rep->f);
                for (size_t i = 0; i < n; i++) {
                        fprintf(rep->f, "%s\n    {\"problem\": ", i ? "," : "");
                        json_string(rep->f, problems[i].what);
                        fputs(", \"next\": ", rep->f);
                        json_string(rep->f, problems[i].next);
                        fputc('}', rep->f);
                }
                fputs(n ? "\n  ]" : "]", rep->f);
                return;
        }
        fputs("\n== Result ==\n", rep->f);
        if (n == 0)
                fputs("No problem found.\n", rep->f);
        for (size_t i = 0; i < n; i++)
                fprintf(rep->f, "PROBLEM: %s.\n  Next: %s\n", problems[i].what, problems[i].next);
}

void report_block(Report *rep, const char *key, const char *title, const char *text, const char *none)
{
        section_end(rep);
        if (rep->json) {
                json_key(rep, key);
                if (text)
                        json_string(rep->f, text);
                else
                        fputs("null", rep->f);
                return;
        }
        fprintf(rep->f, "\n== %s ==\n%s%s", title, text ?: none, text ? "" : "\n");
}
