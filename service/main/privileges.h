/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Least privilege for tpacceld. Port access needs CAP_SYS_RAWIO only at the moment it is acquired:
 * ioperm() checks it when the permission is turned on and then keeps the grant in the thread's I/O
 * bitmap, which setuid() and capset() do not touch; /dev/port checks it at open() and the fd stays
 * usable. So once the backend is open the daemon needs no capability at all. */

#include <stdbool.h>

#define TPACCEL_USER "tpaccel"

/* Drops every privilege the daemon holds, to be called after the backend acquired its port access
 * and before anything talks to clients:
 *   - creates state_dir (if given) when it is missing; when running as root, hands it and the
 *     regular files directly in it to the uid and gid the daemon keeps from now on (user's if user
 *     is set and exists, else root's), so that whichever way the daemon was started before, it can
 *     replace its state file now;
 *   - if user is set and we run as root, chowns runtime_dir (if given: the EC lock's directory when
 *     tpacceld created it) to that user and switches uid, gid and groups to it; a user that does not
 *     exist is logged and skipped;
 *   - drops the capability bounding set where allowed, clears the ambient, inheritable, permitted and
 *     effective sets, and sets no_new_privs;
 *   - checks that the state directory is writable now, and logs an error naming it if not (the
 *     daemon still serves; settings changed then are not kept across a restart).
 * Checks the result. Logs what it did or what failed. Returns 0 or a negative errno (only when
 * privileges could not be dropped). */
int privileges_drop(const char *user, const char *state_dir, const char *runtime_dir);
