/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the tray's display logic: icon choice, the plot's sample history, the shock
 * notifications' words and the choice of display in a Wayland session. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "accel-words.h"
#include "test-helpers.h"
#include "tray-backend.h"
#include "tray-history.h"
#include "tray-icon.h"
#include "tray-notify.h"
#include "tray-refusal.h"

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
                        g_autofree char *symbolic =
                                g_strdup_printf("%s/data/icons/hicolor/scalable/status/%s-symbolic.svg",
                                                g_getenv("TOP_SRCDIR"), name);
                        CHECK(g_file_test(file, G_FILE_TEST_EXISTS));
                        CHECK(g_file_test(symbolic, G_FILE_TEST_EXISTS));
                        g_hash_table_add(names, g_steal_pointer(&name));
                }
        CHECK(g_hash_table_size(names) >= 16);
        g_hash_table_unref(names);
}

TEST(test_icon_symbolic)
{
        const char *states[] = {TRAY_ICON_SHOCK, TRAY_ICON_NO_ACCELEROMETER, TRAY_ICON_SERVICE_MISSING};

        CHECK(tray_icon_wants_symbolic("GNOME"));
        CHECK(tray_icon_wants_symbolic("ubuntu:GNOME"));
        CHECK(tray_icon_wants_symbolic("GNOME-Classic:GNOME"));
        CHECK(!(tray_icon_wants_symbolic("XFCE")));
        CHECK(!(tray_icon_wants_symbolic("KDE")));
        CHECK(!(tray_icon_wants_symbolic("")));
        CHECK(!(tray_icon_wants_symbolic(NULL)));
        for (size_t i = 0; i < G_N_ELEMENTS(states); i++) {
                g_autofree char *file =
                        g_strdup_printf("%s/data/icons/hicolor/scalable/status/%s-symbolic.svg",
                                        g_getenv("TOP_SRCDIR"), states[i]);
                CHECK(g_file_test(file, G_FILE_TEST_EXISTS));
        }
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

TEST(test_shock_words)
{
        g_autofree char *one = tray_notify_burst_text(1, 0, 1.234, "jolt");
        g_autofree char *three = tray_notify_burst_text(3, 6 * G_USEC_PER_SEC + 200000, 1.5, "freefall");
        g_autofree char *quick = tray_notify_burst_text(2, 300000, 0.5, "drift");

        /* The detector's names never reach the user. */
        CHECK_STREQ(accel_shock_reason_words("jolt"), "a knock");
        CHECK_STREQ(accel_shock_reason_words("drift"), "a sudden movement");
        CHECK_STREQ(accel_shock_reason_words("freefall"), "a fall");
        CHECK_STREQ(accel_shock_reason_words("new-test"), "new-test");
        CHECK_STREQ(one, "Felt like a knock, 1.23 g.");
        CHECK_STREQ(three, "3 shocks in 6 s; the strongest: a fall, 1.50 g.");
        CHECK_STREQ(quick, "2 shocks in 1 s; the strongest: a sudden movement, 0.50 g.");
}

TEST(test_refusal_words)
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
        CHECK(strstr(challenge_words, "password") != NULL);
        CHECK(strstr(challenge_words, "tpaccelctl set") != NULL);
        CHECK(strstr(challenge_words, "org.thinkpad") == NULL);
        CHECK(strstr(denied_words, "administrator") != NULL);
        CHECK(strstr(denied_words, "org.thinkpad") == NULL);
        CHECK(other_words == NULL);
}

TEST(test_backend_choice)
{
        /* The facts in TrayBackendFacts's order: GDK_BACKEND set, DISPLAY set, a Wayland compositor,
         * mutter, its xdg_wm_base version, GTK tells "suspended". */
        static const struct {
                const char *what;
                TrayBackendFacts facts;
                gboolean x11;
        } cases[] = {
                {"Debian 12's GNOME: mutter 43, GTK 3.24.38, Xwayland",
                 {FALSE, TRUE, TRUE, TRUE, 5, FALSE},
                 TRUE},
                {"Debian 13's GNOME: mutter 48, GTK 3.24.49", {FALSE, TRUE, TRUE, TRUE, 6, TRUE}, FALSE},
                {"an old GTK on a new mutter", {FALSE, TRUE, TRUE, TRUE, 6, FALSE}, TRUE},
                {"a new GTK on an old mutter", {FALSE, TRUE, TRUE, TRUE, 5, TRUE}, TRUE},
                {"not mutter (sway, KWin)", {FALSE, TRUE, TRUE, FALSE, 5, FALSE}, FALSE},
                {"the user chose with $GDK_BACKEND", {TRUE, TRUE, TRUE, TRUE, 5, FALSE}, FALSE},
                {"no X server offered", {FALSE, FALSE, TRUE, TRUE, 5, FALSE}, FALSE},
                {"no compositor answered", {FALSE, TRUE, FALSE, TRUE, 5, FALSE}, FALSE},
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                if (tray_backend_prefers_x11(&cases[i].facts) != cases[i].x11)
                        printf("# %s\n", cases[i].what);
                CHECK_EQ(tray_backend_prefers_x11(&cases[i].facts), cases[i].x11);
        }
}

int main(void)
{
        RUN(test_icon_steps);
        RUN(test_icon_names);
        RUN(test_icon_symbolic);
        RUN(test_history_span_and_capacity);
        RUN(test_shock_words);
        RUN(test_refusal_words);
        RUN(test_backend_choice);
        return test_summary();
}
