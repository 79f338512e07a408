/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Gathering the facts of tray-backend.h: the environment and the Wayland compositor's globals. */
#include <string.h>

#include <gtk/gtk.h>
#include <wayland-client.h>

#include "tray-backend.h"

static void on_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                      uint32_t version)
{
        TrayBackendFacts *facts = data;

        if (strcmp(interface, "gtk_shell1") == 0)
                facts->mutter = TRUE;
        else if (strcmp(interface, "xdg_wm_base") == 0)
                facts->xdg_wm_base_version = version;
}

static void on_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
        .global = on_global,
        .global_remove = on_global_remove,
};

/* The compositor's globals into facts; FALSE when no compositor answers on $WAYLAND_DISPLAY. */
static gboolean read_globals(TrayBackendFacts *facts)
{
        struct wl_display *display;
        struct wl_registry *registry;
        int r;

        if (!g_getenv("WAYLAND_DISPLAY"))
                return FALSE;
        display = wl_display_connect(NULL);
        if (!display)
                return FALSE;
        registry = wl_display_get_registry(display);
        wl_registry_add_listener(registry, &registry_listener, facts);
        r = wl_display_roundtrip(display);
        wl_registry_destroy(registry);
        wl_display_disconnect(display);
        return r >= 0;
}

void tray_backend_choose(void)
{
        TrayBackendFacts facts = {
                .gdk_backend_set = g_getenv("GDK_BACKEND") != NULL,
                .x_display = g_getenv("DISPLAY") && g_getenv("DISPLAY")[0],
                .gtk_tells_suspended = gtk_check_version(3, 24, 41) == NULL,
        };

        /* The user's choice is GDK's to follow; no X server, nothing to choose. */
        if (facts.gdk_backend_set || !facts.x_display)
                return;
        facts.wayland_connected = read_globals(&facts);
        if (!tray_backend_prefers_x11(&facts)) {
                g_debug("Display: as GDK chooses (Wayland compositor %s, gtk_shell1 %s, xdg_wm_base %u)",
                        facts.wayland_connected ? "answered" : "none", facts.mutter ? "yes" : "no",
                        facts.xdg_wm_base_version);
                return;
        }
        g_debug("mutter with xdg_wm_base %u and GTK %u.%u.%u tells a Wayland client nothing of a minimize: "
                "opening the X display %s (Xwayland)",
                facts.xdg_wm_base_version, gtk_get_major_version(), gtk_get_minor_version(),
                gtk_get_micro_version(), g_getenv("DISPLAY"));
        gdk_set_allowed_backends("x11,wayland");
}
