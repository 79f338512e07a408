# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# A private dbus-daemon's configuration for shell tests and benchmarks, from the one template
# tests/lib/bus.conf.in (the Python twin is tests/lib/privatebus.py). Source it.

privatebus_template=$(dirname "${BASH_SOURCE[0]}")/bus.conf.in

# Writes a private bus config to FILE.
#   $1 FILE, $2 the <listen> address, $3 the bus <type> ("" for none), $4 a <servicedir> ("" for none),
#   $5 the default policy: "deny-by-default" (method calls denied unless a policy allows them, like the
#   real system bus) or "open" (every uid may own, call and receive), $6... files to <include>.
write_bus_conf() {
        local file=$1 listen=$2 type=$3 servicedir=$4 policy=$5 other line include
        shift 5
        case "$policy" in
        open) other=deny-by-default ;;
        deny-by-default) other=open ;;
        *) echo "write_bus_conf: unknown policy '$policy'" >&2; return 1 ;;
        esac
        while IFS= read -r line; do
                case "$line" in
                *"<!-- $other -->") continue ;;
                *"<!-- $policy -->") line=${line% <!-- *} ;;
                *@TYPE@*) [ -n "$type" ] || continue; line=${line//@TYPE@/$type} ;;
                *@SERVICEDIR@*) [ -n "$servicedir" ] || continue; line=${line//@SERVICEDIR@/$servicedir} ;;
                *@LISTEN@*) line=${line//@LISTEN@/$listen} ;;
                *@INCLUDE@*)
                        for include in "$@"; do echo "${line//@INCLUDE@/$include}"; done
                        continue
                        ;;
                esac
                echo "$line"
        done <"$privatebus_template" >"$file"
}
