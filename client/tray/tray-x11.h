/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* X11 details of tpaccel-tray. */

/* Another client may destroy the tray's windows at any time (XDestroyWindow: xdotool windowclose, a
 * window manager's force close). Requests GTK sent for them before it saw the DestroyNotify then fail
 * with BadWindow, BadDrawable or RENDER's BadPicture (the server frees a window's pictures with it), and
 * what GTK made for the window meanwhile was never made (BadPixmap, BadGC when it is freed or used); and
 * GDK ends the program on such an error, even one that arrives while one of its error traps is pushed
 * for an unrelated later request. This hooks Xlib's error conversion (XESetWireToError), which runs
 * before GDK's handler and its traps: those errors on a resource of this connection are logged (debug)
 * and dropped; the same errors on other clients' windows (which GDK traps and checks, e.g. a tray
 * manager's) and every other error go on to GDK as before. A toplevel destroyed from outside is
 * destroyed (gtk_widget_destroy) before GDK handles its DestroyNotify, which would otherwise drop the
 * handlers GTK has on its frame clock and have GTK disconnect them by id (GLib criticals). Does nothing
 * on other displays than X11.
 * Call once, after gtk_init(). */
void tray_x11_tolerate_destroyed_windows(void);
