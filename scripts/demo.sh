#!/usr/bin/env bash
# The main job: tpacceld on the emulated EC, on a private session bus, with `tpaccelctl monitor`
# printing live events until Ctrl-C. The motion is scripts/demo-tour.csv in a loop (every tray icon
# step and every orientation within the first seconds; made by tests/traces/gen-traces.py --demo), or
# --trace=FILE. `build/client/tpaccel-tray --session` in that session's bus shows the tray.
#   scripts/demo.sh [--trace=FILE] [--samples] [more tpacceld options]
# Installs what is missing (apt-get, as root), configures and builds into ./build first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

daemon_args=() monitor_args=() trace=(--trace=scripts/demo-tour.csv --trace-loop)
for a in "$@"; do
        case "$a" in
        --samples) monitor_args+=("$a") ;;
        --trace=*) trace=() daemon_args+=("$a") ;;
        *) daemon_args+=("$a") ;;
        esac
done
daemon_args=("${trace[@]}" "${daemon_args[@]}")

state=$(mktemp -d /tmp/tpaccel-demo.XXXXXX)
trap 'rm -rf "$state"' EXIT

# Ctrl-C is for the monitor only (it handles SIGINT itself): the bus and the shells ignore it, so that
# the monitor can still release its claim before everything is stopped.
trap '' INT
exec dbus-run-session -- bash -c '
        # In a session of its own: Ctrl-C stops the monitor, which releases its claim on a daemon
        # still running, and then the daemon (EXIT trap).
        setsid build/service/tpacceld --session --backend=sim --state-dir="$0" "${@:2:$1}" &
        daemon=$!
        trap "kill $daemon 2>/dev/null; wait $daemon 2>/dev/null" EXIT
        for _ in $(seq 50); do
                busctl --user status org.thinkpad.Accelerometer >/dev/null 2>&1 && break
                sleep 0.1
        done
        build/client/tpaccelctl --session status
        echo
        echo "tpaccel demo: live events from the emulated EC; press Ctrl-C to stop."
        build/client/tpaccelctl --session monitor "${@:$(($1 + 2))}"
' "$state" "${#daemon_args[@]}" "${daemon_args[@]}" "${monitor_args[@]}"
