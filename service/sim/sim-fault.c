/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fault specifications ("KIND[:PROBABILITY]") and the per-transaction fault decision. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec-protocol.h"
#include "strutil.h"
#include "sim-fault.h"

static const char *const fault_kind_names[_SIM_FAULT_MAX] = {
        [SIM_FAULT_BUSY] = "busy",
        [SIM_FAULT_SILENT] = "silent",
        [SIM_FAULT_BAD_STATUS] = "bad-status",
        [SIM_FAULT_RETVAL] = "retval",
        [SIM_FAULT_PENDING] = "pending",
        [SIM_FAULT_ABSENT] = "absent",
};

#define FAULT_KINDS_LIST            "busy, silent, bad-status, retval, pending, absent"
#define FAULT_PROBABILITY_QUOTE_MAX 32

const char *sim_fault_kind_to_string(SimFaultKind k)
{
        if ((unsigned) k >= _SIM_FAULT_MAX)
                return NULL;
        return fault_kind_names[k];
}

int sim_fault_parse(const char *s, SimFault *ret, char **ret_error)
{
        const char *colon;
        size_t kind_len;
        SimFault f = {.kind = _SIM_FAULT_MAX, .probability = 1.0};

        if (ret_error)
                *ret_error = NULL;
        if (!s || !*s)
                return error_printf(ret_error, -EINVAL,
                                    "empty fault specification (expected KIND[:PROBABILITY], KIND "
                                    "one of " FAULT_KINDS_LIST ")");

        colon = strchr(s, ':');
        kind_len = colon ? (size_t) (colon - s) : strlen(s);
        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++)
                if (strlen(fault_kind_names[k]) == kind_len &&
                    strncmp(s, fault_kind_names[k], kind_len) == 0)
                        f.kind = k;
        if (f.kind == _SIM_FAULT_MAX)
                return error_printf(ret_error, -EINVAL,
                                    "unknown fault kind '%.*s' (expected " FAULT_KINDS_LIST ")",
                                    (int) MIN(kind_len, (size_t) FAULT_PROBABILITY_QUOTE_MAX), s);

        if (colon) {
                const char *p = colon + 1;
                char *end = NULL;
                double v;

                /* Plain decimal only: no sign, hex, exponent-only, inf or nan spellings. */
                bool plain = *p != 0;
                for (const char *c = p; *c; c++)
                        if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' ||
                              *c == '+'))
                                plain = false;
                errno = 0;
                v = plain ? strtod(p, &end) : NAN;
                if (!plain || errno != 0 || !end || *end != 0 || !isfinite(v))
                        return error_printf(ret_error, -EINVAL, "probability '%.*s' is not a number",
                                            FAULT_PROBABILITY_QUOTE_MAX, p);
                if (v < 0 || v > 1)
                        return error_printf(ret_error, -EINVAL, "probability '%.*s' is not between 0 and 1",
                                            FAULT_PROBABILITY_QUOTE_MAX, p);
                f.probability = v;
        }

        *ret = f;
        return 0;
}

static bool fault_applies(SimFaultKind k, uint8_t command)
{
        switch (k) {
        case SIM_FAULT_RETVAL:
                return command == EC_CMD_ACCEL_READOUT;
        case SIM_FAULT_PENDING:
                return command == EC_CMD_ACCEL_CONFIG;
        case SIM_FAULT_ABSENT:
                return command == EC_CMD_ACCEL_MODE;
        default:
                return true;
        }
}

unsigned sim_faults_roll(const SimFault *faults, unsigned n, uint8_t command, SimRng *rng)
{
        unsigned set = 0;

        for (unsigned i = 0; i < n; i++) {
                if ((unsigned) faults[i].kind >= _SIM_FAULT_MAX || !fault_applies(faults[i].kind, command))
                        continue;
                if (sim_rng_unit(rng) < faults[i].probability)
                        set |= 1u << faults[i].kind;
        }
        return set;
}
