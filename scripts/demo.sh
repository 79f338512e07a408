#!/usr/bin/env bash
# The main job: tpacceld on the emulated EC, on a private session bus, with `tpaccelctl monitor`
# printing live events until Ctrl-C. The motion is scripts/demo-tour.csv in a loop (every tray icon
# step and every orientation within the first seconds; made by tests/traces/gen-traces.py --demo), or
# --trace=FILE. With --tray, in a desktop session, the demo runs on that session's bus instead and
# starts the tray there too (uninstalled: icons from data/icons), so the panel shows it lean and the
# desktop's notification daemon shows its bubbles.
#   scripts/demo.sh [--tray] [--trace=FILE] [--samples] [more tpacceld options]
# Installs what is missing (apt-get, as root: scripts/deps.sh build, nothing the tests need), configures
# and builds into ./build-demo first, without the tests (-Dtests=false; `build` stays the developers'
# test build, docs/TESTING.md). A step that fails shows its output.
set -euo pipefail
cd "$(dirname "$0")/.."

builddir=build-demo

# Runs a build step quietly; when it fails, shows what it printed and names the step.
quiet() {
        local out
        out=$("$@" 2>&1) && return 0
        printf '%s\n' "$out" >&2
        echo "scripts/demo.sh: '$*' failed (its output is above)" >&2
        exit 1
}

# Whether the session bus has a tpacceld (NameHasOwner: nothing is activated by asking).
has_tpacceld() {
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.thinkpad.Accelerometer 2>/dev/null |
                grep -q 'boolean true'
}
export -f has_tpacceld

bash scripts/deps.sh build
# A configuration that failed half-way is made again from scratch.
[ -f "$builddir/build.ninja" ] || { rm -rf "$builddir" && quiet meson setup -Dtests=false "$builddir"; }
quiet ninja -C "$builddir"

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
        if has_tpacceld; then
                echo "scripts/demo.sh: a tpacceld already serves this session bus" >&2
                exit 1
        fi
        bus=()
fi
export TPACCEL_DEMO_TRAY=$tray
# TPACCELD, TPACCELCTL, TPACCEL_TRAY: where meson put the programs (scripts/programs.env.in).
set -a
. "$builddir/programs.env"
set +a

# Ctrl-C is for the monitor only (it handles SIGINT itself): the bus and the shells ignore it, so that
# the monitor can still release its claim before everything is stopped.
trap '' INT
exec "${bus[@]}" bash -c '
        # In a session of its own: Ctrl-C stops the monitor, which releases its claim on a daemon
        # still running, and then the daemon (EXIT trap).
        setsid "$TPACCELD" --session --backend=sim --state-dir="$0" "${@:2:$1}" &
        daemon=$! tray=
        trap "kill \$tray $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf \"$0\"" EXIT
        for _ in $(seq 50); do
                has_tpacceld && break
                sleep 0.1
        done
        if [ "$TPACCEL_DEMO_TRAY" = 1 ]; then
                # Its messages (a missing tray, a notification server that fails) reach the
                # person running the demo, each line marked with its name.
                setsid "$TPACCEL_TRAY" --session 2> >(sed -u "s/^/tpaccel-tray: /" >&2) &
                tray=$!
        fi
        "$TPACCELCTL" --session status
        echo
        echo "tpaccel demo: live events from the emulated EC; press Ctrl-C to stop."
        "$TPACCELCTL" --session monitor "${@:$(($1 + 2))}"
' "$state" "${#daemon_args[@]}" "${daemon_args[@]}" "${monitor_args[@]}"
