/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The rows a raw ReadRow (org.thinkpad.EmbeddedController) may request: only rows that read. An EC
 * "row read" is a command: a read of 0x14 powers the accelerometer off, one of 0x10 reconfigures it,
 * and 0x0B hangs old firmware. The allow-list (ec-readable.c, docs/PROTOCOL.md "Raw rows") holds the
 * battery rows as tp_smapi 0.43 reads them and the accelerometer's status, readout and
 * configuration-read rows as the 2006 patch series requests them, each with its source. */

#include <stdbool.h>

#include "ec.h"

/* Whether args (a request row: arg0 and the bytes its mask selects; TWR15 as the transport would write
 * it) is on the allow-list. When it is not, *ret_why (if not NULL) is a static phrase saying why,
 * e.g. "it powers the accelerometer on or off". */
bool ec_row_readable(const EcRow *args, const char **ret_why);
