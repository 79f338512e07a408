#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped bus policy of the second name on a private bus that denies by default, like the system bus:
# with data/net.hadess.SensorProxy.conf, tpacceld (root) owns net.hadess.SensorProxy and monitor-sensor
# run as uid 65534 (nobody) prints the rotations; nobody cannot own the name; without that file tpacceld
# logs one line that it cannot own it and keeps serving org.thinkpad.Accelerometer; with iio-sensor-proxy's
# own policy as well, busctl tree org.thinkpad.Accelerometer lists our objects only and works (the second
# name has its own connection, so that policy's denials on /net/hadess/SensorProxy/Compass do not reach
# it). Needs root (setpriv).
#   test-bus-policy.sh PATH/TO/tpacceld
set -euo pipefail

tpacceld=${1:?usage: $0 PATH/TO/tpacceld}
here=$(cd "$(dirname "$0")" && pwd)
src=${TOP_SRCDIR:-$here/../..}
if [ "$(id -u)" -ne 0 ]; then
        echo "bus-policy: needs root (runs clients as uid 65534 with setpriv); skipped" >&2
        exit 77
fi
tmp=$(mktemp -d /tmp/tpaccel-sp-policy.XXXXXX)
chmod 755 "$tmp"
pids=()
descendants() { # the children of $1, theirs first (umockdev-run does not pass signals on to tpacceld)
        local p
        for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do descendants "$p"; echo "$p"; done
}
cleanup() {
        local rc=$?
        for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
                kill $(descendants "${pids[i]}") "${pids[i]}" 2>/dev/null || true
                wait "${pids[i]}" 2>/dev/null || true
        done
        if [ $rc -ne 0 ]; then
                echo "---- tpacceld log"; cat "$tmp"/daemon*.log 2>/dev/null || true
                echo "---- monitor-sensor"; cat "$tmp/monitor.log" 2>/dev/null || true
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM
fail() { echo "bus-policy: FAIL: $*" >&2; exit 1; }

. "$(dirname "$0")/../lib/privatebus.sh"
# A system-bus-like configuration: deny owning and calling by default, then the shipped policies.
write_conf() { # $1: conf path, $2: socket, $3...: policy files to include
        local conf=$1 sock=$2
        shift 2
        write_bus_conf "$conf" "unix:path=$sock" system "" deny-by-default "$@"
}

# Sets $address. Not called as $(start_bus ...): a subshell would lose the pid, and the bus would outlive
# the test.
start_bus() { # $1: name, $2...: policy files
        local name=$1; shift
        write_conf "$tmp/$name.conf" "$tmp/$name.sock" "$@"
        dbus-daemon --config-file="$tmp/$name.conf" --nofork >"$tmp/$name-bus.log" 2>&1 &
        pids+=($!)
        for _ in $(seq 100); do [ -S "$tmp/$name.sock" ] && break; sleep 0.05; done
        chmod 666 "$tmp/$name.sock"
        address="unix:path=$tmp/$name.sock"
}

start_daemon() { # $1: address, $2: log
        umockdev-run -d "$here/thinkpad-extra-buttons.umockdev" -i "/dev/input/event5=$here/tablet-mode.ioctl" -- \
                "$tpacceld" -v --backend=sim --trace="$here/tablet-tour.csv" --address="$1" \
                --state-dir="$tmp" >"$2" 2>&1 &
        pids+=($!)
}

wait_for_log() { # $1: file, $2: text
        for _ in $(seq 200); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
        fail "'$2' not in $1"
}

# 1. With the shipped policies.
start_bus full "$src/data/org.thinkpad.Accelerometer.conf" "$src/data/net.hadess.SensorProxy.conf"
if DBUS_SYSTEM_BUS_ADDRESS=$address setpriv --reuid=65534 --regid=65534 --clear-groups \
        gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.RequestName net.hadess.SensorProxy 4 \
        >"$tmp/own.log" 2>&1; then
        fail "nobody could own net.hadess.SensorProxy"
fi
grep -q "AccessDenied" "$tmp/own.log" || fail "owning as nobody failed, but not by policy: $(cat "$tmp/own.log")"
# The length of tablet-tour.csv (its last row's time) and 0.6 s for its last readouts.
tour_s=$(awk -F, '/^[0-9]/ { t = $1 } END { printf "%.1f", t / 1000 + 0.6 }' "$here/tablet-tour.csv")
start_daemon "$address" "$tmp/daemon-full.log"
wait_for_log "$tmp/daemon-full.log" "Serving net.hadess.SensorProxy too"
DBUS_SYSTEM_BUS_ADDRESS=$address timeout "$tour_s" setpriv --reuid=65534 --regid=65534 --clear-groups \
        monitor-sensor >"$tmp/monitor.log" 2>&1 || true
got=$(sed -n 's/.*Accelerometer orientation changed: //p' "$tmp/monitor.log" | paste -sd,)
[ "$got" = "normal,left-up,normal,right-up,normal,bottom-up,normal" ] ||
        fail "monitor-sensor as nobody printed '$got'"
echo "ok: shipped policy: root owns net.hadess.SensorProxy, nobody's monitor-sensor sees $got"

# 2. Without the second policy: one clear line, and the first name still served.
start_bus bare "$src/data/org.thinkpad.Accelerometer.conf"
start_daemon "$address" "$tmp/daemon-bare.log"
wait_for_log "$tmp/daemon-bare.log" "Cannot own net.hadess.SensorProxy (bus policy?)"
has=$(DBUS_SYSTEM_BUS_ADDRESS=$address busctl --system get-property org.thinkpad.Accelerometer \
        /org/thinkpad/Accelerometer org.thinkpad.Accelerometer HasAccelerometer) && [ "$has" = 'b true' ] ||
        fail "org.thinkpad.Accelerometer not served without the second policy"
[ "$(grep -c 'net.hadess.SensorProxy' "$tmp/daemon-bare.log" | tr -d ' ')" -le 3 ] || fail "more than a line or so about it"
echo "ok: without the policy: one log line, org.thinkpad.Accelerometer still served"
# 3. With iio-sensor-proxy's own policy too (installed with it: only geoclue may use the Compass object),
#    as on a Debian machine with both packages: the tree of org.thinkpad.Accelerometer is ours only and
#    can be walked, and net.hadess.SensorProxy still works for monitor-sensor.
iio_policy=""
for f in /usr/share/dbus-1/system.d/net.hadess.SensorProxy.conf /etc/dbus-1/system.d/net.hadess.SensorProxy.conf; do
        [ -e "$f" ] && iio_policy=$f
done
[ -n "$iio_policy" ] || fail "iio-sensor-proxy's bus policy net.hadess.SensorProxy.conf is not installed (scripts/deps.sh test)"
# In the system bus's order: /usr/share/dbus-1/system.d, then /etc/dbus-1/system.d.
start_bus both "$src/data/org.thinkpad.Accelerometer.conf" "$src/data/net.hadess.SensorProxy.conf" "$iio_policy"
start_daemon "$address" "$tmp/daemon-both.log"
wait_for_log "$tmp/daemon-both.log" "Serving net.hadess.SensorProxy too"
for as in root nobody; do
        run=()
        [ $as = nobody ] && run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        tree=$(DBUS_SYSTEM_BUS_ADDRESS=$address "${run[@]}" busctl --system --list tree org.thinkpad.Accelerometer 2>&1) ||
                fail "busctl tree org.thinkpad.Accelerometer as $as with iio-sensor-proxy's policy: $tree"
        [ "$(echo "$tree" | paste -sd' ')" = "/ /org /org/thinkpad /org/thinkpad/Accelerometer /org/thinkpad/EmbeddedController" ] ||
                fail "the tree of org.thinkpad.Accelerometer as $as is not ours alone: $tree"
done
DBUS_SYSTEM_BUS_ADDRESS=$address setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system introspect \
        net.hadess.SensorProxy /net/hadess/SensorProxy net.hadess.SensorProxy >/dev/null ||
        fail "nobody cannot introspect /net/hadess/SensorProxy"
DBUS_SYSTEM_BUS_ADDRESS=$address timeout 8 setpriv --reuid=65534 --regid=65534 --clear-groups \
        monitor-sensor >"$tmp/monitor.log" 2>&1 || true
got=$(sed -n 's/.*Accelerometer orientation changed: //p' "$tmp/monitor.log" | paste -sd,)
[ -n "$got" ] || fail "monitor-sensor as nobody saw no orientation with both policies: $(cat "$tmp/monitor.log")"
echo "ok: with iio-sensor-proxy's policy too: busctl tree org.thinkpad.Accelerometer works, monitor-sensor sees $got"
echo "3 passed, 0 failed"
