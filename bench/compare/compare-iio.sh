#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iio-sensor-proxy and tpacceld side by side on the same emulated hdaps device (compare-iio.py), on a
# private dbus-daemon, bounded in time. Prints `name: value unit` lines and a table.
# Usage: bench/compare/compare-iio.sh BUILDDIR [STEPS]   (STEPS position changes per daemon, default 20)
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
        echo "usage: $0 BUILDDIR [STEPS]" >&2
        exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$1/programs.env" ]; then
        echo "$1/programs.env: not found; build first (meson setup BUILDDIR && ninja -C BUILDDIR)" >&2
        exit 2
fi
. "$1/programs.env" # TPACCELD: where meson put it
tpacceld=$TPACCELD
steps="${2:-20}"
if [ ! -x "$tpacceld" ]; then
        echo "$tpacceld: not found; build first (meson setup BUILDDIR && ninja -C BUILDDIR)" >&2
        exit 2
fi
for tool in umockdev-wrapper dbus-daemon /usr/bin/python3; do
        if ! command -v "$tool" >/dev/null; then
                echo "$tool is missing (scripts/deps.sh installs it)" >&2
                exit 2
        fi
done

tmp=$(mktemp -d /tmp/tpaccel-compare-bus.XXXXXX)
bus_pid=
cleanup() {
        if [ -n "$bus_pid" ]; then
                kill "$bus_pid" 2>/dev/null || true
                wait "$bus_pid" 2>/dev/null || true
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

. "$(dirname "$0")/../../tests/lib/privatebus.sh"
write_bus_conf "$tmp/bus.conf" "unix:path=$tmp/bus.sock" system "" open
dbus-daemon --config-file="$tmp/bus.conf" --nofork 2>"$tmp/bus.log" &
bus_pid=$!
i=0
while [ ! -S "$tmp/bus.sock" ]; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
                echo "dbus-daemon did not start" >&2
                exit 1
        fi
        sleep 0.05
done

# Bounded: at most STEPS * 1.5 s of motion per daemon plus start-up; 10 minutes is far beyond that.
timeout --kill-after=10 600 umockdev-wrapper /usr/bin/python3 "$here/compare-iio.py" "$tpacceld" \
        "unix:path=$tmp/bus.sock" "$steps"
