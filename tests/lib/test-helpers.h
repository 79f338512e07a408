/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Minimal test helpers: each check prints file:line and the values on failure and counts; main()
 * returns test_summary(), which prints "N passed, N failed" and exits nonzero on any failure. */

#include <stdio.h>
#include <string.h>

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
