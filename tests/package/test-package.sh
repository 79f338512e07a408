#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package, as a user gets it: build tpaccel and tpaccel-tray with dpkg-buildpackage from a
# clean copy of the committed tree (git archive HEAD), require lintian to be clean, install both with
# apt-get, check that the installed polkit actions carry every language's messages, and use them exactly
# as installed: the real system bus (the installed configuration), the
# real polkitd, tpacceld started by D-Bus activation from the installed activation file as the
# installed user tpaccel. Then purge, and check that every file the packages installed is gone.
#
# Checks, in order: status as an unprivileged user (nobody); a configure call (SetTiltStep) refused to
# nobody and allowed to root; allowed to nobody by a polkit rule in /etc/polkit-1/rules.d; the idle
# exit of the activated daemon (the activation file's --exit-idle-time=30, never earlier); the value
# kept across that restart (re-activation); purge.
#
# No accelerometer: the installed daemon chooses its backend itself (tpacceld(8), BACKEND CHOICE) and
# this machine is no ThinkPad, so it runs with none, as it would on any non-ThinkPad. The package has
# no switch to select the emulator and this test adds none: it tests the activation file as shipped.
# Status, the reason, polkit, the motion settings (TiltStep), persistence and the idle exit work
# without an accelerometer; the accelerometer itself is tested on the emulator by the D-Bus suites.
#
# Left after purge, by design: the tpaccel system user and group (Debian does not delete system
# users: files elsewhere may still belong to the uid, and a reused uid would inherit them). The test
# removes that user afterwards only if it did not exist before. Everything else, /var/lib/tpaccel
# (the saved settings) and /run/tpaccel (the EC lock's directory without systemd) included, must be
# gone: the postrm removes both.
#
# Needs root (CI runs as root on Debian 12). Changes system-wide state (packages, users, polkit
# rules, the system bus), so it holds the shared lock and undoes everything on exit, also on failure.
set -uo pipefail

top_srcdir=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/lib/shell-helpers.sh" # wait_for, as_nobody, float_eq
IDLE_EXIT_SEC=30            # the activation file's --exit-idle-time
IDLE_EXIT_LIMIT_SEC=150     # generous: a loaded 2-core machine
SYSTEM_SOCKET=/run/dbus/system_bus_socket
ACTIVATION_FILE=/usr/share/dbus-1/system-services/org.thinkpad.Accelerometer.service
TPACCELD=/usr/libexec/tpacceld
RULE_FILE=/etc/polkit-1/rules.d/10-tpaccel-package-test.rules
STATE_DIR=/var/lib/tpaccel
RUNTIME_DIR=/run/tpaccel # the EC lock's directory
NAME=org.thinkpad.Accelerometer

fail() {
        echo "FAIL: $*" >&2
        exit 1
}
step() { echo "--- $*"; }

[ "$(id -u)" -eq 0 ] || fail "this test installs packages and starts the system bus: run it as root"
for tool in git dpkg-buildpackage lintian fakeroot apt-get dbus-daemon setpriv xvfb-run; do
        command -v "$tool" >/dev/null || fail "$tool is missing (scripts/deps.sh test installs it)"
done
[ -x /usr/lib/polkit-1/polkitd ] || fail "/usr/lib/polkit-1/polkitd is missing (package polkitd)"

exec 9>/run/lock/tpaccel-system-tests.lock
flock 9

tmp=$(mktemp -d /tmp/tpaccel-package-test.XXXXXX)
chmod 755 "$tmp" # apt's _apt user reads the .debs from here
bus_checked=0 started_bus=0 bus_pid= started_polkitd=0 polkitd_pid= daemon_pid= installed=0 created_user=0
moved_aside=() # directories of another run, restored at exit

