# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Shared setup of the shell tests that run tpacceld on a private bus as root (sourced, not run):
# the system-tests lock, the root check, stopping what a test started, a private bus config, the
# project's polkit action, the tpaccel user from the shipped sysusers file, waiting for a bus name.
# The caller sets test_name (the prefix of its messages) and keeps the processes it starts in pids.

pids=()
action_file=/usr/share/polkit-1/actions/org.thinkpad.accelerometer.policy
action_backup=""
made_user=""

# Prints "$test_name: FAIL: ..." and exits 1 (the EXIT trap cleans up).
fail() {
        echo "$test_name: FAIL: $*" >&2
        exit 1
}

# Exits 77 (skipped) unless root; $1 says what needs root.
require_root() {
        if [ "$(id -u)" -ne 0 ]; then
                echo "$test_name: needs root ($1); skipped" >&2
                exit 77
        fi
}

# Holds /run/lock/tpaccel-system-tests.lock on fd 9 for the rest of the run (HELPERS.md): one test
# that changes system-wide files or users at a time.
system_tests_lock() {
        exec 9>/run/lock/tpaccel-system-tests.lock
        flock 9
}

# Stops every process in pids, newest first, and reaps it.
stop_pids() {
        local i
        for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
                kill "${pids[i]}" 2>/dev/null || true
                wait "${pids[i]}" 2>/dev/null || true
        done
}

# write_bus_conf FILE LISTEN TYPE SERVICEDIR POLICY [INCLUDE...]: the private bus configuration.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/privatebus.sh"

# Installs the polkit action file $1 into /usr/share/polkit-1/actions, keeping any file already there
# in $tmp/action.bak; restore_polkit_policy (in the EXIT trap) puts things back.
install_polkit_policy() {
        [ -e "$action_file" ] && { action_backup=$tmp/action.bak; cp -p "$action_file" "$action_backup"; }
        install -m 644 "$1" "$action_file"
}
restore_polkit_policy() {
        if [ -n "$action_backup" ]; then mv -f "$action_backup" "$action_file"; else rm -f "$action_file"; fi
}

# Sets user to the user of the sysusers file $1 and makes it with systemd-sysusers if missing, as the
# package's postinst does (made_user then names it); remove_made_user (in the EXIT trap) removes it.
ensure_tpaccel_user() {
        user=$(awk '$1 == "u" { print $2; exit }' "$1")
        if ! getent passwd "$user" >/dev/null; then
                systemd-sysusers "$1"
                made_user=$user
        fi
        getent passwd "$user" >/dev/null || fail "systemd-sysusers did not create $user"
}
remove_made_user() {
        if [ -n "$made_user" ]; then
                userdel "$made_user" 2>/dev/null || true
                groupdel "$made_user" 2>/dev/null || true
        fi
}

# Waits up to 10 s until NAME has an owner on the bus busctl reaches with BUS-OPTION (--system or
# --address=...); with PID, stops waiting when that process is gone. Returns 0 if the name is owned.
#   wait_for_name BUS-OPTION NAME [PID]
wait_for_name() {
        local bus=$1 bus_name=$2 pid=${3:-}
        for _ in $(seq 200); do
                busctl "$bus" status "$bus_name" >/dev/null 2>&1 && return 0
                [ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
                sleep 0.05
        done
        busctl "$bus" status "$bus_name" >/dev/null 2>&1
}

# A system bus that denies by default, like the real one, with polkit's and tpaccel's bus policies, at
# $tmp/system_bus_socket (exported as DBUS_SYSTEM_BUS_ADDRESS before it starts, so that what it activates
# inherits it). Uses the caller's tmp, src and pids.
start_system_bus() { # LOG-FILE SERVICEDIR ("" for none)
        write_bus_conf "$tmp/bus.conf" "unix:path=$tmp/system_bus_socket" system "$2" deny-by-default \
                /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf "$src/data/org.thinkpad.Accelerometer.conf" \
                "$src/data/net.hadess.SensorProxy.conf"
        chmod 755 "$tmp"
        export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/system_bus_socket
        dbus-daemon --config-file="$tmp/bus.conf" --nofork >"$1" 2>&1 &
        pids+=($!)
        for _ in $(seq 100); do [ -S "$tmp/system_bus_socket" ] && break; sleep 0.05; done
        [ -S "$tmp/system_bus_socket" ] || fail "dbus-daemon did not start"
}

# The real polkitd on that bus, with the project's actions installed (restore_polkit_policy undoes it) and
# a rule in $rule_file (the caller removes it) allowing nobody to configure.
start_real_polkitd() { # POLICY-FILE
        install_polkit_policy "$1"
        cat >"$rule_file" <<RULE
// Installed by tpaccel's tests/bus/$test_name test, removed when it ends.
polkit.addRule(function(action, subject) {
        if (action.id == "org.thinkpad.accelerometer.configure" && subject.user == "nobody")
                return polkit.Result.YES;
});
RULE
        chown polkitd "$rule_file" 2>/dev/null || true
        chmod 644 "$rule_file"
        /usr/lib/polkit-1/polkitd --no-debug >"$tmp/polkitd.log" 2>&1 &
        pids+=($!)
        wait_for_name --system org.freedesktop.PolicyKit1 || fail "polkitd did not start"
}
