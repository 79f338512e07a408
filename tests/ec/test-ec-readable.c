/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The raw ReadRow allow-list (service/ec/ec-readable.c): exactly the rows docs/PROTOCOL.md "Raw rows"
 * lists are served, each only with the argument bytes and TWR15 its source sends. */

#include <string.h>

#include "ec-protocol.h"
#include "ec-readable.h"
#include "test-helpers.h"

static EcRow row(uint16_t mask, uint8_t arg0, uint8_t arg1, uint8_t arg15)
{
        EcRow r = {.mask = mask};

        r.val[0] = arg0;
        r.val[1] = arg1;
        r.val[15] = arg15;
        return r;
}

static bool readable(EcRow r)
{
        return ec_row_readable(&r, NULL);
}

static void check_refused(EcRow r, const char *why_part)
{
        const char *why = NULL;

        CHECK(!ec_row_readable(&r, &why));
        CHECK(why && strstr(why, why_part));
        if (why && !strstr(why, why_part))
                fprintf(stderr, "  row 0x%02x: \"%s\" lacks \"%s\"\n", r.val[0], why, why_part);
}

TEST(test_arg0_alone)
{
        /* args_mask 0x0001: TWR15 is written as 0x01. Readable: the battery rows (battery 1), the
         * readout and the mode latch; 0x17 needs its sub-command. */
        for (unsigned a = 0; a <= 0xFF; a++) {
                EcRow r = row(EC_ROW_MASK_ARG0, (uint8_t) a, 0, 0);
                bool want = a <= EC_CMD_BATTERY_LAST || a == EC_CMD_ACCEL_READOUT || a == EC_CMD_ACCEL_MODE;
                CHECK_EQ(ec_row_readable(&r, NULL), want);
        }
}

TEST(test_battery_rows_as_tp_smapi_reads_them)
{
        /* read_tp_ec_row(): mask 0xFFFF, junk in TWR1..14, TWR15 = battery. */
        for (unsigned a = EC_CMD_BATTERY_FIRST; a <= EC_CMD_BATTERY_LAST; a++)
                for (unsigned bat = 0; bat <= 1; bat++) {
                        EcRow r = row(0xFFFF, (uint8_t) a, 0xAA, (uint8_t) bat);
                        memset(r.val + 1, 0x55, 14);
                        CHECK(ec_row_readable(&r, NULL));
                }
        /* The 2006 patch series' self-test row. */
        EcRow selftest = row(EC_ROW_MASK_ARG0 | EC_ROW_MASK_ARG15, EC_CMD_BATTERY_STATUS, 0,
                             EC_BATTERY_SELFTEST_ARG15);
        CHECK(readable(selftest));
        /* AC presence: only row 0x01 with TWR15 0xFF. */
        CHECK(readable(row(0xFFFF, 0x01, 0, 0xFF)));
        check_refused(row(0xFFFF, 0x02, 0, 0xFF), "never send it");
        check_refused(row(0xFFFF, 0x01, 0, 0x02), "never send it");
        check_refused(row(0xFFFF, EC_CMD_BATTERY_FORBIDDEN, 0, 0), "hangs the EC firmware");
        check_refused(row(EC_ROW_MASK_ARG0, EC_CMD_BATTERY_FORBIDDEN, 0, 0), "T42");
}

TEST(test_accelerometer_reads_as_the_seeds_send_them)
{
        const uint16_t arg0_sub = EC_ROW_MASK_ARG0 | (1u << EC_EXT_IDX_SUB);

        CHECK(readable(row(arg0_sub, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_CHECK, 0)));
        CHECK(readable(row(arg0_sub, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_GET_CONFIG, 0)));
        /* TWR15 given explicitly as the default is the same request. */
        CHECK(readable(row(arg0_sub | EC_ROW_MASK_ARG15, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_GET_CONFIG,
                           EC_ROW_ARG15_DEFAULT)));
        CHECK(readable(row(EC_ROW_MASK_ARG0, EC_CMD_ACCEL_READOUT, 0, 0)));

        /* More argument bytes, or another TWR15, than the 2006 patch series sends: not the same command. */
        check_refused(row(0x0003, EC_CMD_ACCEL_READOUT, 1, 0), "never send it");
        check_refused(row(EC_ROW_MASK_ARG0 | EC_ROW_MASK_ARG15, EC_CMD_ACCEL_MODE, 0, 0x00),
                      "never send it");
        check_refused(row(0x0007, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_GET_CONFIG, 0), "never send it");
}

TEST(test_writes_are_refused_with_their_reason)
{
        check_refused(row(0x0003, EC_CMD_ACCEL_POWER, 0, 0), "powers the accelerometer on or off");
        check_refused(row(EC_ROW_MASK_ARG0, EC_CMD_ACCEL_POWER, 0, 0), "powers");
        check_refused(row(0x000F, EC_CMD_ACCEL_CONFIG, 0xFA, 0), "reconfigures the accelerometer");
        check_refused(row(0x0007, EC_CMD_ACCEL_EXT, EC_SUB_ACCEL_FAKE_DATA, 0), "fake-data mode");
        check_refused(row(0x0003, EC_CMD_ACCEL_EXT, 0x80, 0), "0x81 (check) and 0x82");
        check_refused(row(EC_ROW_MASK_ARG0, EC_CMD_ACCEL_EXT, 0, 0), "never send it");
        check_refused(row(EC_ROW_MASK_ARG0, 0x42, 0, 0), "not on the list");
}

int main(void)
{
        RUN(test_arg0_alone);
        RUN(test_battery_rows_as_tp_smapi_reads_them);
        RUN(test_accelerometer_reads_as_the_seeds_send_them);
        RUN(test_writes_are_refused_with_their_reason);
        return test_summary();
}
