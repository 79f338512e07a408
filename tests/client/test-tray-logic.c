/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the tray's display logic: icon choice and the plot's sample history. */
#include <math.h>

#include <glib.h>

#include "tray-history.h"
#include "tray-icon.h"
#include "test-helpers.h"

TEST(test_icon_steps)
{
        CHECK_EQ(tray_icon_step(0), 2);
        CHECK_EQ(tray_icon_step(7.4), 2);
        CHECK_EQ(tray_icon_step(7.6), 3);
        CHECK_EQ(tray_icon_step(-7.6), 1);
        CHECK_EQ(tray_icon_step(29), 4);
        CHECK_EQ(tray_icon_step(90), 4);
        CHECK_EQ(tray_icon_step(-180), 0);
        CHECK_EQ(tray_icon_step(NAN), 2);
}

TEST(test_icon_names)
{
        TrayIconState s = {.service_present = TRUE, .has_accelerometer = TRUE, .pitch = -20, .roll = 16};
        g_autofree char *tilt = tray_icon_name(&s);
        g_autofree char *shock = NULL, *none = NULL, *missing = NULL;
        GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        CHECK_STREQ(tilt, "tpaccel-tilt-r3-p1");
        s.shock_active = TRUE;
        shock = tray_icon_name(&s);
        CHECK_STREQ(shock, TRAY_ICON_SHOCK);
        s.has_accelerometer = FALSE;
        none = tray_icon_name(&s);
        CHECK_STREQ(none, TRAY_ICON_NO_ACCELEROMETER);
        s.service_present = FALSE;
        missing = tray_icon_name(&s);
        CHECK_STREQ(missing, TRAY_ICON_SERVICE_MISSING);

        /* At least 16 distinct tilt looks, each with an SVG in the source tree. */
        for (double pitch = -45; pitch <= 45; pitch += 5)
                for (double roll = -45; roll <= 45; roll += 5) {
                        TrayIconState t = {TRUE, TRUE, FALSE, pitch, roll};
                        g_autofree char *name = tray_icon_name(&t);
                        g_autofree char *file =
                                g_strdup_printf("%s/data/icons/hicolor/scalable/status/%s.svg",
                                                g_getenv("TOP_SRCDIR"), name);
                        CHECK(g_file_test(file, G_FILE_TEST_EXISTS));
                        g_hash_table_add(names, g_steal_pointer(&name));
                }
        CHECK(g_hash_table_size(names) >= 16);
        g_hash_table_unref(names);
}

TEST(test_history_span_and_capacity)
{
        SampleHistory h;

        sample_history_init(&h, 4, 1000);
        sample_history_push(&h, 0, 1, 1);
        sample_history_push(&h, 500, 2, 2);
        sample_history_push(&h, 1000, 3, 3);
        CHECK_EQ(h.count, 3);
        sample_history_push(&h, 1200, 4, 4); /* 0 is now older than the span */
        CHECK_EQ(h.count, 3);
        CHECK_EQ(sample_history_get(&h, 0)->x, 2);
        sample_history_push(&h, 1300, 5, 5);
        sample_history_push(&h, 1400, 6, 6); /* capacity 4 */
        CHECK_EQ(h.count, 4);
        CHECK_EQ(sample_history_get(&h, 0)->x, 3);
        CHECK_EQ(sample_history_get(&h, 3)->x, 6);
        sample_history_push(&h, 10, 7, 7); /* clock went back: start over */
        CHECK_EQ(h.count, 1);
        CHECK_EQ(sample_history_get(&h, 0)->x, 7);
        sample_history_done(&h);
}

int main(void)
{
        RUN(test_icon_steps);
        RUN(test_icon_names);
        RUN(test_history_span_and_capacity);
        return test_summary();
}
