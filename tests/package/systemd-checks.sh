#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The checks of test-systemd.sh, run INSIDE its container (systemd as PID 1, the real dbus-daemon,
# polkitd and journald) as the unit tpaccel-systemd-test.service. Not a test of its own: it installs
# packages into the root it runs in. Reads the .debs and the probe from /tpaccel-test, writes its exit
# status to /tpaccel-out/rc and, on failure, the journal to /tpaccel-out/journal. One line per check
# ("ok N - what"); a failure names what failed and ends the run. Every wait has a timeout.
set -uo pipefail

in=/tpaccel-test
out=/tpaccel-out
NAME=org.thinkpad.Accelerometer
UNIT=tpacceld.service
TPACCELD=/usr/libexec/tpacceld
STATE=/var/lib/tpaccel/state
DROPIN_DIR=/etc/systemd/system/tpacceld.service.d
IDLE_EXIT_SEC=30 # the unit's --exit-idle-time
WATCHDOG_SEC=30  # the unit's WatchdogSec=
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0 DEBIAN_FRONTEND=noninteractive

checks=0
ok() {
        checks=$((checks + 1))
        echo "ok $checks - $*"
}
fail() {
        echo "FAIL: $*"
        exit 1
}
finish() {
        local rc=$?
        [ $rc -eq 0 ] || journalctl -b --no-pager -o short-monotonic >"$out/journal" 2>&1
        echo $rc >"$out/rc"
}
trap finish EXIT
. "$in/shell-helpers.sh" # wait_for, as_nobody, float_eq
prop() { systemctl show -P "$1" "$2"; }
main_pid() { prop MainPID $UNIT; }
bus_owner_pid() {
        busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetConnectionUnixProcessID \
                s $NAME 2>/dev/null | awk '{print $2}'
}
journal_of() { # UNIT [journalctl options]: this boot's messages of UNIT, message text only
        local unit=$1
        shift
        journalctl -b --no-pager -o cat -u "$unit" "$@"
}
invocation_journal() { # this run of tpacceld.service only (its InvocationID)
        journalctl -b --no-pager -o cat _SYSTEMD_INVOCATION_ID="$(prop InvocationID $UNIT)"
}
tilt_step() { tpaccelctl get tilt-step; }
# PATTERN: does the input match? It reads all of it first: `producer | grep -q` under pipefail fails when
# grep's early exit kills the producer with SIGPIPE.
matches() {
        local input
        input=$(cat)
        grep -q -- "$1" <<<"$input"
}
bit_set() { # HEX BIT
        (((0x$1 >> $2) & 1))
}
CAP_SYS_RAWIO=17

echo "in the container: $(systemctl --version | head -1), PID 1 is $(cat /proc/1/comm)"
[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd"
# The system bus is up before the packages are unpacked: it reads their bus policy as they land.
wait_for 30 busctl status >/dev/null 2>&1 || fail "the system bus did not come up"
ok "systemd is PID 1, the system bus runs ($(prop MainPID dbus.service) is dbus-daemon)"

# --- Install as a user would -------------------------------------------------------------------------
# The container is the host's root: what the host has of tpaccel goes first (in the overlay only).
if dpkg-query -W -f='${Status}\n' tpaccel tpaccel-tray 2>/dev/null | matches ' installed'; then
        echo "note: the host has tpaccel installed; purged inside the container first"
        apt-get purge -y -q tpaccel tpaccel-tray >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "purging the host's tpaccel"; }
fi
if getent passwd tpaccel >/dev/null; then
        echo "note: the host has a tpaccel user; removed inside the container first"
        userdel tpaccel && { ! getent group tpaccel >/dev/null || groupdel tpaccel; } || fail "cannot remove the host's tpaccel user"
fi
(cd "$in/debs" && apt-get install -y -q --no-install-recommends ./tpaccel_*.deb ./tpaccel-tray_*.deb) \
        >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt-get install ./tpaccel_*.deb ./tpaccel-tray_*.deb"; }
