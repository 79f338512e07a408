/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A minimal host for the emulator tests: opens the emulator in virtual time and speaks the 2006 patch
 * series' channel protocol directly through port_inb()/port_outb() (request: STR3 idle, TWR0, TWR1..14,
 * TWR15, wait for SWMF; read: wait for OBF3B|SWMF, TWR0..TWR15). Independent of service/ec on
 * purpose: the emulator is checked against the protocol, not against our transport. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ec-protocol.h"
#include "ec-sim.h"
#include "test-helpers.h"

#define ROW_LEN          16
#define STR3_IBF3B       0x80
#define STR3_OBF3B       0x40
#define STR3_MWMF        0x20
#define STR3_SWMF        0x10
#define HOST_REQ_RETRIES 1000 /* x 10 ns: the 2006 patch series' wait for SWMF */
#define HOST_REQ_DELAY   10
#define HOST_RD_RETRIES  150 /* x 500 ns: the 2006 patch series' wait for OBF3B */
#define HOST_RD_DELAY    500

static inline PortIO *sim_open_options(SimOptions *o)
{
        PortIO *p = NULL;
        char *error = NULL;

        o->virtual_time = true;
        if (port_open_sim(o, &p, &error) < 0) {
                fprintf(stderr, "port_open_sim: %s\n", error ? error : "(no message)");
                free(error);
                exit(EXIT_FAILURE);
        }
        return p;
}

static inline PortIO *sim_open(void)
{
        SimOptions o = {};
        return sim_open_options(&o);
}

static inline uint8_t str3(PortIO *p)
{
        return port_inb(p, EC_PORT_STR3);
}

static inline EcSimStatus sim_status(PortIO *p)
{
        EcSimStatus st;
        ec_sim_get_status(p, &st);
        return st;
}

/* Sends a request writing every TWR. Returns 0 (EC started replying), -EBUSY, -EIO. */
static inline int host_request(PortIO *p, const uint8_t args[ROW_LEN])
{
        uint8_t s = str3(p);

        if (s & STR3_OBF3B) {
                (void) port_inb(p, EC_PORT_TWR15);
                return -EBUSY;
        }
        if (s == STR3_SWMF)
                return -EBUSY;
        if (s != 0)
                return -EIO;
        port_outb(p, EC_PORT_TWR0, args[0]);
        if (str3(p) != STR3_MWMF)
                return -EIO;
        for (unsigned i = 1; i < ROW_LEN; i++)
                port_outb(p, EC_PORT_TWR0 + i, args[i]);
        for (unsigned i = 0; i < HOST_REQ_RETRIES; i++) {
                s = str3(p);
                if (s & STR3_SWMF)
                        return 0;
                if ((s & ~(STR3_IBF3B | STR3_MWMF)) != 0)
                        return -EIO;
                port_delay_ns(p, HOST_REQ_DELAY);
        }
        return -EIO;
}

/* Waits for the reply and reads all 16 bytes. Returns 0, -EBUSY (not ready in time), -EIO. */
static inline int host_read(PortIO *p, uint8_t out[ROW_LEN])
{
        for (unsigned r = 0; r < HOST_RD_RETRIES; r++) {
                uint8_t s = str3(p);
                if (s == (STR3_OBF3B | STR3_SWMF)) {
                        for (unsigned i = 0; i < ROW_LEN; i++)
                                out[i] = port_inb(p, EC_PORT_TWR0 + i);
                        return 0;
                }
                if (s != STR3_SWMF && (s & ~(STR3_IBF3B | STR3_MWMF)) != 0)
                        return -EIO;
                port_delay_ns(p, HOST_RD_DELAY);
        }
        return -EBUSY;
}

/* Request + read of a row with the given function code and argument bytes (index, value pairs). */
static inline int host_row(PortIO *p, uint8_t cmd, const uint8_t args_in[ROW_LEN], uint8_t out[ROW_LEN])
{
        uint8_t args[ROW_LEN] = {};
        int r;

        if (args_in)
                memcpy(args, args_in, ROW_LEN);
        args[0] = cmd;
        r = host_request(p, args);
        if (r < 0)
                return r;
        return host_read(p, out);
}

static inline int s16_at(const uint8_t *row, unsigned idx)
{
        return (int16_t) (row[idx] | row[idx + 1] << 8);
}

/* 0x10 with an EC rate and filter order. Returns RETVAL, or a negative errno from the handshake. */
static inline int host_configure(PortIO *p, unsigned ec_rate, unsigned order)
{
        uint8_t args[ROW_LEN] = {}, out[ROW_LEN];
        args[EC_CONFIG_IDX_RATE_LO] = ec_rate & 0xFF;
        args[EC_CONFIG_IDX_RATE_HI] = (ec_rate >> 8) & 0xFF;
        args[EC_CONFIG_IDX_ORDER] = (uint8_t) order;
        int r = host_row(p, EC_CMD_ACCEL_CONFIG, args, out);
        return r < 0 ? r : out[EC_IDX_RETVAL];
}

/* 0x11 into out. Returns RETVAL or a negative errno. */
static inline int host_readout(PortIO *p, uint8_t out[ROW_LEN])
{
        int r = host_row(p, EC_CMD_ACCEL_READOUT, NULL, out);
        return r < 0 ? r : out[EC_IDX_RETVAL];
}

static inline int host_ext(PortIO *p, uint8_t sub, uint8_t arg2, uint8_t out[ROW_LEN])
{
        uint8_t args[ROW_LEN] = {};
        args[EC_EXT_IDX_SUB] = sub;
        args[EC_FAKE_DATA_IDX_ON] = arg2;
        int r = host_row(p, EC_CMD_ACCEL_EXT, args, out);
        return r < 0 ? r : out[EC_IDX_RETVAL];
}

static inline int host_power(PortIO *p, uint8_t on)
{
        uint8_t args[ROW_LEN] = {}, out[ROW_LEN];
        args[EC_POWER_IDX_ON] = on;
        int r = host_row(p, EC_CMD_ACCEL_POWER, args, out);
        return r < 0 ? r : out[EC_IDX_RETVAL];
}

/* Writes text to a new temporary file; returns its path (free it; unlink it when done). */
static inline char *write_temp_file(const char *text)
{
        char *path = strdup("/tmp/test-sim-XXXXXX.csv");
        int fd = mkstemps(path, 4);
        if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text)) {
                perror("temporary trace file");
                exit(EXIT_FAILURE);
        }
        close(fd);
        return path;
}

/* Opens the emulator (virtual time) playing the trace text. */
static inline PortIO *sim_open_trace(const char *csv, bool loop)
{
        char *path = write_temp_file(csv);
        SimOptions o = {.trace_path = path, .trace_loop = loop};
        PortIO *p = sim_open_options(&o);
        unlink(path);
        free(path);
        return p;
}

/* Advances virtual time to t_ns (port clock); no-op if already past. */
static inline void advance_to(PortIO *p, uint64_t t_ns)
{
        uint64_t now = port_now_ns(p);
        if (t_ns > now)
                ec_sim_advance_ns(p, t_ns - now);
}

/* Empties the readout queue. */
static inline void drain(PortIO *p)
{
        uint8_t out[ROW_LEN];
        while (sim_status(p).queue_len > 0)
                if (host_readout(p, out) != 0)
                        break;
}
