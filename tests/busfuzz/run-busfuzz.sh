#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sets up and runs busfuzz (busfuzz.c): a private bus that lets every uid call and own (the fuzzer's
# unprivileged workers run as uids 65534, 1, 2 and 3, so the socket is open to all), python-dbusmock's
# polkitd (what it allows is flipped during the run), and tpacceld as root on the emulator with every
# fault kind at a low rate and net.hadess.SensorProxy served. With --real-polkitd=POLICY-FILE: the real
# polkitd instead, with the project's actions installed (POLICY-FILE) and a rules file that busfuzz
# rewrites to flip what is allowed, on a bus that denies by default and includes the shipped bus
# policies (as a real system bus); that installs files system-wide (the system-tests lock), removed on
# exit. Prints the seed, the figures and the findings; the daemon's log on failure. Stops everything it
# started, also when it fails. Needs root (the workers switch uid).
#   run-busfuzz.sh [--real-polkitd=POLICY-FILE] PATH/TO/tpacceld PATH/TO/busfuzz SECONDS [SEED]
set -euo pipefail
test_name=busfuzz
. "$(dirname "$0")/../bus/system-test-lib.sh"

real_policy=""
case "${1:-}" in --real-polkitd=*) real_policy=$(realpath "${1#--real-polkitd=}"); shift ;; esac
src=$(cd "${TOP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
tpacceld=${1:?usage: $0 PATH/TO/tpacceld PATH/TO/busfuzz SECONDS [SEED]}
busfuzz=${2:?usage: $0 PATH/TO/tpacceld PATH/TO/busfuzz SECONDS [SEED]}
seconds=${3:?usage: $0 PATH/TO/tpacceld PATH/TO/busfuzz SECONDS [SEED]}
seed=${4:-${BUSFUZZ_SEED:-}}
require_root "workers run as uid 0 and 65534"
# Every fault kind of the emulator (docs/EMULATOR.md), rare enough that most calls get through.
faults=(--sim-fault=busy:0.002 --sim-fault=silent:0.001 --sim-fault=bad-status:0.002
        --sim-fault=retval:0.01 --sim-fault=pending:0.01 --sim-fault=absent:0.002
        --sim-fault=zero-step:0.01 --sim-fault=swmf-after-read:0.01 --sim-fault=no-readout:0.01
        --sim-fault=warm-up:0.05 --sim-fault=mode-change:0.002)

tmp=$(mktemp -d /tmp/tpaccel-busfuzz.XXXXXX)
chmod 755 "$tmp"
rule_file=""
cleanup() {
        local rc=$?
        stop_pids
        [ -z "$rule_file" ] || rm -f "$rule_file" "$rule_file.tmp"
        [ -z "$real_policy" ] || restore_polkit_policy
        if [ $rc -ne 0 ]; then
                echo "---- tpacceld log (last 60 lines)"
                tail -n 60 "$tmp/daemon.log" 2>/dev/null || true
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

if [ -n "$real_policy" ]; then
        system_tests_lock
        write_bus_conf "$tmp/bus.conf" "unix:path=$tmp/bus.sock" system "" deny-by-default \
                /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf \
                "$src/data/org.thinkpad.Accelerometer.conf" "$src/data/net.hadess.SensorProxy.conf"
else
        write_bus_conf "$tmp/bus.conf" "unix:path=$tmp/bus.sock" system "" open
fi
dbus-daemon --config-file="$tmp/bus.conf" --nofork --print-address=3 3>"$tmp/address" 2>"$tmp/bus.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/address" ] && break; sleep 0.05; done
[ -s "$tmp/address" ] || fail "dbus-daemon did not start"
chmod 666 "$tmp/bus.sock"
address=$(head -1 "$tmp/address")
export DBUS_SYSTEM_BUS_ADDRESS=$address

polkit_args=()
workers=${BUSFUZZ_WORKERS:-} # busfuzz's default (6), or with the real polkitd 8: two uids more
if [ -n "$real_policy" ]; then
        workers=${workers:-8}
        install_polkit_policy "$real_policy"
        rule_file=/etc/polkit-1/rules.d/49-tpaccel-busfuzz-$$.rules
        echo "// busfuzz: nothing allowed yet" >"$rule_file"
        chmod 644 "$rule_file"
        polkit_args=(--polkit-rules="$rule_file")
        /usr/lib/polkit-1/polkitd --no-debug >"$tmp/polkit.log" 2>&1 &
else
        /usr/bin/python3 -m dbusmock --system --template polkitd >"$tmp/polkit.log" 2>&1 &
fi
pids+=($!)
wait_for_name --address="$address" org.freedesktop.PolicyKit1 || true

"$tpacceld" --backend=sim "${faults[@]}" --address="$address" --state-dir="$tmp/state" \
        --sensor-proxy=yes --input-dir="$tmp/no-input" >"$tmp/daemon.log" 2>&1 &
daemon=$!
pids+=($daemon)
if ! wait_for_name --address="$address" org.thinkpad.Accelerometer $daemon; then
        kill -0 $daemon 2>/dev/null || fail "tpacceld exited at start-up"
        fail "tpacceld did not start"
fi

# Under AddressSanitizer the RSS holds its quarantine of freed memory: not a bound to check (LeakSanitizer
# checks at exit instead).
rss_args=()
if [[ "$(ldd "$tpacceld" 2>/dev/null || true)" == *libasan* ]]; then rss_args=(--rss-growth-max=0); fi
"$busfuzz" --address="$address" --pid=$daemon --state-file="$tmp/state/state" --seconds="$seconds" \
        ${seed:+--seed="$seed"} "${rss_args[@]}" "${polkit_args[@]}" ${workers:+--workers="$workers"} ||
        fail "findings (see above)"
kill -0 $daemon 2>/dev/null || fail "tpacceld is gone"
# It still shuts down cleanly (status 0, and under ASan no leak).
kill -TERM $daemon
status=0
wait $daemon || status=$?
[ $status -eq 0 ] || fail "tpacceld exited with status $status on SIGTERM"
grep -q "accelerometer powered off" "$tmp/daemon.log" || fail "tpacceld did not power off on SIGTERM"
# The strict emulator counted no access the 2006 patch series' driver would never make (docs/EMULATOR.md).
grep -q "protocol_violations=0" "$tmp/daemon.log" || fail "the emulator saw protocol violations: $(grep -m5 'protocol violation' "$tmp/daemon.log")"
lines=$(wc -l <"$tmp/daemon.log")
echo "busfuzz: daemon log $lines lines"
echo "busfuzz: the daemon's most frequent log lines (numbers and bus names folded):"
frequent=$(sed -E 's/:[0-9]+\.[0-9]+/:N.N/g; s/[0-9]+(\.[0-9]+)?/N/g' "$tmp/daemon.log" | sort | uniq -c | sort -rn)
head -8 <<<"$frequent"
