# SPDX-License-Identifier: GPL-2.0-or-later
# What the desktop screenshot scripts share (sourced, not run): make-desktop-screenshots.sh (Xfce's
# panel, trayer, dunst) and make-gnome-screenshots.sh (GNOME Shell).

# Runs the calling script again inside an X display of its own (Xvfb on :DISPLAY_NUMBER) and a session
# bus of its own, with a home of its own, then exits with its status; returns at once when already
# inside. The desktop's settings and caches (xfconf, dconf, mesa) go to that home, not the user's: it is
# set before the bus starts, which activates xfconfd and dconf-service with its environment.
# Usage: run_in_private_desktop DISPLAY_NUMBER SCREEN [XVFB-ARGUMENTS...] -- "$0" "$@"
run_in_private_desktop() {
        [ "${TPACCEL_SHOT_INNER:-}" != 1 ] || return 0
        local display=$1 screen=$2 xvfb_args=() xvfb status=0
        shift 2
        while [ "$1" != -- ]; do
                xvfb_args+=("$1")
                shift
        done
        shift
        home=$(mktemp -d)
        export HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$home/.cache" XDG_DATA_HOME="$home/.local/share"
        Xvfb ":$display" -screen 0 "$screen" -nolisten tcp "${xvfb_args[@]}" >/dev/null 2>&1 &
        xvfb=$!
        sleep 1
        env TPACCEL_SHOT_INNER=1 DISPLAY=":$display" dbus-run-session -- "$@" || status=$?
        kill "$xvfb"
        rm -rf "$home"
        exit "$status"
}

# Inside: a scratch folder ($tmp) and the programs started (append their pids to pids), both gone at
# exit.
enter_scratch() {
        tmp=$(mktemp -d)
        pids=()
        trap cleanup EXIT
}
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"; }
