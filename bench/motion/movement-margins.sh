#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How far the movement detector is from its floors: the movement traces (tests/traces/movement/) with
# every deviation from the rest scaled, the negatives up (x2, x5, x8: a harder typist, a bigger fan, a
# heavier train) and the movements down (x0.7, x0.5: a gentler lift, a slower slide), replayed by
# eval-movement. The scaled copies keep the labels; "FAIL" on a scaled negative is a false alarm, on a
# scaled movement a miss or a detection later than a second (docs/evidence/MOTION-EVALUATION.md, "Movement").
# Usage: bench/motion/movement-margins.sh [BUILDDIR]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
eval_movement=$build/bench/motion/eval-movement
[ -x "$eval_movement" ] || { echo "movement-margins: $eval_movement is not built" >&2; exit 1; }
out=$(mktemp -d /tmp/tpaccel-margins.XXXXXX)
trap 'rm -rf "$out"' EXIT
# x, y are raw counts; the traces rest at -498,-439 (gen-traces.py REST_X, REST_Y).
scale() { # FILE FACTOR NAME
        awk -F, -v k="$2" 'BEGIN { OFS = "," } /^#/ || /^time/ { print; next }
                { printf "%s,%d,%d,%s,%s\n", $1, -498 + k * ($2 + 498), -439 + k * ($3 + 439), $4, $5 }' \
                "$1" >"$out/$3.csv"
}
for f in "$top"/tests/traces/movement/*.csv; do
        name=$(basename "$f" .csv)
        if grep -q '^# expect: no-movement' "$f"; then
                for k in 2 5 8; do scale "$f" "$k" "$name-x$k"; done
        else
                scale "$f" 0.7 "$name-x0,7"
                scale "$f" 0.5 "$name-x0,5"
        fi
done
"$eval_movement" "$out"/*.csv
