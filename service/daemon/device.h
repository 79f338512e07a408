/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The accelerometer and its configuration, without a daemon around them: what the context does at
 * start-up, and all that tpacceld --dump needs. */

#include "backend.h"
#include "state-file.h"

/* Loads the state file at path into *config (initialized by the caller: the defaults stay where the
 * file says nothing); warnings and a file that cannot be used are logged, never fatal. */
void device_load_config(const char *path, StateConfig *config);
/* Initializes b with config's rates and filter order (the backend's fake-data mode is kept). Returns
 * 0 or a negative errno. */
int device_init(Backend *b, const StateConfig *config);
/* Applies config's invert (a refusal is logged) and rest position to b, then device_init(). */
int device_setup(Backend *b, const StateConfig *config);
/* Powers b off and logs its state (the emulator's status line, with its protocol-violation count, is
 * what the tests check); initialized: whether it was set up and needs powering off. */
void device_power_off(Backend *b, bool initialized);
