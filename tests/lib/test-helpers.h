/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Minimal test helpers: each check prints file:line and the values on failure and counts; main()
 * returns test_summary(), which prints "N passed, N failed" and exits nonzero on any failure. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned test_passed, test_failed;

#define CHECK(cond)                                                                                         \
        do {                                                                                                \
                if (cond)                                                                                   \
                        test_passed++;                                                                      \
                else {                                                                                      \
                        test_failed++;                                                                      \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);            \
                }                                                                                           \
        } while (0)

#define CHECK_EQ(a, b)                                                                                      \
        do {                                                                                                \
                long long _a = (long long) (a), _b = (long long) (b);                                       \
                if (_a == _b)                                                                               \
                        test_passed++;                                                                      \
                else {                                                                                      \
                        test_failed++;                                                                      \
                        fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a,   \
                                #b, _a, _b);                                                                \
                }                                                                                           \
        } while (0)

#define CHECK_STREQ(a, b)                                                                                   \
        do {                                                                                                \
                const char *_a = (a), *_b = (b);                                                            \
                if (_a && _b && strcmp(_a, _b) == 0)                                                        \
                        test_passed++;                                                                      \
                else {                                                                                      \
                        test_failed++;                                                                      \
                        fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__,   \
                                #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");                            \
                }                                                                                           \
        } while (0)

#define TEST(name) static void name(void)
#define RUN(name)                                                                                           \
        do {                                                                                                \
                fprintf(stderr, "# %s\n", #name);                                                           \
                name();                                                                                     \
        } while (0)

static inline int test_summary(void)
{
        printf("%u passed, %u failed\n", test_passed, test_failed);
        return test_failed ? 1 : 0;
}

/* A scratch folder for the test: makes template ("/tmp/NAME.XXXXXX", rewritten in place) with mkdtemp(3),
 * or exits 1 saying why. */
static inline void test_scratch_make(char *template)
{
        if (!mkdtemp(template)) {
                perror(template);
                exit(1);
        }
}

/* Removes the scratch folder and everything below it. */
static inline void test_scratch_remove(const char *dir)
{
        char cmd[4200];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cleanup failed: %s\n", cmd);
}

/* The text of a small file (up to 4 KiB), in a static buffer that the next call overwrites; NULL if it
 * cannot be opened. */
static inline char *test_read_text(const char *path)
{
        static char buf[4096];
        FILE *f = fopen(path, "re");
        size_t n;

        if (!f)
                return NULL;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

/* Writes len bytes of data to root/rel (rel may not start with '/'), making the folders on the way
 * (mode 0755); a failure is a failed check. For fake sysfs, proc and DMI trees below a scratch folder. */
static inline void test_write_file(const char *root, const char *rel, const void *data, size_t len)
{
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (char *p = path + strlen(root) + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void) mkdir(path, 0755);
                        *p = '/';
                }
        f = fopen(path, "we");
        if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
                test_failed++;
                fprintf(stderr, "cannot write %s\n", path);
        }
}
