/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulated EC firmware: one function per command of service/shared/ec-protocol.h. */
#include <string.h>

#include "ec-protocol.h"
#include "sim-fault.h"
#include "sim-firmware.h"

static void put_le16(uint8_t *p, unsigned v)
{
        p[0] = (uint8_t) (v & 0xFF);
        p[1] = (uint8_t) ((v >> 8) & 0xFF);
}

static void put_s16(uint8_t *p, int16_t v)
{
        put_le16(p, (uint16_t) v);
}

static uint8_t temperature_byte(const SimFirmware *fw)
{
        return (uint8_t) (int8_t) fw->temperature;
}

static uint8_t cmd_battery_status(SimFirmware *fw, const uint8_t *req, uint8_t *reply)
{
        reply[SIM_BATTERY_IDX_BAT0] = SIM_BATTERY_PRESENT | SIM_BATTERY_DISCHARGING;
        reply[SIM_BATTERY_IDX_BAT1] = 0;
        return EC_RETVAL_OK;
}

static uint8_t cmd_config(SimFirmware *fw, const uint8_t *req, unsigned faults, uint64_t now_ns)
{
        unsigned rate = req[EC_CONFIG_IDX_RATE_LO] | (unsigned) req[EC_CONFIG_IDX_RATE_HI] << 8;

        if (sim_faults_has(faults, SIM_FAULT_PENDING))
                return EC_RETVAL_CHANGE_PENDING;
        return sim_accel_configure(&fw->accel, now_ns, rate, req[EC_CONFIG_IDX_ORDER]);
}

static uint8_t cmd_readout(SimFirmware *fw, unsigned faults, uint64_t now_ns, uint8_t *reply)
{
        SimReadoutReply r;
        uint8_t temp = temperature_byte(fw);

        if (sim_faults_has(faults, SIM_FAULT_RETVAL))
                return SIM_RETVAL_FAULT; /* nothing popped: the readouts stay queued */
        if (sim_faults_has(faults, SIM_FAULT_NO_READOUT) || sim_faults_has(faults, SIM_FAULT_ABSENT) ||
            now_ns < fw->warm_until_ns) {
                /* "Not in ready status": READOUTS 0, RETVAL 0, nothing popped. Without an accelerometer
                 * nothing is ever ready (docs/EMULATOR.md, fault absent). */
                reply[EC_READOUT_IDX_READOUTS] = 0;
                return EC_RETVAL_OK;
        }

        sim_accel_pop(&fw->accel, now_ns, &r);
        fw->readouts_popped += r.n;
        reply[EC_READOUT_IDX_READOUTS] = (uint8_t) r.n;
        if (r.n >= 1) {
                put_s16(reply + EC_READOUT_IDX_Y1, r.readout[0].y);
                put_s16(reply + EC_READOUT_IDX_X1, r.readout[0].x);
                reply[EC_READOUT_IDX_TEMP1] = temp;
        }
        if (r.n >= 2) {
                put_s16(reply + EC_READOUT_IDX_X2, r.readout[1].x);
                put_s16(reply + EC_READOUT_IDX_Y2, r.readout[1].y);
                reply[EC_READOUT_IDX_TEMP2] = temp;
        }
        reply[EC_READOUT_IDX_QUEUED] = (uint8_t) r.queued;
        reply[EC_READOUT_IDX_KMACT] = (r.keyboard ? EC_KMACT_KEYBOARD : 0) | (r.mouse ? EC_KMACT_MOUSE : 0);
        return EC_RETVAL_OK;
}

static uint8_t cmd_mode(SimFirmware *fw, unsigned faults, uint8_t *reply)
{
        if (sim_faults_has(faults, SIM_FAULT_ABSENT))
                reply[EC_MODE_IDX_LATCH] = EC_MODE_NONE;
        else if (sim_faults_has(faults, SIM_FAULT_MODE_CHANGE))
                reply[EC_MODE_IDX_LATCH] = (uint8_t) (fw->mode + SIM_MODE_CHANGE_STEP);
        else
                reply[EC_MODE_IDX_LATCH] = fw->mode;
        return EC_RETVAL_OK;
}

