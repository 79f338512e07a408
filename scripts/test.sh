#!/usr/bin/env bash
# Every test: installs what is missing (apt-get, as root), builds with -Werror, runs the whole meson
# test suite, then the same unit and D-Bus tests under AddressSanitizer + UBSan, and bounded fuzz runs.
#   scripts/test.sh            everything
#   TPACCEL_QUICK=1 scripts/test.sh   skip the sanitizer build and fuzzing (while developing)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh test

build=${TPACCEL_BUILD:-build-test}
[ -f "$build/build.ninja" ] || meson setup "$build" -Dwerror=true >/dev/null
ninja -C "$build"
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 3

if [ -z "${TPACCEL_QUICK:-}" ] && [ -x scripts/test-hardening.sh ]; then
        bash scripts/test-hardening.sh
fi
