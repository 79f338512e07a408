#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The motion evaluation with hdapsd side by side: replays every trace in tests/traces/ through
# hdapsd (umockdev, real time, ~1 min) and then through tpaccel's pipeline (eval-motion, virtual time),
# and prints one table. Usage: bench/motion/eval-motion.sh [BUILDDIR] [-- HDAPSD-OPTIONS]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
out=$(mktemp -d /tmp/tpaccel-hdapsd.XXXXXX)
trap 'rm -rf "$out"' EXIT
if command -v umockdev-run >/dev/null && [ -x /usr/sbin/hdapsd ]; then
        /usr/bin/python3 "$top/bench/motion/hdapsd-replay.py" "$out" "$top"/tests/traces/*.csv -- "${@:--s 15}" 2>/dev/null
        "$build/bench/motion/eval-motion" --hdapsd "$out" "$top"/tests/traces/*.csv
else
        echo "# hdapsd or umockdev-run missing: tpaccel only" >&2
        "$build/bench/motion/eval-motion" "$top"/tests/traces/*.csv
fi
