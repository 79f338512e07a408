#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Makes the screenshots of the README and HACKING.md from a build: the tray window (Xvfb) and
# `tpaccelctl monitor` in tmux, both against tpacceld on the EC emulator on a private session bus.
# Usage: docs/screenshots/make-screenshots.sh BUILDDIR
set -euo pipefail
build=$(realpath "${1:?usage: $0 BUILDDIR}")
. "$build/programs.env" # TPACCELD, TPACCELCTL, TPACCEL_TRAY: where meson put them
src=$(cd "$(dirname "$0")/../.." && pwd)
out="$src/docs/screenshots"
[ "${TPACCEL_SHOT_INNER:-}" = 1 ] || "$src/scripts/deps.sh" screenshots # installs what is missing
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] || [ "${TPACCEL_SHOT_INNER:-}" != 1 ]; then
        exec env TPACCEL_SHOT_INNER=1 xvfb-run -a -s "-screen 0 1024x768x24" dbus-run-session -- "$0" "$@"
fi
export NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory TPACCEL_ICON_DIR="$src/data/icons"

"$TPACCELD" --session --backend=sim --trace="$src/tests/traces/slow-roll-45.csv" --trace-loop \
        --state-dir="$tmp" 2>"$tmp/daemon.log" &
daemon=$!
sleep 1
tmux -L tpaccel-shot new-session -d -x 110 -y 40 \
        "$TPACCELCTL --session monitor; sleep 30"
sleep 7
pane=$(tmux -L tpaccel-shot capture-pane -p -S - -t 0)
head -n 30 <<<"$pane" >"$tmp/monitor.txt"
tmux -L tpaccel-shot kill-server
"$TPACCEL_TRAY" --session --show-window 2>"$tmp/tray.log" &
tray=$!
sleep 7
import -window root "$tmp/root.png"
# Crop to the window (it sits at the top left without a window manager).
convert "$tmp/root.png" -trim +repage "$out/tray-window.png"
kill "$tray"
kill "$daemon"
wait "$daemon" || true

# Render the captured terminal one label per line (ImageMagick refuses label:@FILE by policy and
# long multi-line labels by its size limits).
labels=(label:"\$ tpaccelctl --session monitor")
while IFS= read -r line; do
        labels+=(label:"${line:- }")
done < <(sed -e 's/[[:space:]]*$//' "$tmp/monitor.txt" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
convert -background '#1e1e24' -fill '#e0e0d9' -font DejaVu-Sans-Mono -pointsize 14 "${labels[@]}" \
        -gravity west -append -bordercolor '#1e1e24' -border 14 "$out/monitor.png"
echo "wrote $out/tray-window.png and $out/monitor.png"