ok "apt-get install ./tpaccel_*.deb ./tpaccel-tray_*.deb"
getent passwd tpaccel >/dev/null || fail "the package made no tpaccel user"
tpaccel_uid=$(id -u tpaccel)
# dbus-daemon reloads its configuration when the package's bus policy is unpacked: the user it names must
# exist by then (made in the preinst), or the policy holds for nobody until the next reload.
journal_of dbus.service >/tmp/dbus.journal
if grep 'Unknown username "tpaccel"' /tmp/dbus.journal; then
        fail "dbus-daemon read the bus policy before the tpaccel user existed (above)"
fi
ok "the tpaccel user (uid $tpaccel_uid) existed when dbus-daemon read the bus policy (no 'Unknown username')"
[ "$(prop LoadState $UNIT)/$(prop ActiveState $UNIT)/$(prop UnitFileState $UNIT)" = loaded/inactive/disabled ] ||
        fail "$UNIT after the install: $(prop LoadState $UNIT)/$(prop ActiveState $UNIT)/$(prop UnitFileState $UNIT), not loaded/inactive/disabled"
ok "$UNIT is installed, not enabled (bus-activated only: its [Install] has only an Alias=), not started"

# The test's drop-in: the probe as ExecStartPre=, in the very sandbox systemd builds for ExecStart=.
mkdir -p "$DROPIN_DIR"
cat >"$DROPIN_DIR/90-test-sandbox-probe.conf" <<EOF
# tpaccel's test-systemd.sh (removed before the purge)
[Service]
ExecStartPre=/usr/bin/python3 $in/sandbox-probe.py
EOF
# The device the probe opens: world-accessible here, so that only the device cgroup can refuse it.
chmod 0666 /dev/net/tun || fail "no /dev/net/tun in the container"
systemctl daemon-reload

# --- D-Bus activation handed to the unit ---------------------------------------------------------------
as_nobody tpaccelctl status >/tmp/status 2>&1 || { cat /tmp/status; fail "tpaccelctl status as nobody"; }
[ "$(prop ActiveState $UNIT)" = active ] || fail "$UNIT is $(prop ActiveState $UNIT) after a client's call"
pid=$(main_pid)
[ "$(bus_owner_pid)" = "$pid" ] || fail "the owner of $NAME (pid $(bus_owner_pid)) is not $UNIT's MainPID $pid"
journal_of dbus.service | matches "Activating via systemd: service name='$NAME' unit='$UNIT'" ||
        fail "dbus-daemon did not hand the activation to systemd (no 'Activating via systemd' for $UNIT)"
tr '\0' ' ' <"/proc/$pid/cmdline" | matches '--user=' &&
        fail "tpacceld runs with the activation file's Exec= (--user=), not the unit's ExecStart="
ok "a call as nobody activated $NAME through $UNIT (SystemdService=), MainPID $pid owns the name"
grep -q 'DMI' /tmp/status || fail "status does not say why there is no accelerometer"
[ "$(tpaccelctl get has-accelerometer)" = no ] || fail "has-accelerometer is not 'no' without the emulator"

# --- The sandbox as systemd builds it ------------------------------------------------------------------
status_field() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$pid/status" | tr -s '\t ' ' '; }
[ "$(status_field Uid)" = "$tpaccel_uid $tpaccel_uid $tpaccel_uid $tpaccel_uid" ] ||
        fail "tpacceld runs as uid $(status_field Uid), not tpaccel ($tpaccel_uid)"
[ "$(status_field NoNewPrivs)" = 1 ] || fail "tpacceld: NoNewPrivs is $(status_field NoNewPrivs)"
[ "$(status_field Seccomp)" = 2 ] || fail "tpacceld: Seccomp is $(status_field Seccomp), not 2 (filter)"
[ "$(status_field CapEff)" = 0000000000000000 ] && [ "$(status_field CapAmb)" = 0000000000000000 ] ||
        fail "tpacceld kept capabilities: CapEff $(status_field CapEff), CapAmb $(status_field CapAmb)"
