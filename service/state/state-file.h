/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's persistent configuration: a key=value text file in the state directory
 * (StateDirectory=tpaccel), written atomically (new temp file, fsync, rename). Format:
 *
 *   # comment
 *   sampling_rate=50            1..1000
 *   oversampling_ratio=5        1.., sampling_rate x ratio <= 65535
 *   filter_order=2              1..8
 *   invert=0                    0 or 1
 *   rest_position=-498,-439     two signed 16-bit counts (absent: calibrate on the first readout)
 *   tilt_step=1                 0.1..45 degrees
 *   shock_sensitivity=1         0.1..10
 *   protected_disks=sda sdb     block device names, space separated (empty: protection off)
 *
 * Numbers are plain decimal (safe_atou64(), safe_atoi64(), safe_atod() in strutil.h): no sign on the
 * unsigned ones, no hex, inf or nan. The keys are one table in state-file.c.
 *
 * The parser is a pure function (no I/O) so a fuzzer can feed it. Pointer arguments are never NULL
 * (assert()ed) unless a function says otherwise. */

#include <stdbool.h>
#include <stddef.h>

#include "macros.h"

#define STATE_FILE_NAME     "state"
#define STATE_LINE_MAX      4096
#define STATE_DISKS_MAX     16
#define STATE_DISK_NAME_MAX 32

typedef struct StateConfig {
        unsigned sampling_rate, oversampling_ratio, filter_order;
        bool invert;
        bool input_devices; /* the hdaps input devices through uinput (input-devices.h) */
        bool has_rest;
        int rest_x, rest_y;
        double tilt_step, shock_sensitivity;
        char **protected_disks; /* NULL-terminated, may be NULL (none) */
} StateConfig;

/* The built-in defaults (hdaps and motion defaults, no rest position, no protected disks). */
void state_config_init(StateConfig *c);
void state_config_done(StateConfig *c);
/* Deep copy into *dst (initialized or not; dst's old contents are not freed). Returns 0 or -ENOMEM. */
int state_config_copy(StateConfig *dst, const StateConfig *src);

/* Checks a disk name: 1..STATE_DISK_NAME_MAX characters of [A-Za-z0-9_-], not "." or "..". */
bool state_disk_name_valid(const char *name);

/* Parses text (len bytes, need not be NUL-terminated). name is used in messages. On success *ret holds
 * the defaults overlaid with the file's keys, and *ret_warnings (may be NULL on input) gets one
 * "NAME:LINE: ..." message per unknown key. On a bad file returns -EINVAL with *ret_error =
 * "NAME:LINE: reason" and *ret untouched; -ENOMEM. */
int state_config_parse(const char *text, size_t len, const char *name, StateConfig *ret,
                       char ***ret_warnings, char **ret_error);

/* Formats the file text. Returns 0 or -ENOMEM. */
int state_config_format(const StateConfig *c, char **ret);

/* Reads and parses path. -ENOENT when the file does not exist (*ret untouched, no message). Never follows
 * a link and never blocks: a symbolic link (-ELOOP), a directory (-EISDIR), anything else that is not a
 * regular file (-EINVAL: a FIFO, a socket, a device), a file not owned by the caller's euid or with
 * more than one hard link (-EPERM) are refused with *ret_error saying which. Other errors as
 * state_config_parse(), or -errno with *ret_error = "PATH: strerror". Messages quote the file's text
 * only as short escaped excerpts (str_excerpt()), never whole lines. */
int state_config_load(const char *path, StateConfig *ret, char ***ret_warnings, char **ret_error);

/* Writes atomically: a new temp file with a random name in PATH's directory (O_CREAT|O_EXCL|O_NOFOLLOW:
 * nothing that exists is followed or truncated), fsync, rename over PATH (a link there is replaced, not
 * followed), fsync of the directory. Returns 0 or -errno; on failure PATH is unchanged. */
int state_config_save(const char *path, const StateConfig *c);

/* Removes the temp files a writer killed mid-save left next to path (".NAME.HEX.tmp"; a link there is
 * removed, never followed). Returns how many, or -errno. */
int state_config_remove_stale(const char *path);
