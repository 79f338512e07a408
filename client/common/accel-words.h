/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The service's stable codes in the user's words, translated (gettext): the reason codes beside the
 * English reasons (BackendReasonCode, EffectiveRateReasonCode), the state codes (ProtectionState,
 * HardwareState), the Orientation codes and the Shock signal's reason ("jolt", "drift", "freefall"). One
 * table for tpaccelctl and the tray, so that both say the same. The English sentences on the bus stay for
 * busctl users. */

#include <glib.h>

/* The words for code of the D-Bus property (e.g. "EffectiveRateReasonCode", "claim"), translated;
 * NULL when the property or the code is not known (a newer service): show the code itself then. */
const char *accel_code_words(const char *property, const char *code);

/* The words for a Shock signal's reason: "a knock" (jolt), "a sudden movement" (drift), "a fall"
 * (freefall), translated; an unknown reason comes back as it is. */
const char *accel_shock_reason_words(const char *reason);

/* Whether the words are shown in a translation (the user's language is not English, or there is
 * no catalogue): then the translated words replace the service's English sentences. */
gboolean accel_words_translated(void);
