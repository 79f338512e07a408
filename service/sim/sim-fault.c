/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fault specifications ("KIND[:PROBABILITY]") and the per-transaction fault decision. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec-protocol.h"
#include "macros.h"
#include "strutil.h"
#include "strv.h"
#include "sim-fault.h"

static const char *const sim_fault_kind_table[_SIM_FAULT_MAX] = {
        [SIM_FAULT_BUSY] = "busy",
        [SIM_FAULT_SILENT] = "silent",
        [SIM_FAULT_BAD_STATUS] = "bad-status",
        [SIM_FAULT_RETVAL] = "retval",
        [SIM_FAULT_PENDING] = "pending",
        [SIM_FAULT_ABSENT] = "absent",
        [SIM_FAULT_ZERO_STEP] = "zero-step",
        [SIM_FAULT_SWMF_AFTER_READ] = "swmf-after-read",
        [SIM_FAULT_NO_READOUT] = "no-readout",
        [SIM_FAULT_WARM_UP] = "warm-up",
        [SIM_FAULT_MODE_CHANGE] = "mode-change",
        [SIM_FAULT_END_STATUS] = "end-status",
};

#define FAULT_PROBABILITY_QUOTE_MAX 32

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(sim_fault_kind, SimFaultKind, );

/* Every kind's name in SimFaultKind's order, joined by separator; NULL on ENOMEM. */
static char *sim_fault_kinds_join(const char *separator)
{
        const char *kinds[_SIM_FAULT_MAX + 1] = {};

        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++)
                kinds[k] = sim_fault_kind_table[k];
        return strv_join((char **) kinds, separator);
}

/* A plain non-negative decimal (digits and at most one point), or -EINVAL. */
static int parse_seconds(const char *p, size_t len, double *ret)
{
        char buf[FAULT_PROBABILITY_QUOTE_MAX + 1];
        bool digit = false;
        unsigned points = 0;

        if (len == 0 || len > FAULT_PROBABILITY_QUOTE_MAX)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (p[i] == '.')
                        points++;
                else if (p[i] >= '0' && p[i] <= '9')
                        digit = true;
                else
                        return -EINVAL;
        }
        if (!digit || points > 1)
                return -EINVAL;
        memcpy(buf, p, len);
        buf[len] = 0;
        return safe_atod(buf, ret) < 0 ? -EINVAL : 0;
}

/* "@FROM-TO" after the fault (at points at '@'). */
static int parse_window(const char *at, SimFault *f, char **ret_error)
{
        const char *w = at + 1, *dash = strchr(w, '-');

        if (!dash || parse_seconds(w, (size_t) (dash - w), &f->from_s) < 0 ||
            parse_seconds(dash + 1, strlen(dash + 1), &f->to_s) < 0)
                return error_printf(ret_error, -EINVAL,
                                    "time window '%.*s' is not FROM-TO in seconds (like 2-5.5)",
                                    FAULT_PROBABILITY_QUOTE_MAX, w);
        if (!(f->to_s > f->from_s))
                return error_printf(ret_error, -EINVAL, "time window '%.*s' ends before it starts",
                                    FAULT_PROBABILITY_QUOTE_MAX, w);
        return 0;
}

int sim_fault_parse(const char *spec, SimFault *ret, char **ret_error)
{
        _cleanup_free_ char *copy = NULL, *kinds = NULL;
        const char *colon, *s;
        char *at;
        size_t kind_len;
        SimFault f = {.kind = _SIM_FAULT_MAX, .probability = 1.0};

        assert(ret);

        if (ret_error)
                *ret_error = NULL;
        kinds = sim_fault_kinds_join(", ");
        if (!kinds)
                return -ENOMEM;
        if (!spec || !*spec)
                return error_printf(ret_error, -EINVAL,
                                    "empty fault specification (expected KIND[:PROBABILITY][@FROM-TO], "
                                    "KIND one of %s)",
                                    kinds);
        copy = strdup(spec);
        if (!copy)
                return -ENOMEM;
        at = strchr(copy, '@');
        if (at) {
                int r = parse_window(at, &f, ret_error);
                if (r < 0)
                        return r;
                *at = 0;
        }
        s = copy;

        colon = strchr(s, ':');
        kind_len = colon ? (size_t) (colon - s) : strlen(s);
        for (unsigned k = 0; k < _SIM_FAULT_MAX; k++)
                if (strlen(sim_fault_kind_table[k]) == kind_len &&
                    strncmp(s, sim_fault_kind_table[k], kind_len) == 0)
                        f.kind = k;
        if (f.kind == _SIM_FAULT_MAX)
                return error_printf(ret_error, -EINVAL, "unknown fault kind '%.*s' (expected %s)",
                                    (int) MIN(kind_len, (size_t) FAULT_PROBABILITY_QUOTE_MAX), s, kinds);

        if (colon) {
                const char *p = colon + 1;
                double v;

                /* Plain decimal only (safe_atod()): no hex, inf or nan spellings. */
                if (safe_atod(p, &v) < 0)
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
        case SIM_FAULT_NO_READOUT:
                return command == EC_CMD_ACCEL_READOUT;
        case SIM_FAULT_WARM_UP:
                return command == EC_CMD_ACCEL_POWER;
        case SIM_FAULT_PENDING:
                return command == EC_CMD_ACCEL_CONFIG;
        case SIM_FAULT_ABSENT: /* the mode latch, and what only an accelerometer could answer */
                return command == EC_CMD_ACCEL_MODE || command == EC_CMD_ACCEL_READOUT ||
                       command == EC_CMD_ACCEL_EXT;
        case SIM_FAULT_MODE_CHANGE:
                return command == EC_CMD_ACCEL_MODE;
        default:
                return true;
        }
}

static bool fault_active(const SimFault *f, double t_s)
{
        return t_s >= f->from_s && (f->to_s <= 0 || t_s < f->to_s);
}

unsigned sim_faults_roll(const SimFault *faults, unsigned n, uint8_t command, double t_s, SimRng *rng)
{
        unsigned set = 0;

        for (unsigned i = 0; i < n; i++) {
                if ((unsigned) faults[i].kind >= _SIM_FAULT_MAX || !fault_applies(faults[i].kind, command) ||
                    !fault_active(&faults[i], t_s))
                        continue;
                if (sim_rng_unit(rng) < faults[i].probability)
                        set |= 1u << faults[i].kind;
        }
        return set;
}
