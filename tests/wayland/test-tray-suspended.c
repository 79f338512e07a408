/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tray's window and the compositor's "suspended" state (xdg-shell 6), which GTK 3.24.49 turns into
 * visibility-notify-events: FULLY_OBSCURED while suspended, UNOBSCURED after. GNOME Shell 48 and KWin 6
 * suspend a minimized window; the compositors CI has (sway 1.7, GNOME Shell 43) never do, so the events
 * are made here as GTK makes them and put in GDK's queue, on whatever display the test gives (the sway
 * session of test_tray_sway.py). A suspended window is unseen (the claim drops to the icon's rate), a
 * resumed one seen again; hidden and shown again, a window is a new surface that is not suspended.
 * Exits 0 when all hold, 1 with the failed check on stderr. */
#include <gtk/gtk.h>

#include "test-helpers.h"
#include "tray-window.h"

#define WAIT_USEC (20 * G_USEC_PER_SEC)

typedef struct {
        TrayWindow *window;
        unsigned changes;
} Fixture;

static void on_visibility(gpointer userdata)
{
        Fixture *f = userdata;

        f->changes++;
}

/* Runs the main loop until the window's seen state is want (TRUE: after its frames are painted). */
static gboolean wait_seen(Fixture *f, gboolean want)
{
        gint64 deadline = g_get_monotonic_time() + WAIT_USEC;

        while (tray_window_is_seen(f->window) != want) {
                if (g_get_monotonic_time() > deadline)
                        return FALSE;
                g_main_context_iteration(NULL, FALSE);
                g_usleep(10000);
        }
        return TRUE;
}

/* The tray's window: the program's only toplevel. */
static GtkWidget *toplevel(void)
{
        GList *toplevels = gtk_window_list_toplevels();
        GtkWidget *only = toplevels ? toplevels->data : NULL;

        g_assert_true(toplevels && !toplevels->next);
        g_list_free(toplevels);
        return only;
}

/* Puts a visibility event for the tray's window in GDK's queue, as GTK's Wayland backend does on a
 * configure that starts or ends the suspended state. */
static void put_visibility(GdkVisibilityState state)
{
        GdkEvent *event = gdk_event_new(GDK_VISIBILITY_NOTIFY);

        event->visibility.window = g_object_ref(gtk_widget_get_window(toplevel()));
        event->visibility.state = state;
        gdk_event_put(event);
        gdk_event_free(event);
}

TEST(test_suspended_window_is_unseen)
{
        Fixture f = {0};

        f.window = tray_window_new(G_CALLBACK(on_visibility), &f);
        tray_window_present(f.window);
        CHECK(wait_seen(&f, TRUE));

        put_visibility(GDK_VISIBILITY_FULLY_OBSCURED);
        CHECK(wait_seen(&f, FALSE));
        put_visibility(GDK_VISIBILITY_UNOBSCURED);
        CHECK(wait_seen(&f, TRUE));

        /* Suspended, then closed and shown again: a new surface, seen once it is painted. */
        put_visibility(GDK_VISIBILITY_FULLY_OBSCURED);
        CHECK(wait_seen(&f, FALSE));
        gtk_widget_hide(toplevel());
        tray_window_present(f.window);
        CHECK(wait_seen(&f, TRUE));
        CHECK(f.changes >= 5);
        tray_window_free(f.window);
}

int main(int argc, char **argv)
{
        if (!gtk_init_check(&argc, &argv)) {
                fprintf(stderr, "no display (WAYLAND_DISPLAY or DISPLAY)\n");
                return 2;
        }
        RUN(test_suspended_window_is_unseen);
        return test_summary();
}
