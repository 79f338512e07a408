/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compiled at test time only (test-reference.py): tp_smapi 0.43's thinkpad_ec.c, unmodified, from the
 * unpacked Debian package (-I to its directory), followed by the entry points the runner calls. The
 * reference source is never part of tpaccel's tree. */
#include "thinkpad_ec.c"

int ref_thinkpad_ec_init(void)
{
        return thinkpad_ec_init();
}

void ref_thinkpad_ec_exit(void)
{
        thinkpad_ec_exit();
}
