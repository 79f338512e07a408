# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the package tests (sourced, not run): test-package.sh on this machine, systemd-checks.sh in
# test-systemd.sh's container (which gets a copy beside it).

wait_for() { # SECONDS COMMAND...: polls until COMMAND succeeds; status 1 after SECONDS
        local deadline=$((SECONDS + $1))
        shift
        until "$@"; do
                [ $SECONDS -lt $deadline ] || return 1
                sleep 0.2
        done
}

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env "$@"; }

float_eq() { # A B: the two numbers are equal (to 1e-9)
        python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 1e-9)' "$1" "$2"
}
