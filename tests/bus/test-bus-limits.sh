#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unprivileged users against the bus side of tpacceld (claims, streams, subscribers, polkit checks), with
# the REAL polkitd on a private system bus that denies by default and includes the shipped policies,
# tpacceld started as the unit runs it (unit-lib.sh: User=tpaccel, its capabilities, seccomp sandbox).
# Several uids are the system's own accounts without a login (daemon, bin, sys, sync, games, man, lp:
# 1..7) and nobody (65534), run with setpriv. One CHECK a run, each its own meson test:
#   claims         uids 65534 and 1 with 250 connections each, uid 3 with 100, and one Claim
#                  on each (past the bus's 512 match rules per connection), and one connection claiming 100
#                  times: the daemon lives, the excess is LimitsExceeded naming the per-user and
#                  per-connection bound, root's Claim and AcquireStream are served, and polling stops
#                  once the clients left; then uids 1..6 fill the unprivileged share, uid 7 is refused
#                  naming it and root is still served.
#   streams        nobody with 32 connections x 4 AcquireStream holds at most the per-user bound;
#                  uid 1 and root still get a stream.
#   subscribers    uids 65534 and 1 with 250 connections each and uid 3 with 100 call SubscribeSamples
#                  (past the bus's 512 match rules, had each subscriber a track): the daemon lives, each
#                  user holds at most the per-user bound of subscribed connections, one connection at most
#                  its 64 subscriptions, and root is still served.
#   release-log    16 unread streams of one uid at 1000 Hz, closed: one log line for the uid; the
#                  next, 10 s later, counts the 15 not logged.
#   bus-lost       the bus goes: tpacceld exits with a failure saying what is lost, and the unit
#                  restarts it (Restart=).
#   polkit-reserve 4 uids (1..4) flood SetFilterOrder on 8 connections each; nobody, allowed by a
#                  polkit rule, gets each of its calls through (no Busy).
# Installs the project's .policy and a rule (allowing nobody to configure) and maybe the tpaccel user;
# removes them on exit. Needs root.
#   floods         every flood at once for 20 s (TPACCEL_FLOOD_SECONDS): a busy bus daemon (2 connections
#                  that pipeline Introspect and never read), churn of Claim, ClaimAtRate, AcquireStream,
#                  SubscribeSamples and ClaimAccelerometer from five uids, 1 MiB and 30 MiB calls, busfuzz's
#                  workers: the daemon lives and budgets its bus work, root's 50 Hz stream goes on, every
#                  claim kind is served, the peak memory stays under half of MemoryMax, the per-connection bound
#                  holds after; prints the longest gap between readouts and the peak memory.
#   test-bus-limits.sh CHECK PATH/TO/tpacceld POLICY-FILE UNIT-SANDBOX-EXEC [PATH/TO/busfuzz (floods)]
set -euo pipefail
test_name=bus-limits
. "$(dirname "$0")/system-test-lib.sh"

