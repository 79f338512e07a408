#!/usr/bin/env bash
# The main job: tpacceld on the emulated EC, on a private session bus, with `tpaccelctl monitor`
# printing live events until Ctrl-C. The motion is scripts/demo-tour.csv in a loop (every tray icon
# step and every orientation within the first seconds; made by tests/traces/gen-traces.py --demo), or
# --trace=FILE. With --tray, in a desktop session, the demo runs on that session's bus instead and
# starts the tray there too (uninstalled: icons from data/icons), so the panel shows it lean and the
# desktop's notification daemon shows its bubbles.
#   scripts/demo.sh [--tray] [--trace=FILE] [--samples] [more tpacceld options]
# Installs what is missing (apt-get, as root), configures and builds into ./build first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

daemon_args=() monitor_args=() trace=(--trace=scripts/demo-tour.csv --trace-loop) tray=0
for a in "$@"; do
        case "$a" in
        --samples) monitor_args+=("$a") ;;
        --tray) tray=1 ;;
        --trace=*) trace=() daemon_args+=("$a") ;;
        *) daemon_args+=("$a") ;;
        esac
done
daemon_args=("${trace[@]}" "${daemon_args[@]}")

# The daemon's state directory; the session below removes it when it ends (exec ends this shell's traps).
state=$(mktemp -d /tmp/tpaccel-demo.XXXXXX)

bus=(dbus-run-session --)
if [ "$tray" = 1 ]; then
        if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] || [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
                echo "scripts/demo.sh: --tray needs a desktop session (its session bus and display)" >&2
                exit 2
        fi
        if busctl --user status org.thinkpad.Accelerometer >/dev/null 2>&1; then
                echo "scripts/demo.sh: a tpacceld already serves this session bus" >&2
                exit 1
        fi
        bus=()
fi
export TPACCEL_DEMO_TRAY=$tray

# Ctrl-C is for the monitor only (it handles SIGINT itself): the bus and the shells ignore it, so that
# the monitor can still release its claim before everything is stopped.
trap '' INT
exec "${bus[@]}" bash -c '
        # In a session of its own: Ctrl-C stops the monitor, which releases its claim on a daemon
        # still running, and then the daemon (EXIT trap).
        setsid build/service/tpacceld --session --backend=sim --state-dir="$0" "${@:2:$1}" &
        daemon=$! tray=
        trap "kill \$tray $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf \"$0\"" EXIT
        for _ in $(seq 50); do
                busctl --user status org.thinkpad.Accelerometer >/dev/null 2>&1 && break
                sleep 0.1
        done
        if [ "$TPACCEL_DEMO_TRAY" = 1 ]; then
                setsid build/client/tpaccel-tray --session 2>/dev/null &
                tray=$!
        fi
        build/client/tpaccelctl --session status
        echo
        echo "tpaccel demo: live events from the emulated EC; press Ctrl-C to stop."
        build/client/tpaccelctl --session monitor "${@:$(($1 + 2))}"
' "$state" "${#daemon_args[@]}" "${daemon_args[@]}" "${monitor_args[@]}"
