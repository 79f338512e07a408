#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End to end with the REAL polkitd, with tpacceld started as it ships where systemd does not run: by the
# bus itself from data/org.thinkpad.Accelerometer.service.in on the first call (as root, as
# dbus-daemon-launch-helper does without systemd), switching to the tpaccel user made from the shipped
# data/tpaccel.sysusers by systemd-sysusers (removed afterwards if this test made it), with a state
# directory that does not exist yet: tpacceld creates it and hands it to tpaccel before switching. The
# bus is private, denies by default and includes the shipped bus policy
# (data/org.thinkpad.Accelerometer.conf) and polkit's own. tpacceld gets --backend=sim (no ThinkPad here).
# The unit's way (tpacceld.service under systemd, its sandbox as systemd builds it) is tested for real by
# tests/package/test-systemd.sh, under systemd as PID 1.
# The project's .policy is installed into /usr/share/polkit-1/actions and a rule into /etc/polkit-1/rules.d
# that allows uid 65534 (nobody) to configure, and nobody else. Then:
#   status (properties) as nobody; a configure call refused to uid 1 (no rule: polkit asks for
#   authentication); allowed to nobody by the rule; allowed to root; saved in the state directory,
#   owned by tpaccel; raw EC access refused to nobody, served to root; the sample stream (AcquireStream)
#   acquired by nobody, its records as documented (stream-client.py) and, with TPACCELCTL, read by
#   `tpaccelctl monitor --samples` as nobody.
# Everything installed is removed on exit. Needs root.
#   test-real-polkitd.sh PATH/TO/tpacceld POLICY-FILE [TPACCELCTL]
set -euo pipefail
test_name=real-polkitd
. "$(dirname "$0")/system-test-lib.sh"

usage="usage: $0 PATH/TO/tpacceld POLICY-FILE [TPACCELCTL]"
if [ $# -lt 2 ] || [ $# -gt 3 ]; then fail "$usage"; fi
tpacceld=$(realpath "$1")
policy=$(realpath "$2")
tpaccelctl=${3:+$(realpath "$3")}
src=$(cd "${TOP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
stream_client=$src/tests/bus/stream-client.py
require_root "installs a polkit action and rule, a system user"
# System-wide files and a user: one such test at a time (HELPERS.md).
system_tests_lock

name=org.thinkpad.Accelerometer
obj=/org/thinkpad/Accelerometer
activation=$src/data/org.thinkpad.Accelerometer.service.in
rule_file=/etc/polkit-1/rules.d/49-tpaccel-test-$$.rules
tmp=$(mktemp -d /tmp/tpaccel-real-polkit.XXXXXX)

cleanup() {
        local rc=$?
        # Newest first: tpacceld, polkitd, then the bus.
        stop_pids
        # An activated tpacceld is the bus's child, not ours: it exits when the bus goes; make sure.
        [ -s "$tmp/activated.pid" ] && kill "$(cat "$tmp/activated.pid")" 2>/dev/null || true
        rm -f "$rule_file"
        restore_polkit_policy
        remove_made_user
        if [ $rc -ne 0 ]; then
                for log in "$tmp"/daemon-*.log "$tmp/bus.log" "$tmp/polkitd.log"; do
                        [ -e "$log" ] && { echo "---- $log"; cat "$log"; }
                done
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

# The user, from the shipped sysusers file, as the package's postinst does.
ensure_tpaccel_user "$src/data/tpaccel.sysusers"
user_uid=$(id -u "$user")

# A system bus that denies by default, like the real one, plus the two shipped policies, and the
# activation directory the second way uses.
mkdir -p "$tmp/services"
start_system_bus "$tmp/bus.log" "$tmp/services"
start_real_polkitd "$policy"

# The activation file's way: the bus starts Exec= itself, as root (User=root), on the first call.
start_by_activation() { # $1: state directory (must not exist yet)
        local exec
        exec=$(sed -n 's/^Exec=//p' "$activation")
        [ "$(sed -n 's/^User=//p' "$activation")" = root ] || fail "the activation file no longer runs as root"
        read -ra exec <<<"$exec"
        {
                sed -n '/^\[D-BUS Service\]/p; /^Name=/p; /^User=/p' "$activation"
                echo "Exec=$tpacceld ${exec[*]:1} --backend=sim -v --state-dir=$1"
        } >"$tmp/services/$name.service"
        # Any call activates it; busctl status does not, so ask for a property.
        out=$(setpriv --reuid=65534 --regid=65534 --clear-groups gdbus call --system -d $name -o $obj \
                -m org.freedesktop.DBus.Properties.Get $name SamplingRate 2>&1) ||
                fail "activation by nobody's call failed: $out"
        busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                GetConnectionUnixProcessID s $name | awk '{print $2}' >"$tmp/activated.pid"
}

as_uid() {
        local uid=$1
        shift
        setpriv --reuid="$uid" --regid="$uid" --clear-groups gdbus call --system -d $name -o $obj "$@" 2>&1 || true
}
get_rate() {
        busctl --system get-property $name $obj $name SamplingRate
}

check_calls() { # $1: what started the daemon, $2: its state directory
        local how=$1 state_dir=$2 out uid

        uid=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                GetConnectionUnixUser s $name | awk '{print $2}')
        [ "$uid" = "$user_uid" ] || fail "$how: the daemon's bus connection is uid $uid, not $user ($user_uid)"

        # Status is open to everyone (the shipped bus policy).
        out=$(as_uid 65534 -m org.freedesktop.DBus.Properties.Get $name SamplingRate)
        [ "$out" = "(<uint32 50>,)" ] || fail "$how: nobody cannot read SamplingRate: $out"

        # uid 1: no rule, auth_admin_keep, no agent -> polkit wants authentication, nothing changes.
        out=$(as_uid 1 -m $name.SetSamplingRate 20)
        echo "$how: uid 1 SetSamplingRate: $out"
        case "$out" in
        *GDBus.Error:org.freedesktop.DBus.Error.InteractiveAuthorizationRequired*) ;;
        *) fail "$how: uid 1 was not refused by polkit's verdict: $out" ;;
        esac
        [ "$(get_rate)" = "u 50" ] || fail "$how: a refused call changed SamplingRate: $(get_rate)"

        # nobody: the rule says yes.
        out=$(as_uid 65534 -m $name.SetSamplingRate 20)
        echo "$how: nobody SetSamplingRate: $out"
        [ "$out" = "()" ] || fail "$how: nobody was refused although a rule allows it: $out"
        [ "$(get_rate)" = "u 20" ] || fail "$how: SamplingRate did not change: $(get_rate)"

        # root: polkit allows uid 0.
        out=$(gdbus call --system -d $name -o $obj -m $name.SetSamplingRate 25 2>&1) || true
        echo "$how: root SetSamplingRate: $out"
        [ "$out" = "()" ] || fail "$how: root was refused: $out"
        [ "$(get_rate)" = "u 25" ] || fail "$how: SamplingRate did not change for root: $(get_rate)"

        # Saved, in a state directory the daemon's user owns.
        [ "$(stat -c %U "$state_dir")" = "$user" ] || fail "$how: $state_dir is owned by $(stat -c %U "$state_dir")"
        grep -qsx "sampling_rate=25" "$state_dir/state" ||
                fail "$how: the setting is not saved in $state_dir: $(ls -la "$state_dir")"

        # Raw EC access is administrators only: nobody is refused, root is served.
        out=$(as_uid 65534 -o /org/thinkpad/EmbeddedController -m org.thinkpad.EmbeddedController.ReadRow 1 \
                "[0x13,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]" 3)
        echo "$how: nobody ReadRow: $out"
        case "$out" in *GDBus.Error:*) ;; *) fail "$how: nobody got raw EC access: $out" ;; esac
        out=$(gdbus call --system -d $name -o /org/thinkpad/EmbeddedController \
                -m org.thinkpad.EmbeddedController.ReadRow 1 "[0x13,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]" 3 2>&1) ||
                fail "$how: root ReadRow failed: $out"
        echo "$how: root ReadRow: $out"

        # The sample stream: nobody acquires it and reads records as documented; then the shipped client.
        out=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$stream_client" 20 2>&1) ||
                fail "$how: nobody's sample stream: $out"
        echo "$how: $out"
        if [ -n "$tpaccelctl" ]; then
                check_monitor_samples "$how"
        fi
}

