#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A polkit flood must not lock administrators out, with the REAL polkitd on a private
# system bus that uses the shipped bus policy: two unprivileged clients (uid 65534, no polkit rule)
# each keep 100 SetFilterOrder calls in flight; meanwhile root's SetFilterOrder and ReadRow must be
# answered and succeed, every flood call must be answered (Busy at once for the excess), the daemon's
# log must stay small (one line per uid per interval), and the daemon must live. Installs the
# project's .policy into /usr/share/polkit-1/actions (holding the system-tests lock) and removes it on
# exit. The daemon runs as root. Needs root.
#   test-polkit-flood.sh PATH/TO/tpacceld [POLICY-FILE]   (default: the built policy/ file)
set -euo pipefail
test_name=polkit-flood
. "$(dirname "$0")/system-test-lib.sh"
system_tests_lock

tpacceld=${1:?usage: $0 PATH/TO/tpacceld}
src=${TOP_SRCDIR:-$(dirname "$0")/../..}
policy=${2:-${TOP_BUILDDIR:-$src/build}/policy/org.thinkpad.accelerometer.policy}
require_root "installs a polkit action"

name=org.thinkpad.Accelerometer
obj=/org/thinkpad/Accelerometer
tmp=$(mktemp -d /tmp/tpaccel-polkit-flood.XXXXXX)
flood_pids=()

cleanup() {
        local rc=$?
        # Newest first: the flood clients, tpacceld, polkitd, then the bus.
        stop_pids
        restore_polkit_policy
        if [ $rc -ne 0 ]; then
                echo "---- tpacceld log"; cat "$tmp/daemon.log" 2>/dev/null || true
                echo "---- polkitd log"; cat "$tmp/polkitd.log" 2>/dev/null || true
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

# A system bus that denies by default, like the real one, plus the two shipped policies.
write_bus_conf "$tmp/bus.conf" "unix:dir=$tmp" system "" deny-by-default \
        /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf "$src/data/org.thinkpad.Accelerometer.conf"
chmod 755 "$tmp"

dbus-daemon --config-file="$tmp/bus.conf" --nofork --print-address=3 3>"$tmp/address" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/address" ] && break; sleep 0.05; done
[ -s "$tmp/address" ] || fail "dbus-daemon did not start"
export DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$tmp/address")

install_polkit_policy "$policy"

/usr/lib/polkit-1/polkitd --no-debug >"$tmp/polkitd.log" 2>&1 &
pids+=($!)
wait_for_name --address="$DBUS_SYSTEM_BUS_ADDRESS" org.freedesktop.PolicyKit1 || fail "polkitd did not start"

"$tpacceld" --backend=sim --state-dir="$tmp" >"$tmp/daemon.log" 2>&1 &
pids+=($!)
daemon_pid=$!
wait_for_name --address="$DBUS_SYSTEM_BUS_ADDRESS" $name || fail "tpacceld did not start"

flood_client=$(dirname "$0")/polkit-flood-client.py
flood_seconds=8
chmod 755 "$tmp"
for i in 1 2; do
        setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$flood_client" \
                "$DBUS_SYSTEM_BUS_ADDRESS" 100 "$flood_seconds" >"$tmp/flood$i.json" 2>"$tmp/flood$i.err" &
        pids+=($!)
        flood_pids+=($!)
done
sleep 2 # the flood is under way

# Root is answered during the flood, and polkit authorizes it.
for order in 4 5 6 7; do
        out=$(timeout 30 gdbus call --system -d $name -o $obj -m $name.SetFilterOrder $order 2>&1) ||
                fail "root's SetFilterOrder $order during the flood: $out"
        [ "$out" = "()" ] || fail "root's SetFilterOrder $order during the flood: $out"
        out=$(timeout 30 gdbus call --system -d $name -o /org/thinkpad/EmbeddedController \
                -m org.thinkpad.EmbeddedController.ReadRow 3 "[0x17,0x82,0,0,0,0,0,0,0,0,0,0,0,0,0,0]" 0x1f 2>&1) ||
                fail "root's ReadRow during the flood: $out"
        # 0x17/0x82: [2..3] the EC rate (50 Hz x 5 = 250 = 0x00fa), [4] the filter order just set.
        case "$out" in "([byte 0x17, 0x"??", 0xfa, 0x00, 0x0$order,"*) ;; *) fail "root's ReadRow during the flood: $out" ;; esac
done
echo "root answered during the flood"

for i in 1 2; do
        wait "${flood_pids[i - 1]}" || fail "flood client $i failed: $(cat "$tmp/flood$i.err")"
        echo "flood client $i: $(cat "$tmp/flood$i.json")"
done
kill -0 "$daemon_pid" 2>/dev/null || fail "tpacceld died during the flood"
/usr/bin/python3 - "$tmp/flood1.json" "$tmp/flood2.json" <<'PY' || fail "flood answers"
import json, sys
for f in sys.argv[1:]:
    c = json.load(open(f))
    assert c.pop('unanswered') == 0, (f, 'calls left unanswered')
    assert c.get('org.thinkpad.Accelerometer.Error.Busy', 0) > 0, (f, 'the excess is answered Busy', c)
    assert 'ok' not in c, (f, 'an unprivileged call went through', c)
    # Busy also answers a connection's calls past the bound of those waiting for its uid (bus-creds.h).
    other = set(c) - {'org.thinkpad.Accelerometer.Error.Busy', 'org.freedesktop.DBus.Error.AccessDenied',
                      'org.freedesktop.DBus.Error.InteractiveAuthorizationRequired'}
    assert not other, (f, 'unexpected answers', c)
PY
lines=$(grep -c "Too many pending authorizations" "$tmp/daemon.log" || true)
total=$(wc -l <"$tmp/daemon.log")
echo "daemon log: $total lines, $lines about refused authorizations"
# One line per uid per 10 s interval (both clients are uid 65534, a ~10 s flood), with a count.
[ "$lines" -ge 1 ] && [ "$lines" -le 3 ] || fail "expected 1..3 rate-limited lines about the flood, got $lines"
[ "$total" -le 200 ] || fail "the daemon log grew by $total lines"
grep -q "refused [0-9]* call(s) of uid 65534" "$tmp/daemon.log" || fail "the log line carries no count"
[ "$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property $name $obj $name FilterOrder)" = "u 7" ] ||
        fail "FilterOrder is not root's last value"

echo "polkit-flood: OK"
