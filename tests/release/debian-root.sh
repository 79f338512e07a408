#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian roots for the release matrix and the fresh-machine tests: a minimal root (debootstrap
# --variant=minbase) of each release, made once from the machine's own archive and kept in
# /var/cache/tpaccel/roots/RELEASE/pristine; commands run in it as the root of a mount namespace.
#
#   tests/release/debian-root.sh path RELEASE
#       makes the pristine root if missing; prints its path
#   tests/release/debian-root.sh run [--fresh|--kept] [--src DIR] [--clone] [--apt-cache] RELEASE COMMAND...
#       runs COMMAND (through bash -c) as root in RELEASE's root (the root of a mount namespace), with /proc, /sys, /dev
#       and a tmpfs on /run and /tmp, the machine's resolv.conf and apt proxy settings, and
#       a copy of the source tree DIR (its tracked files as they are in the work tree, default: this
#       clone) at /src, the working directory; with --clone, a git clone of DIR (its committed HEAD), as
#       a user's is. --fresh (the default): a throwaway copy of the pristine root (about 130 MB), so
#       nothing installed survives the command (a fresh machine each time); a copy, not an overlay, so
#       that the command can run this script in turn (an overlay cannot have its upper layer on another).
#       --kept: RELEASE's kept root (/var/cache/tpaccel/roots/RELEASE/kept, a copy of the pristine one
#       made on first use), where what COMMAND installs stays for the next run (the release matrix
#       keeps its build dependencies between CI runs on the same machine). --apt-cache: the root's
#       /var/cache/apt/archives is /var/cache/tpaccel/roots/RELEASE/apt (kept), so that the .debs apt
#       downloads are downloaded once; everything else stays fresh. Exits with COMMAND's status.
#   tests/release/debian-root.sh boot-dir RELEASE
#       prints the kept root's path (made if missing), for systemd-nspawn --directory
#
# RELEASE: bookworm (12), trixie (13) or sid (unstable). Needs root, debootstrap and unshare.
set -euo pipefail

cache=${TPACCEL_ROOTS:-/var/cache/tpaccel/roots}
mirror=${TPACCEL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)

die() {
        echo "debian-root: $*" >&2
        exit 2
}

check_release() {
        case $1 in
        bookworm | trixie | sid) ;;
        *) die "unknown release '$1' (bookworm, trixie or sid)" ;;
        esac
}

# The pristine root of $1, made once; a half-made one (no stamp) is made again.
# Roots are made under a lock of their release (fd 7), so that two runs on a machine that has none yet
# do not both make one; the second waits and then finds it done.
lock_release() {
        mkdir -p "$cache/$1"
        exec 7>"$cache/$1/make.lock"
        flock -n 7 || {
                echo "debian-root: waiting for another run that is making the $1 root" >&2
                flock 7
        }
}

pristine() {
        local rel=$1 dir=$cache/$1/pristine
        if [ ! -f "$cache/$rel/pristine.done" ]; then
                lock_release "$rel"
        fi
        if [ ! -f "$cache/$rel/pristine.done" ]; then
                command -v debootstrap >/dev/null || die "debootstrap is missing (scripts/deps.sh test installs it)"
                rm -rf "$dir"
                mkdir -p "$cache/$rel"
                echo "debian-root: making a minimal $rel root in $dir (debootstrap, a few minutes)" >&2
                local log=$cache/$rel/debootstrap.log
                if ! debootstrap --variant=minbase "$rel" "$dir" "$mirror" >"$log" 2>&1; then
                        tail -20 "$log" >&2
                        die "debootstrap of $rel failed (the whole log: $log)"
                fi
                # sid's Release file can outlive its Valid-Until in a mirror's snapshot.
                if [ "$rel" = sid ]; then
                        echo 'Acquire::Check-Valid-Until "false";' >"$dir/etc/apt/apt.conf.d/90tpaccel-valid-until"
                fi
                # Nothing in the root starts services while packages are installed in a chroot.
                printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
                chmod 755 "$dir/usr/sbin/policy-rc.d"
                apt_clean "$dir"
                touch "$cache/$rel/pristine.done"
        fi
        echo "$dir"
}

apt_clean() { rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages 2>/dev/null || true; }

