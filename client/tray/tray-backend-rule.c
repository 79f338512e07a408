/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rule of tray-backend.h, apart from GDK and Wayland so that it is unit-tested without a display. */
#include "tray-backend.h"

/* xdg_wm_base's version that has the toplevel state "suspended". */
#define XDG_WM_BASE_SUSPENDED_VERSION 6

gboolean tray_backend_prefers_x11(const TrayBackendFacts *facts)
{
        g_assert(facts);

        if (facts->gdk_backend_set || !facts->x_display || !facts->wayland_connected || !facts->mutter)
                return FALSE;
        return facts->xdg_wm_base_version < XDG_WM_BASE_SUSPENDED_VERSION || !facts->gtk_tells_suspended;
}
