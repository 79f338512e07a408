/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the Settings dialog and the Calibrate error say when polkit refused a change: what happened and
 * what to do, in a user's words, instead of the service's developer text ("Permission denied
 * (authorization required): Interactive authentication required for org.thinkpad.accelerometer.
 * configure"). */

#include <gio/gio.h>

/* The words for error if it is a refusal (AccessDenied, InteractiveAuthorizationRequired), newly
 * allocated; NULL for any other error. */
char *tray_refusal_describe(const GError *error);