static uint8_t cmd_power(SimFirmware *fw, const uint8_t *req, unsigned faults, uint64_t now_ns)
{
        switch (req[EC_POWER_IDX_ON]) {
        case 0:
                sim_accel_set_power(&fw->accel, now_ns, false);
                return EC_RETVAL_OK;
        case 1:
                if (sim_faults_has(faults, SIM_FAULT_WARM_UP))
                        fw->warm_until_ns = now_ns + SIM_WARM_UP_NS;
                sim_accel_set_power(&fw->accel, now_ns, true);
                return EC_RETVAL_OK;
        default:
                return EC_RETVAL_OUT_OF_RANGE;
        }
}

static uint8_t cmd_ext(SimFirmware *fw, const uint8_t *req, unsigned faults, uint64_t now_ns, uint8_t *reply)
{
        SimAccel *a = &fw->accel;

        switch (req[EC_EXT_IDX_SUB]) {
        case EC_SUB_ACCEL_CHECK:
                if (fw->check_t61) {
                        reply[EC_CHECK_IDX_FIRST] = EC_CHECK_T61_0;
                        reply[EC_CHECK_IDX_FIRST + 1] = EC_CHECK_T61_1;
                        reply[EC_CHECK_IDX_FIRST + 2] = EC_CHECK_T61_2;
                } else {
                        reply[EC_CHECK_IDX_FIRST] = EC_CHECK_SPEC_0;
                        reply[EC_CHECK_IDX_FIRST + 1] = EC_CHECK_SPEC_1;
                        reply[EC_CHECK_IDX_FIRST + 2] = EC_CHECK_SPEC_2;
                }
                return EC_RETVAL_OK;
        case EC_SUB_ACCEL_GET_CONFIG:
                sim_accel_advance(a, now_ns);
                bool sampling = sim_accel_sampling(a) && !sim_faults_has(faults, SIM_FAULT_ABSENT);
                reply[EC_GETCFG_IDX_STATUS] =
                        (sampling ? EC_GETCFG_POLLING : 0) | (a->change_pending ? EC_GETCFG_PENDING : 0);
                put_le16(reply + EC_GETCFG_IDX_RATE_LO, a->ec_rate);
                reply[EC_GETCFG_IDX_ORDER] = (uint8_t) a->filter_order;
                return EC_RETVAL_OK;
        case EC_SUB_ACCEL_FAKE_DATA:
                switch (req[EC_FAKE_DATA_IDX_ON]) {
                case 0:
                case 1:
                        sim_accel_advance(a, now_ns);
                        sim_accel_set_fake_data(a, req[EC_FAKE_DATA_IDX_ON]);
                        return EC_RETVAL_OK;
                default:
                        return EC_RETVAL_OUT_OF_RANGE;
                }
        default:
                return SIM_RETVAL_UNKNOWN_COMMAND;
        }
}

bool sim_firmware_execute(SimFirmware *fw, const uint8_t request[SIM_ROW_LEN], unsigned fault_set,
                          uint64_t now_ns, uint8_t reply[SIM_ROW_LEN])
{
        uint8_t command = request[0], retval;

        memset(reply, 0, SIM_ROW_LEN);
        reply[0] = command;

        switch (command) {
        case EC_CMD_BATTERY_STATUS:
                retval = cmd_battery_status(fw, request, reply);
                break;
        case EC_CMD_BATTERY_FORBIDDEN:
                fw->battery_row_0b_requested = true;
                return false; /* hangs real firmware: never answers */
        case EC_CMD_ACCEL_CONFIG:
                retval = cmd_config(fw, request, fault_set, now_ns);
                break;
        case EC_CMD_ACCEL_READOUT:
                retval = cmd_readout(fw, fault_set, now_ns, reply);
                break;
        case EC_CMD_ACCEL_MODE:
                retval = cmd_mode(fw, fault_set, reply);
                break;
        case EC_CMD_ACCEL_POWER:
                retval = cmd_power(fw, request, fault_set, now_ns);
                break;
        case EC_CMD_ACCEL_EXT:
                retval = cmd_ext(fw, request, fault_set, now_ns, reply);
                break;
        default:
                retval = SIM_RETVAL_UNKNOWN_COMMAND;
                break;
        }

        reply[EC_IDX_RETVAL] = retval;
        return true;
}

unsigned sim_firmware_reply_readouts(const uint8_t reply[SIM_ROW_LEN])
{
        if (reply[0] != EC_CMD_ACCEL_READOUT || reply[EC_IDX_RETVAL] != EC_RETVAL_OK)
                return 0;
        return reply[EC_READOUT_IDX_READOUTS];
}
