#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The round-2 scenarios of gen-traces.py (vehicles, walking, stairs, lap, nearly flat and bed drops) with K
# other generator seeds each (tests/traces/gen-traces.py --variants), replayed through tpaccel's pipeline
# (eval-motion, virtual time) at each ShockSensitivity: false alarms on the rides, drops caught late or
# missed. These are the "committed seed variants" rows of the trade-off table in
# docs/evidence/MOTION-EVALUATION.md. Usage:
# bench/motion/seed-variants.sh [BUILDDIR] [K]   (K defaults to 8)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
variants=${2:-8}
eval_motion=$build/bench/motion/eval-motion
[ -x "$eval_motion" ] || { echo "seed-variants: $eval_motion is not built (meson compile -C $build)" >&2; exit 1; }
out=$(mktemp -d /tmp/tpaccel-variants.XXXXXX)
trap 'rm -rf "$out"' EXIT
python3 "$top/tests/traces/gen-traces.py" --variants "$variants" "$out" >/dev/null
rides=$(ls "$out" | grep -vc '^drop-')
drops=$(ls "$out" | grep -c '^drop-')
printf '%-12s %-26s %-26s\n' sensitivity "false alarms (rides)" "drops failed (late/missed)"
for s in 0.5 0.75 1 1.5 2; do
        report=$("$eval_motion" --sensitivity "$s" "$out"/*.csv || true)
        false_alarms=$(printf '%s\n' "$report" | awk -F'|' '/^[a-z]/ && !/^drop-/ { split($2, f, " "); n += f[2] } END { print n + 0 }')
        failed=$(printf '%s\n' "$report" | grep -c '^drop-[^ ]* .* FAIL ' || true)
        printf '%-12s %-26s %-26s\n' "$s" "$false_alarms in $rides" "$failed of $drops"
done
