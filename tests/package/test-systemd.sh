#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The installed packages under a real systemd as PID 1: builds tpaccel and tpaccel-tray with
# dpkg-buildpackage from the committed tree (git archive HEAD), boots a container with systemd-nspawn
# (systemd, dbus-daemon, polkitd and journald of this machine's own root, read-only, with writes in a
# throwaway overlay), installs the .debs there with apt-get and runs systemd-checks.sh inside as a unit:
# D-Bus activation handed to tpacceld.service, the sandbox systemd builds (capabilities, NoNewPrivs,
# seccomp, mount namespace, device cgroup; sandbox-probe.py against the same user outside),
# systemd-analyze security, polkit through the real polkitd, systemctl reload, the idle exit and
# re-activation, the emulator polling in the sandbox, the watchdog, hdapsd's units with tpaccel's
# drop-ins, purge. One line per check.
#
# The container's settings, each needed for the test to prove what it says (each was tried without):
#   SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1: in the default hybrid mode systemd does not enforce DeviceAllow=;
#   --system-call-filter=bpf: nspawn's own filter blocks the BPF programs of DeviceAllow=/IPAddressDeny=;
#   --capability=CAP_SYS_RAWIO: otherwise systemd silently drops the unit's AmbientCapabilities=;
#   --register=no --keep-unit in a private mount namespace with a tmpfs over /run, nspawn in a cgroup of
#   its own: nothing is left in the host's /run or cgroup roots (the cgroups are removed at exit).
# The host's dpkg lock is held while the container runs: it reads the live root, which an apt or dpkg run
# on the host would change under it.
#
# TPACCEL_TEST_UNIT_WITHOUT_CAP=1 (the negative control): builds the package with AmbientCapabilities=
# removed from the unit; the test must then fail ("AmbientCapabilities=: the unit's process starts
# without CAP_SYS_RAWIO").
#
# Another release (the release matrix, tests/release/test-release.sh):
#   test-systemd.sh --root DIR --debs DIR
# boots the Debian root DIR (its own systemd, dbus-daemon and polkitd, read-only, writes in the overlay)
# instead of this machine's, and installs the .debs in DIR (built in that root) instead of building them.
# A policy-rc.d in the root (the roots of tests/release/debian-root.sh have one, which refuses every
# action) is replaced in the container by one that allows all, as on a machine without one: it would keep
# the packages' scripts from stopping tpacceld.
#
# Needs root and systemd-container. Exits 77 (skipped) without root.
set -uo pipefail

top_srcdir=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$top_srcdir/tests/package
sysroot=/ debs_dir=
while [ $# -gt 0 ]; do
        case $1 in
        --root) sysroot=${2:?--root needs a directory}; shift ;;
        --debs) debs_dir=${2:?--debs needs a directory}; shift ;;
        *) echo "systemd: unknown argument '$1' (usage: test-systemd.sh [--root DIR --debs DIR])" >&2; exit 2 ;;
        esac
        shift
done
BOOT_LIMIT_SEC=420 # the container's whole life, checks included (about 100 s of it are waits)
cgroup_name=tpaccel-systemd-test.$$
# The cgroup hierarchies nspawn writes to: hybrid (this machine: cgroup2 at unified/, name=systemd v1) or
# unified (cgroup2 at the root).
if [ -d /sys/fs/cgroup/unified ]; then
        cgroup_roots="/sys/fs/cgroup/unified /sys/fs/cgroup/systemd"
else
        cgroup_roots=/sys/fs/cgroup
fi

fail() {
        echo "systemd: FAIL: $*" >&2
        exit 1
}
step() { echo "--- $*"; }

if [ "$(id -u)" -ne 0 ]; then
        echo "systemd: needs root (boots a container, builds and installs packages in it); skipped" >&2
        exit 77
fi
for tool in git dpkg-buildpackage fakeroot systemd-nspawn unshare python3; do
        command -v "$tool" >/dev/null || fail "$tool is missing (scripts/deps.sh test installs it)"
done

