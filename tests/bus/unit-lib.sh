# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Starting tpacceld as data/tpacceld.service.in runs it, for the shell tests on a private system bus
# (sourced after system-test-lib.sh, not run): ExecStart= as User=/Group= with the unit's capabilities,
# umask and state directory, under the unit's seccomp settings applied by unit-sandbox-exec after the uid
# switch, as systemd does. The caller sets unit (the unit file), user (ensure_tpaccel_user), tpacceld,
# sandbox_exec, tmp and name, calls read_unit_sandbox once, then start_as_unit.

unit_get() { # the last value of KEY= in the unit
        sed -n "s/^$1=//p" "$unit" | tail -1
}
caps_for_setpriv() { # CAP_SYS_RAWIO CAP_X -> +sys_rawio,+x
        local out=() c
        for c in $1; do
                c=${c,,}
                out+=("+${c#cap_}")
        done
        (IFS=,; echo "${out[*]}")
}

unit_get_all() { # every value of KEY= in the unit, one a line
        sed -n "s/^$1=//p" "$unit"
}
unit_yes() { # KEY= is a true boolean (its last value)
        case "$(unit_get "$1")" in yes | true | on | 1) return 0 ;; *) return 1 ;; esac
}

# SystemCallFilter=: syscall_set holds the names of the merged lines, groups expanded by systemd-analyze;
# syscall_deny_list says whether they are refused (the first line began with ~) or the only ones allowed.
# As systemd merges them: an allow list implies @default; a later line of the other kind removes names.
declare -A syscall_set=() known_set=()
syscall_deny_list=no
syscalls_update() { # SET-NAME, + or -, then names and @groups
        local -n set=$1
        local op=$2 item out members
        shift 2
        for item; do
                case "$item" in
                *:*) fail "SystemCallFilter= entry '$item': a per-call errno is not imitated" ;;
                @*)
                        out=$(systemd-analyze syscall-filter "$item" 2>&1) ||
                                fail "systemd-analyze syscall-filter does not know $item: $out"
                        # The group's name, then its description (#) and members, indented.
                        mapfile -t members < <(sed -n '2,$ { s/^ *//; /^#/d; /^$/d; p; }' <<<"$out")
                        [ ${#members[@]} -gt 0 ] || fail "systemd-analyze lists nothing in $item"
                        syscalls_update "${!set}" "$op" "${members[@]}"
                        ;;
                *) if [ "$op" = + ]; then set[$item]=1; else unset "set[$item]"; fi ;;
                esac
        done
}
read_syscall_filter() {
        local line deny first=yes items
        while IFS= read -r line; do
                [ -n "$line" ] || fail "an empty SystemCallFilter= (a reset) is not imitated"
                deny=no
                [ "${line:0:1}" = "~" ] && { deny=yes; line=${line:1}; }
                read -ra items <<<"$line"
                if [ $first = yes ]; then
                        syscall_deny_list=$deny
                        [ $deny = no ] && syscalls_update syscall_set + @default
                        first=no
                fi
                if [ $deny = $syscall_deny_list ]; then
                        syscalls_update syscall_set + "${items[@]}"
                else
                        syscalls_update syscall_set - "${items[@]}"
                fi
        done < <(unit_get_all SystemCallFilter)
}
syscall_allowed() { # NAME: does the unit's SystemCallFilter= let it through?
        if [ $syscall_deny_list = yes ]; then [ -z "${syscall_set[$1]:-}" ]; else [ -n "${syscall_set[$1]:-}" ]; fi
}

