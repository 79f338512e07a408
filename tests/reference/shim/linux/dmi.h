/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpaccel kernel shim: see ../kshim.h. */
#include "../kshim.h"
