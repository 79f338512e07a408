#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screenshots of tpaccel-tray in GNOME Shell 43 (X11, under Xvfb) with the AppIndicator extension:
# the symbolic icon on the black top bar and the menu's toggles with their boxes. Against
# tpacceld on the EC emulator on a private session bus, with a private bus as the system bus. Installs
# gnome-shell, gnome-shell-extension-appindicator and dconf-cli when missing (scripts/deps.sh screenshots;
# no test uses them). Writes gnome-*.png here.
# Usage: docs/screenshots/make-gnome-screenshots.sh BUILDDIR [DISPLAY_NUMBER]
set -euo pipefail
build=$(realpath "${1:?usage: $0 BUILDDIR [DISPLAY_NUMBER]}")
. "$build/programs.env" # TPACCELD, TPACCELCTL, TPACCEL_TRAY: where meson put them
display=${2:-67}
src=$(cd "$(dirname "$0")/../.." && pwd)
out="$src/docs/screenshots"
[ "${TPACCEL_SHOT_INNER:-}" = 1 ] || "$src/scripts/deps.sh" screenshots # installs what is missing

. "$src/docs/screenshots/desktop-lib.sh"
run_in_private_desktop "$display" 1280x800x24 +extension GLX -- "$0" "$@"
enter_scratch
export NO_AT_BRIDGE=1 XDG_SESSION_TYPE=x11 XDG_CURRENT_DESKTOP=GNOME GSETTINGS_BACKEND=dconf
export XDG_RUNTIME_DIR="$tmp/run" LIBGL_ALWAYS_SOFTWARE=1
export TPACCEL_ICON_DIR="$src/data/icons"
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
shot() { import -window root "$tmp/root.png"; convert "$tmp/root.png" -crop "$2" +repage "$out/$1"; }

# Debian's gnome-shell-extension-appindicator has Ubuntu's uuid.
gsettings set org.gnome.shell enabled-extensions "['ubuntu-appindicators@ubuntu.com']"
gsettings set org.gnome.shell disable-user-extensions false
gsettings set org.gnome.shell welcome-dialog-last-shown-version "'999'"
# GNOME Shell wants a system bus (logind, accounts): a private one is enough to start.
dbus-daemon --session --nofork --print-address=1 >"$tmp/sysbus" 2>/dev/null &
pids+=($!)
sleep 0.5
DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$tmp/sysbus") gnome-shell --x11 --replace >"$tmp/shell.log" 2>&1 &
pids+=($!)
sleep 10
xdotool key Escape   # leave the overview shown at start
sleep 1

"$TPACCELD" --session --backend=sim --state-dir="$tmp" --trace="$src/scripts/demo-tour.csv" \
        --trace-loop 2>"$tmp/daemon.log" &
pids+=($!)
for _ in $(seq 50); do busctl --user status org.thinkpad.Accelerometer >/dev/null 2>&1 && break; sleep 0.1; done
G_MESSAGES_DEBUG=all "$TPACCEL_TRAY" --session >"$tmp/tray.log" 2>&1 &
tray=$!
pids+=("$tray")
sleep 6
shot gnome-topbar-symbolic-icon.png 400x32+880+0
# The menu: an unchecked "Watch for shocks" shows its empty box.
xdotool mousemove 1210 16 click 1
sleep 1.5
shot gnome-menu.png 520x330+760+0
xdotool key Escape
sleep 0.5
# For comparison, the full-colour icon the tray used before on GNOME's bar.
kill "$tray"
XDG_CURRENT_DESKTOP=XFCE "$TPACCEL_TRAY" --session >>"$tmp/tray.log" 2>&1 &
pids+=($!)
sleep 4
shot gnome-topbar-full-colour-icon.png 400x32+880+0
echo "icon: $(grep -o 'Icon: [a-z0-9-]*' "$tmp/tray.log" | tail -1)"
if [ -n "${TPACCEL_SHOT_DEBUG:-}" ]; then   # what the shell and the tray did
        busctl --user list --no-pager | grep -i -e statusnotifier -e appindicator || true
        grep -i -e extension -e appindicator -e error "$tmp/shell.log" | head || true
        gsettings get org.gnome.shell enabled-extensions || true
        tail -5 "$tmp/tray.log"
fi
