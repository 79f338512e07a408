/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "mock-port.h"

static void log_access(MockPort *m, bool write, uint16_t port, uint8_t value)
{
        if (port < EC_PORT_BASE || port >= EC_PORT_BASE + EC_PORT_COUNT)
                m->outside_row++;
        if (m->n_log < MOCK_LOG_MAX)
                m->log[m->n_log++] = (MockAccess) {write, port, value};
        m->now_ns += 1000; /* an LPC access takes about a microsecond */
}

static uint8_t mock_inb(PortIO *p, uint16_t port)
{
        MockPort *m = (MockPort *) p;
        uint8_t v = 0;
        if (m->replay)
                v = m->in_pos < m->in_len ? m->in_script[m->in_pos++] : 0xFF;
        else if (port == EC_PORT_STR3) {
                v = m->str3_script[m->str3_pos];
                if (m->str3_pos + 1 < m->str3_len)
                        m->str3_pos++;
        } else if (port >= EC_PORT_TWR0 && port <= EC_PORT_TWR15)
                v = m->twr[port - EC_PORT_TWR0];
        log_access(m, false, port, v);
        return v;
}

static void mock_outb(PortIO *p, uint16_t port, uint8_t value)
{
        log_access((MockPort *) p, true, port, value);
}

static void mock_delay_ns(PortIO *p, uint64_t ns)
{
        MockPort *m = (MockPort *) p;

        m->now_ns += ns;
        if (m->replay && m->n_log < MOCK_LOG_MAX)
                m->log[m->n_log++] = (MockAccess) {.delay_ns = ns};
}

static uint64_t mock_now_ns(PortIO *p)
{
        return ((MockPort *) p)->now_ns;
}

static void mock_free(PortIO *p)
{
        free(p);
}

static const PortOps mock_ops = {
        .name = "mock",
        .inb = mock_inb,
        .outb = mock_outb,
        .delay_ns = mock_delay_ns,
        .now_ns = mock_now_ns,
        .free = mock_free,
};

MockPort *mock_port_new(void)
{
        MockPort *m = calloc(1, sizeof(*m));
        if (!m)
                abort();
        m->base.ops = &mock_ops;
        m->str3_len = 1;
        m->now_ns = 1000000000ULL;
        return m;
}

void mock_port_script(MockPort *m, unsigned n, const uint8_t *str3)
{
        if (n > 0)
                memcpy(m->str3_script, str3, n);
        m->str3_len = n;
        m->str3_pos = 0;
}

void mock_port_replay(MockPort *m, unsigned n, const uint8_t *values)
{
        if (n > sizeof(m->in_script))
                abort();
        if (n > 0)
                memcpy(m->in_script, values, n);
        m->in_len = n;
        m->in_pos = 0;
        m->replay = true;
}

void mock_port_clear_log(MockPort *m)
{
        m->n_log = 0;
}

unsigned mock_port_count(const MockPort *m, bool write, uint16_t port)
{
        unsigned n = 0;
        for (unsigned i = 0; i < m->n_log; i++)
                if (m->log[i].write == write && m->log[i].port == port)
                        n++;
        return n;
}
