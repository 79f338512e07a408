/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The port log (tpacceld --port-log=FILE): every port access as one CSV line
 *     time_us,dir,port,value
 *     1234,out,0x1610,0x11
 * time_us: microseconds on the port backend's monotonic clock since the log's first port was wrapped;
 * dir: "in" or "out"; port 0x%04x; value 0x%02x. It is what a user sends when something fails on a
 * real ThinkPad, and the emulator's port logs are the tests' golden sequences. Written through a
 * large stdio buffer: flushed when full, by port_log_flush() and when freed. */

#include <stdbool.h>
#include <stdint.h>

#include "macros.h"
#include "port.h"

typedef struct PortLog PortLog;

typedef enum PortLogDir {
        PORT_LOG_IN,
        PORT_LOG_OUT,
} PortLogDir;

/* Creates or truncates path (mode 0644) and writes the header line. Returns 0 or a negative errno
 * (-ENOENT, -EACCES, -EISDIR, ...); on failure nothing is created. */
int port_log_open(const char *path, PortLog **ret);

/* Writes out what is buffered. Returns 0, or a negative errno if any write since the log was opened
 * failed (the log is then incomplete). */
int port_log_flush(PortLog *log);

/* Flushes, closes and frees. Returns NULL; call port_log_flush() first to learn about write errors. */
PortLog *port_log_free(PortLog *log);
DEFINE_TRIVIAL_CLEANUP_FUNC(PortLog *, port_log_free);

/* Appends one access. now_ns is the backend's clock; the first time seen (here or in port_log_wrap())
 * is the log's time zero. */
void port_log_record(PortLog *log, uint64_t now_ns, PortLogDir dir, uint16_t port, uint8_t value);

/* Accesses recorded so far. */
uint64_t port_log_count(const PortLog *log);

/* A capture: an in-memory port log that records only between port_log_capture_start() and
 * port_log_capture_stop() (tpacceld --diagnose: the port log of one readout). Wrap a port with it like a
 * file log; it costs one branch per access while idle. Returns 0 or -ENOMEM. */
int port_log_new_capture(PortLog **ret);
/* Starts a new capture (drops the previous one); time zero is its first access. 0 or a negative errno. */
int port_log_capture_start(PortLog *log);
/* Stops capturing; *ret_text (free it) is the CSV with its header line. -ENODATA if never started. */
int port_log_capture_stop(PortLog *log, char **ret_text);

/* Wraps inner in a port that records every inb and outb in log, then forwards it; delay_ns and now_ns
 * are forwarded unrecorded. Takes ownership of inner (freed with the wrapper, also on failure). log is
 * borrowed and must outlive the wrapper. Returns 0 or -ENOMEM. */
int port_log_wrap(PortIO *inner, PortLog *log, PortIO **ret);
