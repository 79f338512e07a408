/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The EC firmware's command handler: turns a complete request row into a reply row (the bytes the
 * host will read from TWR0..TWR15), using the accelerometer model. The channel (ec-sim.c) decides
 * when the request is complete and when the reply is ready. */

#include <stdbool.h>
#include <stdint.h>

#include "sim-accel.h"

#define SIM_ROW_LEN 16 /* TWR0..TWR15 */

/* Return codes the emulated firmware uses beyond the protocol table's. */
#define SIM_RETVAL_UNKNOWN_COMMAND 0x01 /* unknown function code or 0x17 sub-command */
#define SIM_RETVAL_FAULT           0x01 /* the retval fault: 0x11 fails */

/* Battery status row 0x01: battery 0 present (0x40), battery 1 absent. */
#define SIM_BATTERY_IDX_BAT0    0x1
#define SIM_BATTERY_IDX_BAT1    0x2
#define SIM_BATTERY_PRESENT     0x40
#define SIM_BATTERY_DISCHARGING 0x01

#define SIM_DEFAULT_MODE 0x01
#define SIM_MODE_CHANGE_STEP                                                                                \
        0x04 /* mode-change: the latch reads the mode + this (1 -> 5, seen on an X220) */
#define SIM_WARM_UP_NS          NSEC_PER_SEC /* warm-up: READOUTS 0 this long after power-on */
#define SIM_DEFAULT_TEMPERATURE 38

typedef struct SimFirmware {
        SimAccel accel;
        uint8_t mode;    /* mode latch answered by 0x13 */
        bool check_t61;  /* 0x17/0x81 answers like a T61 */
        int temperature; /* degrees C */
        bool battery_row_0b_requested;
        uint64_t warm_until_ns; /* warm-up fault: 0x11 answers READOUTS 0 until then */
        uint64_t readouts_popped;
} SimFirmware;

/* Executes request at now_ns with the data faults in fault_set (bits 1 << SimFaultKind: retval,
 * pending, absent). Returns true with reply filled, or false if the firmware never answers (0x0B). */
bool sim_firmware_execute(SimFirmware *fw, const uint8_t request[SIM_ROW_LEN], unsigned fault_set,
                          uint64_t now_ns, uint8_t reply[SIM_ROW_LEN]);

/* How many readouts a 0x11 reply carries (its READOUTS byte), 0 for other rows. */
unsigned sim_firmware_reply_readouts(const uint8_t reply[SIM_ROW_LEN]);
