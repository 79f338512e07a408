/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <gdk/gdkx.h>
#include <gtk/gtk.h>
#include <stdbool.h>
#include <X11/extensions/render.h>
#include <X11/Xlib.h>
#include <X11/Xlibint.h>

#include "tray-x11.h"

typedef Bool (*WireToError)(Display *display, XErrorEvent *event, xError *wire);

/* Xlib's hooks take no user data: the hooks ours replaced are kept here, by error code, set once at
 * start. */
static WireToError replaced_hooks[256];
static bool hooked;

/* Whether id was allocated by this connection: X gives each client a range of resource ids. */
static bool is_own_resource(const Display *display, XID id)
{
        return (id & ~display->resource_mask) == display->resource_base;
}

/* Called by Xlib for each error of the codes hooked below, before any error handler or GDK error trap
 * sees it; False drops the error. Runs with the display locked: no Xlib calls here. */
static Bool on_wire_error(Display *display, XErrorEvent *event, xError *wire)
{
        WireToError replaced = replaced_hooks[event->error_code];

        if (is_own_resource(display, event->resourceid)) {
                g_debug("Ignoring X error %u (request %u.%u) on 0x%lx: its window was destroyed from "
                        "outside",
                        event->error_code, event->request_code, event->minor_code, event->resourceid);
                return False;
        }
        return replaced ? replaced(display, event, wire) : True;
}

static void hook_error(Display *display, int error_code)
{
        assert(error_code > 0 && error_code < (int) G_N_ELEMENTS(replaced_hooks));
        replaced_hooks[error_code] = XESetWireToError(display, error_code, on_wire_error);
}

/* A DestroyNotify for one of our toplevels that another client destroyed: GDK would dispose the window's
 * frame clock first (dropping every handler on it) and GTK then disconnect its own handlers from the
 * clock by id (a pending resize's, a tick callback's) when it destroys the widget: a GLib critical for
 * each (GTK 3.24). So the widget is destroyed here, before GDK sees the event, as the program would
 * destroy it: GTK disconnects what it connected while the handlers are there, and the requests for the
 * gone window fail with the errors hooked above. GTK would destroy the widget on this event anyway
 * (gtk_main_do_event on GDK_DESTROY for a toplevel). */
static GdkFilterReturn on_destroy_notify(GdkXEvent *xevent, GdkEvent *event, gpointer userdata)
{
        const XEvent *x = xevent;
        GdkDisplay *display = userdata;
        GdkWindow *window;
        gpointer widget = NULL;

        if (x->type != DestroyNotify)
                return GDK_FILTER_CONTINUE;
        window = gdk_x11_window_lookup_for_display(display, x->xdestroywindow.window);
        if (!window || gdk_window_get_window_type(window) != GDK_WINDOW_TOPLEVEL)
                return GDK_FILTER_CONTINUE;
        gdk_window_get_user_data(window, &widget);
        if (!GTK_IS_WINDOW(widget))
                return GDK_FILTER_CONTINUE;
        g_debug("Window 0x%lx was destroyed from outside", x->xdestroywindow.window);
        gtk_widget_destroy(widget);
        return GDK_FILTER_REMOVE;
}

void tray_x11_tolerate_destroyed_windows(void)
{
        GdkDisplay *display = gdk_display_get_default();
        Display *xdisplay;
        int render_opcode, render_event_base, render_error_base;

        if (!display || !GDK_IS_X11_DISPLAY(display) || hooked)
                return;
        xdisplay = gdk_x11_display_get_xdisplay(display);
        hook_error(xdisplay, BadWindow);
        hook_error(xdisplay, BadDrawable);
        /* A pixmap or GC made for the window after it went was never made: freeing or using it fails. */
        hook_error(xdisplay, BadPixmap);
        hook_error(xdisplay, BadGC);
        /* cairo draws through RENDER pictures, which the server frees with their window. */
        if (XQueryExtension(xdisplay, RENDER_NAME, &render_opcode, &render_event_base, &render_error_base))
                hook_error(xdisplay, render_error_base + BadPicture);
        gdk_window_add_filter(NULL, on_destroy_notify, display);
        hooked = true;
}