# unit_sandbox: the unit-sandbox-exec options for the unit's seccomp settings. Settings it cannot imitate
# make the test fail rather than run with less than the unit says.
unit_sandbox=()
read_unit_sandbox() {
        local value names
        read_syscall_filter
        if [ -n "$(unit_get SystemCallFilter)" ]; then
                names=$(printf '%s\n' "${!syscall_set[@]}" | sort | paste -sd,)
                [ $syscall_deny_list = yes ] && names="~$names"
                unit_sandbox+=(--system-call-filter="$names")
                # An allow list refuses what systemd knows; newer calls fail ENOSYS (systemd >= 247).
                if [ $syscall_deny_list = no ]; then
                        syscalls_update known_set + @known
                        names=$(printf '%s\n' "${!known_set[@]}" | sort | paste -sd,)
                        unit_sandbox+=(--known-system-calls="$names")
                fi
        fi
        value=$(unit_get SystemCallErrorNumber)
        [ -n "$value" ] && unit_sandbox+=(--system-call-error-number="$value")
        value=$(unit_get SystemCallArchitectures)
        [ -n "$value" ] && unit_sandbox+=(--system-call-architectures="$value")
        [ "$(unit_get_all RestrictAddressFamilies | wc -l)" -le 1 ] ||
                fail "several RestrictAddressFamilies= lines are not imitated"
        value=$(unit_get RestrictAddressFamilies)
        [ -n "$value" ] && unit_sandbox+=(--restrict-address-families="${value// /,}")
        unit_yes MemoryDenyWriteExecute && unit_sandbox+=(--memory-deny-write-execute)
        case "$(unit_get RestrictNamespaces)" in
        yes | true | on | 1) unit_sandbox+=(--restrict-namespaces) ;;
        "" | no | false | off | 0) ;;
        *) fail "RestrictNamespaces=$(unit_get RestrictNamespaces): only yes or no is imitated" ;;
        esac
        unit_yes RestrictRealtime && unit_sandbox+=(--restrict-realtime)
        unit_yes LockPersonality && unit_sandbox+=(--lock-personality)
        return 0
}

# In a sanitizer build, no LeakSanitizer under SystemCallFilter=: it needs ptrace(), which is refused.
no_leak_check=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
as_unit_user() { # the unit's user and group, no new privileges, as the daemon starts
        env "$no_leak_check" setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs "$@"
}

# The unit's way: ExecStart= as User=/Group= with the unit's capabilities, umask and state directory.
start_as_unit() { # $1: state directory base, then more tpacceld options; sets unit_state_dir and unit_pid
        local exec user_unit group ambient bounding umask_unit state_name state_dir args=() base=$1
        shift
        exec=$(unit_get ExecStart)
        user_unit=$(unit_get User)
        group=$(unit_get Group)
        ambient=$(unit_get AmbientCapabilities)
        bounding=$(unit_get CapabilityBoundingSet)
        umask_unit=$(unit_get UMask)
        state_name=$(unit_get StateDirectory)
        [ "$user_unit" = "$user" ] || fail "the unit runs as '$user_unit', the sysusers file makes '$user'"
        [ "$(unit_get NoNewPrivileges)" = yes ] && args+=(--no-new-privs)
        [ -n "$ambient" ] && args+=(--inh-caps="$(caps_for_setpriv "$ambient")" \
                --ambient-caps="$(caps_for_setpriv "$ambient")")
        [ -n "$bounding" ] && args+=(--bounding-set="-all,$(caps_for_setpriv "$bounding")")
        # StateDirectory=: systemd makes /var/lib/NAME owned by User=, mode 0755, and passes it.
        state_dir=$base/$state_name
        install -d -m 755 -o "$user_unit" -g "$group" "$state_dir"
        read -ra exec <<<"$exec"
        # CPUSchedulingPolicy=/CPUSchedulingPriority=: set by systemd as root, before the uid switch
        # and the seccomp filters (RestrictRealtime= refuses only the daemon's own later changes).
        local sched=() policy_unit
        policy_unit=$(unit_get CPUSchedulingPolicy)
        case "$policy_unit" in
        "") ;;
        rr | fifo) sched=(chrt "--$policy_unit" "$(unit_get CPUSchedulingPriority)") ;;
        *) fail "CPUSchedulingPolicy=$policy_unit is not imitated" ;;
        esac
        # Then the unit's seccomp settings, after the uid switch, last before exec, as systemd does.
        (
                umask "${umask_unit:-0022}"
                exec env STATE_DIRECTORY="$state_dir" "$no_leak_check" "${sched[@]}" \
                        setpriv --reuid="$user_unit" --regid="$group" --init-groups "${args[@]}" \
                        "$sandbox_exec" "${unit_sandbox[@]}" "$tpacceld" "${exec[@]:1}" --backend=sim "$@"
        ) >"$tmp/daemon-unit.log" 2>&1 &
        unit_pid=$!
        pids+=("$unit_pid")
        wait_for_name --system $name "$unit_pid" || fail "tpacceld did not take $name"
        unit_state_dir=$state_dir
        # The poll keeps its period under CPU load only with the unit's scheduling (tpacceld(8), PRIORITY).
        if [ -n "$policy_unit" ]; then
                local out
                out=$(chrt -p "$unit_pid")
                grep -q "policy: SCHED_${policy_unit^^}" <<<"$out" &&
                        grep -q "priority: $(unit_get CPUSchedulingPriority)\$" <<<"$out" ||
                        fail "the daemon does not run with the unit's scheduling: $out"
        fi
}
