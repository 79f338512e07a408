#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End to end with the REAL polkitd on a private system bus that uses the shipped bus policy
# (data/org.thinkpad.Accelerometer.conf) and polkit's own: the project's .policy is installed into
# /usr/share/polkit-1/actions and a rule into /etc/polkit-1/rules.d that allows uid 65534 (nobody) to
# configure, and nobody else. Calls are made as uid 65534 and as uid 1 (daemon) with setpriv. Everything
# installed is removed on exit. Needs root.
#   test-real-polkitd.sh PATH/TO/tpacceld [POLICY-FILE]   (default: the built policy/ file)
set -euo pipefail

tpacceld=${1:?usage: $0 PATH/TO/tpacceld}
src=${TOP_SRCDIR:-$(dirname "$0")/../..}
policy=${2:-${TOP_BUILDDIR:-$src/build}/policy/org.thinkpad.accelerometer.policy}
if [ "$(id -u)" -ne 0 ]; then
        echo "real-polkitd: needs root (installs a polkit action and rule); skipped" >&2
        exit 77
fi

name=org.thinkpad.Accelerometer
obj=/org/thinkpad/Accelerometer
action_file=/usr/share/polkit-1/actions/org.thinkpad.accelerometer.policy
rule_file=/etc/polkit-1/rules.d/49-tpaccel-test-$$.rules
tmp=$(mktemp -d /tmp/tpaccel-real-polkit.XXXXXX)
pids=()
action_backup=""

cleanup() {
        local rc=$?
        # Newest first: tpacceld, polkitd, then the bus.
        for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
                kill "${pids[i]}" 2>/dev/null || true
                wait "${pids[i]}" 2>/dev/null || true
        done
        rm -f "$rule_file"
        if [ -n "$action_backup" ]; then mv -f "$action_backup" "$action_file"; else rm -f "$action_file"; fi
        if [ $rc -ne 0 ]; then
                echo "---- tpacceld log"; cat "$tmp/daemon.log" 2>/dev/null || true
                echo "---- polkitd log"; cat "$tmp/polkitd.log" 2>/dev/null || true
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

fail() {
        echo "real-polkitd: FAIL: $*" >&2
        exit 1
}

# A system bus that denies by default, like the real one, plus the two shipped policies.
cat >"$tmp/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir=$tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <include>/usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf</include>
  <include>$src/data/org.thinkpad.Accelerometer.conf</include>
</busconfig>
CONF
chmod 755 "$tmp"

dbus-daemon --config-file="$tmp/bus.conf" --nofork --print-address=3 3>"$tmp/address" &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/address" ] && break; sleep 0.05; done
[ -s "$tmp/address" ] || fail "dbus-daemon did not start"
export DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$tmp/address")

[ -e "$action_file" ] && { action_backup=$tmp/action.bak; cp -p "$action_file" "$action_backup"; }
install -m 644 "$policy" "$action_file"
cat >"$rule_file" <<'RULE'
// Installed by tpaccel's tests/dbus/test-real-polkitd.sh, removed when it ends.
polkit.addRule(function(action, subject) {
        if (action.id == "org.thinkpad.accelerometer.configure" && subject.user == "nobody")
                return polkit.Result.YES;
});
RULE
chown polkitd "$rule_file" 2>/dev/null || true
chmod 644 "$rule_file"

/usr/lib/polkit-1/polkitd --no-debug >"$tmp/polkitd.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.PolicyKit1 >/dev/null 2>&1 && break
        sleep 0.05
done
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status org.freedesktop.PolicyKit1 >/dev/null 2>&1 || fail "polkitd did not start"

"$tpacceld" -v --backend=sim --state-dir="$tmp" >"$tmp/daemon.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status $name >/dev/null 2>&1 && break
        sleep 0.05
done
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" status $name >/dev/null 2>&1 || fail "tpacceld did not start"

as_uid() {
        local uid=$1
        shift
        setpriv --reuid="$uid" --regid="$uid" --clear-groups gdbus call --system -d $name -o $obj "$@" 2>&1 || true
}
get_rate() {
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property $name $obj $name SamplingRate
}

# Reading is open to everyone (the shipped bus policy).
out=$(as_uid 1 -m org.freedesktop.DBus.Properties.Get $name SamplingRate)
[ "$out" = "(<uint32 50>,)" ] || fail "uid 1 cannot read SamplingRate: $out"

# uid 1: no rule, auth_admin_keep, no agent -> not authorized, nothing changes.
out=$(as_uid 1 -m $name.SetSamplingRate 20)
echo "uid 1 SetSamplingRate: $out"
case "$out" in
*GDBus.Error:org.freedesktop.DBus.Error.InteractiveAuthorizationRequired* | *GDBus.Error:org.freedesktop.DBus.Error.AccessDenied*) ;;
*) fail "uid 1 was not refused: $out" ;;
esac
[ "$(get_rate)" = "u 50" ] || fail "a refused call changed SamplingRate: $(get_rate)"

# uid 65534: the rule says yes.
out=$(as_uid 65534 -m $name.SetSamplingRate 20)
echo "uid 65534 SetSamplingRate: $out"
[ "$out" = "()" ] || fail "uid 65534 was refused: $out"
[ "$(get_rate)" = "u 20" ] || fail "SamplingRate did not change: $(get_rate)"

# Raw EC access is administrators only: uid 65534 is refused, root (polkit allows uid 0) is served.
out=$(as_uid 65534 -o /org/thinkpad/EmbeddedController -m org.thinkpad.EmbeddedController.ReadRow 1 \
        "[0x13,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]" 3)
echo "uid 65534 ReadRow: $out"
case "$out" in *GDBus.Error:*) ;; *) fail "uid 65534 got raw EC access: $out" ;; esac
out=$(gdbus call --system -d $name -o /org/thinkpad/EmbeddedController -m org.thinkpad.EmbeddedController.ReadRow 1 \
        "[0x13,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]" 3 2>&1) || fail "root ReadRow failed: $out"
echo "root ReadRow: $out"

# The shipped bus policy: nobody but root may own the name.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" \
        call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus RequestName su $name 0 2>&1 || true)
case "$out" in *"not allowed to own"* | *"Access denied"* | *"denied"*) ;; *) fail "uid 65534 could own $name: $out" ;; esac

echo "real-polkitd: OK"
