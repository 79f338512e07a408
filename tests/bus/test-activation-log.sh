#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without systemd, the bus activates tpacceld itself and the service inherits the bus daemon's stdio,
# which is /dev/null for a bus daemon that forked (as a system bus started by an init script does): its
# log went nowhere. tpacceld then logs to syslog. Here: a bus daemon started with --fork and the shipped
# activation file (data/org.thinkpad.Accelerometer.service.in, its Exec= plus --backend=sim and a state
# directory of the test's own); a syslog socket at /dev/log (created for the test and removed if there is
# none; otherwise the test runs in a mount namespace where a socket of its own is bound over it). A call
# activates tpacceld, and its start-up lines must reach the syslog socket, as "tpacceld[PID]: ...".
# Needs root.
#   test-activation-log.sh PATH/TO/tpacceld
set -euo pipefail
test_name=activation-log
. "$(dirname "$0")/system-test-lib.sh"

tpacceld=$(realpath "${1:?usage: $0 PATH/TO/tpacceld}")
src=$(cd "${TOP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
python=/usr/bin/python3
require_root "/dev/log"

# A real /dev/log (a syslog daemon) stays untouched: rerun in a private mount namespace and bind a
# socket of our own over it there.
if [ -z "${TPACCEL_IN_NAMESPACE:-}" ] && [ -e /dev/log ]; then
        exec env TPACCEL_IN_NAMESPACE=1 unshare --mount --propagation private -- "$0" "$@"
fi
system_tests_lock

name=org.thinkpad.Accelerometer
tmp=$(mktemp -d /tmp/tpaccel-activation-log.XXXXXX)
chmod 755 "$tmp"
made_dev_log=""
cleanup() {
        local rc=$?
        [ -s "$tmp/activated.pid" ] && kill "$(cat "$tmp/activated.pid")" 2>/dev/null || true
        [ -s "$tmp/bus.pid" ] && kill "$(cat "$tmp/bus.pid")" 2>/dev/null || true
        stop_pids
        [ -n "$made_dev_log" ] && rm -f /dev/log
        if [ $rc -ne 0 ]; then
                echo "---- syslog"; cat "$tmp/syslog" 2>/dev/null || true
        fi
        rm -rf "$tmp"
        exit $rc
}
trap cleanup EXIT INT TERM

# The syslog socket: every datagram, one per line.
if [ -e /dev/log ]; then
        sock=$tmp/log.sock
else
        sock=/dev/log
        made_dev_log=1
fi
"$python" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(65536).decode(errors="replace").rstrip("\n") + "\n")
        f.flush()
' "$sock" "$tmp/syslog" >"$tmp/listener.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q ready "$tmp/listener.out" 2>/dev/null && break; sleep 0.05; done
[ -S "$sock" ] || fail "the syslog listener did not start"
chmod 666 "$sock"
[ "$sock" = /dev/log ] || mount --bind "$sock" /dev/log

mkdir "$tmp/services"
exec_line=$(sed -n 's/^Exec=//p' "$src/data/org.thinkpad.Accelerometer.service.in")
read -ra exec_args <<<"$exec_line"
{
        echo "[D-BUS Service]"
        sed -n '/^Name=/p; /^User=/p' "$src/data/org.thinkpad.Accelerometer.service.in"
        echo "Exec=$tpacceld ${exec_args[*]:1} --backend=sim --state-dir=$tmp/state"
} >"$tmp/services/$name.service"
write_bus_conf "$tmp/bus.conf" "unix:path=$tmp/system_bus_socket" system "$tmp/services" open
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/system_bus_socket
# --fork: the bus daemon's stdio becomes /dev/null, as for a system bus started by an init script.
env -u DBUS_DEBUG_OUTPUT dbus-daemon --config-file="$tmp/bus.conf" --fork --print-pid=3 3>"$tmp/bus.pid" 9>&-
for _ in $(seq 100); do [ -S "$tmp/system_bus_socket" ] && break; sleep 0.05; done
[ -S "$tmp/system_bus_socket" ] || fail "dbus-daemon did not start"

out=$(gdbus call --system -d $name -o /org/thinkpad/Accelerometer -m org.freedesktop.DBus.Properties.Get \
        $name SamplingRate 2>&1) || fail "activation failed: $out"
pid=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        GetConnectionUnixProcessID s $name | awk '{print $2}')
echo "$pid" >"$tmp/activated.pid"
[ "$(readlink "/proc/$pid/fd/2")" = /dev/null ] || fail "the activated daemon's stderr is $(readlink "/proc/$pid/fd/2"), not /dev/null"

for _ in $(seq 100); do grep -q "tpacceld\[$pid\]: Serving $name" "$tmp/syslog" 2>/dev/null && break; sleep 0.05; done
grep -q "tpacceld\[$pid\]: Serving $name" "$tmp/syslog" || fail "the activated daemon's log did not reach syslog"
# <30> is LOG_DAEMON | LOG_INFO.
grep -q "^<30>.*tpacceld\[$pid\]: Backend simulated" "$tmp/syslog" || fail "not logged with the daemon facility"
echo "activation-log: OK: $(grep -c "tpacceld\[$pid\]" "$tmp/syslog") lines from the activated tpacceld in syslog"
