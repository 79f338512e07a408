#!/usr/bin/env bash
# The hardening half of scripts/test.sh: the unit, motion and D-Bus tests again in an
# AddressSanitizer + UndefinedBehaviorSanitizer build, then every libFuzzer target for a bounded time.
#   TPACCEL_FUZZ_SECONDS=N   seconds per fuzz target (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
asan=build-asan
[ -f "$asan/build.ninja" ] || CC=gcc meson setup "$asan" -Dwerror=true -Db_sanitize=address,undefined \
        -Db_lundef=false -Dclients=false -Dfuzzing=disabled >/dev/null
ninja -C "$asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        meson test -C "$asan" --print-errorlogs --num-processes 2 --timeout-multiplier 5 \
        --suite unit --suite motion --suite dbus

echo "== libFuzzer targets"
fuzz=build-fuzz
[ -f "$fuzz/build.ninja" ] || CC=clang meson setup "$fuzz" -Dfuzzing=enabled -Dclients=false >/dev/null
ninja -C "$fuzz"
seconds=${TPACCEL_FUZZ_SECONDS:-60}
for target in "$fuzz"/tests/fuzz/fuzz-*; do
        [ -f "$target" ] && [ -x "$target" ] || continue
        name=$(basename "$target")
        case "$name" in *-replay | *.p) continue ;; esac
        corpus_src=tests/fuzz/corpus-${name#fuzz-}
        corpus=$(mktemp -d)
        [ -d "$corpus_src" ] && cp -r "$corpus_src"/. "$corpus"/
        echo "-- $name for ${seconds}s"
        log=$(mktemp)
        if ! "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
                "$corpus" >"$log" 2>&1; then
                tail -40 "$log"
                echo "fuzz: $name FAILED"
                exit 1
        fi
        grep -E '^(Done|stat::number_of_executed_units)' "$log" || true
        rm -f "$log"
        rm -rf "$corpus"
done
