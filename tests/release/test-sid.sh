#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian unstable in the release matrix: in sid's kept root (debian-root.sh run --kept: what is installed
# there stays for the next run), upgrades the root to the unstable of the day, installs what the build
# and the unit tier need (scripts/deps.sh unit), builds with -Werror with that day's GCC, and runs the
# unit tier. Each failure names the release ("sid: ...") and the step, after the step's own output.
#   test-sid.sh
# Needs root (debian-root.sh). The first run makes the kept root and installs into it (minutes); later
# runs upgrade what changed in unstable since and build from scratch (the compiler may be new).
set -euo pipefail
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
rel=sid

[ "$(id -u)" -eq 0 ] || { echo "$rel: test-sid.sh needs root (tests/release/debian-root.sh chroots)" >&2; exit 1; }

# In the root, at /src (a copy of this tree's tracked files). A step's output goes to a log shown only
# when the step fails; the build directory is on the root's /tmp, a tmpfs gone with the run.
inner='
set -euo pipefail
rel=$0
step() {
        local what=$1 log=/tmp/step.log
        shift
        local t0=$SECONDS
        if ! "$@" >"$log" 2>&1; then
                tail -n 60 "$log" >&2
                echo "$rel: $what failed: $*" >&2
                exit 1
        fi
        echo "$rel: $what: $((SECONDS - t0)) s"
}
export DEBIAN_FRONTEND=noninteractive
step "apt-get full-upgrade" sh -c "apt-get update -qq && apt-get full-upgrade -y -qq"
step "installing what the build and the unit tier need" bash scripts/deps.sh unit
echo "$rel: $(gcc --version | head -n 1), meson $(meson --version), $(clang-format --version)"
step "configuring with -Werror" meson setup /tmp/build -Dwerror=true
step "the -Werror build" ninja -C /tmp/build
if ! meson test -C /tmp/build --suite unit --print-errorlogs >/tmp/unit.log 2>&1; then
        tail -n 150 /tmp/unit.log >&2
        echo "$rel: unit tier failed:" >&2
        sed -n "/^Summary of Failures/,/^Ok:/p" /tmp/unit.log | grep -E "^ *[0-9]+/[0-9]+ " | sed "s/^/$rel:   /" >&2
        exit 1
fi
echo "$rel: unit tier: $(grep -E "^Ok:" /tmp/unit.log | tr -s " ")"
'
t0=$SECONDS
status=0
"$top_srcdir/tests/release/debian-root.sh" run --kept "$rel" "$inner" "$rel" || status=$?
echo "$rel: $((SECONDS - t0)) s in all"
if [ "$status" -ne 0 ]; then
        echo "$rel: FAILED (exit status $status)" >&2
        exit 1
fi
