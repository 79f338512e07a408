/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The port log: a CSV sink and a port wrapper that records into it (port-log.h). */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "port-log.h"

#define PORT_LOG_HEADER      "time_us,dir,port,value\n"
#define PORT_LOG_BUFFER_SIZE (256u * 1024u) /* about 10000 accesses, 25 s of polling at 50 Hz */

struct PortLog {
        FILE *file;
        bool capture;   /* an in-memory log (port_log_new_capture()): records only while capturing */
        bool capturing; /* between port_log_capture_start() and port_log_capture_stop() */
        char *buffer;   /* the capture's memory stream */
        size_t size;
        bool has_origin;
        uint64_t origin_ns;
        uint64_t count;
        int error; /* the first write error, a negative errno */
};

static void note_error(PortLog *log)
{
        if (log->error == 0)
                log->error = errno > 0 ? -errno : -EIO;
}

int port_log_open(const char *path, PortLog **ret)
{
        _cleanup_close_ int fd = -EBADF;
        _cleanup_fclose_ FILE *f = NULL;
        PortLog *log;

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "we");
        if (!f) {
                int r = -errno;
                (void) unlink(path);
                return r;
        }
        TAKE_FD(fd);
        (void) setvbuf(f, NULL, _IOFBF, PORT_LOG_BUFFER_SIZE);
        if (fputs(PORT_LOG_HEADER, f) < 0) {
                int r = errno > 0 ? -errno : -EIO;
                (void) unlink(path);
                return r;
        }

        log = calloc(1, sizeof(*log));
        if (!log) {
                (void) unlink(path);
                return -ENOMEM;
        }
        log->file = TAKE_PTR(f);
        *ret = log;
        return 0;
}

int port_log_flush(PortLog *log)
{
        if (fflush(log->file) != 0 || ferror(log->file))
                note_error(log);
        return log->error;
}

PortLog *port_log_free(PortLog *log)
{
        if (log) {
                if (log->file)
                        (void) fclose(log->file);
                free(log->buffer);
                free(log);
        }
        return NULL;
}

int port_log_new_capture(PortLog **ret)
{
        PortLog *log = calloc(1, sizeof(*log));

        if (!log)
                return -ENOMEM;
        log->capture = true;
        *ret = log;
        return 0;
}

int port_log_capture_start(PortLog *log)
{
        if (log->file)
                (void) fclose(log->file);
        free(log->buffer);
        log->buffer = NULL;
        log->size = 0;
        log->has_origin = false;
        log->count = 0;
        log->error = 0;
        log->capturing = false;
        log->file = open_memstream(&log->buffer, &log->size);
        if (!log->file)
                return -errno;
        if (fputs(PORT_LOG_HEADER, log->file) < 0)
                note_error(log);
        log->capturing = true;
        return 0;
}

int port_log_capture_stop(PortLog *log, char **ret_text)
{
        char *text;
        int r;

        log->capturing = false;
        if (!log->file)
                return -ENODATA;
        r = port_log_flush(log);
        if (r < 0)
                return r;
        text = strndup(log->buffer, log->size);
        if (!text)
                return -ENOMEM;
        *ret_text = text;
        return 0;
}

static void set_origin(PortLog *log, uint64_t now_ns)
{
        if (!log->has_origin) {
                log->origin_ns = now_ns;
                log->has_origin = true;
        }
}

void port_log_record(PortLog *log, uint64_t now_ns, PortLogDir dir, uint16_t port, uint8_t value)
{
        if (log->capture && !log->capturing)
                return;
        set_origin(log, now_ns);
        uint64_t t = now_ns >= log->origin_ns ? now_ns - log->origin_ns : 0;

        if (fprintf(log->file, "%" PRIu64 ",%s,0x%04x,0x%02x\n", (uint64_t) (t / NSEC_PER_USEC),
                    dir == PORT_LOG_OUT ? "out" : "in", port, value) < 0)
                note_error(log);
        log->count++;
}

uint64_t port_log_count(const PortLog *log)
{
        return log->count;
}

typedef struct PortLogged {
        PortIO base;
        PortIO *inner;
        PortLog *log;
} PortLogged;

static PortLogged *to_logged(PortIO *p)
{
        return (PortLogged *) p;
}

static uint8_t logged_inb(PortIO *p, uint16_t port)
{
        PortLogged *l = to_logged(p);
        uint64_t t = port_now_ns(l->inner);
        uint8_t value = port_inb(l->inner, port);

        port_log_record(l->log, t, PORT_LOG_IN, port, value);
        return value;
}

static void logged_outb(PortIO *p, uint16_t port, uint8_t value)
{
        PortLogged *l = to_logged(p);

        port_log_record(l->log, port_now_ns(l->inner), PORT_LOG_OUT, port, value);
        port_outb(l->inner, port, value);
}

static void logged_delay_ns(PortIO *p, uint64_t ns)
{
        port_delay_ns(to_logged(p)->inner, ns);
}

static uint64_t logged_now_ns(PortIO *p)
{
        return port_now_ns(to_logged(p)->inner);
}

static PortIO *logged_inner(PortIO *p)
{
        return to_logged(p)->inner;
}

static void logged_free(PortIO *p)
{
        PortLogged *l = to_logged(p);

        port_free(l->inner);
        free(l);
}

static const PortOps logged_ops = {
        .name = NULL, /* the inner backend's: port_backend_name() looks through */
        .inb = logged_inb,
        .outb = logged_outb,
        .delay_ns = logged_delay_ns,
        .now_ns = logged_now_ns,
        .inner = logged_inner,
        .free = logged_free,
};

int port_log_wrap(PortIO *inner, PortLog *log, PortIO **ret)
{
        _cleanup_(port_freep) PortIO *owned = inner;
        PortLogged *l;

        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        set_origin(log, port_now_ns(inner));
        l->base.ops = &logged_ops;
        l->inner = TAKE_PTR(owned);
        l->log = log;
        *ret = &l->base;
        return 0;
}
