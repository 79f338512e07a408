#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's first command on a fresh machine: the first line of the README's first sh block
# (scripts/demo.sh), exactly as written, as root, in a copy of this tree's tracked files (what a clone
# has), in a throwaway copy of a minimal Debian root (tests/release/debian-root.sh run --fresh:
# debootstrap minbase, nothing installed but apt; only the .debs apt downloads are kept, --apt-cache).
# It must install what it needs, build, and print live events from the monitor. Then SIGINT goes to its
# process group, as Ctrl-C in a terminal sends it, and the demo must end cleanly: the monitor releases
# its claim, no process is left in the root, and the exit status is 0.
#   tests/release/test-demo-fresh.sh RELEASE      (bookworm, trixie or sid)
# Needs root (chroot, mounts) and Debian's archive (apt-get in the root); exits 77 (skipped) without root.
set -uo pipefail

top_srcdir=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LIVE_EVENTS=5       # monitor event lines to see before the Ctrl-C
# Not a performance limit: a demo that has neither printed its events nor ended by then hangs (a fresh
# install and build take 3-10 min).
HANG_LIMIT_SEC=1800
END_LIMIT_SEC=60       # the same, from the Ctrl-C to the end of the last process in the root
CLEANUP_LIMIT_SEC=600  # and to the end of debian-root.sh, which then removes the copy (GBs of files)

[ $# -eq 1 ] || { echo "usage: test-demo-fresh.sh RELEASE" >&2; exit 2; }
rel=$1
if [ "$(id -u)" -ne 0 ]; then
        echo "demo-fresh: needs root (a chroot of a Debian root, apt-get in it); skipped" >&2
        exit 77
fi

out=$(mktemp /tmp/tpaccel-demo-fresh.XXXXXX)
pid= root_id=

fail() {
        echo "--- the end of the demo's output (tests/release/debian-root.sh run --fresh $rel '$cmd'):"
        tail -n 200 "$out"
        echo "demo-fresh: $rel: FAIL: $*" >&2
        exit 1
}

# The demo's root: the device and inode of /proc/PID/root of a process of its group in the chroot.
find_root() {
        local p id host
        host=$(stat -L -c %d:%i /proc/self/root/)
        for p in $(pgrep -g "$pid"); do
                id=$(stat -L -c %d:%i "/proc/$p/root/" 2>/dev/null) || continue
                [ "$id" != "$host" ] && root_id=$id && return 0
        done
        return 1
}

# The processes in the demo's root (one stat for all: some end while it runs).
root_processes() {
        { stat -L -c '%d:%i %n' /proc/[0-9]*/root/ 2>/dev/null || true; } |
                awk -v id="$root_id" '$1 == id { split($2, p, "/"); print p[3] }'
}

# After a failure: the processes in the root first, so that debian-root.sh removes its copy and ends.
cleanup() {
        local t=$SECONDS
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
                if [ -n "$root_id" ] || find_root; then
                        # shellcheck disable=SC2046 # one pid a word
                        kill -KILL $(root_processes) 2>/dev/null
                        while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - t)) -lt $CLEANUP_LIMIT_SEC ]; do
                                sleep 1
                        done
                fi
                kill -KILL -- "-$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
        fi
        rm -f "$out"
}
trap cleanup EXIT

live_events() { grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}  (tilt|orientation|shock) ' "$out"; }

# The README's first command: its first sh block's first line, without the comment.
cmd=$(awk '/^```sh$/ { block = 1; next } block { print; exit }' "$top_srcdir/README.md" |
        sed 's/[[:space:]]*#.*//')
[ -n "$cmd" ] || fail "README.md has no sh block"
echo "demo-fresh: $rel: running the README's first command '$cmd' in a fresh minimal root"

start=$SECONDS
# Its own session and process group, as a terminal gives a command line.
setsid "$top_srcdir/tests/release/debian-root.sh" run --fresh --apt-cache "$rel" "$cmd" \
        >"$out" 2>&1 </dev/null &
pid=$!
# The child calls setsid() only once it runs: on a loaded machine that is a while after the fork.
until [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]; do
        [ $((SECONDS - start)) -lt 30 ] || fail "setsid did not make the demo a process group in 30 s"
        sleep 0.1
done

while [ "$(live_events)" -lt $LIVE_EVENTS ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
                wait "$pid"
                status=$?
                pid=
                fail "it ended (status $status) before printing $LIVE_EVENTS live events"
        fi
        [ $((SECONDS - start)) -lt $HANG_LIMIT_SEC ] || fail "no $LIVE_EVENTS live events after $HANG_LIMIT_SEC s"
        sleep 1
done
live_sec=$((SECONDS - start))
# Nothing may be left in its root at the end.
find_root || fail "no process of the demo's process group runs in a root of its own"

kill -INT -- "-$pid"
stopped=$SECONDS
while left=$(root_processes) && [ -n "$left" ]; do
        [ $((SECONDS - stopped)) -lt $END_LIMIT_SEC ] ||
                fail "still running $END_LIMIT_SEC s after Ctrl-C: $(ps -o pid=,args= -p "${left//$'\n'/,}")"
        sleep 0.2
done
ended_sec=$((SECONDS - stopped))
grep -qx "Released the accelerometer." "$out" || fail "the monitor did not release its claim"
while kill -0 "$pid" 2>/dev/null; do
        [ $((SECONDS - stopped)) -lt $CLEANUP_LIMIT_SEC ] ||
                fail "debian-root.sh still running $CLEANUP_LIMIT_SEC s after Ctrl-C"
        sleep 1
done
wait "$pid"
status=$?
pid=
[ "$status" -eq 0 ] || fail "exit status $status after Ctrl-C (0 expected)"

echo "--- its live events (the first $LIVE_EVENTS of $(live_events)) and its end:"
grep -m $LIVE_EVENTS -E '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}  ' "$out"
grep -x "Released the accelerometer." "$out"
echo "demo-fresh: $rel: OK: live events $live_sec s after the start (install, build); ended cleanly" \
     "$ended_sec s after Ctrl-C, the root removed after $((SECONDS - stopped)) s"
