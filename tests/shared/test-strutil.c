/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service/shared/strutil.h: streq, the strict number parsers, the string-table macro, excerpts. */

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>

#include "strutil.h"
#include "test-helpers.h"

typedef enum Fruit {
        FRUIT_APPLE,
        FRUIT_PEAR,
        FRUIT_HOLE, /* no name: a hole in the table */
        FRUIT_PLUM,
        _FRUIT_MAX,
        _FRUIT_INVALID = -EINVAL,
} Fruit;

static const char *const fruit_table[_FRUIT_MAX] = {
        [FRUIT_APPLE] = "apple",
        [FRUIT_PEAR] = "pear",
        [FRUIT_PLUM] = "plum",
};

DEFINE_PRIVATE_STRING_TABLE_LOOKUP(fruit, Fruit);

TEST(test_streq)
{
        CHECK(streq("a", "a"));
        CHECK(streq("", ""));
        CHECK(!streq("a", "ab"));
        CHECK(!streq("ab", "a"));
        CHECK(streq_ptr(NULL, NULL));
        CHECK(!streq_ptr("a", NULL));
        CHECK(!streq_ptr(NULL, "a"));
        CHECK(streq_ptr("x", "x"));
        CHECK(!streq_ptr("x", "y"));
}

TEST(test_safe_atou)
{
        unsigned u = 77;
        uint64_t u64 = 77;
        uint16_t u16 = 77;
        uint8_t u8 = 77;
        uint32_t u32 = 77;

        CHECK_EQ(safe_atou("0", &u), 0);
        CHECK_EQ(u, 0);
        CHECK_EQ(safe_atou("007", &u), 0);
        CHECK_EQ(u, 7);
        CHECK_EQ(safe_atou("4294967295", &u), 0);
        CHECK_EQ(u, UINT_MAX);
        u = 77;
        CHECK_EQ(safe_atou("4294967296", &u), -ERANGE);
        CHECK_EQ(safe_atou("99999999999999999999999", &u), -ERANGE);
        /* no sign, no space, no other base, nothing after the number, not empty */
        CHECK_EQ(safe_atou("-1", &u), -EINVAL);
        CHECK_EQ(safe_atou("-0", &u), -EINVAL);
        CHECK_EQ(safe_atou("+1", &u), -EINVAL);
        CHECK_EQ(safe_atou(" 1", &u), -EINVAL);
        CHECK_EQ(safe_atou("1 ", &u), -EINVAL);
        CHECK_EQ(safe_atou("1x", &u), -EINVAL);
        CHECK_EQ(safe_atou("0x10", &u), -EINVAL);
        CHECK_EQ(safe_atou("", &u), -EINVAL);
        CHECK_EQ(safe_atou("1.5", &u), -EINVAL);
        CHECK_EQ(u, 77); /* untouched on failure */

        CHECK_EQ(safe_atou8("255", &u8), 0);
        CHECK_EQ(u8, 255);
        CHECK_EQ(safe_atou8("256", &u8), -ERANGE);
        CHECK_EQ(u8, 255);
        CHECK_EQ(safe_atou16("65535", &u16), 0);
        CHECK_EQ(u16, 65535);
        CHECK_EQ(safe_atou16("65536", &u16), -ERANGE);
        CHECK_EQ(safe_atou32("123456", &u32), 0);
        CHECK_EQ(u32, 123456);
        CHECK_EQ(safe_atou64("18446744073709551615", &u64), 0);
        CHECK(u64 == UINT64_MAX);
        CHECK_EQ(safe_atou64("18446744073709551616", &u64), -ERANGE);
        CHECK_EQ(safe_atou64("-18446744073709551615", &u64), -EINVAL);
}

TEST(test_safe_atoi)
{
        int i = 77;
        int64_t l = 77;

        CHECK_EQ(safe_atoi("-498", &i), 0);
        CHECK_EQ(i, -498);
        CHECK_EQ(safe_atoi("2147483647", &i), 0);
        CHECK_EQ(i, INT_MAX);
        CHECK_EQ(safe_atoi("-2147483648", &i), 0);
        CHECK_EQ(i, INT_MIN);
        CHECK_EQ(safe_atoi("2147483648", &i), -ERANGE);
        CHECK_EQ(safe_atoi("-2147483649", &i), -ERANGE);
        CHECK_EQ(safe_atoi("+1", &i), -EINVAL);
        CHECK_EQ(safe_atoi("--1", &i), -EINVAL);
        CHECK_EQ(safe_atoi("-", &i), -EINVAL);
        CHECK_EQ(safe_atoi(" -1", &i), -EINVAL);
        CHECK_EQ(safe_atoi("1,2", &i), -EINVAL);
        CHECK_EQ(i, INT_MIN);
        CHECK_EQ(safe_atoi64("-9223372036854775808", &l), 0);
        CHECK(l == INT64_MIN);
        CHECK_EQ(safe_atoi64("9223372036854775808", &l), -ERANGE);
}

