#!/usr/bin/env bash
# The main job: tpacceld on the emulated EC (built-in demo motion, or --trace=FILE), on a private
# session bus, with `tpaccelctl monitor` printing live events until Ctrl-C.
#   scripts/demo.sh [--trace=FILE] [--samples] [more tpacceld options]
# Installs what is missing (apt-get, as root), configures and builds into ./build first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

daemon_args=() monitor_args=()
for a in "$@"; do
        case "$a" in
        --samples) monitor_args+=("$a") ;;
        *) daemon_args+=("$a") ;;
        esac
done

state=$(mktemp -d /tmp/tpaccel-demo.XXXXXX)
trap 'rm -rf "$state"' EXIT

exec dbus-run-session -- bash -c '
        build/service/tpacceld --session --backend=sim --state-dir="$0" "${@:2:$1}" &
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
