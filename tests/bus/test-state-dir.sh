#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The state directory's ownership, in each way tpacceld is started: it always ends up
# writable by the uid the daemon keeps, or the daemon says loudly at start that it is not.
#   1. root by hand, after a tpaccel run had the directory (and a 0600 state file): root takes it
#      back and saves;
#   2. root with --user=tpaccel (the activation file) on that root-owned directory: tpaccel gets it
#      and saves;
#   3. root with --user=tpaccel and no directory yet: created 0755 and owned by tpaccel;
#   4. as tpaccel from the start (the unit's User=) on a directory tpaccel cannot write, and on one
#      that cannot be created: an error naming the directory at start.
# The daemon serves on a private bus with --session, where callers with its own uid need no polkit,
# so a setter called as that uid exercises the save. Makes the tpaccel user from data/tpaccel.sysusers
# if it is missing (removed afterwards). Needs root.
#   test-state-dir.sh PATH/TO/tpacceld
set -euo pipefail
test_name=state-dir
. "$(dirname "$0")/system-test-lib.sh"

tpacceld=${1:?usage: $0 PATH/TO/tpacceld}
src=$(cd "${TOP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
require_root "chowns, a system user"
system_tests_lock

name=org.thinkpad.Accelerometer
obj=/org/thinkpad/Accelerometer
tmp=$(mktemp -d /tmp/tpaccel-state-dir.XXXXXX)
chmod 755 "$tmp"
cleanup() {
        local rc=$?
        stop_pids
        remove_made_user
        if [ $rc -ne 0 ]; then
                for log in "$tmp"/daemon-*.log; do [ -e "$log" ] && { echo "---- $log"; cat "$log"; }; done
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

ensure_tpaccel_user "$src/data/tpaccel.sysusers"

write_bus_conf "$tmp/bus.conf" "unix:path=$tmp/bus" "" "" open
dbus-daemon --config-file="$tmp/bus.conf" --nofork >"$tmp/bus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$tmp/bus" ] && break; sleep 0.05; done
[ -S "$tmp/bus" ] || fail "dbus-daemon did not start"
address=unix:path=$tmp/bus

# Starts tpacceld as $1 (root or a user name) with the other arguments; waits for the name.
daemon_pid=""
start_daemon() { # $1: log name, $2: run as, $3...: arguments
        local log=$tmp/daemon-$1.log as=$2
        shift 2
        if [ "$as" = root ]; then
                "$tpacceld" -v --backend=sim --session --address="$address" --sensor-proxy=no "$@" >"$log" 2>&1 &
        else
                setpriv --reuid="$as" --regid="$as" --init-groups "$tpacceld" -v --backend=sim --session \
                        --address="$address" --sensor-proxy=no "$@" >"$log" 2>&1 &
        fi
        daemon_pid=$!
        pids+=($daemon_pid)
        wait_for_name --address="$address" $name "$daemon_pid" || fail "$1: tpacceld did not take $name"
}
stop_daemon() {
        kill "$daemon_pid"
        wait "$daemon_pid" || fail "tpacceld exited with $? on SIGTERM"
}
# Sets the sampling rate as $1 (the daemon's own uid: no polkit on a --session daemon).
set_rate() { # $1: as, $2: rate
        local cmd=(busctl --address="$address" call $name $obj $name SetSamplingRate u "$2")
        if [ "$1" = root ]; then "${cmd[@]}"; else setpriv --reuid="$1" --regid="$1" --init-groups "${cmd[@]}"; fi
}
owner() { stat -c %U "$1"; }
saved_rate() { sed -n 's/^sampling_rate=//p' "$1/state" 2>/dev/null || true; }

# No error about the state directory in a case that must not have one.
no_state_dir_error() { # $1: log name
        if grep -q "Cannot.*state directory" "$tmp/daemon-$1.log"; then
                fail "$1: $(grep 'Cannot.*state directory' "$tmp/daemon-$1.log")"
        fi
}

# 0. A tpaccel run made the directory its own, as the unit's StateDirectory= does.
dir=$tmp/lib/tpaccel
install -d -m 755 -o "$user" -g "$user" "$dir"
start_daemon tpaccel-run "$user" --state-dir="$dir"
set_rate "$user" 20
stop_daemon
[ "$(saved_rate "$dir")" = 20 ] || fail "the tpaccel run did not save: $(cat "$dir/state" 2>&1)"
[ "$(owner "$dir/state")" = "$user" ] || fail "the state file is owned by $(owner "$dir/state")"

# 1. root by hand (no --user): keeps uid 0 without capabilities, so it must own the directory.
start_daemon root-by-hand root --state-dir="$dir"
set_rate root 30
stop_daemon
[ "$(owner "$dir")" = root ] || fail "root by hand: the directory is still owned by $(owner "$dir")"
[ "$(saved_rate "$dir")" = 30 ] || fail "root by hand: the setting was not saved: $(cat "$dir/state" 2>&1)"
grep -q "Handing the state directory $dir" "$tmp/daemon-root-by-hand.log" || fail "root by hand: the handover is not logged"
no_state_dir_error root-by-hand
echo "ok: root by hand after a tpaccel run takes the directory and saves"

# 2. root with --user=tpaccel (the activation file's Exec=) on the root-owned directory.
start_daemon root-user root --user="$user" --state-dir="$dir"
set_rate "$user" 40
stop_daemon
[ "$(owner "$dir")" = "$user" ] || fail "--user: the directory is owned by $(owner "$dir")"
[ "$(owner "$dir/state")" = "$user" ] || fail "--user: the state file is owned by $(owner "$dir/state")"
[ "$(saved_rate "$dir")" = 40 ] || fail "--user: the setting was not saved: $(cat "$dir/state" 2>&1)"
no_state_dir_error root-user
echo "ok: root with --user=$user hands the directory over and saves"

# 3. root with --user=tpaccel, no directory yet.
fresh=$tmp/lib/fresh
start_daemon root-user-fresh root --user="$user" --state-dir="$fresh"
set_rate "$user" 60
stop_daemon
[ "$(stat -c '%U %a' "$fresh")" = "$user 755" ] || fail "fresh: $(stat -c '%U %a' "$fresh")"
[ "$(saved_rate "$fresh")" = 60 ] || fail "fresh: the setting was not saved"
no_state_dir_error root-user-fresh
echo "ok: root with --user=$user creates the missing directory for $user"

# 4. As tpaccel from the start, on a directory it cannot write, and on one it cannot create: loud.
chown root:root "$dir"
start_daemon unwritable "$user" --state-dir="$dir"
stop_daemon
grep -q "Cannot write the state directory $dir (owner uid 0, mode 0755) as uid $(id -u "$user")" \
        "$tmp/daemon-unwritable.log" || fail "unwritable: no error at start"
start_daemon uncreatable "$user" --state-dir="$tmp/lib/nope/tpaccel"
stop_daemon
grep -q "Cannot use the state directory $tmp/lib/nope/tpaccel: No such file or directory" \
        "$tmp/daemon-uncreatable.log" || fail "uncreatable: no error at start"
echo "ok: a daemon that cannot write its state directory says so at start"
echo "state-dir: OK"
