/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <string.h>

#include "macros.h"
#include "strutil.h"
#include "thinkpad-models.h"

#define TP043        "tp_smapi 0.43 hdaps.c DMI table"
#define PATCHES_2006 "PATCH 12/12 of the 2006 patch series (inverted models)"

/* Order matters: substrings, first match wins ("ThinkPad X60 Tablet" before "ThinkPad X60", "T400s"
 * before "T400"). tp_smapi 0.43 is the later and larger table; the 2006 patch series' five inverted models
 * agree with it except X60, where tp_smapi (0.36-0.37 fixes) replaced the 2006 patch series' plain inversion
 * by 6. */
static const ThinkpadModel models[] = {
        {"IBM", "ThinkPad R50p", 1, TP043 "; " PATCHES_2006},
        {"IBM", "ThinkPad R60", 1, TP043},
        {"IBM", "ThinkPad T41p", 1, TP043 "; " PATCHES_2006},
        {"IBM", "ThinkPad T42p", 1, TP043 "; " PATCHES_2006},
        {"IBM", "ThinkPad X40", 3, TP043},
        {"IBM", "ThinkPad X41", 3, TP043},
        {"IBM", "ThinkPad R50", 0, "mainline hdaps whitelist (normal)"},
        {"IBM", "ThinkPad R51", 0, "mainline hdaps whitelist (normal)"},
        {"IBM", "ThinkPad R52", 0, "mainline hdaps whitelist (normal)"},
        {"IBM", "ThinkPad T41", 0, "mainline hdaps whitelist (normal)"},
        {"IBM", "ThinkPad T42", 0, "mainline hdaps whitelist (normal)"},
        {"IBM", "ThinkPad T43", 0, "mainline hdaps whitelist (normal)"},
        {"IBM", "ThinkPad Z60m", 0, "mainline hdaps whitelist (normal)"},
        {"LENOVO", "ThinkPad R60", 1, TP043},
        {"LENOVO", "ThinkPad R61", 1, TP043},
        {"LENOVO", "ThinkPad R400", 1, TP043},
        {"LENOVO", "ThinkPad R500", 1, TP043},
        {"LENOVO", "ThinkPad T60", 1, TP043 "; " PATCHES_2006 " (T60p)"},
        {"LENOVO", "ThinkPad T61", 1, TP043},
        {"LENOVO", "ThinkPad X60 Tablet", 3, TP043},
        {"LENOVO", "ThinkPad X60s", 3, TP043},
        {"LENOVO", "ThinkPad X60", 6, TP043 " (the 2006 patch series inverted both axes: 1)"},
        {"LENOVO", "ThinkPad X61", 6, TP043 " (also X61s, X61 Tablet)"},
        {"LENOVO", "ThinkPad T400s", 2, TP043},
        {"LENOVO", "ThinkPad T400", 1, TP043},
        {"LENOVO", "ThinkPad T410s", 4, TP043},
        {"LENOVO", "ThinkPad T410", 1, TP043},
        {"LENOVO", "ThinkPad T500", 1, TP043},
        {"LENOVO", "ThinkPad T510", 7, TP043},
        {"LENOVO", "ThinkPad W510", 7, TP043},
        {"LENOVO", "ThinkPad W520", 7, TP043},
        {"LENOVO", "ThinkPad X200s", 5, TP043},
        {"LENOVO", "ThinkPad X200", 7, TP043},
        {"LENOVO", "ThinkPad X201 Tablet", 5, TP043},
        {"LENOVO", "ThinkPad X201s", 5, TP043},
        {"LENOVO", "ThinkPad X201", 6, TP043},
        {"LENOVO", "ThinkPad X220", 4, TP043},
        {"LENOVO", "ThinkPad Z61", 1, "mainline hdaps whitelist (Z61m, Z61p: invert both)"},
};

const ThinkpadModel *thinkpad_model_lookup(const char *board_vendor, const char *product_version)
{
        if (!board_vendor || !product_version)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(models); i++)
                if (streq(board_vendor, models[i].vendor) &&
                    strstr(product_version, models[i].product_version))
                        return &models[i];
        return NULL;
}
