/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace files: good files parse to the right rows; every kind of bad file is rejected with the exact
 * "NAME:LINE: reason"; sampling interpolates, holds before the first and after the last row. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-helpers.h"
#include "trace.h"

#define HEADER "time_ms,x,y,keyboard,mouse\n"

static Trace *parse_ok(const char *text)
{
        Trace *t = NULL;
        char *error = NULL;
        int r = trace_parse(text, strlen(text), "ok.csv", &t, &error);

        CHECK_EQ(r, 0);
        if (r < 0) {
                fprintf(stderr, "  unexpected error: %s\n", error);
                free(error);
        }
        return t;
}

static void check_bad_len(const char *text, size_t len, const char *expected)
{
        Trace *t = NULL;
        char *error = NULL;

        CHECK_EQ(trace_parse(text, len, "bad.csv", &t, &error), -EINVAL);
        CHECK(t == NULL);
        CHECK_STREQ(error, expected);
        free(error);
}

static void check_bad(const char *text, const char *expected)
{
        check_bad_len(text, strlen(text), expected);
}

TEST(test_good_file)
{
        _cleanup_(trace_freep) Trace *t = parse_ok("# a comment\n" HEADER "0,-498,-439,0,0\n"
                                                   "\n"
                                                   "# another comment\n"
                                                   "20.5,-32768,32767,1,0\r\n"
                                                   "40,0,0,0,1");
        if (!t)
                return;
        CHECK_EQ(t->n_rows, 3);
        CHECK_STREQ(t->name, "ok.csv");
        CHECK(t->rows[0].time_ms == 0);
        CHECK_EQ(t->rows[0].x, -498);
        CHECK_EQ(t->rows[0].y, -439);
        CHECK(t->rows[1].time_ms == 20.5);
        CHECK_EQ(t->rows[1].x, -32768);
        CHECK_EQ(t->rows[1].y, 32767);
        CHECK(t->rows[1].keyboard && !t->rows[1].mouse);
        CHECK(!t->rows[2].keyboard && t->rows[2].mouse);
        CHECK(trace_duration_ms(t) == 40);
}

TEST(test_bad_files)
{
        check_bad("", "bad.csv:1: empty file");
        check_bad("# only a comment\n", "bad.csv:1: missing header (expected 'time_ms,x,y,keyboard,mouse')");
        check_bad("0,1,2,0,0\n", "bad.csv:1: missing header (expected 'time_ms,x,y,keyboard,mouse')");
        check_bad("t,x,y,keyboard,mouse\n0,1,2,0,0\n", "bad.csv:1: wrong header: column 1 is not 'time_ms' "
                                                       "(expected 'time_ms,x,y,keyboard,mouse')");
        check_bad("time_ms,x,y\n",
                  "bad.csv:1: wrong header: 3 columns (expected 'time_ms,x,y,keyboard,mouse')");
        check_bad("time_ms,x,y,keyboard,mouse,z\n",
                  "bad.csv:1: wrong header: 6 columns (expected 'time_ms,x,y,keyboard,mouse')");
        check_bad("time_ms,x,y,keys,mouse\n", "bad.csv:1: wrong header: column 4 is not 'keyboard' "
                                              "(expected 'time_ms,x,y,keyboard,mouse')");
        check_bad(" time_ms,x,y,keyboard,mouse\n", "bad.csv:1: wrong header: column 1 is not 'time_ms' "
                                                   "(expected 'time_ms,x,y,keyboard,mouse')");
        check_bad(HEADER, "bad.csv:1: no data rows");
        check_bad(HEADER "# nothing\n", "bad.csv:2: no data rows");
        check_bad(HEADER "0,1,2,0\n", "bad.csv:2: expected 5 columns, got 4");
        check_bad(HEADER "0,1,2,0,0,0\n", "bad.csv:2: expected 5 columns, got 6");
        check_bad(HEADER "0,1,2,0,0\n10,1.5,2,0,0\n", "bad.csv:3: x is not an integer");
        check_bad(HEADER "0,1,,0,0\n", "bad.csv:2: y is not an integer");
        check_bad(HEADER "0,1, 2,0,0\n", "bad.csv:2: y is not an integer");
        check_bad(HEADER "0,-,2,0,0\n", "bad.csv:2: x is not an integer");
        check_bad(HEADER "0,40000,2,0,0\n", "bad.csv:2: x is out of range (-32768..32767)");
        check_bad(HEADER "0,1,-32769,0,0\n", "bad.csv:2: y is out of range (-32768..32767)");
        check_bad(HEADER "0,99999999999999999999999,2,0,0\n",
                  "bad.csv:2: x is out of range (-32768..32767)");
        check_bad(HEADER "0,1,2,2,0\n", "bad.csv:2: keyboard is not 0 or 1");
        check_bad(HEADER "0,1,2,0,yes\n", "bad.csv:2: mouse is not 0 or 1");
        check_bad(HEADER "-1,1,2,0,0\n",
                  "bad.csv:2: time_ms is not a non-negative number (digits, at most one point)");
        check_bad(HEADER "1e3,1,2,0,0\n",
                  "bad.csv:2: time_ms is not a non-negative number (digits, at most one point)");
        check_bad(HEADER "nan,1,2,0,0\n",
                  "bad.csv:2: time_ms is not a non-negative number (digits, at most one point)");
        check_bad(HEADER "5.,1,2,0,0\n",
                  "bad.csv:2: time_ms is not a non-negative number (digits, at most one point)");
        check_bad(HEADER "12345678901,1,2,0,0\n", "bad.csv:2: time_ms has too many digits (at "
                                                  "most 10 before and 6 after the point)");
        check_bad(HEADER "0,1,2,0,0\n10,1,2,0,0\n10,1,2,0,0\n",
                  "bad.csv:4: time_ms is not after the previous row's (times must increase)");
        check_bad(HEADER "0,1,2,0,0\n10,1,2,0,0\n9.5,1,2,0,0\n",
                  "bad.csv:4: time_ms is not after the previous row's (times must increase)");
        /* Bytes that are not text, long fields: named, not shown. */
        check_bad_len(HEADER "0,\x01\xff,2,0,0\n", strlen(HEADER) + 13, "bad.csv:2: x is not an integer");
        check_bad_len(HEADER "0,1\0,2,0,0\n", strlen(HEADER) + 11, "bad.csv:2: x is not an integer");
        check_bad(HEADER "0,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,2,0,0\n", "bad.csv:2: x is not an integer");
        /* A secret's first line (--trace=/etc/shadow as root): named as a wrong header, not shown
         * (test_errors_never_quote_the_file). */
        check_bad("root:$y$j9T$abcdefghijklmnopqrstuvwxyz:19000:0:99999:7:::\n",
                  "bad.csv:1: wrong header: column 1 is not 'time_ms' (expected "
                  "'time_ms,x,y,keyboard,mouse')");

        char line[400];
        memset(line, '#', 300);
        line[300] = 0;
        char text[512];
        snprintf(text, sizeof(text), HEADER "%s\n", line);
        check_bad(text, "bad.csv:2: line too long (more than 256 characters)");
}

