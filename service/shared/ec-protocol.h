/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The protocol table: every command byte, row index, mask and return code tpaccel uses on the
 * ThinkPad EC's LPC channel 3. Shared by the hdaps device layer (which speaks it) and the EC emulator
 * (which answers it), so the two can never disagree. Sources for each value: docs/PROTOCOL.md. */

/* Battery status row, read by the EC self-test (thinkpad_ec_test in PATCH 01/12 of the 2006 patch series).
 */
#define EC_CMD_BATTERY_STATUS     0x01
#define EC_BATTERY_SELFTEST_ARG15 0x00 /* battery 0 */
/* Row 0x0B exists but hangs old EC firmware (tp_smapi 0.30); tpaccel never requests it. */
#define EC_CMD_BATTERY_FORBIDDEN 0x0B
/* The battery rows tp_smapi 0.43 reads (read_tp_ec_row: TWR1..14 junk, TWR15 the battery; the dump
 * attribute reads 0x00..0x0A). Row 0x01 with TWR15 0xFF answers AC presence (ac_connected). */
#define EC_CMD_BATTERY_FIRST 0x00
#define EC_CMD_BATTERY_LAST  0x0A
#define EC_BATTERY_INDEX_MAX 0x01 /* TWR15: battery 0 or 1 */
#define EC_BATTERY_ARG15_AC  0xFF

/* Accelerometer commands (hdaps.c in PATCH 02..10/12 of the 2006 patch series, tp_smapi 0.43). */
#define EC_CMD_ACCEL_CONFIG     0x10 /* [1..2] EC rate LE16, [3] running-average filter order */
#define EC_CMD_ACCEL_READOUT    0x11 /* readout row, layout below */
#define EC_CMD_ACCEL_MODE       0x13 /* [1] mode latch; 0 = no accelerometer */
#define EC_CMD_ACCEL_POWER      0x14 /* [1] 1 on, 0 off */
#define EC_CMD_ACCEL_EXT        0x17 /* [1] selects a sub-command: */
#define EC_SUB_ACCEL_CHECK      0x81 /* reply [1..3] = 00 60 00 (spec) or 01 00 00 (T61, tp_smapi 0.35) */
#define EC_SUB_ACCEL_GET_CONFIG 0x82 /* reply [1] status bits, [2..3] EC rate LE16, [4] filter order */
#define EC_SUB_ACCEL_FAKE_DATA  0x83 /* [2] 1 on, 0 off: a counter instead of data */

/* Every reply's return code is in TWR15. */
#define EC_IDX_RETVAL            0xF
#define EC_RETVAL_OK             0x00
#define EC_RETVAL_OUT_OF_RANGE   0x03 /* 0x10: parameter out of range */
#define EC_RETVAL_CHANGE_PENDING 0x06 /* 0x10: a configuration change is already pending */

/* 0x10 argument indices. */
#define EC_CONFIG_IDX_RATE_LO 0x1
#define EC_CONFIG_IDX_RATE_HI 0x2
#define EC_CONFIG_IDX_ORDER   0x3
#define EC_FILTER_ORDER_MIN   1
#define EC_FILTER_ORDER_MAX   8

/* 0x13 reply. */
#define EC_MODE_IDX_LATCH 0x1
#define EC_MODE_NONE      0x00 /* no accelerometer */

/* 0x14 argument. */
#define EC_POWER_IDX_ON 0x1

/* 0x17 argument and reply indices. */
#define EC_EXT_IDX_SUB        0x1
#define EC_FAKE_DATA_IDX_ON   0x2
#define EC_CHECK_IDX_FIRST    0x1 /* three bytes [1..3] */
#define EC_GETCFG_IDX_STATUS  0x1
#define EC_GETCFG_IDX_RATE_LO 0x2
#define EC_GETCFG_IDX_RATE_HI 0x3
#define EC_GETCFG_IDX_ORDER   0x4
#define EC_GETCFG_POLLING     0x01 /* status bit: accelerometer polling enabled */
#define EC_GETCFG_PENDING     0x02 /* status bit: configuration change pending */

/* 0x11 readout row. Two readouts at most: the latest, and the one before it that was missed. */
#define EC_READOUT_IDX_READOUTS 0x1 /* readouts in this reply: 0 = none yet, try later */
#define EC_READOUT_IDX_Y1       0x2 /* s16 LE */
#define EC_READOUT_IDX_X1       0x4 /* s16 LE */
#define EC_READOUT_IDX_TEMP1    0x6 /* degrees C */
/* The second (older) readout: Y at 0x7, X at 0x9, the same Y-then-X order as the first. The 2006 patch
 * series' and tp_smapi's names say XPOS2 0x7 / YPOS2 0x9 but their comments say y at 0x7, x at 0x9, and
 * mainline reads YVAR at 0x1617 (TWR7) and XVAR at 0x1619 (TWR9). docs/PROTOCOL.md. */
#define EC_READOUT_IDX_Y2     0x7 /* s16 LE */
#define EC_READOUT_IDX_X2     0x9 /* s16 LE */
#define EC_READOUT_IDX_TEMP2  0xB
#define EC_READOUT_IDX_QUEUED 0xC /* queued readouts left after this reply */
#define EC_READOUT_IDX_KMACT  0xD /* activity since the last read, cleared on read: */
#define EC_KMACT_KEYBOARD     0x20
#define EC_KMACT_MOUSE        0x40

/* Values the check sub-command may answer with (bytes [1..3]). */
#define EC_CHECK_SPEC_0 0x00
#define EC_CHECK_SPEC_1 0x60
#define EC_CHECK_SPEC_2 0x00
#define EC_CHECK_T61_0  0x01
#define EC_CHECK_T61_1  0x00
#define EC_CHECK_T61_2  0x00

/* Defaults of the 2006 patch series (PATCH 08/12) and limits. */
#define HDAPS_DEFAULT_SAMPLING_RATE      50
#define HDAPS_DEFAULT_OVERSAMPLING_RATIO 5
#define HDAPS_DEFAULT_FILTER_ORDER       2
#define HDAPS_SAMPLING_RATE_MIN          1
#define HDAPS_SAMPLING_RATE_MAX                                                                             \
        1000 /* the 2006 patch series allowed up to HZ; 1000 is HZ's largest value                          \
              */
#define HDAPS_OVERSAMPLING_RATIO_MIN 1
#define EC_RATE_MAX                  0xFFFF /* 16-bit field */

/* PATCH 05/12 and 06/12 of the 2006 patch series. */
#define HDAPS_READ_TIMEOUT_MS      100 /* on-demand read: give up after this long ... */
#define HDAPS_READ_RETRY_MS        3   /* ... retrying -EBUSY this far apart */
#define HDAPS_ACTIVITY_REMEMBER_MS 100 /* KMACT flags stay visible this long (PATCH 05/12, HZ/10) */
/* Init (PATCH 02/12, tp_smapi 0.43): after the configuration, invalidate and wait this long before the
 * initial prefetch of the readout row. */
#define HDAPS_INIT_PREFETCH_DELAY_US 200
/* Shutdown (PATCH 10/12): power off, then configure (0, 1) to stop EC sampling. */
#define HDAPS_SHUTDOWN_EC_RATE 0
#define HDAPS_SHUTDOWN_ORDER   1
/* The accelerometer's full-scale range: raw counts are signed 16-bit. */
