# SPDX-License-Identifier: GPL-2.0-or-later
"""A headless GNOME Shell Wayland session of its own (`gnome-shell --wayland --headless
--virtual-monitor`), with the AppIndicator extension (the StatusNotifierItem host of Debian's GNOME) on
the caller's private bus, for the Wayland tray tests (tests/wayland/test_tray_gnome.py).

Its settings are a key file in its own home (GSETTINGS_BACKEND=keyfile), so that no dconf-service is
started with the caller's home. A small user extension turns on the shell's unsafe mode, without which
org.gnome.Shell.Eval and org.gnome.Shell.Screenshot refuse an unknown caller: the tests drive windows and
read the top bar through them. It comes in the two forms GNOME Shell loads: a script for 43 and 44 (Debian
12), an ES module for 45 and later (Debian 13); each shell loads the one whose versions name it. The
private bus serves as the system bus too: the shell's login-manager proxy needs one that answers (it finds
no logind there and goes on).

The shell has its X server (Xwayland) as a desktop session does, and its clients are offered both displays
(DISPLAY as well as WAYLAND_DISPLAY, no GDK_BACKEND): which one the tray opens is its own choice
(client/tray/tray-backend.h), which the tests check."""
import glob
import json
import os
import shutil
import tempfile
import time

WIDTH, HEIGHT = 1280, 800
APPINDICATOR = "ubuntu-appindicators@ubuntu.com"
SHELL, SHELL_PATH = "org.gnome.Shell", "/org/gnome/Shell"
X11_UNIX = "/tmp/.X11-unix"
# {uuid: (shell versions, extension.js)}: the unsafe-mode extension as a script and as a module.
UNSAFE = {
    "tpaccel-unsafe@tpaccel": (["43", "44"], "function init() {}\n"
                               "function enable() { global.context.unsafe_mode = true; }\nfunction disable() {}\n"),
    "tpaccel-unsafe-esm@tpaccel": ([str(v) for v in range(45, 50)],
                                   "export default class { enable() { global.context.unsafe_mode = true; }\n"
                                   "  disable() {} }\n"),
}


def missing():
    """What this machine lacks for the session: programs and the AppIndicator extension."""
    lacks = [p for p in ("gnome-shell", "Xwayland") if not shutil.which(p)]
    if not os.path.isdir(os.path.join("/usr/share/gnome-shell/extensions", APPINDICATOR)):
        lacks.append("gnome-shell-extension-appindicator")
    return lacks