TEST(test_safe_atod)
{
        double d = 77;

        CHECK_EQ(safe_atod("1", &d), 0);
        CHECK(d == 1.0);
        CHECK_EQ(safe_atod("0.1", &d), 0);
        CHECK(d == 0.1);
        CHECK_EQ(safe_atod(".5", &d), 0);
        CHECK(d == 0.5);
        CHECK_EQ(safe_atod("5.", &d), 0);
        CHECK(d == 5.0);
        CHECK_EQ(safe_atod("-2.5e1", &d), 0);
        CHECK(d == -25.0);
        CHECK_EQ(safe_atod("+3E-1", &d), 0);
        CHECK(d == 0.3);
        CHECK_EQ(safe_atod("10.000000000000002", &d), 0);
        CHECK(d > 10.0);
        d = 77;
        CHECK_EQ(safe_atod("1e999", &d), -ERANGE);
        CHECK_EQ(safe_atod("-1e999", &d), -ERANGE);
        CHECK_EQ(safe_atod("1e-999", &d), -ERANGE);
        /* no hex, inf, nan, space, comma, lone signs or points, exponent without digits */
        CHECK_EQ(safe_atod("0x10", &d), -EINVAL);
        CHECK_EQ(safe_atod("inf", &d), -EINVAL);
        CHECK_EQ(safe_atod("-infinity", &d), -EINVAL);
        CHECK_EQ(safe_atod("nan", &d), -EINVAL);
        CHECK_EQ(safe_atod(" 1", &d), -EINVAL);
        CHECK_EQ(safe_atod("1 ", &d), -EINVAL);
        CHECK_EQ(safe_atod("1,5", &d), -EINVAL);
        CHECK_EQ(safe_atod("", &d), -EINVAL);
        CHECK_EQ(safe_atod("-", &d), -EINVAL);
        CHECK_EQ(safe_atod(".", &d), -EINVAL);
        CHECK_EQ(safe_atod("1e", &d), -EINVAL);
        CHECK_EQ(safe_atod("1e+", &d), -EINVAL);
        CHECK_EQ(safe_atod("e5", &d), -EINVAL);
        CHECK_EQ(safe_atod("1.2.3", &d), -EINVAL);
        CHECK_EQ(safe_atod("++1", &d), -EINVAL);
        CHECK(d == 77);
}

TEST(test_string_table)
{
        CHECK_STREQ(fruit_to_string(FRUIT_APPLE), "apple");
        CHECK_STREQ(fruit_to_string(FRUIT_PLUM), "plum");
        CHECK(fruit_to_string(FRUIT_HOLE) == NULL);
        CHECK(fruit_to_string(_FRUIT_MAX) == NULL);
        CHECK(fruit_to_string(_FRUIT_INVALID) == NULL);
        CHECK(fruit_to_string((Fruit) -1) == NULL);
        CHECK_EQ(fruit_from_string("apple"), FRUIT_APPLE);
        CHECK_EQ(fruit_from_string("pear"), FRUIT_PEAR);
        CHECK_EQ(fruit_from_string("plum"), FRUIT_PLUM);
        CHECK_EQ(fruit_from_string("Plum"), -EINVAL);
        CHECK_EQ(fruit_from_string(""), -EINVAL);
        CHECK_EQ(fruit_from_string(NULL), -EINVAL);
        for (Fruit f = 0; f < _FRUIT_MAX; f++)
                if (fruit_to_string(f))
                        CHECK_EQ(fruit_from_string(fruit_to_string(f)), f);
}

TEST(test_excerpt)
{
        char buf[STR_EXCERPT_SIZE];

        CHECK_STREQ(str_excerpt("plain", buf), "plain");
        CHECK_STREQ(str_excerpt("0123456789abcdef", buf), "0123456789abcdef");
        CHECK_STREQ(str_excerpt("0123456789abcdefg", buf), "0123456789abcdef...");
        CHECK_STREQ(str_excerpt("a\tb\\c\x7f", buf), "a\\x09b\\x5cc\\x7f");
        CHECK_STREQ(str_excerpt_n("a\0b", 3, buf), "a\\x00b");
        CHECK_STREQ(str_excerpt_n("abcdef", 2, buf), "ab");
        CHECK_STREQ(str_excerpt_n("", 0, buf), "");
        CHECK_STREQ(str_excerpt_n("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 17,
                                  buf),
                    "\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff...");
}

int main(void)
{
        RUN(test_streq);
        RUN(test_safe_atou);
        RUN(test_safe_atoi);
        RUN(test_safe_atod);
        RUN(test_string_table);
        RUN(test_excerpt);
        return test_summary();
}
