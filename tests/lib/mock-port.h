/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A scripted port backend for transport unit tests: STR3 reads return a script of values (the last one
 * repeats), TWR reads return twr[], every access is logged, time is virtual. Not an EC model (that is
 * the emulator): it makes exact edge cases easy to set up. */

#include <stdbool.h>
#include <stdint.h>

#include "port.h"

#define MOCK_LOG_MAX 8192

typedef struct MockAccess {
        bool write;
        uint16_t port;
        uint8_t value;
        uint64_t delay_ns; /* a delay_ns() call (log_delays only): port and value are 0 */
} MockAccess;

typedef struct MockPort {
        PortIO base;
        uint8_t str3_script[64];
        unsigned str3_len, str3_pos;
        uint8_t twr[16];
        MockAccess log[MOCK_LOG_MAX];
        unsigned n_log;
        uint64_t now_ns;
        unsigned outside_row; /* accesses outside 0x1600-0x161F */
        /* Replay mode (golden sequences): every read of any port returns the next of in_script
         * (then 0xFF), and delays are logged too. */
        bool replay;
        uint8_t in_script[512];
        unsigned in_len, in_pos;
} MockPort;

MockPort *mock_port_new(void);
void mock_port_script(MockPort *m, unsigned n, const uint8_t *str3);
void mock_port_clear_log(MockPort *m);
/* Replay mode: reads return values[] in order, whatever the port; delays are logged. */
void mock_port_replay(MockPort *m, unsigned n, const uint8_t *values);
/* Number of logged accesses matching (write, port). */
unsigned mock_port_count(const MockPort *m, bool write, uint16_t port);
