# SPDX-License-Identifier: GPL-2.0-or-later
"""A headless sway session of its own (WLR_BACKENDS=headless, the pixman renderer, no input devices, a
private XDG_RUNTIME_DIR) with waybar as its StatusNotifierItem host and mako as its notification
daemon, for the Wayland tray tests (tests/wayland), the power benchmark (bench/power/power.py) and the
screenshots (docs/screenshots/make-wayland-screenshots.py).

sway refuses to run as root: as root it runs as nobody, in a runtime directory nobody owns (root's
clients connect to it all the same). Everything is started by pid and stopped by pid."""
import glob
import json
import os
import pwd
import shutil
import subprocess
import tempfile

from daemontest import wait_until  # tests/lib

WIDTH, HEIGHT, BAR_HEIGHT = 1280, 800, 28
WATCHER, NOTIFICATIONS = "org.kde.StatusNotifierWatcher", "org.freedesktop.Notifications"
PROGRAMS = ("sway", "swaymsg", "waybar", "mako", "makoctl", "grim")
WAYBAR_CONFIG = {"layer": "top", "position": "top", "height": BAR_HEIGHT, "modules-left": ["sway/workspaces"],
                 "modules-right": ["tray"], "tray": {"icon-size": 22, "spacing": 8}}


def _owned(env, name):
    """name has an owner on env's session bus."""
    return subprocess.run(["busctl", "--address=" + env["DBUS_SESSION_BUS_ADDRESS"], "status", name],
                          capture_output=True, timeout=10).returncode == 0


def missing_programs():
    return [p for p in PROGRAMS if not shutil.which(p)]


class SwaySession:
    """sway on a display of its own. env: the variables a Wayland client of this session needs
    (WAYLAND_DISPLAY, XDG_RUNTIME_DIR, SWAYSOCK; no DISPLAY), to merge into a client's environment.
    spawn(argv, log_name, env) starts a process that the caller stops (its fixtures' spawn)."""

    def __init__(self, spawn, base_env, logdir):
        self.spawn, self.logdir = spawn, logdir
        self.runtime = tempfile.mkdtemp(prefix="tpaccel-sway-")
        config = os.path.join(self.runtime, "sway.conf")
        with open(config, "w") as f:
            f.write(f"output HEADLESS-1 resolution {WIDTH}x{HEIGHT}\n"
                    "default_border normal\nfocus_on_window_activation focus\n")
        argv = ["sway", "-c", config]
        if os.getuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.runtime, nobody.pw_uid, nobody.pw_gid)
            os.chown(config, nobody.pw_uid, nobody.pw_gid)
            argv = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"] + argv
        env = {k: v for k, v in base_env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK")}
        env.update(XDG_RUNTIME_DIR=self.runtime, HOME=self.runtime, WLR_BACKENDS="headless",
                   WLR_LIBINPUT_NO_DEVICES="1", WLR_RENDERER="pixman")
        self.proc = spawn(argv, "sway.log", env)
        sock = wait_until(lambda: self.proc.poll() is None and glob.glob(os.path.join(self.runtime, "sway-ipc.*.sock")),
                          timeout=15, what="sway's IPC socket")
        display = wait_until(lambda: [os.path.basename(p) for p in glob.glob(os.path.join(self.runtime, "wayland-*"))
                                      if not p.endswith(".lock")], timeout=15, what="sway's Wayland socket")
        self.env = {"XDG_RUNTIME_DIR": self.runtime, "WAYLAND_DISPLAY": display[0], "SWAYSOCK": sock[0],
                    "GDK_BACKEND": "wayland"}

    def client_env(self, env):
        """env for a client of this session: no X display, this Wayland display."""
        env = {k: v for k, v in env.items() if k != "DISPLAY"}
        env.update(self.env)
        return env

    def start_waybar(self, env):
        config = os.path.join(self.logdir, "waybar.json")
        with open(config, "w") as f:
            json.dump(WAYBAR_CONFIG, f)
        proc = self.spawn(["waybar", "-c", config], "waybar.log", self.client_env(env))
        wait_until(lambda: proc.poll() is not None or _owned(env, WATCHER), timeout=15, what="waybar's StatusNotifierWatcher")
        if proc.poll() is not None:
            raise RuntimeError("waybar exited")
        return proc

    def start_mako(self, env):
        proc = self.spawn(["mako"], "mako.log", self.client_env(env))
        wait_until(lambda: proc.poll() is not None or _owned(env, NOTIFICATIONS), timeout=15, what="mako on the bus")
        if proc.poll() is not None:
            raise RuntimeError("mako exited")
        return proc

    def swaymsg(self, *args):
        res = subprocess.run(["swaymsg"] + list(args), capture_output=True, text=True, timeout=10,
                             env=dict(os.environ, **self.env))
        if res.returncode != 0:
            raise RuntimeError(f"swaymsg {' '.join(args)}: {res.stdout}{res.stderr}")
        return res.stdout

    def nodes(self, node=None):
        """Every node of sway's tree (outputs, workspaces, windows), depth first."""
        node = node or json.loads(self.swaymsg("-r", "-t", "get_tree"))
        yield node
        for child in node.get("nodes", []) + node.get("floating_nodes", []):
            yield from self.nodes(child)

    def windows(self, app_id):
        return [n for n in self.nodes() if n.get("app_id") == app_id]

    def screenshot(self, path, geometry=None):
        argv = ["grim"] + (["-g", geometry] if geometry else []) + [path]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=dict(os.environ, **self.env))
        if res.returncode != 0:
            raise RuntimeError(f"grim: {res.stderr}")
        return path

    def stop(self):
        shutil.rmtree(self.runtime, ignore_errors=True)