[ "$(status_field CapBnd)" = 0000000000020000 ] ||
        fail "tpacceld's bounding set is $(status_field CapBnd), not CAP_SYS_RAWIO only (CapabilityBoundingSet=)"
[ "$(sed -n 's/^0:://p' "/proc/$pid/cgroup")" = /system.slice/$UNIT ] ||
        fail "tpacceld is in cgroup $(cat "/proc/$pid/cgroup"), not /system.slice/$UNIT"
ok "running tpacceld: uid tpaccel, NoNewPrivs 1, Seccomp 2, no capability left, bounding set CAP_SYS_RAWIO, cgroup of $UNIT"

# Its mount namespace: its own, / read-only (ProtectSystem=strict), the state directory writable,
# private /tmp, no /home (ProtectHome=yes).
[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/1/ns/mnt)" ] || fail "tpacceld shares PID 1's mount namespace"
mount_opts() { awk -v m="$1" '$5 == m { o = $6 } END { print o }' "/proc/$pid/mountinfo"; }
[[ "$(mount_opts /)" == ro* ]] || fail "/ is not read-only for tpacceld (ProtectSystem=strict): $(mount_opts /)"
[[ "$(mount_opts /var/lib/tpaccel)" == rw* ]] || fail "/var/lib/tpaccel is not a writable mount for tpacceld: '$(mount_opts /var/lib/tpaccel)'"
[ -n "$(mount_opts /tmp)" ] || fail "tpacceld has no private /tmp (PrivateTmp=yes)"
[ -n "$(mount_opts /home)" ] || fail "tpacceld sees the real /home (ProtectHome=yes)"
ok "mount namespace of its own: / ro, /var/lib/tpaccel rw, private /tmp, /home covered (mountinfo)"

# What the unit's processes can do, from the probe run as ExecStartPre=, against the same user outside.
invocation_journal | sed -n 's/^sandbox-probe: //p' >/tmp/probe-in
[ -s /tmp/probe-in ] || fail "no output of the sandbox probe (ExecStartPre=) in the journal"
setpriv --reuid=tpaccel --regid=tpaccel --init-groups --reset-env env STATE_DIRECTORY=/var/lib/tpaccel \
        python3 "$in/sandbox-probe.py" | sed -n 's/^sandbox-probe: //p' >/tmp/probe-out
probe() { sed -n "s/^$2=//p" "/tmp/probe-$1"; } # in|out KEY
sandboxed() { # KEY EXPECTED WHAT: the unit answers EXPECTED (|-separated), the same user outside another
        local inside outside
        inside=$(probe in "$1")
        outside=$(probe out "$1")
        [[ "|$2|" == *"|$inside|"* ]] || fail "$3: $1 answers '$inside' in the unit, not $2"
        [[ "|$2|" != *"|$outside|"* ]] || fail "$3: $1 answers '$outside' outside the unit too: the check proves nothing"
        ok "$3: $1 is $inside in the unit, $outside outside"
}
capeff=$(probe in CapEff) capamb=$(probe in CapAmb)
bit_set "$capamb" $CAP_SYS_RAWIO && bit_set "$capeff" $CAP_SYS_RAWIO ||
        fail "AmbientCapabilities=: the unit's process starts without CAP_SYS_RAWIO (CapEff $capeff, CapAmb $capamb)"
ok "AmbientCapabilities=: the unit's process starts with CAP_SYS_RAWIO (CapEff $capeff, CapAmb $capamb)"
[ "$(probe in CapBnd)" = 0000000000020000 ] || fail "CapabilityBoundingSet=: $(probe in CapBnd)"
[ "$(probe in NoNewPrivs)" = 1 ] && [ "$(probe in Seccomp)" = 2 ] ||
        fail "the unit's process: NoNewPrivs $(probe in NoNewPrivs), Seccomp $(probe in Seccomp)"
