/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Motion trace files: a strict CSV parser that accepts any bytes and names the first problem with
 * "NAME:LINE: reason", plus interpolated sampling. The format is documented in docs/EMULATOR.md. A reason
 * names the column and what is wrong with it, never the file's text: --trace=FILE opens whatever file
 * its caller names, as root a secret too, and the error goes to the terminal and the log. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trace.h"
#include "strutil.h"

#define TRACE_HEADER           "time_ms,x,y,keyboard,mouse"
#define TRACE_COLUMNS          5
#define TRACE_LINE_MAX         256      /* characters per line, without the line break */
#define TRACE_ROWS_MAX         1000000u /* about 5.5 hours at 50 Hz */
#define TRACE_FILE_MAX         (64u * 1024u * 1024u)
#define TRACE_TIME_INT_DIGITS  10 /* time_ms below 10^10 ms (about 115 days) */
#define TRACE_TIME_FRAC_DIGITS 6
#define TRACE_VALUE_MIN        (-32768)
#define TRACE_VALUE_MAX        32767

#define TRACE_GROW_MIN 4096u /* bytes, the first step when a file does not tell its size (a pipe) */

Trace *trace_free(Trace *t)
{
        if (!t)
                return NULL;
        free(t->rows);
        free(t->name);
        free(t);
        return NULL;
}

typedef struct Field {
        const char *s;
        size_t len;
} Field;

/* Splits a line at commas. Returns the number of fields (may exceed max: then only max are stored). */
static size_t split_fields(const char *line, size_t len, Field *fields, size_t max)
{
        size_t n = 0, start = 0;

        for (size_t i = 0; i <= len; i++) {
                if (i < len && line[i] != ',')
                        continue;
                if (n < max)
                        fields[n] = (Field) {.s = line + start, .len = i - start};
                n++;
                start = i + 1;
        }
        return n;
}

