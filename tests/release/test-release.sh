#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One release's column of the release matrix (Debian 13 "trixie" today), in that release's kept root
# (tests/release/debian-root.sh run --kept: its packages stay installed between runs on the same machine,
# and so does ccache's cache of its builds, the root's /root/.cache/ccache):
#   1. scripts/deps.sh test: installs what is missing there (the first run installs everything);
#   2. a -Werror build (meson setup -Dwerror=true, ninja);
#   3. the default meson test: the unit and dbus tiers; then the tray on the release's own compositors
#      (the `wayland` suite: GNOME Shell, KWin, sway with waybar and mako), where a minimized window is
#      suspended (GNOME 45 and later, KWin 6), which Debian 12's GNOME 43 cannot show;
#   4. the .debs with dpkg-buildpackage, lintian clean with the release's own lintian
#      (tests/package/check-lintian.sh), their polkit actions in every language (po/check-policy.py);
#   5. those .debs as installed under the release's own systemd, dbus-daemon and polkitd: the root booted
#      with systemd-nspawn (tests/package/test-systemd.sh --root --debs).
# Every line it prints starts with the release's name; a failed step says "RELEASE: FAIL: what", with
# the end of its log, and the steps that do not need it still run. One line per step with its time.
#
# Usage: tests/release/test-release.sh RELEASE   (trixie; needs root, debootstrap, systemd-container)
# Inside the root it runs itself as: test-release.sh --in-root RELEASE STEP (deps|build|test|wayland|package)
set -uo pipefail

top_srcdir=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
state=/var/lib/tpaccel-release # in the release's root
LOG_TAIL=60

# BUILD LOG [ARGS...]: meson test with ARGS, its output in LOG; on failure the failed tests' logs
# (--print-errorlogs) and meson's summary of failures; the counts in one line.
meson_test() {
        local build=$1 log=$2 status
        shift 2
        meson test -C "$build" --num-processes 2 --timeout-multiplier 3 --print-errorlogs "$@" >"$log" 2>&1
        status=$?
        [ $status -eq 0 ] || grep -vE '^ *[0-9]+/[0-9]+ .* (OK|SKIP) ' "$log" | tail -n 200
        grep -E '^(Ok|Fail|Timeout|Skipped|Expected Fail|Unexpected Pass): ' "$log" | paste -sd' '
        return $status
}

in_root() {
        local rel=$1 step=$2 build=$state/build log=$state/logs/$2.log
        mkdir -p "$state/logs"
        cd /src
        case $step in
        deps)
                bash scripts/deps.sh test >"$log" 2>&1 || { tail -n $LOG_TAIL "$log"; return 1; }
                grep '^tpaccel: installing' "$log" || true
                ;;
        build)
                # Set up anew each time (a fresh clone's files are all newer than the last build's
                # objects anyway); ccache, which deps installs and meson uses by itself, makes the
                # compiles of unchanged files cache hits.
                rm -rf "$build"
                { meson setup "$build" -Dwerror=true && ninja -C "$build"; } >"$log" 2>&1 ||
                        { tail -n $LOG_TAIL "$log"; return 1; }
                grep -m1 '^C compiler for the host machine' "$log" || true
                echo "$(gcc -dumpfullversion 2>/dev/null | sed 's/^/gcc /'), meson $(meson --version)"
                ;;
        test) meson_test "$build" "$log" ;;
        wayland) meson_test "$build" "$log" --setup full --suite wayland ;;
        package)
                local pkg=$state/pkg
                rm -rf "$pkg" "$state/debs"
                mkdir -p "$pkg/tpaccel" "$state/debs"
                cp -a /src/. "$pkg/tpaccel/"
                (cd "$pkg/tpaccel" && dpkg-buildpackage -us -uc -b -j2) >"$log" 2>&1 ||
                        { tail -n $LOG_TAIL "$log"; echo "dpkg-buildpackage failed"; return 1; }
                cp "$pkg"/*.deb "$state/debs/"
                bash tests/package/check-lintian.sh "$(ls "$pkg"/tpaccel_*.changes)" "$pkg/tpaccel" || return 1
                mkdir "$pkg/unpacked"
                dpkg-deb -x "$(ls "$pkg"/tpaccel_*.deb)" "$pkg/unpacked"
                local lang
                for lang in $(grep -v '^#' po/LINGUAS); do
                        python3 po/check-policy.py "$pkg/unpacked/usr/share/polkit-1/actions/org.thinkpad.accelerometer.policy" \
                                /src "$lang" || return 1
                done
                ;;
        *)
                echo "unknown step '$step'" >&2
                return 2
                ;;
        esac
}

if [ "${1:-}" = --in-root ]; then
        shift
        [ $# -eq 2 ] || { echo "usage: test-release.sh --in-root RELEASE STEP" >&2; exit 2; }
        in_root "$@"
        exit
fi

[ $# -eq 1 ] || { echo "usage: tests/release/test-release.sh RELEASE" >&2; exit 2; }
rel=$1
[ "$(id -u)" -eq 0 ] || { echo "$rel: FAIL: needs root (a chroot of the $rel root, systemd-nspawn)" >&2; exit 1; }
roots=$top_srcdir/tests/release/debian-root.sh
kept=$(bash "$roots" boot-dir "$rel") ||
        { echo "$rel: FAIL: no kept $rel root (tests/release/debian-root.sh boot-dir $rel)" >&2; exit 1; }
started=$SECONDS
failed=()

# WHAT COMMAND...: one step, its output prefixed with the release's name; a failure is counted and said.
step() {
        local what=$1 t0=$SECONDS status
        shift
        "$@" 2>&1 | sed "s/^/$rel: /"
        status=${PIPESTATUS[0]}
        if [ "$status" -ne 0 ]; then
                echo "$rel: FAIL: $what (exit $status)" >&2
                failed+=("$what")
                return 1
        fi
        echo "$rel: ok $what ($((SECONDS - t0)) s)"
}
in_kept_root() { bash "$roots" run --kept "$rel" "bash tests/release/test-release.sh --in-root $rel $1"; }
logs="the logs in the root: $kept$state/logs/"

# What is missing stops everything, a failed build the suite; the packages are built apart from both.
step "scripts/deps.sh test ($logs)" in_kept_root deps || exit 1
if step "the -Werror build ($logs)" in_kept_root build; then
        step "meson test (the default setup: unit, dbus; $logs)" in_kept_root test
        step "the tray on $rel's GNOME Shell, KWin and sway (meson test --suite wayland; $logs)" in_kept_root wayland
fi
if step "dpkg-buildpackage, $rel's lintian, the polkit actions' translations ($logs)" in_kept_root package; then
        step "the packages under $rel's systemd (tests/package/test-systemd.sh --root $kept)" \
                bash "$top_srcdir/tests/package/test-systemd.sh" --root "$kept" --debs "$kept$state/debs"
fi
if [ ${#failed[@]} -ne 0 ]; then
        echo "$rel: FAIL: ${#failed[@]} step(s) failed in $((SECONDS - started)) s:" >&2
        printf "$rel: FAIL:   %s\n" "${failed[@]}" >&2
        exit 1
fi
echo "$rel: all passed in $((SECONDS - started)) s"
