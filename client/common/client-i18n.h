/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Translations of the clients' messages (gettext domain GETTEXT_PACKAGE, "tpaccel"). _() marks and
 * translates a message, N_() only marks one that a table holds and _() translates where it is shown. */

#include <glib/gi18n.h>

/* Sets the locale from the environment and binds the text domain to the installed locale directory
 * (or to $TPACCEL_LOCALEDIR, for running uninstalled from a build tree). Call first in main(). */
void client_i18n_init(void);