class GnomeSession:
    """GNOME Shell on a display of its own, on bus (tests/lib/daemontest.py's Bus: call, name_owner), with
    the AppIndicator extension enabled unless appindicator is False (GNOME as Debian installs it).
    env: what a client of this session needs (WAYLAND_DISPLAY and DISPLAY, XDG_RUNTIME_DIR,
    XDG_CURRENT_DESKTOP). spawn(argv, log_name, env) starts a process that the caller stops."""

    def __init__(self, spawn, bus, base_env, appindicator=True):
        self.bus = bus
        self.home = tempfile.mkdtemp(prefix="tpaccel-gnome-")
        runtime = os.path.join(self.home, "run")
        os.makedirs(runtime, mode=0o700)
        config, data = os.path.join(self.home, ".config"), os.path.join(self.home, ".local", "share")
        for uuid, (versions, js) in UNSAFE.items():
            ext = os.path.join(data, "gnome-shell", "extensions", uuid)
            os.makedirs(ext)
            with open(os.path.join(ext, "metadata.json"), "w") as f:
                json.dump({"uuid": uuid, "name": "tests: unsafe mode", "shell-version": versions,
                           "description": "lets the tests call Eval and Screenshot"}, f)
            with open(os.path.join(ext, "extension.js"), "w") as f:
                f.write(js)
        keyfile = os.path.join(config, "glib-2.0", "settings", "keyfile")
        os.makedirs(os.path.dirname(keyfile))
        with open(keyfile, "w") as f:
            enabled = ", ".join(f"'{uuid}'" for uuid in [APPINDICATOR] * appindicator + [*UNSAFE])
            f.write(f"[org/gnome/shell]\nenabled-extensions=[{enabled}]\n"
                    "disable-user-extensions=false\nwelcome-dialog-last-shown-version='999'\n")
        env = {k: v for k, v in base_env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env.update(HOME=self.home, XDG_CONFIG_HOME=config, XDG_DATA_HOME=data,
                   XDG_CACHE_HOME=os.path.join(self.home, ".cache"), XDG_RUNTIME_DIR=runtime,
                   XDG_SESSION_TYPE="wayland", XDG_CURRENT_DESKTOP="GNOME", GSETTINGS_BACKEND="keyfile")
        # The X servers' socket directory, which systemd-tmpfiles makes at boot (x11.conf) and a machine
        # without it (a root of tests/release/debian-root.sh) lacks: mutter 48 will not make it.
        if not os.path.isdir(X11_UNIX):
            os.makedirs(X11_UNIX, exist_ok=True)
            os.chmod(X11_UNIX, 0o1777)
        self.proc = spawn(["gnome-shell", "--wayland", "--headless", "--virtual-monitor", f"{WIDTH}x{HEIGHT}"],
                          "gnome-shell.log", env)
        deadline = time.monotonic() + 60
        self.appindicator = appindicator
        while not self._ready():
            if self.proc.poll() is not None:
                raise RuntimeError("gnome-shell exited at start")
            if time.monotonic() > deadline:
                raise RuntimeError("gnome-shell did not start (no unsafe mode or no StatusNotifierWatcher in 60 s)")
            time.sleep(0.2)
        display = [os.path.basename(p) for p in glob.glob(os.path.join(runtime, "wayland-*")) if not p.endswith(".lock")]
        # The desktop, not the overview, in which the shell starts (as at a login): a person leaves it
        # before looking at windows, and the overview paints no X11 window. Eval runs in the shell's
        # D-Bus module, which has Main and GLib, as a script (43) and a module (48).
        while not self.eval("!Main.layoutManager._startingUp && (Main.overview.hide(), !Main.overview.visible)"):
            if time.monotonic() > deadline:
                raise RuntimeError("gnome-shell did not leave its overview in 60 s")
            time.sleep(0.2)
        # The X server's display and its key, as the shell gives them to the session's programs.
        x_display, x_authority = (self.eval(f"GLib.getenv('{name}')") for name in ("DISPLAY", "XAUTHORITY"))
        if not x_display or not x_authority:
            raise RuntimeError("gnome-shell started no X server (Xwayland): DISPLAY or XAUTHORITY unset")
        self.env = {"XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": display[0], "DISPLAY": x_display,
                    "XAUTHORITY": x_authority, "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland"}

    def _ready(self):
        if self.appindicator and not self.bus.name_owner("org.kde.StatusNotifierWatcher"):
            return False
        try:
            return self.eval("global.context.unsafe_mode") is True
        except Exception:
            return False

    def client_env(self, env):
        env = {k: v for k, v in env.items() if k not in ("GDK_BACKEND", "XAUTHORITY")}
        env.update(self.env)
        return env

    def eval(self, js):
        """Runs js in the shell; returns its value (JSON-decoded). Fails when the shell refuses or throws."""
        ok, out = self.bus.call(SHELL, SHELL_PATH, SHELL, "Eval", "s", (js,))
        if not ok:
            raise RuntimeError(f"org.gnome.Shell.Eval failed: {out}")
        return json.loads(out) if out else None

    def windows_js(self, title):
        return f"global.display.list_all_windows().filter(w => w.get_title() === {json.dumps(title)})"

    def window_state(self, title):
        """[{minimized, wayland}] for each window of that title."""
        return self.eval(f"{self.windows_js(title)}.map(w => ({{minimized: w.minimized, "
                         "wayland: w.get_client_type() === 0}))")

    def minimize(self, title):
        """Minimizes the windows of that title as their title bar's button does; True once they are. Like
        close, a request in the window's first moments can be dropped: call again until True."""
        self.eval(f"{self.windows_js(title)}.forEach(w => w.minimize())")
        state = self.window_state(title)
        return bool(state) and all(w["minimized"] for w in state)

    def unminimize(self, title):
        """Brings the minimized windows of that title back, as a click on them in the overview does."""
        self.eval(f"{self.windows_js(title)}.forEach(w => w.unminimize())")

    def version(self):
        """The shell's version ("48.7"), as it says on its bus."""
        return self.bus.get_property(SHELL, SHELL_PATH, SHELL, "ShellVersion")

    def close(self, title):
        """Closes the windows of that title as their close button does (delete); True once none is left.
        A window closed in its first moments stays (mutter drops the request): call again until True."""
        self.eval(f"{self.windows_js(title)}.forEach(w => w.delete(global.get_current_time()))")
        time.sleep(0.5)
        return not self.window_state(title)

    def screenshot(self, path):
        """The whole screen into path (org.gnome.Shell.Screenshot; the shell writes it)."""
        ok, used = self.bus.call(SHELL, "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot", "Screenshot",
                                 "bbs", (False, False, os.path.abspath(path)))
        if not ok:
            raise RuntimeError("org.gnome.Shell.Screenshot failed")
        return used

    def stop(self):
        shutil.rmtree(self.home, ignore_errors=True)
