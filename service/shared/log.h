/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Logging for tpacceld: one line per message on stderr, with a syslog-style <N> prefix when stderr is
 * the journal (JOURNAL_STREAM set), or to syslog(3) when stderr goes nowhere (log_target_auto()).
 * The log_*_errno() helpers return the negative errno they were given, so
 * "return log_error_errno(r, ...)" logs once and propagates. */

#include <stdbool.h>
#include <syslog.h>

#include "macros.h"

void log_set_max_level(int level);
int log_get_max_level(void);

/* For a daemon: keeps stderr, unless it is closed or /dev/null and not the journal (a service the
 * D-Bus daemon activates without systemd inherits the bus's /dev/null), then logs to syslog(3) as
 * ident with the daemon facility. Returns true if syslog was chosen. */
bool log_target_auto(const char *ident);

/* Logs if level <= max level. err (a negative errno or 0) is available to the format as %m. Returns err. */
int log_internal(int level, int err, const char *fmt, ...) _printf_(3, 4);

#define log_full_errno(level, err, ...) log_internal((level), (err), __VA_ARGS__)
#define log_debug(...)                  log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)                   log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)                 log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...)                log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)                  log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...)         log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...)          log_full_errno(LOG_INFO, (e), __VA_ARGS__)
#define log_warning_errno(e, ...)       log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...)         log_full_errno(LOG_ERR, (e), __VA_ARGS__)
