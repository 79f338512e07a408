/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <locale.h>

#include "client-i18n.h"
#include "config.h"

void client_i18n_init(void)
{
        const char *dir = g_getenv("TPACCEL_LOCALEDIR");

        setlocale(LC_ALL, "");
        bindtextdomain(GETTEXT_PACKAGE, dir && dir[0] ? dir : LOCALEDIR);
        bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
        textdomain(GETTEXT_PACKAGE);
}
