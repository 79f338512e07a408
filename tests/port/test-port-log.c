/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The port log (service/port/port-log.c): the wrapper forwards every access unchanged and records it,
 * the file is the documented CSV with times from the backend's clock, and errors are reported. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock-port.h"
#include "port-log.h"
#include "test-helpers.h"

static char tmpdir[] = "/tmp/test-port-log.XXXXXX";

TEST(test_records_and_forwards)
{
        char path[256];
        PortLog *log = NULL;
        PortIO *port = NULL;
        MockPort *m = mock_port_new();
        uint8_t twr[16] = {0};

        snprintf(path, sizeof(path), "%s/forward.csv", tmpdir);
        CHECK_EQ(port_log_open(path, &log), 0);
        twr[1] = 0x5a;
        memcpy(m->twr, twr, sizeof(twr));
        mock_port_script(m, 1, (const uint8_t[]) {0x50});

        CHECK_EQ(port_log_wrap(&m->base, log, &port), 0);
        CHECK(port_innermost(port) == &m->base);
        CHECK_STREQ(port_backend_name(port), "mock");

        port_outb(port, EC_PORT_TWR0, 0x11); /* the mock's clock: each access takes 1 us */
        CHECK_EQ(port_inb(port, EC_PORT_STR3), 0x50);
        port_delay_ns(port, 2500);
        CHECK_EQ(port_inb(port, EC_PORT_TWR0 + 1), 0x5a);
        CHECK_EQ(port_now_ns(port), m->now_ns);

        /* Forwarded unchanged, and counted on both. */
        CHECK_EQ(m->n_log, 3);
        CHECK(m->log[0].write && m->log[0].port == EC_PORT_TWR0 && m->log[0].value == 0x11);
        CHECK(!m->log[1].write && m->log[1].port == EC_PORT_STR3);
        CHECK_EQ(m->base.n_in, 2);
        CHECK_EQ(m->base.n_out, 1);
        CHECK_EQ(port->n_in, 2);
        CHECK_EQ(port_log_count(log), 3);

        CHECK_EQ(port_log_flush(log), 0);
        /* Time zero is the wrap; the access is stamped when it starts; the delay moves the clock. */
        CHECK_STREQ(test_read_text(path), "time_us,dir,port,value\n"
                                          "0,out,0x1610,0x11\n"
                                          "1,in,0x1604,0x50\n"
                                          "4,in,0x1611,0x5a\n");
        port_free(port); /* frees the mock too */
        port_log_free(log);
}

TEST(test_buffered_until_flushed)
{
        char path[256];
        PortLog *log = NULL;
        PortIO *port = NULL;
        struct stat st;

        snprintf(path, sizeof(path), "%s/buffered.csv", tmpdir);
        CHECK_EQ(port_log_open(path, &log), 0);
        CHECK_EQ(port_log_wrap(&mock_port_new()->base, log, &port), 0);
        for (int i = 0; i < 100; i++)
                (void) port_inb(port, EC_PORT_STR3);
        CHECK_EQ(stat(path, &st), 0);
        CHECK_EQ(st.st_size, 0); /* not a write per access */
        port_free(port);
        port_log_free(log); /* flushes */
        const char *text = test_read_text(path);
        unsigned lines = 0;
        for (const char *c = text; c && *c; c++)
                lines += *c == '\n';
        CHECK_EQ(lines, 1 + 100);
        CHECK(text && strstr(text, "\n99,in,0x1604,0x00\n"));
}

TEST(test_bad_paths)
{
        char path[256];
        PortLog *log = NULL;

        snprintf(path, sizeof(path), "%s/no/such/dir.csv", tmpdir);
        CHECK_EQ(port_log_open(path, &log), -ENOENT);
        CHECK(!log);
        CHECK_EQ(port_log_open(tmpdir, &log), -EISDIR);
        CHECK(!log);
}

TEST(test_write_error_reported)
{
        PortLog *log = NULL;
        PortIO *port = NULL;

        if (access("/dev/full", W_OK) < 0) {
                fprintf(stderr, "/dev/full is missing: write errors cannot be provoked\n");
                test_failed++;
                return;
        }
        CHECK_EQ(port_log_open("/dev/full", &log), 0);
        CHECK_EQ(port_log_wrap(&mock_port_new()->base, log, &port), 0);
        (void) port_inb(port, EC_PORT_STR3);
        CHECK_EQ(port_log_flush(log), -ENOSPC);
        port_free(port);
        port_log_free(log);
}

/* A capture (tpacceld --diagnose: the port log of one readout) records only between start and stop; each
 * start begins a new text with its own time zero. */
TEST(test_capture)
{
        PortLog *log = NULL;
        PortIO *port = NULL;
        MockPort *m = mock_port_new();
        char *text = NULL;

        CHECK_EQ(port_log_new_capture(&log), 0);
        CHECK_EQ(port_log_capture_stop(log, &text), -ENODATA);
        CHECK_EQ(port_log_wrap(&m->base, log, &port), 0);
        port_outb(port, EC_PORT_TWR0, 0x13); /* not capturing: forwarded, not recorded */
        CHECK_EQ(m->n_log, 1);
        CHECK_EQ(port_log_count(log), 0);

        CHECK_EQ(port_log_capture_start(log), 0);
        port_outb(port, EC_PORT_TWR0, 0x11);
        (void) port_inb(port, EC_PORT_STR3);
        CHECK_EQ(port_log_capture_stop(log, &text), 0);
        CHECK_STREQ(text, "time_us,dir,port,value\n"
                          "0,out,0x1610,0x11\n"
                          "1,in,0x1604,0x00\n");
        free(text);
        port_outb(port, EC_PORT_TWR0, 0x14); /* stopped again */
        CHECK_EQ(port_log_count(log), 2);

        CHECK_EQ(port_log_capture_start(log), 0);
        (void) port_inb(port, EC_PORT_TWR0 + 15);
        CHECK_EQ(port_log_capture_stop(log, &text), 0);
        CHECK_STREQ(text, "time_us,dir,port,value\n"
                          "0,in,0x161f,0x00\n");
        free(text);
        port_free(port);
        port_log_free(log);
}

int main(void)
{
        test_scratch_make(tmpdir);
        RUN(test_records_and_forwards);
        RUN(test_buffered_until_flushed);
        RUN(test_bad_paths);
        RUN(test_write_error_reported);
        RUN(test_capture);

        test_scratch_remove(tmpdir);
        return test_summary();
}
