/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One owner of the EC ports per machine (PATCH 01/02 of the 2006 patch series: uncoordinated EC access can
 * trigger known firmware bugs and hang the EC). Every tpacceld process that drives the ports, --dump
 * included, takes an exclusive flock(2) on a lock file before its first port access and holds it, through an
 * O_CLOEXEC fd, until it exits (after its last). The file is mode 0600, so that no other user can open it
 * and hold a lock that blocks every later start. A refused process names the holder from the kernel's list
 * of locks (/proc/locks), never from the file's contents (a PID there may be stale or forged); the holder
 * writes its PID into the file for people only. The kernel releases the lock when the holder dies; the
 * file stays. */

#include <stdbool.h>
#include <stdio.h>
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

/* Takes the lock, once (again when held: 0). Opens or creates the file (0600, never following a
 * symlink, a regular file with one link only), flock(LOCK_EX|LOCK_NB), makes an existing file of ours
 * 0600, then writes our PID into it. Returns 0; -EBUSY when another process holds it (also when we may
 * not open the file but /proc/locks lists a holder); another negative errno when the file cannot be
 * created or opened. On failure *ret_error (free it) is one sentence naming the file and, for -EBUSY,
 * the holder's PID and name from /proc/locks ("another process" when it is not visible there, e.g.
 * with the unit's ProcSubset=pid). */
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

/* The PID holding a lock (flock, POSIX or OFD) on the file dev/ino, from the text of /proc/locks read
 * from proc_locks; waiters are skipped. Returns it, or 0 when none is listed. */
pid_t port_lock_find_holder(FILE *proc_locks, dev_t dev, ino_t ino);
