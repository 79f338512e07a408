/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The raw-read allow-list (ec-readable.h). Sources: docs/PROTOCOL.md "Raw rows". */

#include "ec-protocol.h"
#include "ec-readable.h"

#define SUB_ANY       (-1)
#define ARG_BIT(i)    ((uint16_t) (1u << (i)))
#define ARGS_ALL      0xFFFFu
#define ARGS_ARG0     (EC_ROW_MASK_ARG0 | EC_ROW_MASK_ARG15)
#define ARGS_ARG0_SUB (EC_ROW_MASK_ARG0 | ARG_BIT(EC_EXT_IDX_SUB) | EC_ROW_MASK_ARG15)

typedef struct ReadableRow {
        uint8_t arg0_first, arg0_last;
        int sub;                         /* TWR1 must be this (a 0x17 sub-command); SUB_ANY: not looked at */
        uint16_t args_allowed;           /* the argument bytes a request may set (bit i: TWRi) */
        uint8_t arg15_first, arg15_last; /* TWR15 as written (EC_ROW_ARG15_DEFAULT when not set) */
} ReadableRow;

static const ReadableRow readable_rows[] = {
        /* tp_smapi 0.43 read_tp_ec_row(): mask 0xFFFF, TWR1..14 junk, TWR15 = battery 0 or 1; rows
         * 0x00..0x0A (the dump attribute; 0x01 is also the 2006 patch series' self-test row, battery 0). */
        {EC_CMD_BATTERY_FIRST, EC_CMD_BATTERY_LAST, SUB_ANY, ARGS_ALL, 0x00, EC_BATTERY_INDEX_MAX},
        /* tp_smapi 0.43 ac_connected: row 0x01 with TWR15 0xFF. */
        {EC_CMD_BATTERY_STATUS, EC_CMD_BATTERY_STATUS, SUB_ANY, ARGS_ALL, EC_BATTERY_ARG15_AC,
         EC_BATTERY_ARG15_AC},
        /* PATCH 02/04/08 of the 2006 patch series: readout and mode latch, arg0 only (TWR15 0x01). */
        {EC_CMD_ACCEL_READOUT, EC_CMD_ACCEL_READOUT, SUB_ANY, ARGS_ARG0, EC_ROW_ARG15_DEFAULT,
         EC_ROW_ARG15_DEFAULT},
        {EC_CMD_ACCEL_MODE, EC_CMD_ACCEL_MODE, SUB_ANY, ARGS_ARG0, EC_ROW_ARG15_DEFAULT,
         EC_ROW_ARG15_DEFAULT},
        /* PATCH 08 of the 2006 patch series: 0x17 with TWR1 0x81 (check) or 0x82 (read the configuration),
           mask 0x0003. TWR15 0x01 in every accelerometer row. */
        {EC_CMD_ACCEL_EXT, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_CHECK, ARGS_ARG0_SUB, EC_ROW_ARG15_DEFAULT,
         EC_ROW_ARG15_DEFAULT},
        {EC_CMD_ACCEL_EXT, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_GET_CONFIG, ARGS_ARG0_SUB, EC_ROW_ARG15_DEFAULT,
         EC_ROW_ARG15_DEFAULT},
};

static const char *why_not(const EcRow *args)
{
        switch (args->val[0]) {
        case EC_CMD_BATTERY_FORBIDDEN:
                return "it hangs the EC firmware of every T42 and of old T43s (tp_smapi 0.30)";
        case EC_CMD_ACCEL_CONFIG:
                return "it reconfigures the accelerometer (EC rate and filter order)";
        case EC_CMD_ACCEL_POWER:
                return "it powers the accelerometer on or off";
        case EC_CMD_ACCEL_EXT:
                if ((args->mask & ARG_BIT(EC_EXT_IDX_SUB)) && args->val[1] == EC_SUB_ACCEL_FAKE_DATA)
                        return "sub-command 0x83 switches the accelerometer's fake-data mode";
                if ((args->mask & ARG_BIT(EC_EXT_IDX_SUB)) && args->val[1] != EC_SUB_ACCEL_CHECK &&
                    args->val[1] != EC_SUB_ACCEL_GET_CONFIG)
                        return "only its sub-commands 0x81 (check) and 0x82 (read the configuration) are "
                               "known to only read";
                break;
        default:
                break;
        }
        return NULL;
}

bool ec_row_readable(const EcRow *args, const char **ret_why)
{
        uint8_t arg15 = (args->mask & EC_ROW_MASK_ARG15) ? args->val[0xF] : EC_ROW_ARG15_DEFAULT;
        bool known_arg0 = false;
        const char *why;

        for (size_t i = 0; i < ELEMENTSOF(readable_rows); i++) {
                const ReadableRow *r = &readable_rows[i];

                if (args->val[0] < r->arg0_first || args->val[0] > r->arg0_last)
                        continue;
                known_arg0 = true;
                if (r->sub != SUB_ANY && (!(args->mask & ARG_BIT(EC_EXT_IDX_SUB)) || args->val[1] != r->sub))
                        continue;
                if (args->mask & ~r->args_allowed)
                        continue;
                if (arg15 < r->arg15_first || arg15 > r->arg15_last)
                        continue;
                return true;
        }

        why = why_not(args);
        if (!why)
                why = known_arg0
                              ? "the reference drivers never send it with these argument bytes or this TWR15"
                              : "it is not on the list of rows known to only read";
        if (ret_why)
                *ret_why = why;
        return false;
}