/* --trace=FILE opens whatever its caller names: an error names the file, the line and the problem, and
 * no piece of the file's text, wherever the secret sits (first line, a row's fields, any column). */
TEST(test_errors_never_quote_the_file)
{
        static const char *const secret_pieces[] = {"root", "$y$", "j9T", "SALT", "19000", "hash"};
        static const char *const files[] = {
                "root:$y$j9T$SALThash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
                "root,$y$j9T$SALThash,19000,0,0\n",
                "time_ms,root,$y$j9T$SALThash,19000\n",
                "time_ms,x,y,keyboard,root$y$j9T$SALThash19000\n",
                HEADER "root:$y$j9T$SALThash:19000,1,2,0,0\n",
                HEADER "0,root$y$j9T$SALThash19000,2,0,0\n",
                HEADER "0,1,2,0,0\n1,1,root$y$j9T$SALThash19000,0,0\n",
                HEADER "0,1,2,root$y$j9T$SALThash19000,0\n",
                HEADER "0,1,2,0,root$y$j9T$SALThash19000\n",
                HEADER "0,1,2,0,0\n19000,1,2,0,0\n5,1,2,0,0\n",
                HEADER "0,99999999999999919000,2,0,0\n",
                HEADER "19000190001900019000,1,2,0,0\n",
        };

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                Trace *t = NULL;
                char *error = NULL;

                CHECK_EQ(trace_parse(files[i], strlen(files[i]), "/etc/shadow", &t, &error), -EINVAL);
                CHECK(error && strncmp(error, "/etc/shadow:", strlen("/etc/shadow:")) == 0);
                for (size_t j = 0; error && j < sizeof(secret_pieces) / sizeof(secret_pieces[0]); j++)
                        if (strstr(error, secret_pieces[j])) {
                                fprintf(stderr, "  file %zu: the error quotes '%s': %s\n", i,
                                        secret_pieces[j], error);
                                CHECK(!strstr(error, secret_pieces[j]));
                        }
                free(error);
                trace_free(t);
        }
}

