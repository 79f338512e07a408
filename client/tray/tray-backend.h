/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Which display the tray opens in a Wayland session: the compositor's own (Wayland), or its X server
 * (Xwayland) where only X11 tells the tray that its window was minimized.
 *
 * mutter keeps a minimized window's frame clock going and reports its frames presented; it tells a
 * Wayland client of the minimize only through xdg-shell 6's "suspended" state (mutter 45 and later),
 * which GTK 3.24.41 and later turns into a visibility event. Older pairs (Debian 12: GNOME Shell 43 and
 * GTK 3.24.38) tell a Wayland client nothing, so a minimized window would keep the full-rate claim; as
 * an X11 client of the same shell the window is iconified (_NET_WM_STATE_HIDDEN) like anywhere on X11.
 * Other compositors stop a hidden window's frame callbacks (sway, KWin 5.27) or suspend it (KWin 6), so
 * there the tray stays a Wayland client. */

#include <glib.h>

typedef struct TrayBackendFacts {
        gboolean gdk_backend_set;     /* $GDK_BACKEND is set: the user chose */
        gboolean x_display;           /* $DISPLAY is set: an X server (Xwayland) is offered */
        gboolean wayland_connected;   /* a Wayland compositor answered on $WAYLAND_DISPLAY */
        gboolean mutter;              /* it offers gtk_shell1, GNOME's own protocol (mutter) */
        unsigned xdg_wm_base_version; /* its xdg_wm_base's version, 0 if none */
        gboolean gtk_tells_suspended; /* this GTK turns "suspended" into a visibility event (3.24.41+) */
} TrayBackendFacts;

/* Whether the tray should be an X11 client (Xwayland) rather than a Wayland one, from the facts: only
 * when the user did not choose, an X server is offered, and the compositor is mutter without a way to
 * tell this GTK of a minimize (xdg_wm_base older than 6, or a GTK older than 3.24.41). */
gboolean tray_backend_prefers_x11(const TrayBackendFacts *facts);

/* Gathers the facts (the environment, and the globals of the Wayland compositor on $WAYLAND_DISPLAY,
 * whose connection is closed again) and, when tray_backend_prefers_x11(), has GDK try X11 first
 * (gdk_set_allowed_backends: Wayland stays the fallback if the X server cannot be opened). Logs its
 * choice (debug). Call once, before gtk_init(). */
void tray_backend_choose(void);