sandboxed ptrace EPERM "SystemCallFilter= with SystemCallErrorNumber=EPERM"
sandboxed socket_inet EAFNOSUPPORT "RestrictAddressFamilies=AF_UNIX"
sandboxed open_tun EPERM "DevicePolicy=closed (device cgroup)"
sandboxed write_etc EROFS "ProtectSystem=strict"
[ "$(probe in write_state_dir)" = ok ] || fail "StateDirectory= is not writable in the unit: $(probe in write_state_dir)"
sandboxed mmap_wx "EACCES|EPERM" "MemoryDenyWriteExecute=yes"
sandboxed unshare_user EPERM "RestrictNamespaces=yes"
sandboxed personality EPERM "LockPersonality=yes"

# --- systemd-analyze security on the running unit (to a file: no pipe into grep -q) --------------------
systemd-analyze security --no-pager $UNIT >/tmp/security 2>&1 || true
exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' /tmp/security)
[ -n "$exposure" ] || { cat /tmp/security; fail "systemd-analyze security printed no exposure level"; }
python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 2.5)' "$exposure" ||
        { cat /tmp/security; fail "systemd-analyze security: exposure $exposure, above 2.5"; }
for setting in PrivateNetwork= NoNewPrivileges= ProtectSystem= "RestrictAddressFamilies=~AF_(INET|INET6)" \
        SystemCallArchitectures= User=/DynamicUser= "SystemCallFilter=~@debug" IPAddressDeny= RestrictRealtime=; do
        grep -qF "✓ $setting" /tmp/security || { cat /tmp/security; fail "systemd-analyze security: $setting is not ✓ (above)"; }
done
grep -q 'DeviceAllow=.*device ACL.* /dev/uinput:rw .*/dev/port:rw' /tmp/security ||
        { grep DeviceAllow= /tmp/security; fail "systemd-analyze security: the device ACL is not the unit's"; }
ok "systemd-analyze security $UNIT: exposure $exposure ($(sed -n 's/.*: [0-9.]* \(.*\)/\1/p' /tmp/security | tail -1))"

# --- polkit through the real polkitd --------------------------------------------------------------------
[ "$(busctl status org.freedesktop.PolicyKit1 2>/dev/null | sed -n 's/^Unit=//p')" = polkit.service ] ||
        fail "org.freedesktop.PolicyKit1 is not served by polkit.service"
before=$(tilt_step)
as_nobody tpaccelctl --no-ask-password set tilt-step 7 >/tmp/refused 2>&1
rc=$?
[ $rc -eq 3 ] || { cat /tmp/refused; fail "nobody's set tilt-step 7 exited $rc, not 3 (refused by polkit)"; }
float_eq "$(tilt_step)" "$before" || fail "a refused call changed tilt-step"
ok "polkitd refuses nobody (exit 3: $(head -1 /tmp/refused))"
tpaccelctl --no-ask-password set tilt-step 7 || fail "root's set tilt-step 7 was refused"
float_eq "$(tilt_step)" 7 || fail "tilt-step is $(tilt_step) after root set 7"
ok "polkitd allows root: tilt-step 7"
[ "$(stat -c %U "$STATE")" = tpaccel ] || fail "$STATE does not belong to tpaccel"

# --- systemctl reload: the daemon has reloaded when it returns -----------------------------------------
# While tpacceld is stopped (SIGSTOP) it cannot reload: the reload job must wait for it, not end when the
# signal is sent.
grep -q '^tilt_step=7$' "$STATE" || fail "$STATE does not hold tilt_step=7: $(cat "$STATE")"
sed -i 's/^tilt_step=7$/tilt_step=10/' "$STATE"
pid=$(main_pid)
unit_active() { [ "$(prop ActiveState $UNIT)" = active ]; }
kill -STOP "$pid"
systemctl reload --no-block $UNIT
sleep 2
during=$(prop ActiveState $UNIT)
kill -CONT "$pid"
[ "$during" = reloading ] ||
        fail "systemctl reload ended ($UNIT $during) while tpacceld was stopped and could not have reloaded"
