/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict check of a tpacceld state file for the kill -9 test: parses it with the daemon's own parser
 * and treats every warning (an unknown or garbled key) as an error too. On success prints the parsed
 * configuration as key=value lines (the canonical text state_config_format() would write), so the
 * caller can compare it with the configurations it set.
 *   state-check FILE        exit 0: valid; 1: corrupt (the reason on stderr); 2: usage */

#include <stdio.h>
#include <stdlib.h>

#include "state-file.h"
#include "strv.h"

int main(int argc, char *argv[])
{
        _cleanup_free_ char *error = NULL, *text = NULL;
        char **warnings = NULL;
        StateConfig c;
        int r;

        if (argc != 2) {
                fprintf(stderr, "usage: %s FILE\n", argv[0]);
                return 2;
        }
        state_config_init(&c);
        r = state_config_load(argv[1], &c, &warnings, &error);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", argv[1], error ? error : "cannot be read");
                strv_free(warnings);
                return 1;
        }
        if (warnings && warnings[0]) {
                for (char **w = warnings; *w; w++)
                        fprintf(stderr, "%s\n", *w);
                strv_free(warnings);
                state_config_done(&c);
                return 1;
        }
        strv_free(warnings);
        r = state_config_format(&c, &text);
        state_config_done(&c);
        if (r < 0) {
                fprintf(stderr, "%s: out of memory\n", argv[1]);
                return 1;
        }
        fputs(text, stdout);
        return 0;
}
