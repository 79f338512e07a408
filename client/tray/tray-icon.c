/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>

#include "tray-icon.h"

int tray_icon_step(double degrees)
{
        int level = TRAY_ICON_STEPS / 2;
        double steps;

        if (!isfinite(degrees))
                return level;
        steps = round(degrees / TRAY_ICON_DEGREES_PER_STEP);
        return level + (int) CLAMP(steps, -level, level);
}

char *tray_icon_name(const TrayIconState *state)
{
        if (!state->service_present)
                return g_strdup(TRAY_ICON_SERVICE_MISSING);
        if (!state->has_accelerometer)
                return g_strdup(TRAY_ICON_NO_ACCELEROMETER);
        if (state->shock_active)
                return g_strdup(TRAY_ICON_SHOCK);
        return g_strdup_printf("tpaccel-tilt-r%d-p%d", tray_icon_step(state->roll),
                               tray_icon_step(state->pitch));
}

gboolean tray_icon_wants_symbolic(const char *xdg_current_desktop)
{
        g_auto(GStrv) desktops = NULL;

        if (!xdg_current_desktop)
                return FALSE;
        desktops = g_strsplit(xdg_current_desktop, ":", -1);
        for (char **d = desktops; *d; d++)
                if (g_ascii_strcasecmp(*d, "GNOME") == 0 || g_ascii_strcasecmp(*d, "GNOME-Classic") == 0)
                        return TRUE;
        return FALSE;
}