static bool field_equals(const Field *f, const char *s)
{
        return f->len == strlen(s) && memcmp(f->s, s, f->len) == 0;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* Parses a non-negative decimal number "DIGITS[.DIGITS]". Returns 0 or -EINVAL (malformed) or
 * -ERANGE (too many digits). */
static int parse_time(const Field *f, double *ret)
{
        size_t i = 0, int_digits = 0, frac_digits = 0;
        double v = 0, scale = 1;

        for (; i < f->len && is_digit(f->s[i]); i++, int_digits++)
                v = v * 10 + (f->s[i] - '0');
        if (int_digits == 0)
                return -EINVAL;
        if (i < f->len && f->s[i] == '.') {
                for (i++; i < f->len && is_digit(f->s[i]); i++, frac_digits++) {
                        scale /= 10;
                        v += (f->s[i] - '0') * scale;
                }
                if (frac_digits == 0)
                        return -EINVAL;
        }
        if (i != f->len)
                return -EINVAL;
        if (int_digits > TRACE_TIME_INT_DIGITS || frac_digits > TRACE_TIME_FRAC_DIGITS)
                return -ERANGE;
        *ret = v;
        return 0;
}

/* Parses "[-]DIGITS" into [min, max]. Returns 0, -EINVAL (not an integer) or -ERANGE. */
static int parse_int(const Field *f, long min, long max, int *ret)
{
        size_t i = 0;
        bool negative = false;
        long v = 0;

        if (f->len > 0 && f->s[0] == '-') {
                negative = true;
                i = 1;
        }
        if (i == f->len)
                return -EINVAL;
        for (; i < f->len; i++) {
                if (!is_digit(f->s[i]))
                        return -EINVAL;
                if (v <= max + 1L) /* stop growing once out of range; keep checking the syntax */
                        v = v * 10 + (f->s[i] - '0');
        }
        if (negative)
                v = -v;
        if (v < min || v > max)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

static int parse_flag(const Field *f, bool *ret)
{
        if (field_equals(f, "0"))
                *ret = false;
        else if (field_equals(f, "1"))
                *ret = true;
        else
                return -EINVAL;
        return 0;
}

static bool looks_like_data(const Field *f)
{
        double unused;
        return parse_time(f, &unused) >= 0;
}

/* The header's columns, or an error naming the first one that differs (not what it holds). */
static int check_header(const Field *fields, size_t n, const char *name, unsigned line_no, char **ret_error)
{
        static const char *const columns[TRACE_COLUMNS] = {"time_ms", "x", "y", "keyboard", "mouse"};

        for (size_t i = 0; i < MIN(n, (size_t) TRACE_COLUMNS); i++)
                if (!field_equals(&fields[i], columns[i]))
                        return error_printf_at(
                                ret_error, -EINVAL, name, line_no,
                                "wrong header: column %zu is not '%s' (expected '" TRACE_HEADER "')", i + 1,
                                columns[i]);
        if (n != TRACE_COLUMNS)
                return error_printf_at(ret_error, -EINVAL, name, line_no,
                                       "wrong header: %zu columns (expected '" TRACE_HEADER "')", n);
        return 0;
}

static int parse_row(const Field *fields, const char *name, unsigned line_no, TraceRow *row,
                     char **ret_error)
{
        static const char *const axis_names[] = {"x", "y"};
        static const char *const flag_names[] = {"keyboard", "mouse"};
        int r, axis[2];
        bool flag[2];

        r = parse_time(&fields[0], &row->time_ms);
        if (r == -ERANGE)
                return error_printf_at(
                        ret_error, -EINVAL, name, line_no,
                        "time_ms has too many digits (at most %d before and %d after the point)",
                        TRACE_TIME_INT_DIGITS, TRACE_TIME_FRAC_DIGITS);
        if (r < 0)
                return error_printf_at(ret_error, -EINVAL, name, line_no,
                                       "time_ms is not a non-negative number (digits, at most one point)");

        for (unsigned i = 0; i < 2; i++) {
                const Field *f = &fields[1 + i];
                r = parse_int(f, TRACE_VALUE_MIN, TRACE_VALUE_MAX, &axis[i]);
                if (r == -ERANGE)
                        return error_printf_at(ret_error, -EINVAL, name, line_no,
                                               "%s is out of range (%d..%d)", axis_names[i], TRACE_VALUE_MIN,
                                               TRACE_VALUE_MAX);
                if (r < 0)
                        return error_printf_at(ret_error, -EINVAL, name, line_no, "%s is not an integer",
                                               axis_names[i]);
        }
        for (unsigned i = 0; i < 2; i++) {
                const Field *f = &fields[3 + i];
                if (parse_flag(f, &flag[i]) < 0)
                        return error_printf_at(ret_error, -EINVAL, name, line_no, "%s is not 0 or 1",
                                               flag_names[i]);
        }

        row->x = axis[0];
        row->y = axis[1];
        row->keyboard = flag[0];
        row->mouse = flag[1];
        return 0;
}

static int append_row(Trace *t, size_t *allocated, const TraceRow *row)
{
        if (t->n_rows == *allocated) {
                size_t n = *allocated ? *allocated * 2 : 64;
                TraceRow *rows = reallocarray(t->rows, n, sizeof(TraceRow));
                if (!rows)
                        return -ENOMEM;
                t->rows = rows;
                *allocated = n;
        }
        t->rows[t->n_rows++] = *row;
        return 0;
}

int trace_parse(const char *text, size_t len, const char *name, Trace **ret, char **ret_error)
{
        _cleanup_(trace_freep) Trace *t = NULL;
        size_t allocated = 0, pos = 0;
        unsigned line_no = 0;
        bool have_header = false;
        int r;

        assert(text || len == 0);
        assert(ret);

        if (!name)
                name = "trace";
        if (ret_error)
                *ret_error = NULL;

        t = calloc(1, sizeof(Trace));
        if (!t)
                return -ENOMEM;
        t->name = strdup(name);
        if (!t->name)
                return -ENOMEM;

        if (len == 0)
                return error_printf_at(ret_error, -EINVAL, name, 1, "empty file");

        while (pos < len) {
                const char *line = text + pos;
                const char *nl = memchr(line, '\n', len - pos);
                size_t line_len = nl ? (size_t) (nl - line) : len - pos;
                Field fields[TRACE_COLUMNS];
                TraceRow row;
                size_t n;

                pos += line_len + (nl ? 1 : 0);
                line_no++;
                if (line_len > 0 && line[line_len - 1] == '\r')
                        line_len--;
                if (line_len > TRACE_LINE_MAX)
                        return error_printf_at(ret_error, -EINVAL, name, line_no,
                                               "line too long (more than %d characters)", TRACE_LINE_MAX);
                if (line_len == 0 || line[0] == '#')
                        continue;

                n = split_fields(line, line_len, fields, TRACE_COLUMNS);
                if (!have_header) {
                        if (looks_like_data(&fields[0]))
                                return error_printf_at(ret_error, -EINVAL, name, line_no,
                                                       "missing header (expected '" TRACE_HEADER "')");
                        r = check_header(fields, n, name, line_no, ret_error);
                        if (r < 0)
                                return r;
                        have_header = true;
                        continue;
                }

                if (n != TRACE_COLUMNS)
                        return error_printf_at(ret_error, -EINVAL, name, line_no,
                                               "expected %d columns, got %zu", TRACE_COLUMNS, n);
                r = parse_row(fields, name, line_no, &row, ret_error);
                if (r < 0)
                        return r;
                if (t->n_rows > 0 && !(row.time_ms > t->rows[t->n_rows - 1].time_ms))
                        return error_printf_at(
                                ret_error, -EINVAL, name, line_no,
                                "time_ms is not after the previous row's (times must increase)");
                if (t->n_rows >= TRACE_ROWS_MAX)
                        return error_printf_at(ret_error, -EINVAL, name, line_no,
                                               "too many rows (at most %u)", TRACE_ROWS_MAX);
                r = append_row(t, &allocated, &row);
                if (r < 0)
                        return r;
        }

        if (!have_header)
                return error_printf_at(ret_error, -EINVAL, name, MAX(line_no, 1u),
                                       "missing header (expected '" TRACE_HEADER "')");
        if (t->n_rows == 0)
                return error_printf_at(ret_error, -EINVAL, name, line_no, "no data rows");

        *ret = TAKE_PTR(t);
        return 0;
}

int trace_load(const char *path, Trace **ret, char **ret_error)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0;

        assert(path);
        assert(ret);

        if (ret_error)
                *ret_error = NULL;

#define LOAD_FAIL(err)                                                                                      \
        ({                                                                                                  \
                int _e = (err);                                                                             \
                if (ret_error && asprintf(ret_error, "%s: %s", path, strerror(-_e)) < 0)                    \
                        *ret_error = NULL;                                                                  \
                _e;                                                                                         \
        })

        /* O_NONBLOCK: a FIFO (or a device) must not block start-up in open(); only regular files are
         * read. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return LOAD_FAIL(-errno);
        if (fstat(fd, &st) < 0)
                return LOAD_FAIL(-errno);
        if (S_ISDIR(st.st_mode))
                return LOAD_FAIL(-EISDIR);
        if (!S_ISREG(st.st_mode)) {
                if (ret_error &&
                    asprintf(ret_error, "%s: not a regular file (a FIFO, socket or device): refused", path) <
                            0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        if (st.st_size > (off_t) TRACE_FILE_MAX)
                return LOAD_FAIL(-EFBIG);

        /* Sized to the file, not to the limit (64 MiB touched per load is seconds under MALLOC_PERTURB_):
         * a file may grow (or be a /proc file reporting 0), so the buffer grows up to one byte past the
         * limit. */
        size_t cap = (size_t) st.st_size + 1;
        buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (len == cap) {
                        size_t grown =
                                MIN(MAX(2 * cap, (size_t) TRACE_GROW_MIN), (size_t) TRACE_FILE_MAX + 1);
                        char *b = realloc(buf, grown);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        cap = grown;
                }
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return LOAD_FAIL(-errno);
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > TRACE_FILE_MAX)
                        return LOAD_FAIL(-EFBIG);
        }
