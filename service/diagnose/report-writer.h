/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The diagnosis report's writer: one emitter, two formats with the same content.
 *   text: a title line, then "Label: value" lines under "== Title ==" section headings;
 *   JSON: one object, a key per section holding an object; keys in kebab-case.
 * A string value NULL is JSON null ("-" in text); a number that is not finite (NaN, infinity) is JSON
 * null (printed as is in text). The writer only formats: it knows nothing of what is diagnosed. Output
 * goes to a memory buffer; a failed allocation is remembered and reported by report_finish(). */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macros.h"

typedef struct Report {
        FILE *f;
        char *buf;
        size_t size;
        bool json;
        bool first;      /* nothing written yet in the current JSON object */
        bool in_section; /* a section is open */
        bool oom;        /* an allocation failed: report_finish() returns -ENOMEM */
} Report;

/* One problem found and what to do next (both borrowed). */
typedef struct ReportProblem {
        const char *what, *next;
} ReportProblem;

/* Starts a report in JSON (json) or text with its title: JSON {"version": version, "date": date, ...,
 * text "tpaccel VERSION diagnosis, DATE". Returns 0 or -ENOMEM (then rep needs no report_finish()). */
int report_start(Report *rep, bool json, const char *version, const char *date);
/* Ends the report: *ret is the whole text (free it). Returns 0, or -ENOMEM when any write failed (then
 * *ret is untouched). Always releases rep's buffer. */
int report_finish(Report *rep, char **ret);

/* Opens a section (ending the one open): JSON key, or the text heading title. */
void report_section(Report *rep, const char *key, const char *title);

/* Items of the open section. key is the JSON key, label the text label (with its colon). */
void report_str(Report *rep, const char *key, const char *label, const char *value);
void report_fmt(Report *rep, const char *key, const char *label, const char *format, ...) _printf_(4, 5);
/* A number with decimals digits after the point; unit (NULL: none) follows it in text only. */
void report_num(Report *rep, const char *key, const char *label, double value, int decimals,
                const char *unit);
void report_bool(Report *rep, const char *key, const char *label, bool value);

/* Ends the open section, then writes the problems: JSON "problems": [{"problem", "next"}...], text a
 * "== Result ==" section with "PROBLEM: what.\n  Next: next" lines, or "No problem found.". */
void report_problem_list(Report *rep, const ReportProblem *problems, size_t n);

/* Ends the open section, then writes a block of lines (a log): JSON key: text or null; text a heading
 * "== title ==" followed by text as is, or by none and a newline when text is NULL. */
void report_block(Report *rep, const char *key, const char *title, const char *text, const char *none);
