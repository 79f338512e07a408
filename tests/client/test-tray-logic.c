/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the tray's display logic: icon choice, the plot's sample history and the shock
 * notifications' words. */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "tray-history.h"
#include "tray-icon.h"
#include "tray-notify.h"
#include "tray-refusal.h"

static void test_icon_steps(void)
{
        g_assert_cmpint(tray_icon_step(0), ==, 2);
        g_assert_cmpint(tray_icon_step(7.4), ==, 2);
        g_assert_cmpint(tray_icon_step(7.6), ==, 3);
        g_assert_cmpint(tray_icon_step(-7.6), ==, 1);
        g_assert_cmpint(tray_icon_step(29), ==, 4);
        g_assert_cmpint(tray_icon_step(90), ==, 4);
        g_assert_cmpint(tray_icon_step(-180), ==, 0);
        g_assert_cmpint(tray_icon_step(NAN), ==, 2);
}

static void test_icon_names(void)
{
        TrayIconState s = {.service_present = TRUE, .has_accelerometer = TRUE, .pitch = -20, .roll = 16};
        g_autofree char *tilt = tray_icon_name(&s);
        g_autofree char *shock = NULL, *none = NULL, *missing = NULL;
        GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        g_assert_cmpstr(tilt, ==, "tpaccel-tilt-r3-p1");
        s.shock_active = TRUE;
        shock = tray_icon_name(&s);
        g_assert_cmpstr(shock, ==, TRAY_ICON_SHOCK);
        s.has_accelerometer = FALSE;
        none = tray_icon_name(&s);
        g_assert_cmpstr(none, ==, TRAY_ICON_NO_ACCELEROMETER);
        s.service_present = FALSE;
        missing = tray_icon_name(&s);
        g_assert_cmpstr(missing, ==, TRAY_ICON_SERVICE_MISSING);

        /* At least 16 distinct tilt looks, each with an SVG in the source tree. */
        for (double pitch = -45; pitch <= 45; pitch += 5)
                for (double roll = -45; roll <= 45; roll += 5) {
                        TrayIconState t = {TRUE, TRUE, FALSE, pitch, roll};
                        g_autofree char *name = tray_icon_name(&t);
                        g_autofree char *file =
                                g_strdup_printf("%s/data/icons/hicolor/scalable/status/%s.svg",
                                                g_getenv("TOP_SRCDIR"), name);
                        g_autofree char *symbolic =
                                g_strdup_printf("%s/data/icons/hicolor/scalable/status/%s-symbolic.svg",
                                                g_getenv("TOP_SRCDIR"), name);
                        g_assert_true(g_file_test(file, G_FILE_TEST_EXISTS));
                        g_assert_true(g_file_test(symbolic, G_FILE_TEST_EXISTS));
                        g_hash_table_add(names, g_steal_pointer(&name));
                }
        g_assert_cmpuint(g_hash_table_size(names), >=, 16);
        g_hash_table_unref(names);
}

static void test_icon_symbolic(void)
{
        const char *states[] = {TRAY_ICON_SHOCK, TRAY_ICON_NO_ACCELEROMETER, TRAY_ICON_SERVICE_MISSING};

        g_assert_true(tray_icon_wants_symbolic("GNOME"));
        g_assert_true(tray_icon_wants_symbolic("ubuntu:GNOME"));
        g_assert_true(tray_icon_wants_symbolic("GNOME-Classic:GNOME"));
        g_assert_false(tray_icon_wants_symbolic("XFCE"));
        g_assert_false(tray_icon_wants_symbolic("KDE"));
        g_assert_false(tray_icon_wants_symbolic(""));
        g_assert_false(tray_icon_wants_symbolic(NULL));
        for (size_t i = 0; i < G_N_ELEMENTS(states); i++) {
                g_autofree char *file =
                        g_strdup_printf("%s/data/icons/hicolor/scalable/status/%s-symbolic.svg",
                                        g_getenv("TOP_SRCDIR"), states[i]);
                g_assert_true(g_file_test(file, G_FILE_TEST_EXISTS));
        }
}