wait_for 30 unit_active || fail "the reload did not end within 30 s of SIGCONT: $UNIT $(prop ActiveState $UNIT)"
float_eq "$(tilt_step)" 10 || fail "after the reload, tilt-step is $(tilt_step), not 10 from the state file"
ok "systemctl reload waits for tpacceld: 'reloading' while it is stopped, done after SIGCONT (tilt-step 10)"
sed -i 's/^tilt_step=10$/tilt_step=11/' "$STATE"
timeout 30 systemctl reload $UNIT || fail "systemctl reload $UNIT failed"
float_eq "$(tilt_step)" 11 || fail "right after systemctl reload, tilt-step is $(tilt_step), not 11 from the state file"
[ "$(main_pid)" = "$pid" ] || fail "systemctl reload restarted tpacceld"
[ "$(invocation_journal | grep -c 'SIGHUP: reloading the state file')" = 2 ] || fail "not two reloads in tpacceld's journal"
ok "systemctl reload returns once tpacceld has reloaded the state file (tilt-step 11 at once)"

# --- input devices without /dev/uinput: the message names the missing device node --------------------------
[ ! -e /dev/uinput ] || fail "/dev/uinput exists in the container: this check expects it missing"
tpaccelctl --no-ask-password set input-devices yes >/tmp/uinput 2>&1 && fail "set input-devices yes succeeded without /dev/uinput"
grep -q '/dev/uinput' /tmp/uinput || { cat /tmp/uinput; fail "set input-devices yes without /dev/uinput does not name /dev/uinput"; }
grep -qi 'not supported' /tmp/uinput && { cat /tmp/uinput; fail "set input-devices yes says 'not supported', the device node is what is missing"; }
ok "set input-devices yes without /dev/uinput: $(head -1 /tmp/uinput)"

# --- The idle exit, and re-activation with the settings kept ---------------------------------------------
last_call=$SECONDS
unit_inactive() { [ "$(prop ActiveState $UNIT)" = inactive ]; }
wait_for $((IDLE_EXIT_SEC + 60)) unit_inactive ||
        fail "$UNIT did not exit within $((IDLE_EXIT_SEC + 60)) s without calls"
idle=$((SECONDS - last_call))
[ $idle -ge $((IDLE_EXIT_SEC - 1)) ] || fail "$UNIT exited after $idle s, before its idle time of $IDLE_EXIT_SEC s"
[ "$(prop Result $UNIT)" = success ] || fail "$UNIT's result after the idle exit: $(prop Result $UNIT)"
journal_of $UNIT >/tmp/unit.journal
grep -q 'Exiting (signal)' /tmp/unit.journal && fail "the idle exit is logged as 'Exiting (signal)'"
grep -q 'Exiting (idle' /tmp/unit.journal || fail "the idle exit is not logged as such: $(grep -i exiting /tmp/unit.journal)"
ok "idle exit after ~$idle s without calls, unit result success, logged: $(grep 'Exiting (idle' /tmp/unit.journal | tail -1)"
float_eq "$(as_nobody tpaccelctl get tilt-step)" 11 || fail "tilt-step is not 11 after re-activation"
[ "$(prop ActiveState $UNIT)" = active ] && [ "$(main_pid)" != "$pid" ] || fail "$UNIT was not activated again"
ok "re-activated (MainPID $(main_pid)), tilt-step 11 kept"