cleanup() {
        local status=$?
        set +e
        if [ $status -ne 0 ]; then
                echo "=== the test failed: logs" >&2
                for log in "$tmp"/dbus-daemon.log "$tmp"/polkitd.log; do
                        [ -f "$log" ] || continue
                        echo "=== $log (tpacceld logs here: it inherits the bus's stderr)" >&2
                        tail -n 200 "$log" >&2
                done
                if [ $bus_checked -eq 1 ] && [ $started_bus -eq 0 ]; then
                        echo "=== the system bus was already running: tpacceld's log is that bus's" >&2
                fi
        fi
        rm -f "$RULE_FILE"
        if [ -n "$daemon_pid" ] && [ "$(readlink "/proc/$daemon_pid/exe" 2>/dev/null)" = "$TPACCELD" ]; then
                kill "$daemon_pid"
        fi
        if [ $installed -eq 1 ] && dpkg-query -W tpaccel tpaccel-tray >/dev/null 2>&1; then
                DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tpaccel tpaccel-tray \
                        >"$tmp/cleanup-purge.log" 2>&1 || cat "$tmp/cleanup-purge.log" >&2
        fi
        if [ $started_polkitd -eq 1 ]; then
                kill "$polkitd_pid"
                wait "$polkitd_pid" 2>/dev/null
        fi
        if [ $started_bus -eq 1 ]; then
                kill "$bus_pid"
                wait "$bus_pid" 2>/dev/null
                rm -f "$SYSTEM_SOCKET"
        fi
        if [ $created_user -eq 1 ]; then
                userdel tpaccel 2>/dev/null
                groupdel tpaccel 2>/dev/null
        fi
        for dir in "${moved_aside[@]}"; do
                rm -rf "$dir"
                mv "$tmp/aside/${dir//\//_}" "$dir"
        done
        rm -rf "$tmp"
        exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- Preconditions: never clobber a real installation ------------------------------------------------
# Outputs are captured, then matched: under pipefail, `cmd | grep -q` fails when grep exits at its first
# match and cmd dies of SIGPIPE writing the rest.
pkg_status=$(dpkg-query -W -f='${Status}\n' tpaccel tpaccel-tray 2>/dev/null)
if [ -n "$pkg_status" ] && grep -qv 'not-installed' <<<"$pkg_status"; then
        fail "tpaccel or tpaccel-tray is installed on this machine; this test would purge it"
fi
for f in "$TPACCELD" "$ACTIVATION_FILE" /usr/bin/tpaccelctl /usr/bin/tpaccel-tray; do
        [ ! -e "$f" ] || fail "$f exists (a meson install?); this test would install over it and purge it"
done
getent passwd tpaccel >/dev/null || created_user=1
# Another run's settings and EC lock directory: out of the way (purge removes them), back at exit.
mkdir "$tmp/aside"
for dir in "$STATE_DIR" "$RUNTIME_DIR"; do
        [ -e "$dir" ] || continue
        mv "$dir" "$tmp/aside/${dir//\//_}" || fail "cannot move $dir aside"
        moved_aside+=("$dir")
done
scan_tpaccel_paths() { find /etc /usr /lib /var/lib -xdev -name '*tpaccel*' 2>/dev/null | sort; }
scan_tpaccel_paths >"$tmp/paths-before"

# --- Build from a clean copy of the committed tree ---------------------------------------------------
step "build: git archive HEAD, dpkg-buildpackage -us -uc -b"
mkdir "$tmp/src" "$tmp/src/tpaccel"
git -C "$top_srcdir" archive --format=tar HEAD | tar -x -C "$tmp/src/tpaccel" ||
        fail "git archive HEAD of $top_srcdir failed (the test builds the committed tree)"
if ! (cd "$tmp/src/tpaccel" && nice dpkg-buildpackage -us -uc -b -j2) >"$tmp/build.log" 2>&1; then
        tail -n 60 "$tmp/build.log" >&2
        fail "dpkg-buildpackage failed (log above)"
fi
debs=("$tmp"/src/tpaccel_*.deb "$tmp"/src/tpaccel-tray_*.deb)
[ -f "${debs[0]}" ] && [ -f "${debs[1]}" ] || fail "the build made no tpaccel and tpaccel-tray packages"
ls -1 "$tmp"/src/*.deb

step "lintian: no errors, no warnings (tests/package/check-lintian.sh)"
bash "$top_srcdir/tests/package/check-lintian.sh" "$(ls "$tmp"/src/tpaccel_*.changes)" "$tmp/src/tpaccel" ||
        fail "lintian: see above"

# --- Install -----------------------------------------------------------------------------------------
step "apt-get install ./tpaccel_*.deb ./tpaccel-tray_*.deb"
for deb in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$deb" | tar -t; done |
        sed -e 's|^\./|/|' -e 's|/$||' -e '/^$/d' | sort -u >"$tmp/deb-paths"
while read -r path; do [ -e "$path" ] && echo "$path"; done <"$tmp/deb-paths" >"$tmp/preexisting-paths"
installed=1
(cd "$tmp/src" &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./tpaccel_*.deb ./tpaccel-tray_*.deb) \
        >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get install failed"; }
dpkg -L tpaccel tpaccel-tray | grep -vx -e '/\.' -e '' | sort -u >"$tmp/installed-paths"
diff -u "$tmp/deb-paths" "$tmp/installed-paths" || fail "dpkg -L differs from the packages' contents"

step "tpaccel-tray depends on the gdk-pixbuf loader of each of its icons' formats"
# GTK draws an icon only through the loader of its format; a machine without it (a minimal sway or i3
# system) shows nothing where the icon should be.
tray_depends=$(dpkg-deb -f "$(ls "$tmp"/src/tpaccel-tray_*.deb)" Depends)
for ext in $(dpkg -L tpaccel-tray | grep '^/usr/share/icons/.*\.' | sed 's/.*\.//' | sort -u); do
        # libpixbufloader-svg.so (librsvg 2.54, Debian 12), libpixbufloader_svg.so (2.60, Debian 13)
        loader=$(ls /usr/lib/*/gdk-pixbuf-2.0/*/loaders/libpixbufloader[-_]"$ext".so 2>/dev/null | head -1)
        [ -n "$loader" ] || fail "no gdk-pixbuf loader for .$ext icons here (libpixbufloader[-_]$ext.so)"
        provider=$(dpkg -S "$loader" | cut -d: -f1)
        grep -qE "(^|, )$provider( |,|$)" <<<"$tray_depends" ||
                fail "tpaccel-tray's icons are .$ext, loaded by $provider ($loader), which its Depends ($tray_depends) lacks"
done

step "the installed polkit actions in each language of po/LINGUAS (po/check-policy.py)"
for lang in $(grep -v '^#' "$top_srcdir/po/LINGUAS"); do
        python3 "$top_srcdir/po/check-policy.py" /usr/share/polkit-1/actions/org.thinkpad.accelerometer.policy \
                "$top_srcdir" "$lang" || fail "the installed polkit actions lack the $lang messages (above)"
done

getent passwd tpaccel >"$tmp/user" || fail "the package did not create the tpaccel user (sysusers)"
tpaccel_uid=$(cut -d: -f3 "$tmp/user")
[ "$tpaccel_uid" -lt 1000 ] || fail "tpaccel is not a system user: $(cat "$tmp/user")"
grep -q -- '--user=tpaccel' "$ACTIVATION_FILE" || fail "the activation file does not run tpacceld as tpaccel"
grep -q -- "--exit-idle-time=$IDLE_EXIT_SEC\b" "$ACTIVATION_FILE" ||
        fail "the activation file's idle exit is not ${IDLE_EXIT_SEC} s: $(grep Exec= "$ACTIVATION_FILE")"
xvfb-run -a tpaccel-tray --version >"$tmp/tray-version" 2>&1 ||
        { cat "$tmp/tray-version" >&2; fail "the installed tpaccel-tray does not run"; }
grep -q '^tpaccel-tray ' "$tmp/tray-version" || fail "tpaccel-tray --version: $(cat "$tmp/tray-version")"

# The drop-in for Debian's hdapsd units, as installed next to the installed hdapsd (scripts/deps.sh):
# systemd reads it without complaint (its ExecCondition= script is there) and applies it.
step "hdapsd drop-in: systemd-analyze verify and security of the installed hdapsd units"
[ -x /usr/sbin/hdapsd ] || fail "hdapsd is not installed (scripts/deps.sh test installs it)"
for unit in hdapsd.service hdapsd@sda.service; do
        systemd-analyze --no-pager verify "$unit" >"$tmp/verify" 2>&1 ||
                { cat "$tmp/verify" >&2; fail "systemd-analyze verify $unit failed"; }
        [ ! -s "$tmp/verify" ] || { cat "$tmp/verify" >&2; fail "systemd-analyze verify $unit complains"; }
        security=$(systemd-analyze --no-pager security --offline=true "$unit" 2>&1) &&
                grep -q '✓ ProtectKernelModules=' <<<"$security" ||
                { printf '%s\n' "$security" >&2; fail "$unit: the installed drop-in is not applied"; }
done

# --- The real system bus and polkitd -----------------------------------------------------------------
bus() { dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus "$@"; }
name_has_owner() {
        local reply
        reply=$(bus org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null) && [[ $reply == *true* ]]
}

bus_checked=1
if bus org.freedesktop.DBus.GetId >/dev/null 2>&1; then
        step "system bus: already running, using it"
else
        # --nofork in the background rather than --fork: a forked bus sends its stderr, and with it the
        # stderr of every service it activates (tpacceld's log, without a journal), to /dev/null.
        step "system bus: starting dbus-daemon --system (the installed configuration)"
        rm -f "$SYSTEM_SOCKET"
        # Its directory, as systemd-tmpfiles makes it at boot (dbus's tmpfiles.d): a machine without
        # systemd running, with a fresh /run (a Debian 13 root), has none.
        mkdir -p -m 0755 "$(dirname "$SYSTEM_SOCKET")"
        dbus-daemon --system --nofork --nopidfile --nosyslog >"$tmp/dbus-daemon.log" 2>&1 &
        bus_pid=$!
        started_bus=1
        wait_for 20 bus org.freedesktop.DBus.GetId >/dev/null 2>&1 || fail "the system bus did not start"
fi
if name_has_owner org.freedesktop.PolicyKit1; then
        step "polkitd: already running, using it"
else
        step "polkitd: starting /usr/lib/polkit-1/polkitd"
        /usr/lib/polkit-1/polkitd >"$tmp/polkitd.log" 2>&1 &
        polkitd_pid=$!
        started_polkitd=1
        wait_for 30 name_has_owner org.freedesktop.PolicyKit1 || fail "polkitd did not take its bus name"
fi
! name_has_owner "$NAME" || fail "$NAME is already on the bus before the test activates it"

tilt_step() { # USER-RUNNER: the TiltStep property, read through tpaccelctl status --json
        "$@" tpaccelctl status --json |
                python3 -c 'import json, sys; print(json.load(sys.stdin)["tilt-step"])'
}
daemon_pid_now() {
        bus org.freedesktop.DBus.GetConnectionUnixProcessID "string:$NAME" 2>/dev/null | awk '{print $2}'
}

# --- Status as an unprivileged user starts tpacceld by activation -----------------------------------
step "status as nobody (activates tpacceld)"
as_nobody tpaccelctl status >"$tmp/status" 2>&1 ||
        { cat "$tmp/status" >&2; fail "tpaccelctl status as nobody"; }
cat "$tmp/status"
grep -q 'DMI' "$tmp/status" || fail "status does not show why there is no accelerometer (the DMI reason)"
[ "$(as_nobody tpaccelctl get has-accelerometer)" = no ] ||
        fail "has-accelerometer is not 'no' on a non-ThinkPad"
daemon_pid=$(daemon_pid_now)
[ -n "$daemon_pid" ] || fail "$NAME has no owner after status"
[ "$(readlink "/proc/$daemon_pid/exe")" = "$TPACCELD" ] || fail "the owner of $NAME is not $TPACCELD"
cmdline=$(tr '\0' ' ' <"/proc/$daemon_pid/cmdline")
[[ $cmdline == *--user=tpaccel* ]] || fail "not started by the installed activation file: $cmdline"
read -r _ ruid euid suid fsuid < <(grep '^Uid:' "/proc/$daemon_pid/status")
for id in "$ruid" "$euid" "$suid" "$fsuid"; do
        [ "$id" = "$tpaccel_uid" ] ||
                fail "tpacceld runs as uid $ruid/$euid/$suid/$fsuid, not tpaccel ($tpaccel_uid)"
done
grep -q '^CapEff:[[:space:]]*0*$' "/proc/$daemon_pid/status" || fail "tpacceld kept capabilities"
echo "tpacceld pid $daemon_pid runs as tpaccel (uid $tpaccel_uid) with no capabilities"

# --- Configure: refused to nobody, allowed to root, allowed to nobody by a polkit rule ---------------
before=$(tilt_step as_nobody) || fail "cannot read tilt-step"
step "set tilt-step 7 as nobody: refused by polkit"
as_nobody tpaccelctl --no-ask-password set tilt-step 7 >"$tmp/refused" 2>&1
rc=$?
cat "$tmp/refused"
[ $rc -eq 3 ] || fail "nobody's set tilt-step exited $rc, not 3 (permission denied)"
float_eq "$(tilt_step as_nobody)" "$before" || fail "a refused call changed tilt-step"

step "set tilt-step 7 as root: allowed"
tpaccelctl --no-ask-password set tilt-step 7 ||
        fail "root's set tilt-step was refused (the policy's org.freedesktop.policykit.owner annotation?)"
float_eq "$(tilt_step as_nobody)" 7 || fail "tilt-step is not 7 after root set it"

step "set tilt-step 9 as nobody with a polkit rule that allows it"
cat >"$RULE_FILE" <<'EOF'
// tpaccel package test: nobody may configure the accelerometer (removed by the test).
polkit.addRule(function(action, subject) {
    if (action.id == "org.thinkpad.accelerometer.configure" && subject.user == "nobody")
        return polkit.Result.YES;
});
EOF
chmod 644 "$RULE_FILE"
# polkitd reloads rules.d on change (inotify): retry until the rule is in force.
allowed_by_rule() { as_nobody tpaccelctl --no-ask-password set tilt-step 9 >"$tmp/rule" 2>&1; }
wait_for 30 allowed_by_rule || { cat "$tmp/rule" >&2; fail "the polkit rule did not allow nobody"; }
# The last call to tpacceld: its idle time starts when it receives it, so after before_last_call.
before_last_call=$(date +%s.%N)
float_eq "$(tilt_step as_nobody)" 9 || fail "tilt-step is not 9 after nobody set it under the rule"
rm -f "$RULE_FILE"
[ "$(daemon_pid_now)" = "$daemon_pid" ] || fail "tpacceld was restarted during the calls"
stat -c '%U %a' "$STATE_DIR" "$STATE_DIR/state" || fail "no $STATE_DIR/state after the settings changed"
[ "$(stat -c %U "$STATE_DIR/state")" = tpaccel ] || fail "$STATE_DIR/state does not belong to tpaccel"

# --- Idle exit, then the setting across the restart --------------------------------------------------
step "idle exit: no call for ${IDLE_EXIT_SEC} s ends tpacceld"
gone() { [ ! -d "/proc/$daemon_pid" ] && ! name_has_owner "$NAME"; }
wait_for $IDLE_EXIT_LIMIT_SEC gone ||
        fail "tpacceld did not exit within ${IDLE_EXIT_LIMIT_SEC} s without calls"
idle=$(python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f}")' \
        "$before_last_call" "$(date +%s.%N)")
echo "tpacceld exited within ${idle} s of the last call"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]))' "$idle" "$IDLE_EXIT_SEC" ||
        fail "tpacceld exited ${idle} s after the last call, before its idle time of ${IDLE_EXIT_SEC} s"

step "status after the restart: tilt-step is still 9"
after=$(tilt_step as_nobody) || fail "status after the idle exit (re-activation) failed"
float_eq "$after" 9 || fail "tilt-step is $after after a restart, not 9: not persisted"
new_pid=$(daemon_pid_now)
[ -n "$new_pid" ] && [ "$new_pid" != "$daemon_pid" ] || fail "tpacceld was not activated again"
daemon_pid=$new_pid

# --- Purge -------------------------------------------------------------------------------------------
# On a ThinkPad without systemd, tpacceld makes /run/tpaccel/ec.lock itself (the EC lock, only with
# real ports, so not here): lay it out as it would, for the postrm to remove.
install -d -o tpaccel -g tpaccel -m 0755 "$RUNTIME_DIR" || fail "cannot make $RUNTIME_DIR"
install -o tpaccel -g tpaccel -m 0644 /dev/null "$RUNTIME_DIR/ec.lock" || fail "no $RUNTIME_DIR/ec.lock"
step "apt-get purge -y tpaccel tpaccel-tray"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tpaccel tpaccel-tray >"$tmp/purge.log" 2>&1 ||
        { cat "$tmp/purge.log" >&2; fail "apt-get purge failed"; }
installed=0
wait_for 10 gone || fail "tpacceld (pid $daemon_pid) still runs after purge (the prerm ends it)"
# Every file and link dpkg -L listed must be gone; a directory may stay only if it was there before
# the install (/usr/share/man, /lib: a link to usr/lib, ...).
left=0
while read -r path; do
        [ -e "$path" ] || [ -L "$path" ] || continue
        if [ -d "$path" ] && grep -qxF "$path" "$tmp/preexisting-paths"; then
                continue
        fi
        echo "left after purge: $path" >&2
        left=1
done <"$tmp/installed-paths"
[ $left -eq 0 ] || fail "purge left files the packages installed"
[ ! -e "$STATE_DIR" ] || fail "purge left $STATE_DIR"
[ ! -e "$RUNTIME_DIR" ] || fail "purge left $RUNTIME_DIR (the EC lock's directory)"
scan_tpaccel_paths >"$tmp/paths-after"
if ! diff -u "$tmp/paths-before" "$tmp/paths-after"; then
        fail "purge left paths named *tpaccel* (above)"
fi
getent passwd tpaccel >/dev/null || fail "the tpaccel user is gone: purge is expected to keep it"
echo "left by design: the tpaccel user and group (Debian keeps system users)"
echo "PASS"
