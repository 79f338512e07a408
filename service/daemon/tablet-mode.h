/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* thinkpad_acpi's tablet-mode switch: the evdev device in an input directory (normally /dev/input)
 * that reports SW_TABLET_MODE, preferring the one named "ThinkPad Extra Buttons". Its state is read with
 * EVIOCGSW at start and then followed from its events through an sd-event io source (no polling). */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "macros.h"

#define TABLET_MODE_INPUT_DIR_DEFAULT "/dev/input"
#define TABLET_MODE_DEVICE_NAME       "ThinkPad Extra Buttons" /* thinkpad_acpi's input device */

typedef struct TabletMode TabletMode;

/* Called when the switch moves (not for the initial state). */
typedef void (*TabletModeChanged)(TabletMode *t, bool tablet_mode, void *userdata);

/* Looks for the switch in input_dir (NULL: the default), opens it and reads its state. Done before the
 * daemon drops its privileges (the nodes are root:input 0660). Returns 0 with *ret set, or -ENODEV if no
 * device there reports SW_TABLET_MODE, or another negative errno; nothing is logged (the caller decides). */
int tablet_mode_open(const char *input_dir, TabletMode **ret);
/* Follows the switch's events on event; cb runs when it moves (not for the initial state). t and event
 * are not NULL (assert()ed), nor is tablet_mode_open()'s ret; the getters below take NULL (no switch). */
int tablet_mode_attach(TabletMode *t, sd_event *event, TabletModeChanged cb, void *userdata);
TabletMode *tablet_mode_free(TabletMode *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(TabletMode *, tablet_mode_free);

bool tablet_mode_get(const TabletMode *t);
/* The device node that is watched, e.g. "/dev/input/event5". */
const char *tablet_mode_device(const TabletMode *t);
