/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Detection before any port write: is this a ThinkPad whose EC has the LPC channel 3 interface, and is
 * a kernel driver already using the ports? Reads only files under sysroot ("/" normally, a fake tree in
 * tests): sys/class/dmi/id/{board_vendor,product_version,product_name}, sys/firmware/dmi/entries/11-<N>/raw,
 * proc/ioports, sys/module/{thinkpad_ec,tp_smapi,hdaps,hdaps_ec}. Then a harmless self-test. */

#include <stdbool.h>

#include "ec.h"

#define EC_DMI_OEM_STRING "IBM ThinkPad Embedded Controller"

typedef struct EcDmi {
        char *board_vendor;    /* "IBM", "LENOVO"; NULL if unreadable */
        char *product_version; /* "ThinkPad T60" */
        char *product_name;
        bool has_ec_oem_string; /* DMI type 11 contains EC_DMI_OEM_STRING */
} EcDmi;

/* Reads DMI. Missing files leave fields NULL; returns 0 or -ENOMEM. */
int ec_dmi_read(const char *sysroot, EcDmi *ret);
void ec_dmi_done(EcDmi *d);

/* Decides whether the EC interface may be probed: the OEM string, or the 2006 patch series' whitelist (IBM
 * ThinkPad A30, T23, X24), or a LENOVO model that the model table knows to carry HDAPS. Returns true, with a
 * static sentence in *ret_reason either way. */
bool ec_dmi_allows_probe(const EcDmi *d, const char **ret_reason);

/* Looks for a kernel user of ports 0x1600-0x161F: a /proc/ioports range overlapping them, or one of the
 * kernel modules that use them (thinkpad_ec with force_io=1 has no ioports entry). Returns 1 with
 * *ret_owner (free it) naming the owner, 0 if the ports look free, or a negative errno. */
int ec_ports_owner(const char *sysroot, char **ret_owner);

/* The 2006 patch series' self-test: reads battery 0's status row (0x01, TWR15 0x00), harmless on every
 * model. Returns 0 or the transport's error. */
int ec_self_test(Ec *ec);
