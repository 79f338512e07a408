#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screenshots of tpaccel-tray in real panel hosts under Xvfb: Xfce's panel with its
# StatusNotifier plugin (xfce4-sntray-plugin) and xfwm4, xfce4-notifyd for the bubbles, and trayer
# (XEmbed), dunst. Against tpacceld on the EC emulator on a private session bus. Writes desktop-*.png here.
# Usage: docs/screenshots/make-desktop-screenshots.sh BUILDDIR [DISPLAY_NUMBER]
set -euo pipefail
build=$(realpath "${1:?usage: $0 BUILDDIR [DISPLAY_NUMBER]}")
. "$build/programs.env" # TPACCELD, TPACCELCTL, TPACCEL_TRAY: where meson put them
display=${2:-61}
src=$(cd "$(dirname "$0")/../.." && pwd)
out="$src/docs/screenshots"
[ "${TPACCEL_SHOT_INNER:-}" = 1 ] || "$src/scripts/deps.sh" screenshots # installs what is missing

. "$src/docs/screenshots/desktop-lib.sh"
run_in_private_desktop "$display" 1024x768x24 -- "$0" "$@"
enter_scratch
export NO_AT_BRIDGE=1 XDG_CURRENT_DESKTOP=XFCE TPACCEL_ICON_DIR="$src/data/icons"
shot() { import -window root "$tmp/root.png"; convert "$tmp/root.png" -crop "$2" +repage "$out/$1"; }
daemon() {
        "$TPACCELD" --session --backend=sim --state-dir="$tmp" "$@" 2>>"$tmp/daemon.log" &
        daemon_pid=$!
        pids+=("$daemon_pid")
        for _ in $(seq 50); do busctl --user status org.thinkpad.Accelerometer >/dev/null 2>&1 && break; sleep 0.1; done
}
click_menu() { # the tray icon sits at the right end of the panel
        xdotool mousemove 1011 14 click 1
        sleep 1.5
}

xfwm4 >"$tmp/xfwm4.log" 2>&1 &
pids+=($!)
sleep 1
q() { xfconf-query -c xfce4-panel -n "$@"; }
q -p /panels -t int -s 1 -a
q -p /panels/panel-1/position -t string -s "p=6;x=0;y=0"
q -p /panels/panel-1/length -t double -s 100
q -p /panels/panel-1/size -t uint -s 28
q -p /panels/panel-1/position-locked -t bool -s true
q -p /panels/panel-1/plugin-ids -t int -s 1 -t int -s 2 -a
q -p /plugins/plugin-1 -t string -s separator
q -p /plugins/plugin-1/expand -t bool -s true
q -p /plugins/plugin-2 -t string -s sntray
xfce4-panel >"$tmp/panel.log" 2>&1 &
pids+=($!)
/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd >"$tmp/notifyd.log" 2>&1 &
pids+=($!)
sleep 2

# The demo's motion: the icon leans within the first seconds.
daemon --trace="$src/scripts/demo-tour.csv" --trace-loop
"$TPACCEL_TRAY" --session 2>"$tmp/tray.log" &
tray=$!
pids+=("$tray")
sleep 3.2
shot desktop-xfce-icon-leaning.png 200x28+824+0
click_menu
shot desktop-xfce-menu.png 420x300+604+0
xdotool key Escape

# Settings under xfwm4: the whole title shows.
click_menu
xdotool mousemove 760 196 click 1
sleep 1.5
id=$(xdotool search --onlyvisible --name "Accelerometer Settings" | head -1 || true)
if [ -n "$id" ]; then
        xdotool windowmove "$id" 300 200
        sleep 0.5
        eval "$(xdotool getwindowgeometry --shell "$id")"
        shot desktop-xfwm4-settings.png "$((WIDTH + 20))x$((HEIGHT + 80))+$((X - 10))+$((Y - 65))"
        xdotool windowclose "$id"
fi

# The service stops: the icon and the menu say it once, in plain words, and a bubble.
kill "$daemon_pid"
sleep 2
shot desktop-xfce-service-stopped.png 1024x200+0+0
click_menu
shot desktop-xfce-menu-service-gone.png 420x300+604+0
xdotool key Escape

# Knocks with shocks watched: one bubble, updated in place, normal urgency. The pointer off the panel,
# or the new icon's tooltip shows behind the bubble.
kill "$tray"
xdotool mousemove 512 600
"$TPACCEL_TRAY" --session --watch-shocks 2>>"$tmp/tray.log" &
tray=$!
pids+=("$tray")
sleep 1
daemon --trace="$src/tests/traces/desk-knock.csv"
sleep 9
shot desktop-xfce-shock-bubble.png 1024x200+0+0

# The window, closed from outside (XDestroyWindow), then opened again from the menu: it works, the
# service back meanwhile leaves no strip above the bubble level.
kill "$tray"
"$TPACCEL_TRAY" --session --show-window 2>"$tmp/tray2.log" &
tray=$!
pids+=("$tray")
sleep 3
id=$(xdotool search --onlyvisible --name "^ThinkPad Accelerometer$" | head -1)
xdotool windowclose "$id"
sleep 2
click_menu
xdotool mousemove 760 221 click 1
sleep 3
id=$(xdotool search --onlyvisible --name "^ThinkPad Accelerometer$" | head -1)
eval "$(xdotool getwindowgeometry --shell "$id")"
shot desktop-window-after-windowclose.png "$((WIDTH + 20))x$((HEIGHT + 80))+$((X - 10))+$((Y - 65))"
echo "tray alive after windowclose: $(kill -0 "$tray" && echo yes), criticals: $(grep -c CRITICAL "$tmp/tray2.log" || true)"
kill "$tray"

# dunst: a shock bubble has normal urgency and a timeout, so it goes away by itself (dunst kept the old
# critical ones for ever).
kill "${pids[2]}"   # xfce4-notifyd
sleep 0.5
dunst >"$tmp/dunst.log" 2>&1 &
pids+=($!)
sleep 1
kill "$daemon_pid"
"$TPACCEL_TRAY" --session --watch-shocks 2>"$tmp/tray4.log" &
tray=$!
pids+=("$tray")
sleep 1
daemon --trace="$src/tests/traces/drop-30cm.csv"
for _ in $(seq 100); do grep -q "Shock detected" "$tmp/dunst.log" 2>/dev/null && break; sleep 0.1; done
sleep 1
shot desktop-dunst-shock.png 1024x200+0+0
sleep 10
shot desktop-dunst-shock-expired.png 1024x200+0+0
kill "$tray"

# trayer (XEmbed): the tooltip does not cover the opened menu.
kill "${pids[1]}"   # the panel
trayer --edge top --align right --widthtype pixel --width 64 --height 24 >/dev/null 2>&1 &
pids+=($!)
sleep 1.5
"$TPACCEL_TRAY" --session 2>"$tmp/tray3.log" &
pids+=($!)
sleep 2
xdotool mousemove 1012 12
sleep 2   # the tooltip shows
xdotool click 1
sleep 1.5
shot desktop-trayer-menu.png 420x300+604+0
xdotool key Escape
echo "wrote $out/desktop-*.png"
