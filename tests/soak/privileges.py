#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Least privilege, proved on the running daemon (emulator backend, private bus). Needs root.
  1. started as root: after startup no capability in any set (CapEff/CapPrm/CapInh/CapAmb/CapBnd all 0),
     no_new_privs set;
  2. started as root with --user=tpaccel (the user is created from data/tpaccel.sysusers with
     systemd-sysusers if it does not exist, and removed again afterwards): uid, gid and groups are the
     user's, no capability, the state directory was handed over and a configuration call persists;
  3. config calls under strace -f (attached after startup): the daemon opens nothing but its state file
     (and its temporary file and directory), creates no socket, executes nothing, touches no port
     permission (ioperm/iopl) and changes no credentials;
  4. systemd-analyze security --offline=true on the rendered unit: exposure <= 2.0.
Prints `name: value unit` lines.
  privileges.py TPACCELD"""

import fcntl
import os
import pwd
import re
import subprocess
import sys
import tempfile
import time

import soaklib

USER = 'tpaccel'
EXPOSURE_MAX = 2.0
TOP_SRCDIR = os.environ.get('TOP_SRCDIR', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
CAP_FIELDS = ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')
STRACE_SYSCALLS = 'trace=%file,%network,%process,%creds,ioperm,iopl'

problems = []


def check(cond, message):
    if not cond:
        problems.append(message)
    return cond


def caps_of(pid):
    st = soaklib.proc_status(pid)
    return {k: int(st[k], 16) for k in CAP_FIELDS}, st


def start(bus, state_dir, extra=()):
    log_path = os.path.join(state_dir, 'daemon.log')
    d = soaklib.start_daemon(sys.argv[1], bus, state_dir, log_path, extra)
    if not soaklib.wait_for_name(bus.address, d):
        with open(log_path, errors='replace') as f:
            sys.stderr.write(f.read())
        raise SystemExit('tpacceld did not start')
    return d


def as_root_without_user(bus):
    state_dir = tempfile.mkdtemp(prefix='tpaccel-priv-')
    d = start(bus, state_dir)
    try:
        caps, st = caps_of(d.pid)
        for k, v in caps.items():
            print('root_%s: %#x mask' % (k, v))
            check(v == 0, 'started as root: %s is %#x, not 0' % (k, v))
        print('root_NoNewPrivs: %s flag' % st['NoNewPrivs'])
        check(st['NoNewPrivs'] == '1', 'started as root: no_new_privs is not set')
        strace_config_calls(bus, d, state_dir)
    finally:
        soaklib.stop_process(d)
        subprocess.run(['rm', '-rf', state_dir], check=False)


def strace_config_calls(bus, d, state_dir):
    out = os.path.join(tempfile.mkdtemp(prefix='tpaccel-strace-'), 'trace')
    tracer = subprocess.Popen(['strace', '-f', '-qq', '-e', STRACE_SYSCALLS, '-o', out, '-p', str(d.pid)],
                              stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # strace attaches to every thread
    calls = [('SetFilterOrder', 'u', '3'), ('SetOversamplingRatio', 'u', '2'), ('SetInvert', 'b', 'true'),
             ('SetSamplingRate', 'u', '100'), ('SetTiltStep', 'd', '2'), ('SetShockSensitivity', 'd', '2'),
             ('SetFakeDataMode', 'b', 'false'), ('Calibrate', '', None), ('Claim', '', None),
             ('Release', '', None), ('SetFilterOrder', 'u', '0'), ('SetSamplingRate', 'u', '5000')]
    answered = 0
    for method, sig, value in calls:
        args = [method] + ([sig, value] if value is not None else [])
        r = soaklib.busctl(bus.address, 'call', soaklib.NAME, soaklib.PATH, soaklib.IFACE, *args)
        # An error reply from the daemon is an answer (the last two calls are out of range on purpose).
        if r.returncode == 0 or (r.stderr.startswith('Call failed:') and 'timed out' not in r.stderr):
            answered += 1
        else:
            print('# %s: %s' % (method, r.stderr.strip()))
    time.sleep(0.5)
    tracer.terminate()
    tracer.wait()
    with open(out) as f:
        trace = f.read()
    subprocess.run(['rm', '-rf', os.path.dirname(out)], check=False)
    opened = set(re.findall(r'open(?:at)?\((?:AT_FDCWD|\d+), "([^"]*)"', trace))
    # sd-bus reads the boot id (read-only) for the claims' peer tracking.
    # The state file is written through a new temp file with a random name, opened relative to the
    # state directory (openat(dirfd, ".state.HEX.tmp")).
    temp_files = {p for p in opened if re.fullmatch(r'\.state\.[0-9a-f]{16}\.tmp', p)}
    allowed = {os.path.join(state_dir, 'state'), state_dir, '/proc/sys/kernel/random/boot_id'} | temp_files
    unexpected = sorted(p for p in opened if p not in allowed)
    sockets = re.findall(r'\bsocket\(.*', trace)
    forbidden = re.findall(r'\b(ioperm|iopl|execve|setuid|setresuid|setgid|setresgid|capset|ptrace)\(.*', trace)
    print('strace_config_calls: %d calls' % len(calls))
    print('strace_config_calls_answered: %d calls' % answered)
    print('strace_files_opened: %d files' % len(opened))
    print('strace_unexpected_files: %d files' % len(unexpected))
    print('strace_sockets_created: %d sockets' % len(sockets))
    print('strace_forbidden_syscalls: %d calls' % len(forbidden))
    check(answered == len(calls), 'only %d of %d config calls were answered' % (answered, len(calls)))
    check(temp_files, 'strace saw no state file write (is it tracing?)')
    check(not unexpected, 'config calls opened files other than the state file: %s' % unexpected)
    check(not sockets, 'config calls created sockets: %s' % sockets)
    check(not forbidden, 'config calls made forbidden system calls: %s' % forbidden)


def user_exists():
    try:
        pwd.getpwnam(USER)
        return True
    except KeyError:
        return False


def as_tpaccel_user(bus):
    # The tpaccel user is system-wide: made and removed under the lock the other tests that make it
    # (tests/bus/system-test-lib.sh, the package test) hold, as scripts/test.sh runs them side by side.
    lock = open('/run/lock/tpaccel-system-tests.lock', 'w')
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        as_tpaccel_user_locked(bus)
    finally:
        lock.close()


def as_tpaccel_user_locked(bus):
    created = False
    if not user_exists():
        r = subprocess.run(['systemd-sysusers', os.path.join(TOP_SRCDIR, 'data', 'tpaccel.sysusers')],
                           capture_output=True, text=True)
        if not check(r.returncode == 0 and user_exists(), 'systemd-sysusers did not create %s: %s' %
                     (USER, r.stderr.strip())):
            return
        created = True
    pw = pwd.getpwnam(USER)
    state_dir = tempfile.mkdtemp(prefix='tpaccel-priv-user-')
    os.chmod(state_dir, 0o755)
    d = None
    try:
        d = start(bus, state_dir, ['--user=' + USER])
        caps, st = caps_of(d.pid)
        uids, gids, groups = st['Uid'].split(), st['Gid'].split(), st['Groups'].split()
        print('user_uid: %s uid' % uids[0])
        print('user_supplementary_groups: %d groups' % len(groups))
        check(all(int(u) == pw.pw_uid for u in uids), 'with --user: uids are %s, not %d' % (uids, pw.pw_uid))
        check(all(int(g) == pw.pw_gid for g in gids), 'with --user: gids are %s, not %d' % (gids, pw.pw_gid))
        check(not groups, 'with --user: supplementary groups %s remain' % groups)
        for k, v in caps.items():
            print('user_%s: %#x mask' % (k, v))
            check(v == 0, 'with --user: %s is %#x, not 0' % (k, v))
        check(st['NoNewPrivs'] == '1', 'with --user: no_new_privs is not set')
        check(os.stat(state_dir).st_uid == pw.pw_uid, 'with --user: the state directory was not handed over')
        # Our uid is the daemon's now only as the tpaccel user: call as that user (no polkit on --session).
        r = subprocess.run(['setpriv', '--reuid=%d' % pw.pw_uid, '--regid=%d' % pw.pw_gid, '--clear-groups',
                            'busctl', '--address=' + bus.address, 'call', soaklib.NAME, soaklib.PATH,
                            soaklib.IFACE, 'SetFilterOrder', 'u', '4'], capture_output=True, text=True)
        check(r.returncode == 0, 'with --user: SetFilterOrder failed: %s' % r.stderr.strip())
        state = os.path.join(state_dir, 'state')
        ok = os.path.exists(state) and 'filter_order=4' in open(state).read()
        check(ok, 'with --user: the configuration was not persisted')
        print('user_config_persisted: %d bool' % ok)
    finally:
        soaklib.stop_process(d)
        subprocess.run(['rm', '-rf', state_dir], check=False)
        if created:
            subprocess.run(['userdel', USER], capture_output=True)
            subprocess.run(['groupdel', USER], capture_output=True)


def unit_exposure():
    tmp = tempfile.mkdtemp(prefix='tpaccel-unit-')
    unit = os.path.join(tmp, 'tpacceld.service')
    with open(os.path.join(TOP_SRCDIR, 'data', 'tpacceld.service.in')) as f:
        text = f.read().replace('@libexecdir@', '/usr/libexec')
    with open(unit, 'w') as f:
        f.write(text)
    r = subprocess.run(['systemd-analyze', 'security', '--offline=true', '--no-pager', unit],
                       capture_output=True, text=True)
    subprocess.run(['rm', '-rf', tmp], check=False)
    m = re.search(r'Overall exposure level for tpacceld.service: ([\d.]+)', r.stdout)
    if not check(m is not None, 'systemd-analyze security printed no exposure: %s' % r.stderr.strip()):
        return
    exposure = float(m.group(1))
    print('unit_exposure: %.1f score' % exposure)
    check(exposure <= EXPOSURE_MAX, 'unit exposure %.1f is above %.1f' % (exposure, EXPOSURE_MAX))


def main():
    if len(sys.argv) != 2:
        raise SystemExit('usage: privileges.py TPACCELD')
    if os.geteuid() != 0:
        print('privileges: needs root (starts the daemon as root, creates a system user)', file=sys.stderr)
        return 77
    bus = soaklib.Bus()
    try:
        as_root_without_user(bus)
        as_tpaccel_user(bus)
    finally:
        bus.stop()
    unit_exposure()
    for p in problems:
        print('FAIL: ' + p)
    print('privileges: %s' % ('FAILED' if problems else 'passed'))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
