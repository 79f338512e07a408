/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Detection of the ThinkPad EC and of kernel drivers that own its ports. Facts: docs/PROTOCOL.md. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec-detect.h"
#include "ec-protocol.h"
#include "strutil.h"
#include "thinkpad-models.h"
#include "log.h"

static char *path_join(const char *root, const char *rel)
{
        char *p;
        if (asprintf(&p, "%s/%s", root && *root ? root : "", rel) < 0)
                return NULL;
        return p;
}

/* Reads the first line of a small sysfs file, without the newline. NULL if missing. */
static char *read_line(const char *root, const char *rel)
{
        _cleanup_free_ char *path = path_join(root, rel);
        if (!path)
                return NULL;
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char buf[256];
        if (!fgets(buf, sizeof(buf), f))
                return strdup("");
        buf[strcspn(buf, "\n")] = 0;
        return strdup(buf);
}

/* DMI type 11 (OEM strings) raw entries: a formatted header, then NUL-terminated strings. A plain
 * substring search over the bytes is enough to find the EC's OEM string. */
static bool dmi_oem_strings_contain(const char *root, const char *needle)
{
        _cleanup_free_ char *dir = path_join(root, "sys/firmware/dmi/entries");
        if (!dir)
                return false;
        DIR *d = opendir(dir);
        if (!d)
                return false;

        bool found = false;
        size_t nlen = strlen(needle);
        struct dirent *de;
        while (!found && (de = readdir(d))) {
                if (strncmp(de->d_name, "11-", 3) != 0)
                        continue;
                char rel[300];
                snprintf(rel, sizeof(rel), "%s/raw", de->d_name);
                _cleanup_free_ char *path = path_join(dir, rel);
                _cleanup_fclose_ FILE *f = path ? fopen(path, "re") : NULL;
                if (!f)
                        continue;
                char buf[4096];
                size_t n = fread(buf, 1, sizeof(buf), f);
                for (size_t i = 0; i + nlen <= n && !found; i++)
                        found = memcmp(buf + i, needle, nlen) == 0;
        }
        closedir(d);
        return found;
}

int ec_dmi_read(const char *sysroot, EcDmi *ret)
{
        *ret = (EcDmi) {
                .board_vendor = read_line(sysroot, "sys/class/dmi/id/board_vendor"),
                .product_version = read_line(sysroot, "sys/class/dmi/id/product_version"),
                .product_name = read_line(sysroot, "sys/class/dmi/id/product_name"),
                .has_ec_oem_string = dmi_oem_strings_contain(sysroot, EC_DMI_OEM_STRING),
        };
        return 0;
}

void ec_dmi_done(EcDmi *d)
{
        free(d->board_vendor);
        free(d->product_version);
        free(d->product_name);
        *d = (EcDmi) {};
}

/* Models without the OEM string that the 2006 patch series' thinkpad_ec whitelists (board vendor, product
 * version). */
static const struct {
        const char *vendor, *model;
} seed_whitelist[] = {
        {"IBM", "ThinkPad A30"},
        {"IBM", "ThinkPad T23"},
        {"IBM", "ThinkPad X24"},
};

bool ec_dmi_allows_probe(const EcDmi *d, const char **ret_reason)
{
        if (d->has_ec_oem_string) {
                *ret_reason = "DMI has the OEM string \"" EC_DMI_OEM_STRING "\"";
                return true;
        }
        if (!d->board_vendor || !d->product_version) {
                *ret_reason = "DMI information is not readable, so this is not known to be a ThinkPad";
                return false;
        }
        for (size_t i = 0; i < ELEMENTSOF(seed_whitelist); i++)
                if (streq(d->board_vendor, seed_whitelist[i].vendor) &&
                    strstr(d->product_version, seed_whitelist[i].model)) {
                        *ret_reason = "the model is on thinkpad_ec's DMI whitelist (A30, T23, X24)";
                        return true;
                }
        /* tp_smapi 0.41 accepted every LENOVO ThinkPad, but Ivy Bridge and later models have no LPC3
         * interface and some lock up when probed; accept only models known to carry HDAPS. */
        if (streq(d->board_vendor, "LENOVO") && thinkpad_model_lookup(d->board_vendor, d->product_version)) {
                *ret_reason = "the model is a LENOVO ThinkPad known to carry HDAPS";
                return true;
        }
        *ret_reason = "DMI has neither the ThinkPad EC OEM string nor a known HDAPS model";
        return false;
}

#define PCI_BUS_WINDOW_PREFIX "PCI Bus "

/* Kernel modules that drive the EC ports; any of them loaded means the ports are taken. */
static const char *const port_modules[] = {"thinkpad_ec", "tp_smapi", "hdaps", "hdaps_ec"};

int ec_ports_owner(const char *sysroot, char **ret_owner)
{
        _cleanup_free_ char *ioports = path_join(sysroot, "proc/ioports");
        if (!ioports)
                return -ENOMEM;

        _cleanup_fclose_ FILE *f = fopen(ioports, "re");
        if (f) {
                char line[256];
                while (fgets(line, sizeof(line), f)) {
                        unsigned long start, end;
                        char name[200] = "";
                        if (sscanf(line, " %lx-%lx : %199[^\n]", &start, &end, name) != 3)
                                continue;
                        /* Without CAP_SYS_ADMIN the kernel shows every range as 0000-0000. */
                        if (start == 0 && end == 0)
                                continue;
                        /* A PCI bridge window (top level "0d00-ffff : PCI Bus 0000:00" on every PC)
                         * holds claims rather than being one; what claims the ports is nested in it. */
                        if (strncmp(name, PCI_BUS_WINDOW_PREFIX, strlen(PCI_BUS_WINDOW_PREFIX)) == 0)
                                continue;
                        if (start <= EC_PORT_BASE + EC_PORT_COUNT - 1 && end >= EC_PORT_BASE) {
                                if (asprintf(ret_owner, "%s (ports %04lx-%04lx in /proc/ioports)", name,
                                             start, end) < 0)
                                        return -ENOMEM;
                                return 1;
                        }
                }
        }

        for (size_t i = 0; i < ELEMENTSOF(port_modules); i++) {
                char rel[64];
                snprintf(rel, sizeof(rel), "sys/module/%s", port_modules[i]);
                _cleanup_free_ char *path = path_join(sysroot, rel);
                if (!path)
                        return -ENOMEM;
                DIR *d = opendir(path);
                if (!d)
                        continue;
                closedir(d);
                if (asprintf(ret_owner, "kernel module %s", port_modules[i]) < 0)
                        return -ENOMEM;
                return 1;
        }
        return 0;
}

int ec_self_test(Ec *ec)
{
        const EcRow args = {
                .mask = EC_ROW_MASK_ARG0 | EC_ROW_MASK_ARG15,
                .val = {[0] = EC_CMD_BATTERY_STATUS, [0xF] = EC_BATTERY_SELFTEST_ARG15},
        };
        EcRow data = {.mask = 0};
        return ec_read_row(ec, &args, &data);
}
