#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen rotation on a ThinkPad tablet, on the emulator: a private bus, tpacceld replaying the tablet-tour
# trace under umockdev with a fake thinkpad_acpi tablet-mode switch, and iio-sensor-proxy's monitor-sensor
# against it (it uses the system bus, so DBUS_SYSTEM_BUS_ADDRESS points at the private one).
#   tests/sensorproxy/demo.sh BUILDDIR [tablet|laptop]
set -euo pipefail

build=${1:?usage: $0 BUILDDIR [tablet|laptop]}
mode=${2:-tablet}
case "$mode" in tablet | laptop) ;; *) echo "demo.sh: mode '$mode' is neither tablet nor laptop" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$build/programs.env" ] || { echo "demo.sh: no $build/programs.env (build first: meson setup $build && ninja -C $build)" >&2; exit 2; }
. "$build/programs.env" # TPACCELD: where meson put it
tpacceld=$TPACCELD
[ -x "$tpacceld" ] || { echo "demo.sh: no $tpacceld (build first: meson setup $build && ninja -C $build)" >&2; exit 2; }
for p in dbus-daemon umockdev-run monitor-sensor; do
        command -v "$p" >/dev/null || { echo "demo.sh: $p missing (scripts/deps.sh test installs it)" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/tpaccel-rotation.XXXXXX)
pids=()
cleanup() {
        for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
                kill "${pids[i]}" 2>/dev/null || true
                wait "${pids[i]}" 2>/dev/null || true
        done
        rm -rf "$tmp"
}
trap cleanup EXIT

dbus-daemon --session --nofork --print-address=3 3>"$tmp/address" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/address" ] && break; sleep 0.05; done
address=$(head -n1 "$tmp/address")
export DBUS_SYSTEM_BUS_ADDRESS=$address

umockdev-run -d "$here/thinkpad-extra-buttons.umockdev" -i "/dev/input/event5=$here/$mode-mode.ioctl" -- \
        "$tpacceld" --backend=sim --trace="$here/tablet-tour.csv" --address="$address" \
        --state-dir="$tmp" >"$tmp/tpacceld.log" 2>&1 &
pids+=($!)

echo "== $mode mode: the base turns right side up, left side up, hinge up (10 s)"
timeout 10 monitor-sensor || true
echo "== tpacceld said:"
grep -E "SensorProxy|Tablet-mode|tablet-mode" "$tmp/tpacceld.log" || true
