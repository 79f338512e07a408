#!/usr/bin/env bash
# Install what tpaccel needs to build, run and test on Debian 12, 13 or unstable, skipping what is
# present. Packages are named by what is needed, never by one release's version (the default clang's
# runtime is libclang-rt-dev, whichever clang that is).
# Usage: scripts/deps.sh [build|unit|test|screenshots]   (build: compile + demo; unit: the build with its
# tests and the unit tier, what Debian unstable's run in the release matrix installs (tests/release/
# test-sid.sh); test: everything the test suite uses; screenshots: also the panels and notification
# daemons of docs/screenshots/make-*.sh)
set -euo pipefail
what=${1:-test}

# What scripts/demo.sh needs on a fresh machine: the build without tests, dbus-run-session and dbus-send.
build_pkgs=(meson ninja-build pkg-config gcc gettext libsystemd-dev libglib2.0-dev libgtk-3-dev libx11-dev
            libwayland-dev libayatana-appindicator3-dev libjson-glib-dev libcanberra-dev dbus-daemon dbus-bin)
# The tray's icons are SVG (scripts/demo.sh --tray): gdk-pixbuf's SVG loader, which tpaccel-tray depends on.
build_pkgs+=(librsvg2-common)
# Configuring with the tests (tests/client: dbusmock and gi; tests/bus: libseccomp) and the unit tier
# (xmllint and polkit's DTD for the policies; tests/checks/check-format.sh: clang-format).
unit_pkgs=(python3-dbusmock python3-gi libseccomp-dev libxml2-utils polkitd clang-format)
# polkit's ITS rules (polkit.its), which translate the polkit actions (po/check-policy.py checks them): in
# libpolkit-gobject-1-dev since polkit 126 (Debian 13), in polkitd (above) before.
unit_pkgs+=(libpolkit-gobject-1-dev)
test_pkgs=(dbus dbus-test-runner pkexec xvfb xauth
           x11-apps imagemagick libnotify-bin umockdev libumockdev-dev libevdev-dev clang
           libclang-rt-dev valgrind hdapsd iio-sensor-proxy systemd tmux
           gir1.2-glib-2.0 procps util-linux strace x11-utils trayer xdotool xfwm4)
# tests/client/test_icon_theme.py: data/icons looked up as GTK (and waybar) look up an IconThemePath.
test_pkgs+=(gir1.2-gtk-3.0)
# bench/motion/bench-load.py: the CPU hogs.
test_pkgs+=(stress-ng)
# docs/DBUS.md's Python example (a claim held for as long as it runs) is on dbus-python, the binding a
# user most likely has; tests/client/test_readme.py runs it as written.
test_pkgs+=(python3-dbus)
# tests/package: builds the Debian packages from git archive HEAD and checks them with lintian.
test_pkgs+=(build-essential debhelper dpkg-dev fakeroot lintian git)
# tests/package/test-systemd.sh: boots the installed packages under systemd as PID 1 (systemd-nspawn).
test_pkgs+=(systemd-container)
# tests/release: the Debian roots of the release matrix and the fresh-machine tests; ccache, because a
# fresh clone's files are all newer than the build kept in a release's root (meson uses it by itself).
test_pkgs+=(debootstrap ccache)
# tests/lib/locales.py: the German tests run under de_DE.UTF-8, compiled from the locale sources.
test_pkgs+=(locales)
# The tray on Wayland (tests/client): sway headless with waybar as the tray host and mako as the
# notification daemon, grim for screenshots; GNOME Shell's Wayland session with its AppIndicator extension
# and its X server (xwayland, which a GNOME desktop has: the tray opens it on GNOME 43); dunst, a real
# notification daemon under Xvfb.
test_pkgs+=(sway waybar mako-notifier grim gnome-shell gnome-shell-extension-appindicator xwayland dconf-cli dunst)
# KWin's Wayland session (tests/wayland/test_tray_kwin.py), driven by KWin scripts over its D-Bus.
test_pkgs+=(kwin-wayland)
# The motion alarm: the tray and tpaccelctl alarm play the freedesktop sound theme through libcanberra (its
# -dev in build_pkgs); the tests check a real PulseAudio's null sink for the stream.
test_pkgs+=(libcanberra-pulse sound-theme-freedesktop pulseaudio pulseaudio-utils)

# docs/screenshots: the tray in real panel hosts and notification daemons (no test uses them).
screenshot_pkgs=(xfce4-panel xfce4-sntray-plugin xfce4-notifyd xfconf dunst trayer xfwm4 xdotool imagemagick
                 xvfb tmux gnome-shell gnome-shell-extension-appindicator dconf-cli)

# tests/reference: the source of Debian's tp-smapi-dkms (tp_smapi 0.43 or later), the reference driver the
# emulator is held to; tests/reference/held-versions lists the upstream versions the test holds to. Only
# downloaded and unpacked at test time (dpkg-deb -x), never installed: installing would make dkms build a
# module. The release's own version is downloaded unless one the test holds to is already here.
reference_dir=/var/cache/tpaccel
held_versions=$(cd "$(dirname "$0")/.." && grep -v '^#' tests/reference/held-versions)
fetch_reference() {
        local v
        for v in $held_versions; do
                ls "$reference_dir"/tp-smapi-dkms_"$v"-*.deb >/dev/null 2>&1 && return 0
        done
        if [ "$(id -u)" -ne 0 ]; then
                echo "tpaccel: $reference_dir has no tp-smapi-dkms of a version tests/reference holds to" \
                     "($held_versions): tests/reference will try 'apt-get download' itself (or set TP_SMAPI_DEB)" >&2
                return 0
        fi
        mkdir -p "$reference_dir"
        (cd "$reference_dir" && apt-get download -qq tp-smapi-dkms) || {
                apt-get update -qq && (cd "$reference_dir" && apt-get download -qq tp-smapi-dkms)
        } || { echo "tpaccel: apt-get download tp-smapi-dkms failed (tests/reference needs it)" >&2; return 1; }
}

case $what in
build) pkgs=("${build_pkgs[@]}") ;;
unit) pkgs=("${build_pkgs[@]}" "${unit_pkgs[@]}") ;;
test) pkgs=("${build_pkgs[@]}" "${unit_pkgs[@]}" "${test_pkgs[@]}") ;;
screenshots) pkgs=("${build_pkgs[@]}" "${screenshot_pkgs[@]}") ;;
*)
        echo "usage: scripts/deps.sh [build|unit|test|screenshots]" >&2
        exit 2
        ;;
esac

missing=()
for p in "${pkgs[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || true
        [[ $status == *'ok installed'* ]] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
        case $what in unit | test) fetch_reference ;; esac
        exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
        echo "tpaccel: missing packages: ${missing[*]}" >&2
        echo "tpaccel: run as root, or: sudo apt-get install ${missing[*]}" >&2
        exit 1
fi
echo "tpaccel: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# hdapsd and iio-sensor-proxy pull in services; a policy-rc.d keeps them from starting here. One that is
# already there (a chroot's) is left as it is; ours is removed on every way out, a failed apt-get too.
if [ ! -e /usr/sbin/policy-rc.d ]; then
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
case $what in unit | test) fetch_reference ;; esac
exit 0
