#!/usr/bin/env bash
# Install what tpaccel needs to build, run and test on Debian 12, skipping what is present.
# Usage: scripts/deps.sh [build|test]   (build: compile + demo; test: everything the test suite uses)
set -euo pipefail
what=${1:-test}

build_pkgs=(meson ninja-build pkg-config gcc gettext polkitd libsystemd-dev libglib2.0-dev libgtk-3-dev
            libayatana-appindicator3-dev libnotify-dev dbus dbus-bin)
test_pkgs=(dbus-daemon dbus-test-runner python3-dbusmock python3-gi polkitd pkexec xvfb xauth
           x11-apps imagemagick libnotify-bin umockdev libumockdev-dev libevdev-dev clang
           libclang-rt-14-dev valgrind hdapsd iio-sensor-proxy systemd libxml2-utils tmux
           python3-dbus gir1.2-glib-2.0 procps util-linux strace x11-utils trayer xdotool)
# tests/package: builds the Debian packages from git archive HEAD and checks them with lintian.
test_pkgs+=(debhelper dpkg-dev fakeroot lintian git)
# tests/package/test-systemd.sh: boots the installed packages under systemd as PID 1 (systemd-nspawn).
test_pkgs+=(systemd-container)

pkgs=("${build_pkgs[@]}")
[ "$what" = test ] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
        echo "tpaccel: missing packages: ${missing[*]}" >&2
        echo "tpaccel: run as root, or: sudo apt-get install ${missing[*]}" >&2
        exit 1
fi
echo "tpaccel: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# hdapsd and iio-sensor-proxy pull in services; policy-rc.d keeps them from starting here.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d.tpaccel
install -m755 /usr/sbin/policy-rc.d.tpaccel /usr/sbin/policy-rc.d 2>/dev/null || true
apt-get install -y -qq --no-install-recommends "${missing[@]}"
rm -f /usr/sbin/policy-rc.d /usr/sbin/policy-rc.d.tpaccel
