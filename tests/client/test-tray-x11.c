/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tray_x11_tolerate_destroyed_windows() against the race it is for, made deterministic: another client
 * destroys our window, we draw to it (core requests, and cairo through RENDER), and the errors arrive
 * while GDK has an error trap pushed for a later request, which GDK treats as fatal; or it is destroyed
 * while GTK waits for the frame clock (a resize queued), whose handlers GDK drops before GTK disconnects
 * them (GLib warnings and criticals). Needs an X display
 * ($DISPLAY): test_tray.py runs each test in a process of its own under its Xvfb, with the hook and with
 * --without-hook, where GDK must end the program with status 1 (the race is real: the test can fail). */
#include <cairo-xlib.h>
#include <gdk/gdkx.h>
#include <gtk/gtk.h>
#include <stdbool.h>
#include <X11/Xlib.h>

#include "test-helpers.h"
#include "tray-x11.h"

static Display *open_other_connection(void)
{
        Display *other = XOpenDisplay(NULL);

        if (!other) {
                fprintf(stderr, "cannot open a second connection to the display\n");
                exit(2);
        }
        return other;
}

/* Lets GTK handle what arrived (the DestroyNotify of a window destroyed from outside). */
static void process_pending_events(void)
{
        while (gtk_events_pending())
                gtk_main_iteration();
}

static Window shown_window(GtkWidget **window)
{
        *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
        gtk_widget_show(*window);
        process_pending_events();
        return gdk_x11_window_get_xid(gtk_widget_get_window(*window));
}

static void destroy_from_outside(Window xid)
{
        Display *other = open_other_connection();

        XDestroyWindow(other, xid);
        XCloseDisplay(other); /* flushes and syncs */
}

/* Waits for the errors of what was sent so far while GDK has a trap pushed for a later request: the
 * errors fall outside the trap, and GDK's handler, not the program's, sees them. */
static void sync_inside_unrelated_trap(GdkDisplay *display)
{
        gdk_x11_display_error_trap_push(display);
        XSync(gdk_x11_display_get_xdisplay(display), False);
        gdk_x11_display_error_trap_pop_ignored(display);
}

/* A window of another client that has gone (as a tray manager that quit): its id is returned. */
static Window foreign_window_gone(void)
{
        Display *other = open_other_connection();
        Window xid = XCreateSimpleWindow(other, DefaultRootWindow(other), 0, 0, 8, 8, 0, 0, 0);

        XCloseDisplay(other); /* the server frees the client's resources */
        return xid;
}

TEST(error_arriving_inside_a_trap)
{
        GdkDisplay *display = gdk_display_get_default();
        Display *xdisplay = gdk_x11_display_get_xdisplay(display);
        GtkWidget *window;
        Window xid = shown_window(&window);
        GC gc = XCreateGC(xdisplay, DefaultRootWindow(xdisplay), 0, NULL);

        /* Drawn before we saw the DestroyNotify. */
        destroy_from_outside(xid);
        XCopyArea(xdisplay, xid, xid, gc, 0, 0, 8, 8, 1, 1);
        sync_inside_unrelated_trap(display);
        XFreeGC(xdisplay, gc);

        /* And one without a trap, which GDK's own handler would end the program on. */
        XMapWindow(xdisplay, xid);
        XSync(xdisplay, False);

        process_pending_events();
        CHECK(true); /* reached */
}

TEST(cairo_drawing_on_a_window_destroyed_from_outside)
{
        GdkDisplay *display = gdk_display_get_default();
        Display *xdisplay = gdk_x11_display_get_xdisplay(display);
        GtkWidget *window;
        Window xid = shown_window(&window);
        cairo_surface_t *surface =
                cairo_xlib_surface_create(xdisplay, xid, DefaultVisual(xdisplay, 0), 8, 8);
        cairo_t *cr = cairo_create(surface);

        /* cairo draws through a RENDER picture of the window, which the server frees with the window:
         * the next paint fails with RenderBadPicture. */
        cairo_paint(cr);
        cairo_surface_flush(surface);
        XSync(xdisplay, False);
        destroy_from_outside(xid);
        cairo_set_source_rgb(cr, 1, 0, 0);
        cairo_paint(cr);
        cairo_surface_flush(surface);
        sync_inside_unrelated_trap(display);
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
        XSync(xdisplay, False);

        process_pending_events();
        CHECK(true); /* reached */
}

