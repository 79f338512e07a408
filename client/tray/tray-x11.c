/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <gdk/gdkx.h>
#include <gtk/gtk.h>
#include <X11/Xlib.h>

#include "tray-x11.h"

/* Xlib's handler takes no user data: the one it replaced is kept here, set once at start. */
static XErrorHandler gdk_handler;

static int on_x_error(Display *display, XErrorEvent *event)
{
        if (event->error_code == BadWindow || event->error_code == BadDrawable) {
                g_debug("Ignoring X error %u (request %u) on window 0x%lx: it was destroyed from outside",
                        event->error_code, event->request_code, event->resourceid);
                return 0;
        }
        return gdk_handler ? gdk_handler(display, event) : 0;
}

void tray_x11_tolerate_destroyed_windows(void)
{
        GdkDisplay *display = gdk_display_get_default();

        if (!display || !GDK_IS_X11_DISPLAY(display) || gdk_handler)
                return;
        gdk_handler = XSetErrorHandler(on_x_error);
}