# tpaccelctl monitor --samples as nobody for 2 s, then Ctrl-C: it must print the stream's records and
# release cleanly (exit 0).
check_monitor_samples() { # $1: what started the daemon
        local how=$1 out rc=0 samples rate
        rate=$(get_rate | awk '{print $2}')
        out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
                timeout --preserve-status -s INT 2 "$tpaccelctl" --system monitor --samples 2>&1) || rc=$?
        samples=$(grep -c '  sample  ' <<<"$out" || true)
        echo "$how: tpaccelctl monitor --samples as nobody: exit $rc, $samples samples in 2 s at $rate Hz"
        [ $rc -eq 0 ] || fail "$how: tpaccelctl monitor --samples exited $rc: $out"
        # At least half of what 2 s at the rate make (start-up and Ctrl-C take some of the 2 s).
        [ "$samples" -ge "$rate" ] || fail "$how: tpaccelctl monitor --samples printed $samples samples in 2 s at $rate Hz: $out"
}

stop_daemon() { # waits until the name is gone
        local pid
        pid=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                GetConnectionUnixProcessID s $name | awk '{print $2}')
        kill "$pid"
        for _ in $(seq 200); do
                busctl --system status $name >/dev/null 2>&1 || return 0
                sleep 0.05
        done
        fail "tpacceld (pid $pid) did not exit on SIGTERM"
}

# As the bus activates it without systemd.
start_by_activation "$tmp/activation-state"
check_calls activation "$tmp/activation-state"
grep -q "Running as user $user" "$tmp/bus.log" || fail "activation: no 'Running as user $user' in the log"
stop_daemon

# The shipped bus policy: nobody but root and tpaccel may own the name.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system \
        call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus RequestName su $name 0 2>&1 || true)
case "$out" in *"not allowed to own"* | *"Access denied"* | *"denied"*) ;; *) fail "nobody could own $name: $out" ;; esac

echo "real-polkitd: OK"