[ $# -ge 4 ] || fail "usage: $0 CHECK PATH/TO/tpacceld POLICY-FILE UNIT-SANDBOX-EXEC [PATH/TO/busfuzz]"
check=$1
test_name=bus-limits-$check
tpacceld=$(realpath "$2")
policy=$(realpath "$3")
sandbox_exec=$(realpath "$4")
busfuzz=${5:+$(realpath "$5")}
src=$(cd "${TOP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
client=$src/tests/bus/bus-limits-client.py
flood_client=$src/tests/bus/polkit-flood-client.py
require_root "installs a polkit action and rule, a system user"
system_tests_lock

name=org.thinkpad.Accelerometer
obj=/org/thinkpad/Accelerometer
unit=$src/data/tpacceld.service.in
rule_file=/etc/polkit-1/rules.d/49-tpaccel-test-$$.rules
tmp=$(mktemp -d /tmp/tpaccel-bus-limits.XXXXXX)

cleanup() {
        local rc=$?
        touch "$tmp/stop" 2>/dev/null || true # the clients holding: they end
        stop_pids
        rm -f "$rule_file"
        restore_polkit_policy
        remove_made_user
        if [ $rc -ne 0 ]; then
                for log in "$tmp"/daemon-unit.log "$tmp"/*.err "$tmp/polkitd.log"; do
                        [ -s "$log" ] && { echo "---- $log"; tail -50 "$log"; }
                done
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

ensure_tpaccel_user "$src/data/tpaccel.sysusers"
install -d -m 1777 "$tmp/out" # the clients' answers
start_system_bus "$tmp/bus.err" ""
start_real_polkitd "$policy"

. "$(dirname "$0")/unit-lib.sh"
read_unit_sandbox
unit_args=()
[ "$check" != floods ] || unit_args=(--sensor-proxy=yes) # ClaimAccelerometer's churn too
start_as_unit "$tmp/unit-state" "${unit_args[@]}"
daemon_pid=$unit_pid

alive() {
        kill -0 "$daemon_pid" 2>/dev/null || fail "tpacceld exited: $(tail -3 "$tmp/daemon-unit.log")"
}
# Runs bus-limits-client.py as UID in the background; waits until it wrote its answers to $tmp/TAG.json.
#   client UID TAG METHOD CONNECTIONS CALLS
client() {
        local uid=$1 tag=$2
        shift 2
        setpriv --reuid="$uid" --regid="$uid" --clear-groups /usr/bin/python3 "$client" \
                "$DBUS_SYSTEM_BUS_ADDRESS" "$@" 120 "$tmp/out/$tag.json" "$tmp/stop" 2>"$tmp/$tag.err" &
        pids+=($!)
        client_pids+=($!)
        for _ in $(seq 1200); do
                [ -s "$tmp/out/$tag.json" ] && break
                kill -0 $! 2>/dev/null || fail "client $tag ($uid) ended: $(cat "$tmp/$tag.err")"
                sleep 0.05
        done
        [ -s "$tmp/out/$tag.json" ] || fail "client $tag took too long"
        echo "$tag (uid $uid, $*): $(cat "$tmp/out/$tag.json")"
}
# The count of answers NAME in $tmp/TAG.json (0 if none).
answers() { # TAG NAME
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"].get(sys.argv[2], 0))' \
                "$tmp/out/$1.json" "$2"
}
# The first message of the answers NAME in $tmp/TAG.json.
message() { # TAG NAME
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["messages"].get(sys.argv[2], ""))' \
                "$tmp/out/$1.json" "$2"
}
# Fails unless TAG got exactly OK successes and every other answer was LimitsExceeded with TEXT in it.
expect_bounded() { # TAG OK TEXT
        local ok total
        ok=$(answers "$1" ok)
        total=$(python3 -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))["counts"].values()))' "$tmp/out/$1.json")
        [ "$ok" -eq "$2" ] || fail "$1: $ok calls succeeded, expected $2"
        [ "$(answers "$1" org.freedesktop.DBus.Error.LimitsExceeded)" -eq $((total - ok)) ] ||
                fail "$1: answers other than success and LimitsExceeded: $(cat "$tmp/out/$1.json")"
        [[ "$(message "$1" org.freedesktop.DBus.Error.LimitsExceeded)" == *"$3"* ]] ||
                fail "$1: the refusal does not name the bound ('$3'): $(message "$1" org.freedesktop.DBus.Error.LimitsExceeded)"
}
root_call() { # METHOD ARGS...: as root on its own connection, must succeed
        local out
        out=$(timeout 30 gdbus call --system -d $name -o $obj -m $name."$@" 2>&1) || fail "root's $1: $out"
        echo "root's $1: $out"
}
get() { busctl --system get-property $name $obj $name "$1"; }
client_pids=()
end_clients() { # makes every client holding end, and waits for them
        local pid
        touch "$tmp/stop"
        for pid in "${client_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
        client_pids=()
        rm -f "$tmp/stop"
}

case "$check" in
claims)
        client 65534 nobody Claim 250 1
        client 1 daemon Claim 250 1
        client 3 sys Claim 100 1 # 600 claiming connections: past the bus's 512 match rules
        alive
        expect_bounded nobody 32 "per-user bound of 32 claims"
        expect_bounded daemon 32 "per-user bound of 32 claims"
        expect_bounded sys 32 "per-user bound of 32 claims"
        client 2 greedy Claim 1 100
        expect_bounded greedy 16 "per-connection bound of 16 claims"
        alive
        root_call Claim
        root_call AcquireStream
        [ "$(get Polling)" = "b true" ] || fail "not polling with claims held"
        # Every client leaves: their claims go with them (one NameOwnerChanged match).
        end_clients
        for _ in $(seq 200); do [ "$(get Polling)" = "b false" ] && break; sleep 0.05; done
        [ "$(get Polling)" = "b false" ] || fail "still polling after every client left"
        # The unprivileged share: 6 uids x 32 = 192 claims; a seventh is refused, root is not.
        for uid in 1 2 3 4 5 6; do client $uid share$uid Claim 40 1; done
        client 7 seventh Claim 1 1
        expect_bounded seventh 0 "unprivileged users' bound of 192 claims"
        alive
        root_call Claim
        ;;
streams)
        client 65534 nobody AcquireStream 32 4
        alive
        expect_bounded nobody 16 "per-user bound of 16 streams"
        client 1 daemon AcquireStream 1 1
        expect_bounded daemon 1 ""
        root_call AcquireStream
        alive
        ;;
subscribers)
        client 65534 nobody SubscribeSamples 250 1
        client 1 daemon SubscribeSamples 250 1
        client 3 sys SubscribeSamples 100 1
        alive
        expect_bounded nobody 16 "per-user bound of 16 subscribed connections"
        expect_bounded daemon 16 "per-user bound of 16 subscribed connections"
        expect_bounded sys 16 "per-user bound of 16 subscribed connections"
        client 2 greedy SubscribeSamples 1 100
        expect_bounded greedy 64 "per-connection bound of 64 subscriptions"
        alive
        root_call SubscribeSamples
        alive
        ;;
release-log)
        root_call SetSamplingRate 1000
        client 65534 nobody AcquireStream 4 4
        expect_bounded nobody 16 ""
        sleep 4 # no client reads: every stream drops records
        end_clients
        for _ in $(seq 100); do [ "$(get Polling)" = "b false" ] && break; sleep 0.05; done
        [ "$(get Polling)" = "b false" ] || fail "still polling after the client closed its streams"
        alive
        lines=$(grep -c "^Stream [0-9]* of .* released .*dropped" "$tmp/daemon-unit.log" || true)
        echo "release lines of 16 streams with drops: $lines"
        [ "$lines" -eq 1 ] || fail "expected one release line for uid 65534 within 10 s, got $lines"
        # The next line of the uid, after the interval, carries the count of those not logged.
        sleep 10
        client 65534 nobody-again AcquireStream 1 1
        expect_bounded nobody-again 1 ""
        sleep 2
        end_clients
        for _ in $(seq 100); do [ "$(get Polling)" = "b false" ] && break; sleep 0.05; done
        grep "^Stream [0-9]* of .* released .*dropped" "$tmp/daemon-unit.log" | tail -1
        grep -q "15 more stream(s) of uid 65534 released with drops since the last message" \
                "$tmp/daemon-unit.log" || fail "the next release line does not count the 15 not logged"
        ;;
polkit-reserve)
        flood_pids=()
        for uid in 1 2 3 4; do
                setpriv --reuid=$uid --regid=$uid --clear-groups /usr/bin/python3 "$flood_client" \
                        "$DBUS_SYSTEM_BUS_ADDRESS" 20 10 8 >"$tmp/flood$uid.json" 2>"$tmp/flood$uid.err" &
                pids+=($!)
                flood_pids+=($!)
        done
        sleep 3 # the flood is under way
        busy=0 ok=0
        for order in 3 4 5 6 7 3 4 5 6 7; do
                out=$(setpriv --reuid=65534 --regid=65534 --clear-groups timeout 30 gdbus call --system \
                        -d $name -o $obj -m $name.SetFilterOrder $order 2>&1) || true
                case "$out" in
                "()") ok=$((ok + 1)) ;;
                *Error.Busy*) busy=$((busy + 1)) ;;
                *) fail "nobody's SetFilterOrder $order during the flood: $out" ;;
                esac
        done
        for pid in "${flood_pids[@]}"; do wait "$pid" || fail "a flood client failed"; done
        for uid in 1 2 3 4; do echo "flood of uid $uid: $(cat "$tmp/flood$uid.json")"; done
        grep -q '"ok"' "$tmp"/flood*.json && fail "an unprivileged flood call went through"
        grep -q 'Error.Busy' "$tmp"/flood*.json || fail "the flood was never answered Busy: it proves nothing"
        echo "nobody (allowed by a rule) during the flood: $ok answered, $busy Busy"
        [ "$busy" -eq 0 ] || fail "the allowed user got Busy $busy times of 10"
        alive
        ;;
bus-lost)
        # The bus goes (as when dbus-daemon closes the connection past a limit): tpacceld exits with a
        # failure and says what is lost, so that the unit's Restart= brings it back, which re-arms disk
        # protection from the state file (test_protection_arms_polling_without_claim_and_off_stops_it).
        case "$(unit_get Restart)" in
        on-failure | on-abnormal | always) ;;
        *) fail "the unit does not restart tpacceld after a failure (Restart=$(unit_get Restart))" ;;
        esac
        kill "${pids[0]}" # dbus-daemon
        rc=0
        for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.05; done
        kill -0 "$daemon_pid" 2>/dev/null && fail "tpacceld still runs without its bus"
        wait "$daemon_pid" || rc=$?
        [ "$rc" -ne 0 ] || fail "tpacceld exited with status 0 after losing the bus: Restart=on-failure would not restart it"
        grep -q "bus connection lost.*disk protection is off" "$tmp/daemon-unit.log" ||
                fail "tpacceld did not say what losing the bus costs"
        ;;
floods)
        # Every flood at once against the daemon as the unit runs it (SCHED_RR, the budget of bus work):
        # a busy bus daemon, churn of every claim kind from as many uids, 1 MiB and 30 MiB calls, busfuzz's
        # workers (uids 0, 65534, 1, 2, 3). Root's 50 Hz claim reads its stream throughout. Figures: the
        # longest gap between readouts and the daemon's peak memory.
        grep -q "Real-time scheduling: bus work takes at most" "$tmp/daemon-unit.log" ||
                fail "tpacceld at the unit's real-time policy does not budget its bus work"
        flood() { # UID TAG MODE ARG: bus-flood.py for the fuzzer's time
                setpriv --reuid="$1" --regid="$1" --clear-groups /usr/bin/python3 "$src/tests/bus/bus-flood.py" \
                        "$DBUS_SYSTEM_BUS_ADDRESS" "$3" "$4" "$seconds" "$tmp/out/$2.json" "$tmp/stop" \
                        2>"$tmp/$2.err" &
                pids+=($!)
                flood_pids+=($!)
        }
        seconds=${TPACCEL_FLOOD_SECONDS:-20}
        flood_pids=()
        flood 0 watch watch 50
        for _ in $(seq 200); do [ "$(get Polling)" = "b true" ] && break; sleep 0.05; done
        flood 5 jam jam 2
        flood 65534 Claim churn Claim
        flood 1 ClaimAtRate churn ClaimAtRate
        flood 2 AcquireStream churn AcquireStream
        flood 3 SubscribeSamples churn SubscribeSamples
        flood 4 ClaimAccelerometer churn ClaimAccelerometer
        flood 6 big1 big 1
        flood 7 big30 big 30
        # busfuzz ends by checking that every claim went with its connection: the floods end first.
        "$busfuzz" --address="$DBUS_SYSTEM_BUS_ADDRESS" --pid="$daemon_pid" \
                --state-file="$unit_state_dir/state" --seconds="$seconds" --workers=5 --rss-growth-max=0 \
                --polkit-rules="$rule_file" || fail "busfuzz's findings (see above)"
        for pid in "${flood_pids[@]}"; do wait "$pid" || fail "a flood client failed: $(cat "$tmp"/*.err)"; done
        alive
        for tag in watch jam Claim ClaimAtRate AcquireStream SubscribeSamples ClaimAccelerometer big1 big30; do
                echo "$tag: $(cat "$tmp/out/$tag.json")"
        done
        # The readouts went on: at least one a second on average of the 50 the claim asks for.
        records=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$tmp/out/watch.json")
        [ "$records" -ge "$seconds" ] || fail "$records readouts in $seconds s of floods"
        # Every claim kind was served during the floods (churn answered ok at least once).
        for tag in Claim ClaimAtRate AcquireStream SubscribeSamples ClaimAccelerometer; do
                [ "$(answers "$tag" ok)" -gt 0 ] || fail "$tag was never served during the floods"
        done
        peak_kb=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$daemon_pid/status")
        max=$(unit_get MemoryMax)
        max_kb=$(numfmt --from=iec "$max" | awk '{print int($1 / 1024)}')
        echo "figures: longest gap between readouts $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["longest_gap_ms"])' "$tmp/out/watch.json") ms ($records readouts); the daemon's peak memory (VmHWM) $((peak_kb / 1024)) MiB of MemoryMax=$max"
        # Half of MemoryMax: the margin the unit's comment promises.
        [ "$peak_kb" -lt $((max_kb / 2)) ] || fail "the daemon's peak memory $peak_kb kB is past half of MemoryMax=$max"
        # Round 3's bounds still hold.
        client 65534 nobody-after Claim 1 100
        expect_bounded nobody-after 16 "per-connection bound of 16 claims"
        root_call Claim
        alive
        ;;
*) fail "unknown check '$check'" ;;
esac
echo "$test_name: OK"
