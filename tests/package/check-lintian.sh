#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The packages of CHANGES (dpkg-buildpackage's .changes) are lintian clean with this machine's lintian: no
# error and no warning (info tags are shown, -I, and allowed), and every override in SRCDIR/debian carries
# its reason, a comment line right above it. Run by tests/package/test-package.sh (Debian 12, the host)
# and by tests/release/test-release.sh in each release's root (that release's own lintian).
# Usage: check-lintian.sh CHANGES SRCDIR
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: check-lintian.sh CHANGES SRCDIR" >&2; exit 2; }
changes=$1 srcdir=$2
[ -f "$changes" ] || { echo "check-lintian: no $changes" >&2; exit 2; }
echo "lintian $(lintian --print-version): no errors, no warnings"
lintian --fail-on error,warning -I "$changes" 2>&1 | grep -v '^running with root privileges'
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
        echo "check-lintian: lintian $(lintian --print-version) reports errors or warnings (above)" >&2
        exit 1
fi
status=0
for f in "$srcdir"/debian/*lintian-overrides; do
        [ -e "$f" ] || continue
        awk -v f="$f" '!/^#/ && NF && prev !~ /^#/ { print f ": override without a reason: " $0; bad = 1 }
                       { prev = $0 } END { exit bad }' "$f" || status=1
done
[ $status -eq 0 ] || echo "check-lintian: a lintian override without a reason comment (above)" >&2
exit $status