#undef LOAD_FAIL

        return trace_parse(buf, len, path, ret, ret_error);
}

/* Index of the last row with time_ms <= t; the caller ensures rows[0].time_ms <= t. */
static size_t find_row(const Trace *t, double time_ms)
{
        size_t lo = 0, hi = t->n_rows - 1;

        while (lo < hi) {
                size_t mid = lo + (hi - lo + 1) / 2;
                if (t->rows[mid].time_ms <= time_ms)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return lo;
}

void trace_sample(const Trace *t, double time_ms, double *ret_x, double *ret_y, bool *ret_keyboard,
                  bool *ret_mouse)
{
        const TraceRow *a, *b;
        double x, y, f;
        size_t i;

        if (!(time_ms > t->rows[0].time_ms)) { /* also catches NaN */
                a = b = &t->rows[0];
                f = 0;
        } else {
                i = find_row(t, time_ms);
                a = &t->rows[i];
                if (i + 1 < t->n_rows) {
                        b = &t->rows[i + 1];
                        f = (time_ms - a->time_ms) / (b->time_ms - a->time_ms);
                } else {
                        b = a;
                        f = 0;
                }
        }

        x = a->x + (b->x - a->x) * f;
        y = a->y + (b->y - a->y) * f;
        if (ret_x)
                *ret_x = x;
        if (ret_y)
                *ret_y = y;
        /* Activity flags are steps: the row at or before time_ms holds until the next row. */
        if (ret_keyboard)
                *ret_keyboard = a->keyboard;
        if (ret_mouse)
                *ret_mouse = a->mouse;
}

double trace_duration_ms(const Trace *t)
{
        assert(t);

        return t->rows[t->n_rows - 1].time_ms;
}