static void test_history_span_and_capacity(void)
{
        SampleHistory h;

        sample_history_init(&h, 4, 1000);
        sample_history_push(&h, 0, 1, 1);
        sample_history_push(&h, 500, 2, 2);
        sample_history_push(&h, 1000, 3, 3);
        g_assert_cmpuint(h.count, ==, 3);
        sample_history_push(&h, 1200, 4, 4); /* 0 is now older than the span */
        g_assert_cmpuint(h.count, ==, 3);
        g_assert_cmpint(sample_history_get(&h, 0)->x, ==, 2);
        sample_history_push(&h, 1300, 5, 5);
        sample_history_push(&h, 1400, 6, 6); /* capacity 4 */
        g_assert_cmpuint(h.count, ==, 4);
        g_assert_cmpint(sample_history_get(&h, 0)->x, ==, 3);
        g_assert_cmpint(sample_history_get(&h, 3)->x, ==, 6);
        sample_history_push(&h, 10, 7, 7); /* clock went back: start over */
        g_assert_cmpuint(h.count, ==, 1);
        g_assert_cmpint(sample_history_get(&h, 0)->x, ==, 7);
        sample_history_done(&h);
}

static void test_shock_words(void)
{
        g_autofree char *one = tray_notify_burst_text(1, 0, 1.234, "jolt");
        g_autofree char *three = tray_notify_burst_text(3, 6 * G_USEC_PER_SEC + 200000, 1.5, "freefall");
        g_autofree char *quick = tray_notify_burst_text(2, 300000, 0.5, "drift");

        /* The detector's names never reach the user. */
        g_assert_cmpstr(tray_notify_shock_words("jolt"), ==, "a knock");
        g_assert_cmpstr(tray_notify_shock_words("drift"), ==, "a sudden movement");
        g_assert_cmpstr(tray_notify_shock_words("freefall"), ==, "a fall");
        g_assert_cmpstr(tray_notify_shock_words("new-test"), ==, "new-test");
        g_assert_cmpstr(one, ==, "Felt like a knock, 1.23 g.");
        g_assert_cmpstr(three, ==, "3 shocks in 6 s; the strongest: a fall, 1.50 g.");
        g_assert_cmpstr(quick, ==, "2 shocks in 1 s; the strongest: a sudden movement, 0.50 g.");
}

static void test_refusal_words(void)
{
        g_autoptr(GError) challenge = g_dbus_error_new_for_dbus_error(
                "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
                "Interactive authentication required for org.thinkpad.accelerometer.configure");
        g_autoptr(GError) denied =
                g_dbus_error_new_for_dbus_error("org.freedesktop.DBus.Error.AccessDenied",
                                                "Not authorized: org.thinkpad.accelerometer.configure");
        g_autoptr(GError) other =
                g_dbus_error_new_for_dbus_error("org.freedesktop.DBus.Error.InvalidArgs", "bad");
        g_autofree char *challenge_words = tray_refusal_describe(challenge);
        g_autofree char *denied_words = tray_refusal_describe(denied);
        g_autofree char *other_words = tray_refusal_describe(other);

        /* What to do, without the developer's text. */
        g_assert_nonnull(strstr(challenge_words, "password"));
        g_assert_nonnull(strstr(challenge_words, "tpaccelctl set"));
        g_assert_null(strstr(challenge_words, "org.thinkpad"));
        g_assert_nonnull(strstr(denied_words, "administrator"));
        g_assert_null(strstr(denied_words, "org.thinkpad"));
        g_assert_null(other_words);
}

int main(int argc, char *argv[])
{
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/tray/icon/steps", test_icon_steps);
        g_test_add_func("/tray/icon/names", test_icon_names);
        g_test_add_func("/tray/icon/symbolic", test_icon_symbolic);
        g_test_add_func("/tray/history/span-and-capacity", test_history_span_and_capacity);
        g_test_add_func("/tray/notify/shock-words", test_shock_words);
        g_test_add_func("/tray/settings/refusal-words", test_refusal_words);
        return g_test_run();
}