# One test that changes system-wide state at a time (HELPERS.md).
exec 9>/run/lock/tpaccel-system-tests.lock
flock 9

tmp=$(mktemp -d /tmp/tpaccel-systemd-test.XXXXXX)
chmod 755 "$tmp"
started=$SECONDS

remove_cgroups() { # the container's cgroups below ours, deepest first; what still runs in them is killed
        local root dir
        for root in $cgroup_roots; do
                dir=$root/$cgroup_name
                [ -d "$dir" ] || continue
                for _ in 1 2 3 4 5 6 7 8 9 10; do
                        find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null
                        [ -d "$dir" ] || break
                        find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null | while read -r p; do kill -KILL "$p"; done 2>/dev/null
                        sleep 0.5
                done
                [ ! -d "$dir" ] || echo "systemd: cannot remove the cgroup $dir" >&2
        done
}
cleanup() {
        local status=$?
        set +e
        if [ -n "${boot_pid:-}" ] && kill -0 "$boot_pid" 2>/dev/null; then
                kill -TERM "$boot_pid"
                wait "$boot_pid"
        fi
        remove_cgroups
        rm -rf "$tmp"
        exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if [ "$sysroot" != / ]; then
        [ -x "$sysroot/usr/lib/systemd/systemd" ] || fail "$sysroot has no systemd to boot (/usr/lib/systemd/systemd)"
        [ -n "$debs_dir" ] || fail "--root needs --debs: the packages built in that root"
fi

# The preinst makes the user before the bus policy is unpacked: with the line of the shipped sysusers file.
grep -v '^#' "$top_srcdir/data/tpaccel.sysusers" | grep . >"$tmp/sysusers" || fail "data/tpaccel.sysusers has no user"
while read -r line; do
        grep -qxF "$line" "$top_srcdir/debian/tpaccel.preinst" ||
                fail "debian/tpaccel.preinst does not make the user data/tpaccel.sysusers makes: $line"
done <"$tmp/sysusers"

mkdir -p "$tmp/in/debs" "$tmp/out"
if [ -n "$debs_dir" ]; then
        step "the packages of $debs_dir"
        cp "$debs_dir"/tpaccel_*.deb "$debs_dir"/tpaccel-tray_*.deb "$tmp/in/debs/" ||
                fail "$debs_dir has no tpaccel and tpaccel-tray packages"
else
        # --- Build from a clean copy of the committed tree -----------------------------------------------
        step "build: git archive HEAD, dpkg-buildpackage -us -uc -b"
        mkdir -p "$tmp/src/tpaccel"
        git -C "$top_srcdir" archive --format=tar HEAD | tar -x -C "$tmp/src/tpaccel" ||
                fail "git archive HEAD of $top_srcdir failed (the test builds the committed tree)"
        if [ "${TPACCEL_TEST_UNIT_WITHOUT_CAP:-0}" = 1 ]; then
                echo "negative control: AmbientCapabilities= removed from the unit"
                sed -i '/^AmbientCapabilities=/d' "$tmp/src/tpaccel/data/tpacceld.service.in"
        fi
        if ! (cd "$tmp/src/tpaccel" && nice dpkg-buildpackage -us -uc -b -j2) >"$tmp/build.log" 2>&1; then
                tail -n 60 "$tmp/build.log" >&2
                fail "dpkg-buildpackage failed (log above)"
        fi
        cp "$tmp"/src/tpaccel_*.deb "$tmp"/src/tpaccel-tray_*.deb "$tmp/in/debs/" ||
                fail "the build made no tpaccel and tpaccel-tray packages"
fi
cp "$here/systemd-checks.sh" "$here/sandbox-probe.py" "$here/../lib/shell-helpers.sh" "$tmp/in/"
chmod -R a+rX "$tmp/in"
echo "packages ready after $((SECONDS - started)) s: $(cd "$tmp/in/debs" && echo *.deb)"

printf '#!/bin/sh\nexit 0\n' >"$tmp/policy-rc.d" # every action allowed (invoke-rc.d's exit 0)
chmod 755 "$tmp/policy-rc.d"

cat >"$tmp/tpaccel-systemd-test.service" <<'EOF'
[Unit]
Description=tpaccel's test-systemd.sh: the checks inside the container
Requires=dbus.socket
After=basic.target dbus.socket
SuccessAction=poweroff
FailureAction=poweroff

[Service]
Type=oneshot
ExecStart=/bin/bash /tpaccel-test/systemd-checks.sh
StandardOutput=append:/tpaccel-out/log
StandardError=inherit
TimeoutStartSec=360
EOF

# --- Boot --------------------------------------------------------------------------------------------
# Inside a private mount namespace: a tmpfs over /run (nspawn's own files), a read-only bind of the root
# (/ or --root) as the container's; the inner shell moves itself, and so nspawn, into cgroups of its own first.
boot() {
        set -e
        mount -t tmpfs -o mode=0755 tmpfs /run
        mkdir /run/root
        mount --bind "$sysroot" /run/root
        mount -o remount,bind,ro /run/root
        local hide=()
        [ ! -e /run/root/usr/sbin/policy-rc.d ] || hide=(--bind-ro="$tmp/policy-rc.d:/usr/sbin/policy-rc.d")
        for root in $cgroup_roots; do
                mkdir "$root/$cgroup_name"
                echo $$ >"$root/$cgroup_name/cgroup.procs"
        done
        # The root's dpkg lock (fcntl, as apt and dpkg take it), held while the container reads the root:
        # taken, then kept across exec by the same process, timeout, which passes a SIGTERM on to nspawn.
        exec env SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 python3 -c '
import fcntl, os, sys
for path in ("var/lib/dpkg/lock-frontend", "var/lib/dpkg/lock"):
    fd = os.open(os.path.join(os.environ["sysroot"], path), os.O_RDWR | os.O_CREAT, 0o640)
    fcntl.lockf(fd, fcntl.LOCK_EX)
    os.set_inheritable(fd, True)
os.execvp(sys.argv[1], sys.argv[1:])' \
                timeout -k 20 $BOOT_LIMIT_SEC systemd-nspawn --quiet --directory=/run/root --volatile=overlay \
                --boot --register=no --keep-unit --system-call-filter=bpf --capability=CAP_SYS_RAWIO \
                --private-network --console=pipe "${hide[@]}" \
                --bind-ro="$tmp/in:/tpaccel-test" --bind="$tmp/out:/tpaccel-out" \
                --bind-ro="$tmp/tpaccel-systemd-test.service:/etc/systemd/system/tpaccel-systemd-test.service" \
                systemd.unit=basic.target systemd.wants=tpaccel-systemd-test.service systemd.show_status=0
}
step "boot: systemd-nspawn --boot on a read-only bind of $sysroot (--volatile=overlay), checks inside"
booted=$SECONDS
export -f boot
export tmp cgroup_name cgroup_roots BOOT_LIMIT_SEC sysroot
unshare --mount --propagation private bash -c boot >"$tmp/nspawn.log" 2>&1 </dev/null &
boot_pid=$!
wait $boot_pid
boot_status=$?
boot_pid=
cat "$tmp/out/log" 2>/dev/null
if [ ! -s "$tmp/out/rc" ] || [ "$(cat "$tmp/out/rc")" != 0 ]; then
        echo "=== systemd-nspawn (exit $boot_status):" >&2
        tail -n 30 "$tmp/nspawn.log" >&2
        if [ -s "$tmp/out/journal" ]; then
                echo "=== the container's journal, last 150 lines:" >&2
                tail -n 150 "$tmp/out/journal" >&2
        fi
        [ -s "$tmp/out/rc" ] || fail "the checks did not finish (container exit $boot_status, limit ${BOOT_LIMIT_SEC} s)"
        fail "a check failed in the container (above)"
fi
[ $boot_status -eq 0 ] || fail "systemd-nspawn exited $boot_status after the checks passed"
echo "container: booted, checked and powered off in $((SECONDS - booted)) s; the whole test $((SECONDS - started)) s"
echo "PASS"