TEST(test_sample_interpolates_and_holds)
{
        _cleanup_(trace_freep) Trace *t = parse_ok(HEADER "100,0,10,0,0\n"
                                                          "200,100,-10,1,0\n"
                                                          "300,100,-10,0,1\n");
        double x, y;
        bool kb, mouse;

        if (!t)
                return;
        trace_sample(t, 0, &x, &y, &kb, &mouse); /* before the first row: the first row holds */
        CHECK(x == 0 && y == 10 && !kb && !mouse);
        trace_sample(t, 150, &x, &y, &kb, &mouse);
        CHECK(fabs(x - 50) < 1e-9 && fabs(y - 0) < 1e-9);
        CHECK(!kb); /* flags are steps from the row at or before */
        trace_sample(t, 175, &x, &y, NULL, NULL);
        CHECK(fabs(x - 75) < 1e-9 && fabs(y + 5) < 1e-9);
        trace_sample(t, 200, &x, &y, &kb, &mouse);
        CHECK(x == 100 && y == -10 && kb && !mouse);
        trace_sample(t, 250, NULL, NULL, &kb, &mouse);
        CHECK(kb && !mouse);
        trace_sample(t, 1e9, &x, &y, &kb, &mouse); /* after the last row: it holds */
        CHECK(x == 100 && y == -10 && !kb && mouse);
        trace_sample(t, NAN, &x, &y, NULL, NULL);
        CHECK(x == 0 && y == 10);
}

TEST(test_single_row)
{
        _cleanup_(trace_freep) Trace *t = parse_ok(HEADER "0,7,8,1,1\n");
        double x, y;

        if (!t)
                return;
        CHECK(trace_duration_ms(t) == 0);
        trace_sample(t, 12345, &x, &y, NULL, NULL);
        CHECK(x == 7 && y == 8);
}

TEST(test_load)
{
        char path[] = "/tmp/test-trace-XXXXXX";
        int fd = mkstemp(path);
        const char *text = HEADER "0,1,2,0,0\nbroken\n";
        Trace *t = NULL;
        char *error = NULL, *expected = NULL;

        CHECK(fd >= 0);
        CHECK(write(fd, text, strlen(text)) == (ssize_t) strlen(text));
        close(fd);
        CHECK_EQ(trace_load(path, &t, &error), -EINVAL);
        CHECK(asprintf(&expected, "%s:3: expected 5 columns, got 1", path) > 0);
        CHECK_STREQ(error, expected);
        free(error);
        free(expected);
        unlink(path);

        CHECK_EQ(trace_load("/nonexistent/x.csv", &t, &error), -ENOENT);
        CHECK_STREQ(error, "/nonexistent/x.csv: No such file or directory");
        free(error);
        CHECK_EQ(trace_load("/tmp", &t, &error), -EISDIR);
        CHECK_STREQ(error, "/tmp: Is a directory");
        free(error);
        CHECK(t == NULL);

        /* A FIFO without a writer: refused at once, not waited for in open() (the alarm fails the test
         * if it blocks). Sockets and devices likewise. */
        char fifo[] = "/tmp/test-trace-fifo-XXXXXX";
        CHECK(mkdtemp(fifo) != NULL);
        _cleanup_free_ char *fifo_path = NULL;
        CHECK(asprintf(&fifo_path, "%s/trace.csv", fifo) > 0);
        CHECK(mkfifo(fifo_path, 0600) == 0);
        alarm(10);
        CHECK_EQ(trace_load(fifo_path, &t, &error), -EINVAL);
        alarm(0);
        CHECK(asprintf(&expected, "%s: not a regular file (a FIFO, socket or device): refused", fifo_path) >
              0);
        CHECK_STREQ(error, expected);
        free(error);
        free(expected);
        CHECK(t == NULL);
        unlink(fifo_path);
        rmdir(fifo);
        CHECK_EQ(trace_load("/dev/null", &t, &error), -EINVAL);
        CHECK_STREQ(error, "/dev/null: not a regular file (a FIFO, socket or device): refused");
        free(error);

        /* Every trace shipped in tests/traces parses, so the emulator can play it. */
        const char *srcdir = getenv("TOP_SRCDIR");
        _cleanup_free_ char *dir = NULL;
        CHECK(srcdir != NULL);
        if (!srcdir || asprintf(&dir, "%s/tests/traces", srcdir) < 0)
                return;
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n_traces = 0;
        CHECK(d != NULL);
        while (d && (de = readdir(d))) {
                size_t len = strlen(de->d_name);
                _cleanup_free_ char *p = NULL;
                if (len < 4 || strcmp(de->d_name + len - 4, ".csv") != 0)
                        continue;
                CHECK(asprintf(&p, "%s/%s", dir, de->d_name) > 0);
                CHECK_EQ(trace_load(p, &t, &error), 0);
                if (error)
                        fprintf(stderr, "  %s\n", error);
                CHECK(t && t->n_rows > 1);
                t = trace_free(t);
                free(error);
                error = NULL;
                n_traces++;
        }
        if (d)
                closedir(d);
        CHECK(n_traces > 0);
}

int main(void)
{
        RUN(test_good_file);
        RUN(test_bad_files);
        RUN(test_errors_never_quote_the_file);
        RUN(test_sample_interpolates_and_holds);
        RUN(test_single_row);
        RUN(test_load);
        return test_summary();
}