# --- The emulator polling inside the full sandbox (a test drop-in selects it) --------------------------
timeout 60 systemctl stop $UNIT || fail "systemctl stop $UNIT"
[ "$(prop Result $UNIT)/$(prop ExecMainStatus $UNIT)" = success/0 ] ||
        fail "tpacceld did not exit 0 on SIGTERM in its sandbox: result $(prop Result $UNIT), status $(prop ExecMainStatus $UNIT) (159: SIGSYS)"
ok "systemctl stop: tpacceld exits 0 on SIGTERM in its sandbox"
cat >"$DROPIN_DIR/80-test-emulator.conf" <<EOF
# tpaccel's test-systemd.sh: the EC emulator instead of the backend choice (removed before the purge)
[Service]
ExecStart=
ExecStart=$TPACCELD --system --exit-idle-time=$IDLE_EXIT_SEC --backend=sim
EOF
systemctl daemon-reload
[ "$(as_nobody tpaccelctl get has-accelerometer)" = yes ] || fail "the emulator drop-in: no accelerometer"
samples=$(as_nobody timeout --preserve-status -s INT 3 tpaccelctl monitor --samples 2>&1 | grep -c '  sample  ')
[ "${samples:-0}" -ge 20 ] || fail "tpaccelctl monitor --samples got ${samples:-0} samples in 3 s from the emulator in the sandbox"
pid=$(main_pid)
[ "$(status_field Seccomp)/$(status_field NoNewPrivs)" = 2/1 ] || fail "the emulator's tpacceld is not sandboxed"
ok "the emulator polls inside the sandbox: $samples samples in 3 s (tpaccelctl monitor --samples as nobody)"
tpaccelctl ec read-row 0x13 >/tmp/ec 2>&1 || { cat /tmp/ec; fail "root's ec read-row 0x13 (ReadRow) in the sandbox"; }
as_nobody tpaccelctl --no-ask-password ec read-row 0x13 >/tmp/ec-nobody 2>&1 &&
        fail "nobody got raw EC access: $(cat /tmp/ec-nobody)"
ok "raw EC access (ReadRow) in the sandbox: served to root ($(head -1 /tmp/ec)), refused to nobody"

# --- The watchdog: a stopped daemon is killed ------------------------------------------------------------
[ "$(prop WatchdogUSec $UNIT)" = ${WATCHDOG_SEC}s ] || fail "$UNIT's WatchdogSec is $(prop WatchdogUSec $UNIT)"
kill -STOP "$pid"
stopped=$SECONDS
wait_for $((WATCHDOG_SEC + 60)) test ! -d "/proc/$pid" || { kill -CONT "$pid"; fail "systemd did not end tpacceld (SIGSTOPped) within $((WATCHDOG_SEC + 60)) s"; }
[ "$(prop Result $UNIT)" = watchdog ] || fail "$UNIT's result is $(prop Result $UNIT), not watchdog"
ok "the watchdog: the SIGSTOPped tpacceld was ended after $((SECONDS - stopped)) s (WatchdogSec=${WATCHDOG_SEC}s), result watchdog"
[ "$(as_nobody tpaccelctl get has-accelerometer)" = yes ] && [ "$(prop ActiveState $UNIT)" = active ] ||
        fail "$UNIT was not activated again after the watchdog"
ok "activated again after the watchdog (MainPID $(main_pid))"

# --- hdapsd's units with tpaccel's drop-ins ------------------------------------------------------------
for unit in hdapsd.service hdapsd@sda.service; do
        prop DropInPaths $unit | matches "/${unit/sda/}.d/tpaccel.conf" ||
                fail "$unit does not load tpaccel's drop-in: $(prop DropInPaths $unit)"
        systemd-analyze security --no-pager $unit >/tmp/security 2>&1 || true
        grep -q '✓ ProtectKernelModules=' /tmp/security || fail "$unit: the drop-in's ProtectKernelModules= is not applied"
