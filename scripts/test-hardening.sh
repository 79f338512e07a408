#!/usr/bin/env bash
# The hardening half of scripts/test.sh: the unit and D-Bus tests again in an AddressSanitizer +
# UndefinedBehaviorSanitizer build (build-asan), then every libFuzzer target for a bounded time
# (build-fuzz). scripts/test.sh runs the phases apart, in parallel with the main suite.
#   scripts/test-hardening.sh [build|sanitizers|fuzz]...   the phases given (default: all, in order)
#   TPACCEL_FUZZ_SECONDS=N   seconds per fuzz target (default 60)
#   TPACCEL_FUZZ_RESULTS=F   append one line per fuzz target to F: "OK NAME" or "FAIL NAME"
set -euo pipefail
cd "$(dirname "$0")/.."
asan=build-asan
fuzz=build-fuzz

build() { # (set -e does not hold inside a function called in a condition: every step says it)
        echo "== AddressSanitizer + UndefinedBehaviorSanitizer build; libFuzzer build"
        if [ ! -f "$asan/build.ninja" ]; then
                CC=gcc meson setup "$asan" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
                        -Dclients=false -Dfuzzing=disabled >/dev/null || return 1
        else
                meson setup --reconfigure "$asan" >/dev/null || return 1
        fi
        ninja -C "$asan" || return 1
        [ -f "$fuzz/build.ninja" ] || CC=clang meson setup "$fuzz" -Dfuzzing=enabled -Dclients=false >/dev/null ||
                return 1
        ninja -C "$fuzz" || return 1
}

sanitizers() {
        echo "== the unit and D-Bus tests under AddressSanitizer + UndefinedBehaviorSanitizer"
        rm -f "$asan"/meson-logs/testlog*.json
        # verify_asan_link_order=0: the sensor-proxy and kernel-backend tests run tpacceld under
        # umockdev-wrapper, whose LD_PRELOAD library comes before ASan's runtime in the link order.
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:verify_asan_link_order=0
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        local status=0
        meson test -C "$asan" --setup full --print-errorlogs --num-processes 2 --timeout-multiplier 5 \
                --suite unit --suite dbus || status=1
        # The bus fuzzer, and the daemon under the real polkitd and as a system user (root; these wait for
        # the system-tests lock): their own log, meson-logs/testlog-system.json.
        meson test -C "$asan" --setup full --logbase testlog-system --print-errorlogs --num-processes 2 \
                --timeout-multiplier 5 busfuzz state-dir-ownership activation-log-to-syslog real-polkitd \
                polkit-flood || status=1
        return $status
}

fuzz() {
        echo "== libFuzzer targets"
        local seconds=${TPACCEL_FUZZ_SECONDS:-60} results=${TPACCEL_FUZZ_RESULTS:-/dev/null} failed=0
        local target name corpus_src corpus log
        for target in "$fuzz"/tests/fuzz/fuzz-*; do
                [ -f "$target" ] && [ -x "$target" ] || continue
                name=$(basename "$target")
                case "$name" in *-replay | *.p) continue ;; esac
                corpus_src=tests/fuzz/corpus-${name#fuzz-}
                corpus=$(mktemp -d)
                [ -d "$corpus_src" ] && cp -r "$corpus_src"/. "$corpus"/
                echo "-- $name for ${seconds}s"
                log=$(mktemp)
                if "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
                        "$corpus" >"$log" 2>&1; then
                        echo "OK $name" >>"$results"
                        grep -E '^(Done|stat::number_of_executed_units)' "$log" || true
                else
                        tail -40 "$log"
                        echo "fuzz: $name FAILED"
                        echo "FAIL $name" >>"$results"
                        failed=1
                fi
                rm -f "$log"
                rm -rf "$corpus"
        done
        return $failed
}

[ $# -gt 0 ] || set -- build sanitizers fuzz
status=0
for phase in "$@"; do
        case "$phase" in
        build) build || exit 1 ;;
        sanitizers | fuzz) "$phase" || status=1 ;;
        *) echo "test-hardening.sh: unknown phase '$phase' (build, sanitizers, fuzz)" >&2; exit 2 ;;
        esac
done
exit $status
