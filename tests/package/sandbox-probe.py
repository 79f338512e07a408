#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a process started from tpacceld.service can do, one "sandbox-probe: KEY=ANSWER" line each.

test-systemd.sh runs it twice inside its container: as ExecStartPre= of the installed tpacceld.service
(a test drop-in, so systemd builds the very sandbox it builds for ExecStart=: User=, the capabilities,
NoNewPrivileges=, the seccomp filters, the mount namespace, the device cgroup) and, as the control, as
the same user outside any unit. Each answer is an errno name, "ok", or a /proc/self/status value.
Never fails itself: the test decides what each answer means."""

import ctypes
import errno
import mmap
import os
import socket

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
PER_LINUX32 = 0x0008
PTRACE_CONT = 7


def answer(func):
    try:
        func()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def libc_call(name, *args):
    def call():
        if getattr(libc, name)(*args) < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))

    return call


def open_close(path, flags):
    def call():
        os.close(os.open(path, flags))

    return call


def write_file(path):
    def call():
        with open(path, "w") as f:
            f.write("probe\n")
        os.unlink(path)

    return call


def status():
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def main():
    s = status()
    results = {key: " ".join(s.get(key, "-").split()) for key in
               ("Uid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")}
    results["mntns"] = os.readlink("/proc/self/ns/mnt")
    # SystemCallFilter=@system-service @raw-io refuses ptrace (@debug) with SystemCallErrorNumber=EPERM;
    # outside (nspawn's own filter lets it through) continuing oneself, never traced, is ESRCH.
    results["ptrace"] = answer(libc_call("ptrace", PTRACE_CONT, os.getpid(), None, None))
    # RestrictAddressFamilies=AF_UNIX
    results["socket_inet"] = answer(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close())
    # DevicePolicy=closed: /dev/net/tun (crw-rw-rw-) is in no DeviceAllow=, the device cgroup refuses it.
    results["open_tun"] = answer(open_close("/dev/net/tun", os.O_RDWR))
    # ProtectSystem=strict: /etc is read-only; the unit's StateDirectory= is writable.
    results["write_etc"] = answer(write_file("/etc/tpaccel-sandbox-probe"))
    state_dir = os.environ.get("STATE_DIRECTORY", "/var/lib/tpaccel")
    results["write_state_dir"] = answer(write_file(os.path.join(state_dir, "sandbox-probe")))
    # MemoryDenyWriteExecute=yes
    results["mmap_wx"] = answer(
        lambda: mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC).close())
    # RestrictNamespaces=yes (a user namespace needs no capability: outside, it is made)
    results["unshare_user"] = answer(libc_call("unshare", CLONE_NEWUSER))
    # LockPersonality=yes: a change of personality is refused (the last check: outside, it changes it).
    results["personality"] = answer(libc_call("personality", PER_LINUX32))
    for key, value in results.items():
        print(f"sandbox-probe: {key}={value}", flush=True)


if __name__ == "__main__":
    main()
