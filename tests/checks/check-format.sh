#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every C source and header of the tree is as .clang-format lays it out: clang-format --dry-run --Werror
# names each line that differs. Fix with: clang-format -i FILE (or the whole tree:
#   git ls-files '*.c' '*.h' | xargs clang-format -i).
# The verdict is the same with the clang-format of each release tpaccel supports: 14 (Debian 12), 19
# (13) and 21 (unstable) lay the tree out alike. Where they did not, .clang-format says which way (the
# space of a compound literal, "(T) {...}") or the code is written in a form all read alike (a named
# struct type for a pointer field, a cast on the right of a product; one macro of
# tests/reference/shim/kshim.h is left alone with "clang-format off"). A layout change in a new
# clang-format is fixed the same way, never by skipping the check on that version. The release
# matrix runs this check with each: tests/release/.
#   check-format.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: check-format.sh SOURCE_ROOT}
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed (scripts/deps.sh test)" >&2; exit 1; }
cd "$root"
mapfile -d '' files < <(find service client tests bench -name build -prune -o \( -name '*.c' -o -name '*.h' \) -type f -print0 | sort -z)
[ ${#files[@]} -gt 100 ] || { echo "check-format: only ${#files[@]} C files found under $root" >&2; exit 1; }
clang-format --style=file:"$root/.clang-format" --dry-run --Werror "${files[@]}"
echo "check-format: ${#files[@]} files as .clang-format lays them out"
