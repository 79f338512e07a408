/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* X11 details of tpaccel-tray. */

/* Another client may destroy the tray's windows at any time (XDestroyWindow: xdotool windowclose, a
 * window manager's force close); requests GTK sent for them before it saw the DestroyNotify then fail
 * with BadWindow or BadDrawable, which GDK's handler treats as fatal. This handler logs those (debug)
 * and passes every other error on to GDK's. Does nothing on other displays than X11. Call after
 * gtk_init(). */
void tray_x11_tolerate_destroyed_windows(void);