TEST(resources_made_for_a_window_destroyed_from_outside)
{
        GdkDisplay *display = gdk_display_get_default();
        Display *xdisplay = gdk_x11_display_get_xdisplay(display);
        GtkWidget *window;
        Window xid = shown_window(&window);
        Pixmap pixmap;
        GC gc;

        /* Made for the window before we saw the DestroyNotify, as a frame's double buffer is: they fail
         * (BadDrawable), and freeing them fails in turn (BadPixmap, BadGC). */
        destroy_from_outside(xid);
        pixmap = XCreatePixmap(xdisplay, xid, 8, 8, (unsigned) DefaultDepth(xdisplay, 0));
        gc = XCreateGC(xdisplay, xid, 0, NULL);
        XFreePixmap(xdisplay, pixmap);
        XFreeGC(xdisplay, gc);
        sync_inside_unrelated_trap(display);

        process_pending_events();
        CHECK(true); /* reached */
}

/* GLib, GDK and GTK's warnings and criticals: which of them a destroyed window brings depends on when
 * the destroy arrives (on a loaded machine only GObject's "no handler with id" warning came), so the
 * test counts both. */
static unsigned complaints;

static void count_complaint(const gchar *domain, GLogLevelFlags level, const gchar *message,
                            gpointer userdata)
{
        fprintf(stderr, "%s-%s: %s\n", domain ?: "", level & G_LOG_LEVEL_CRITICAL ? "CRITICAL" : "WARNING",
                message);
        complaints++;
}

TEST(layout_pending_when_destroyed_from_outside)
{
        static const char *const domains[] = {"GLib-GObject", "Gdk", "Gtk"};
        guint handlers[G_N_ELEMENTS(domains)];
        GtkWidget *window, *label = gtk_label_new("0");
        Window xid;

        complaints = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(domains); i++)
                handlers[i] = g_log_set_handler(domains[i], G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING,
                                                count_complaint, NULL);
        xid = shown_window(&window);
        gtk_container_add(GTK_CONTAINER(window), label);
        gtk_widget_show(label);
        process_pending_events();
        /* A readout changes: the window's resize waits for the frame clock's next layout. */
        gtk_label_set_text(GTK_LABEL(label), "12.5 degrees");
        destroy_from_outside(xid);
        process_pending_events();
        for (size_t i = 0; i < G_N_ELEMENTS(domains); i++)
                g_log_remove_handler(domains[i], handlers[i]);
        CHECK_EQ(complaints, 0u);
}

TEST(other_clients_windows_still_reach_the_trap)
{
        GdkDisplay *display = gdk_display_get_default();
        Display *xdisplay = gdk_x11_display_get_xdisplay(display);
        Window foreign = foreign_window_gone();

        /* GDK checks traps on other clients' windows (a tray manager gone): they must still fail. */
        gdk_x11_display_error_trap_push(display);
        XMapWindow(xdisplay, foreign);
        CHECK_EQ(gdk_x11_display_error_trap_pop(display), BadWindow);
}

/* test-tray-x11 [--without-hook] [TEST...]: runs the named tests, or all. */
int main(int argc, char **argv)
{
        static const struct {
                const char *name;
                void (*run)(void);
        } tests[] = {
                {"error_arriving_inside_a_trap", error_arriving_inside_a_trap},
                {"cairo_drawing_on_a_window_destroyed_from_outside",
                 cairo_drawing_on_a_window_destroyed_from_outside},
                {"resources_made_for_a_window_destroyed_from_outside",
                 resources_made_for_a_window_destroyed_from_outside},
                {"layout_pending_when_destroyed_from_outside", layout_pending_when_destroyed_from_outside},
                {"other_clients_windows_still_reach_the_trap", other_clients_windows_still_reach_the_trap},
        };
        bool hook = true;
        int first = 1;

        if (!gtk_init_check(&argc, &argv)) {
                fprintf(stderr, "no X display: set DISPLAY\n");
                return 2;
        }
        if (argc > 1 && strcmp(argv[1], "--without-hook") == 0) {
                hook = false;
                first = 2;
        }
        if (hook)
                tray_x11_tolerate_destroyed_windows();
        for (size_t i = 0; i < G_N_ELEMENTS(tests); i++) {
                bool named = first == argc;

                for (int a = first; a < argc; a++)
                        named |= strcmp(argv[a], tests[i].name) == 0;
                if (named) {
                        fprintf(stderr, "# %s\n", tests[i].name);
                        tests[i].run();
                }
        }
        return test_summary();
}
