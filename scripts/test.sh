#!/usr/bin/env bash
# Every test: installs what is missing (apt-get, as root), builds with -Werror, runs every meson test
# tier (meson test --setup full: unit, dbus, system, soak, release) and, beside it, the hardening half
# (scripts/test-hardening.sh): the fuzz targets for a bounded time, then the unit and D-Bus tests again
# under AddressSanitizer + UBSan. Ends by checking that no process the tests started is still running
# (scripts/check-leftovers.py) and prints one closing line for all of it:
#   tests: N passed, N failed, N skipped
# after the name of each test that failed (with the end of its output) or was skipped.
#   scripts/test.sh                     everything
#   TPACCEL_QUICK=1 scripts/test.sh     only the main build's tiers, no sanitizers, no fuzzing
# While working on the code, `meson test -C build` (unit + dbus, a few minutes) is the loop.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh test || exit 1

build=${TPACCEL_BUILD:-build-test}
if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" -Dwerror=true >/dev/null || exit 1
else
        # The Python test lists are made at configure time: a test file added since is picked up.
        meson setup --reconfigure "$build" >/dev/null || exit 1
fi
ninja -C "$build" || exit 1

results=$(mktemp)   # "OK NAME" / "FAIL NAME" per check that is not a meson test (fuzz targets, ...)
trap 'rm -f "$results"' EXIT
rm -f "$build"/meson-logs/testlog*.json build-asan/meson-logs/testlog*.json

if [ -z "${TPACCEL_QUICK:-}" ]; then
        # Both cores compile; then the hardening half runs niced beside the main tiers, most of whose
        # tests wait on real-time traces rather than compute.
        if bash scripts/test-hardening.sh build; then
                echo "OK hardening-build" >>"$results"
        else
                echo "FAIL hardening-build" >>"$results"
        fi
fi

# Every process the tests start inherits this mark; at the end none may still be running.
export TPACCEL_TEST_RUN="$$-$(date +%s%N)"

hardening_pid=
hardening_log=$(mktemp)
if [ -z "${TPACCEL_QUICK:-}" ] && grep -qx "OK hardening-build" "$results"; then
        TPACCEL_FUZZ_RESULTS=$results nice -n 10 bash scripts/test-hardening.sh fuzz sanitizers \
                >"$hardening_log" 2>&1 &
        hardening_pid=$!
        echo "== scripts/test-hardening.sh fuzz sanitizers: running beside the main tiers (output follows them)"
fi

status=0
echo "== meson test --setup full: unit, dbus, system, soak, release"
meson test -C "$build" --setup full --print-errorlogs --num-processes 2 --timeout-multiplier 3 || status=1

if [ -n "$hardening_pid" ]; then
        wait "$hardening_pid" || status=1
        cat "$hardening_log"
fi
rm -f "$hardening_log"
grep -q "^FAIL" "$results" && status=1

if /usr/bin/python3 scripts/check-leftovers.py TPACCEL_TEST_RUN "$TPACCEL_TEST_RUN"; then
        echo "OK leftover-processes" >>"$results"
else
        echo "FAIL leftover-processes" >>"$results"
        status=1
fi

# One closing line for everything: the meson tests of both builds, the fuzz targets, the other checks.
/usr/bin/python3 - "$results" "$build" build-asan <<'PY'
import glob, json, os, sys
passed = 0
failed, skipped = [], []
for line in open(sys.argv[1]):
    if line.startswith('OK '):
        passed += 1
    elif line.strip():
        failed.append(line.split(None, 1)[-1].strip())
for d in sys.argv[2:]:
    for log in sorted(glob.glob(os.path.join(d, "meson-logs", "testlog*.json"))):
        for line in open(log):
            t = json.loads(line)
            r = t.get("result")
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped.append(f"{d}: {t.get('name')}")
            else:
                tail = (t.get("stdout") or "").rstrip().splitlines()[-12:]
                failed.append(f"{d}: {t.get('name')} ({r})" + "".join(f"\n    | {l}" for l in tail))
# The names last, where a CI log's tail shows them.
for name in skipped:
    print(f"skipped: {name}")
for name in failed:
    print(f"FAILED: {name}")
print(f"tests: {passed} passed, {len(failed)} failed, {len(skipped)} skipped")
PY
exit $status
