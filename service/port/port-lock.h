/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One owner of the EC ports per machine (seeds PATCH 01/02: uncoordinated EC access can trigger known
 * firmware bugs and hang the EC). Every tpacceld process that drives the ports, --dump included, takes
 * an exclusive flock(2) on a lock file before its first port access and holds it, through an O_CLOEXEC
 * fd, until it exits (after its last). The holder writes its PID into the file, so that a refused
 * process can say who holds it. The kernel releases the lock when the holder dies; the file stays. */

#include <stdbool.h>
#include <sys/types.h>

#include "macros.h"

/* The default lock file: $RUNTIME_DIRECTORY/ec.lock (systemd's RuntimeDirectory=tpaccel), else
 * /run/tpaccel/ec.lock. */
#define PORT_LOCK_FILE_NAME       "ec.lock"
#define PORT_LOCK_RUNTIME_DIR     "/run/tpaccel"
#define PORT_LOCK_RUNTIME_DIR_ENV "RUNTIME_DIRECTORY"

typedef struct PortLock PortLock;

/* Sets up a lock on path (copied), not taken yet. create_dir: port_lock_take() creates the file's
 * directory (mode 0755) and its missing parents when they do not exist (the default path; an explicit
 * --lock-file's directory must exist). Returns 0 or -ENOMEM. */
int port_lock_new(const char *path, bool create_dir, PortLock **ret);

/* Takes the lock, once (again when held: 0). Opens or creates the file (0644, never following a
 * symlink, a regular file with one link only), flock(LOCK_EX|LOCK_NB), then writes our PID into it.
 * Returns 0; -EBUSY when another process holds it; another negative errno when the file cannot be
 * created or opened. On failure *ret_error (free it) is one sentence naming the file and, for -EBUSY,
 * the holder's PID and name as far as they can be read. */
int port_lock_take(PortLock *lock, char **ret_error);

bool port_lock_held(const PortLock *lock);
/* Whether the last port_lock_take() failed because another process holds the lock. */
bool port_lock_refused(const PortLock *lock);
const char *port_lock_path(const PortLock *lock);
/* The directory port_lock_take() created, NULL if it created none (for handing it to the daemon's
 * user before privileges are dropped). */
const char *port_lock_created_dir(const PortLock *lock);

/* Releases the lock (closes the fd) and frees. Returns NULL. */
PortLock *port_lock_free(PortLock *lock);
DEFINE_TRIVIAL_CLEANUP_FUNC(PortLock *, port_lock_free);

/* Reads the PID recorded in a lock file's contents ("1234\n"). Returns it, or 0 when there is none. */
pid_t port_lock_parse_pid(const char *text);
