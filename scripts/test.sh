#!/usr/bin/env bash
# Every test: installs what is missing (apt-get, as root), builds with -Werror, runs the whole meson
# test suite, then the unit, motion and D-Bus tests again under AddressSanitizer + UBSan, the soak and
# valgrind checks, and bounded fuzz runs (scripts/test-hardening.sh). Ends by checking that no process the
# tests started is still running (scripts/check-leftovers.py).
#   scripts/test.sh                     everything
#   TPACCEL_QUICK=1 scripts/test.sh     only the main suite (while developing)
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh test || exit 1

build=${TPACCEL_BUILD:-build-test}
if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" -Dwerror=true >/dev/null || exit 1
fi
ninja -C "$build" || exit 1

# Every process the tests start inherits this mark; at the end none may still be running.
export TPACCEL_TEST_RUN="$$-$(date +%s%N)"

status=0
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 3 || status=1

if [ -z "${TPACCEL_QUICK:-}" ]; then
        bash scripts/test-hardening.sh || status=1
fi

/usr/bin/python3 scripts/check-leftovers.py TPACCEL_TEST_RUN "$TPACCEL_TEST_RUN" || status=1

# One closing line for everything meson ran (main suite and sanitizer build).
/usr/bin/python3 - "$build" build-asan <<'PY'
import json, os, sys
passed = failed = skipped = 0
for d in sys.argv[1:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        continue
    for line in open(log):
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
