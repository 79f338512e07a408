/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The system facts of a diagnosis (system-checks.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macros.h"
#include "strutil.h"
#include "system-checks.h"

#define SYSROOT_DEFAULT "/"
#define LOCKDOWN_PATH   "sys/kernel/security/lockdown"

/* The kernel modules that matter: the 2006 patch series' and tp_smapi's drivers, and thinkpad_acpi. */
static const char *const modules[] = {"hdaps", "thinkpad_ec", "tp_smapi", "hdaps_ec", "thinkpad_acpi"};

/* The first line of sysroot/path without its newline; NULL when unreadable (or out of memory: *oom). */
static char *read_line_at(const char *sysroot, const char *path, bool *oom)
{
        _cleanup_free_ char *full = strprintf("%s/%s", sysroot, path);
        _cleanup_fclose_ FILE *f = NULL;
        char buf[512], *line;

        if (!full) {
                *oom = true;
                return NULL;
        }
        if (!(f = fopen(full, "re")) || !fgets(buf, sizeof(buf), f))
                return NULL;
        buf[strcspn(buf, "\n")] = 0;
        line = strdup(buf);
        if (!line)
                *oom = true;
        return line;
}

/* "none [integrity] confidentiality" -> "integrity"; a line without brackets as is. */
static char *lockdown_mode(const char *line)
{
        const char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;

        return open && close ? strndup(open + 1, close - open - 1) : strdup(line);
}

int system_checks_read(const char *sysroot, SystemChecks *ret)
{
        _cleanup_free_ char *line = NULL;
        bool oom = false;

        *ret = (SystemChecks) {};
        sysroot = sysroot ?: SYSROOT_DEFAULT;

        if (ec_dmi_read(sysroot, &ret->dmi) < 0)
                oom = true;
        ret->probe_allowed = ec_dmi_allows_probe(&ret->dmi, &ret->probe_reason);
        if (ret->dmi.board_vendor && ret->dmi.product_version)
                ret->model = thinkpad_model_lookup(ret->dmi.board_vendor, ret->dmi.product_version);

        for (size_t i = 0; i < ELEMENTSOF(modules); i++) {
                _cleanup_free_ char *path = strprintf("%s/sys/module/%s", sysroot, modules[i]);
                char *joined;

                if (!path) {
                        oom = true;
                        continue;
                }
                if (access(path, F_OK) < 0)
                        continue;
                joined = strprintf("%s%s%s", ret->modules ?: "", ret->modules ? " " : "", modules[i]);
                if (!joined) {
                        oom = true;
                        continue;
                }
                free(ret->modules);
                ret->modules = joined;
        }

        ret->ports_owner_result = ec_ports_owner(sysroot, &ret->ports_owner);

        line = read_line_at(sysroot, LOCKDOWN_PATH, &oom);
        if (line) {
                ret->lockdown = lockdown_mode(line);
                if (!ret->lockdown)
                        oom = true;
                ret->lockdown_forbids_ports = ret->lockdown && !streq(ret->lockdown, "none");
        }

        return oom ? -ENOMEM : 0;
}

void system_checks_done(SystemChecks *s)
{
        ec_dmi_done(&s->dmi);
        s->modules = mfree(s->modules);
        s->ports_owner = mfree(s->ports_owner);
        s->lockdown = mfree(s->lockdown);
}