kept() {
        local rel=$1 src
        src=$(pristine "$rel")
        [ -f "$cache/$rel/kept.done" ] || lock_release "$rel"
        if [ ! -f "$cache/$rel/kept.done" ]; then
                rm -rf "$cache/$rel/kept"
                cp -a "$src" "$cache/$rel/kept"
                touch "$cache/$rel/kept.done"
        fi
        echo "$cache/$rel/kept"
}

# Copies the tracked files of the work tree $1 (as they are now, uncommitted changes included) to $2.
copy_tree() {
        mkdir -p "$2"
        if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
                (cd "$1" && git ls-files -z --cached --others --exclude-standard |
                        xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
                        tar --null -T - -cf -) | tar -C "$2" -xf -
        else
                cp -a "$1/." "$2"
        fi
}

run() {
        local mode=fresh src=$top_srcdir apt_cache= clone=
        while [ $# -gt 0 ]; do
                case $1 in
                --fresh) mode=fresh ;;
                --kept) mode=kept ;;
                --src) src=$2; shift ;;
                --src=*) src=${1#--src=} ;;
                --apt-cache) apt_cache=1 ;;
                --clone) clone=1 ;;
                *) break ;;
                esac
                shift
        done
        [ $# -ge 2 ] || die "usage: debian-root.sh run [--fresh|--kept] [--src DIR] [--clone] [--apt-cache] RELEASE COMMAND..."
        local rel=$1
        shift
        check_release "$rel"
        [ "$(id -u)" -eq 0 ] || die "needs root (mounts, pivot_root)"
        local base
        if [ "$mode" = kept ]; then base=$(kept "$rel"); else base=$(pristine "$rel"); fi
        local tmp
        tmp=$(mktemp -d /var/tmp/tpaccel-root.XXXXXX)
        mkdir -p "$tmp/root"
        if [ -n "$clone" ]; then
                git clone -q "$src" "$tmp/src" || die "git clone of $src failed"
        else
                copy_tree "$src" "$tmp/src"
        fi
        [ "$mode" = kept ] || cp -a "$base/." "$tmp/root"
        if [ -n "$apt_cache" ]; then
                apt_cache=$cache/$rel/apt
                mkdir -p "$apt_cache/partial"
                # One run at a time on the cache (apt in a second one would stop at the first's lock);
                # fd 8, which the command does not inherit.
                exec 8>"$cache/$rel/apt.lock"
                flock -n 8 || {
                        echo "debian-root: waiting for another run that uses $apt_cache" >&2
                        flock 8
                }
        fi
        local status=0
        # A private mount namespace: every mount below goes with it, whatever way the command ends.
        unshare --mount --propagation private -- bash -s "$mode" "$base" "$tmp" "$apt_cache" "$@" 8>&- \
                <<'INNER' || status=$?
set -euo pipefail
mode=$1 base=$2 tmp=$3 apt_cache=$4
shift 4
root=$tmp/root
# A mount point either way, as a machine's root is.
if [ "$mode" = kept ]; then
        mount --bind "$base" "$root"
else
        mount --bind "$root" "$root"
fi
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/run"
mount -t tmpfs tmpfs "$root/tmp"
mkdir -p "$root/run/lock" "$root/src"
mount --bind "$tmp/src" "$root/src"
[ -z "$apt_cache" ] || mount --bind "$apt_cache" "$root/var/cache/apt/archives"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
for f in /etc/apt/apt.conf.d/*proxy*; do [ -e "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"; done
# The root becomes this mount namespace's own (pivot_root, the old one stacked on it and then detached),
# not a chroot: the kernel refuses a chrooted process a user namespace (unshare(CLONE_NEWUSER): EPERM),
# which the command's sandboxing checks need as a machine has it (tests/package/systemd-checks.sh).
cd "$root"
pivot_root . .
umount -l .
cd /
exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 ${CI:+CI=$CI} \
        bash -c 'cd /src && exec bash -c "$0" "$@"' "$@"
INNER
        rm -rf "$tmp"
        return "$status"
}

[ $# -ge 1 ] || die "usage: debian-root.sh path|run|boot-dir ..."
cmd=$1
shift
case $cmd in
path)
        [ $# -eq 1 ] || die "usage: debian-root.sh path RELEASE"
        check_release "$1"
        pristine "$1"
        ;;
boot-dir)
        [ $# -eq 1 ] || die "usage: debian-root.sh boot-dir RELEASE"
        check_release "$1"
        kept "$1"
        ;;
run) run "$@" ;;
*) die "unknown command '$cmd' (path, run or boot-dir)" ;;
esac