done
systemctl stop $UNIT
timeout 60 systemctl start hdapsd@sda.service || fail "systemctl start hdapsd@sda.service failed"
[ "$(prop ActiveState $UNIT)" = active ] || fail "starting hdapsd@sda did not start $UNIT (the drop-in's Wants=)"
[ "$(prop ActiveState hdapsd@sda.service)" = inactive ] ||
        fail "hdapsd@sda runs ($(prop ActiveState hdapsd@sda.service)) without tpacceld's input devices"
journal_of hdapsd@sda.service | matches 'hdapsd not started' ||
        fail "hdapsd@sda's journal does not say why it did not start (ExecCondition=)"
ok "hdapsd@sda.service: tpaccel's drop-in applied, Wants= started $UNIT, ExecCondition= skipped it: $(journal_of hdapsd@sda.service | grep 'hdapsd not started' | tail -1)"

# --- Purge ---------------------------------------------------------------------------------------------
rm -rf "$DROPIN_DIR"
systemctl daemon-reload
tpacceld_pids() { # what runs the daemon's binary, deleted or not
        local exe
        for exe in /proc/[0-9]*/exe; do
                [[ "$(readlink "$exe" 2>/dev/null)" == "$TPACCELD"* ]] && echo "${exe//[^0-9]/}"
        done
}
ping_tpacceld() { busctl call $NAME /org/thinkpad/Accelerometer org.freedesktop.DBus.Peer Ping >/dev/null 2>&1; }
# A client that keeps calling, as a running tpaccel-tray or a script does: each call between the
# prerm's stop and the removal of the unit would activate tpacceld again, and it would run on with its
# unit gone. First the prerm alone, so that the window stays open (in a purge dpkg removes the files
# right after it): tpacceld must stay stopped while the calls go on. Then the postinst's abort-remove
# (dpkg's way back from a failed removal): activation works again.
(while :; do ping_tpacceld; sleep 0.02; done) &
caller=$!
ping_tpacceld && [ -n "$(tpacceld_pids)" ] || fail "tpacceld is not running before the prerm"
/var/lib/dpkg/info/tpaccel.prerm remove || fail "tpaccel.prerm remove failed"
sleep 2 # about 50 calls
[ -z "$(tpacceld_pids)" ] ||
        fail "a call activated tpacceld again after the prerm stopped it (pid $(tpacceld_pids), $UNIT $(prop ActiveState $UNIT))"
/var/lib/dpkg/info/tpaccel.postinst abort-remove || fail "tpaccel.postinst abort-remove failed"
wait_for 30 ping_tpacceld || fail "no activation after the postinst's abort-remove"
ok "the prerm stops tpacceld for good while a client calls on (activation refused); abort-remove brings activation back"
# The purge, with the client still calling.
apt-get purge -y -q tpaccel tpaccel-tray >/tmp/purge.log 2>&1 || { cat /tmp/purge.log; fail "apt-get purge"; }
kill $caller
wait $caller 2>/dev/null
[ -z "$(tpacceld_pids)" ] || fail "$TPACCELD still runs after purge (pid $(tpacceld_pids), $UNIT $(prop ActiveState $UNIT))"
[ "$(prop ActiveState $UNIT)" = inactive ] || fail "$UNIT still $(prop ActiveState $UNIT) after purge"
[ "$(prop LoadState $UNIT)" = not-found ] || fail "$UNIT still $(prop LoadState $UNIT) after purge"
for path in /var/lib/tpaccel /run/tpaccel $TPACCELD /usr/bin/tpaccelctl /usr/lib/systemd/system/hdapsd@.service.d/tpaccel.conf \
        /usr/share/dbus-1/system.d/org.thinkpad.Accelerometer.conf; do
        [ ! -e "$path" ] || fail "purge left $path"
done
busctl status $NAME >/dev/null 2>&1 && fail "$NAME is still on the bus after purge"
ok "apt-get purge with a client calling throughout: $UNIT stopped and gone, no $TPACCELD left, state and files removed"
echo "all $checks checks passed"
