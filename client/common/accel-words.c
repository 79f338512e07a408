/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "accel-words.h"
#include "client-i18n.h"

typedef struct CodeWords {
        const char *property;
        const char *code;
        const char *words;
} CodeWords;

static const CodeWords code_words[] = {
        {"BackendReasonCode", "found", N_("the accelerometer was found and works")},
        {"BackendReasonCode", "not-initialized",
         N_("the accelerometer did not answer when the service started (see tpaccelctl diagnose)")},
        {"BackendReasonCode", "no-accelerometer",
         N_("no accelerometer was found on this machine (see tpaccelctl diagnose)")},

        {"EffectiveRateReasonCode", "unclaimed", N_("not reading: no program needs the accelerometer")},
        {"EffectiveRateReasonCode", "no-accelerometer", N_("not reading: there is no accelerometer")},
        {"EffectiveRateReasonCode", "suspended", N_("not reading: the computer is asleep")},
        {"EffectiveRateReasonCode", "hardware-stopped",
         N_("not reading: the accelerometer failed; the service retries")},
        {"EffectiveRateReasonCode", "disk-protection", N_("disk protection is on (full rate)")},
        {"EffectiveRateReasonCode", "diagnosis", N_("a diagnosis is running (full rate)")},
        {"EffectiveRateReasonCode", "input-devices", N_("the input devices are on (full rate)")},
        {"EffectiveRateReasonCode", "screen-rotation", N_("the desktop follows the screen rotation")},
        {"EffectiveRateReasonCode", "claim", N_("a program reads the tilt")},
        {"EffectiveRateReasonCode", "claim-full-rate", N_("a program reads at the full rate")},
        {"EffectiveRateReasonCode", "movement", N_("a program watches for the machine being moved")},

        {"ProtectionState", "off", N_("off")},
        {"ProtectionState", "armed", N_("armed")},
        {"ProtectionState", "parked", N_("heads parked")},
        {"ProtectionState", "paused", N_("paused")},

        {"HardwareState", "ok", N_("ok")},
        {"HardwareState", "failing", N_("failing")},
        {"HardwareState", "stopped", N_("stopped (re-initializing)")},

        /* The screen's orientation, as iio-sensor-proxy names it: which edge is up. */
        {"Orientation", "normal", N_("normal")},
        {"Orientation", "bottom-up", N_("bottom-up")},
        {"Orientation", "left-up", N_("left-up")},
        {"Orientation", "right-up", N_("right-up")},
        {"Orientation", "undefined", N_("undefined")},
};

const char *accel_code_words(const char *property, const char *code)
{
        if (!property || !code)
                return NULL;
        for (size_t i = 0; i < G_N_ELEMENTS(code_words); i++)
                if (g_str_equal(code_words[i].property, property) && g_str_equal(code_words[i].code, code))
                        return _(code_words[i].words);
        return NULL;
}

const char *accel_shock_reason_words(const char *reason)
{
        if (g_strcmp0(reason, "jolt") == 0)
                return _("a knock");
        if (g_strcmp0(reason, "drift") == 0)
                return _("a sudden movement");
        if (g_strcmp0(reason, "freefall") == 0)
                return _("a fall");
        return reason;
}

gboolean accel_words_translated(void)
{
        const char *probe = N_("the accelerometer was found and works");

        return _(probe) != probe;
}
