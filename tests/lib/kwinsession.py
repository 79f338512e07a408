# SPDX-License-Identifier: GPL-2.0-or-later
"""A headless KWin Wayland session of its own (`kwin_wayland --virtual`), on the caller's private bus,
for the Wayland tray tests (tests/wayland/test_tray_kwin.py). No plasmashell: no tray host, no
notification daemon.

Windows are driven as KDE's own tools drive them: KWin scripts loaded and run through
org.kde.kwin.Scripting (loadScript, then the script's run). A script's answer comes back through its
print(), which KWin writes to its log as "js: ..." lines: each script prints one JSON line after a mark
of its own.

Debian's kwin_wayland carries a file capability (cap_sys_resource on KWin 5, cap_sys_nice on KWin 6);
where the capability bounding set lacks it (here, for KWin 5's) exec fails with EPERM. The session runs a
copy of the binary, which has none, under the same file name (KWin's Qt platform plugin loads only into a
kwin_wayland). KWin runs as root as it does as a user; its settings go to the session's own home."""
import json
import os
import re
import shutil
import tempfile
import time

from daemontest import wait_until  # tests/lib

WIDTH, HEIGHT = 1280, 800
KWIN = "org.kde.KWin"
SCRIPTING, SCRIPTING_PATH = "org.kde.kwin.Scripting", "/Scripting"
SOCKET = "wayland-tpaccel"
# The windows of a title, as KWin 6 (windowList) and KWin 5 (clientList) list them.
WINDOWS_JS = """var all = workspace.windowList ? workspace.windowList() : workspace.clientList();
var windows = [];
for (var i = 0; i < all.length; i++)
    if (all[i].caption === %s)
        windows.push(all[i]);
"""


def missing():
    """What this machine lacks for the session."""
    return [] if shutil.which("kwin_wayland") else ["kwin-wayland"]


class KWinSession:
    """KWin on a display of its own, on bus (tests/lib/daemontest.py's Bus: call, name_owner). env: what a
    Wayland client of this session needs (WAYLAND_DISPLAY, XDG_RUNTIME_DIR, XDG_CURRENT_DESKTOP, no
    DISPLAY). spawn(argv, log_name, env) starts a process that the caller stops; KWin's log is
    logdir/kwin.log."""

    def __init__(self, spawn, bus, base_env, logdir):
        self.bus = bus
        self.log = os.path.join(logdir, "kwin.log")
        self.home = tempfile.mkdtemp(prefix="tpaccel-kwin-")
        self.scripts = 0
        runtime = os.path.join(self.home, "run")
        os.makedirs(runtime, mode=0o700)
        kwin = shutil.copy(shutil.which("kwin_wayland"), os.path.join(self.home, "kwin_wayland"))
        env = {k: v for k, v in base_env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env.update(HOME=self.home, XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
                   XDG_DATA_HOME=os.path.join(self.home, ".local", "share"),
                   XDG_CACHE_HOME=os.path.join(self.home, ".cache"), XDG_RUNTIME_DIR=runtime,
                   # The scripts' print() ("js" debug messages) on stderr, into the log, never to a journal.
                   QT_LOGGING_RULES="js.debug=true", QT_FORCE_STDERR_LOGGING="1")
        self.proc = spawn([kwin, "--virtual", "--width", str(WIDTH), "--height", str(HEIGHT), "--socket", SOCKET,
                           "--no-lockscreen"], "kwin.log", env)
        try:
            wait_until(lambda: self.proc.poll() is not None or (
                self.bus.name_owner(KWIN) and os.path.exists(os.path.join(runtime, SOCKET))),
                timeout=60, what="KWin's Wayland socket and org.kde.KWin on the bus")
            if self.proc.poll() is not None:
                raise RuntimeError("kwin_wayland exited at start")
        except Exception:
            # The caller has no session to stop (its setUp failed): KWin and the home go now.
            self.proc.kill()
            self.proc.wait()
            self.stop()
            raise
        self.env = {"XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": SOCKET, "XDG_CURRENT_DESKTOP": "KDE",
                    "XDG_SESSION_TYPE": "wayland", "GDK_BACKEND": "wayland"}

    def client_env(self, env):
        env = {k: v for k, v in env.items() if k != "DISPLAY"}
        env.update(self.env)
        return env

    def _log(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def script(self, js):
        """Runs js as a KWin script; returns what it passes to answer() (JSON-decoded). Fails when KWin
        refuses the script or it answers nothing in 10 s (an error in it: KWin's log says which)."""
        self.scripts += 1
        name = f"tpaccel-{self.scripts}"
        mark = f"tpaccel-answer-{os.getpid()}-{self.scripts}:"
        path = os.path.join(self.home, name + ".js")
        with open(path, "w") as f:
            f.write(f"function answer(value) {{ print({json.dumps(mark)} + JSON.stringify(value)); }}\n{js}\n")
        script_id = self.bus.call(KWIN, SCRIPTING_PATH, SCRIPTING, "loadScript", "ss", (path, name))
        if script_id < 0:
            raise RuntimeError(f"KWin did not load the script {path}")
        try:
            # KWin 6 serves the script at /Scripting/ScriptN, KWin 5 at /N.
            for script_path in (f"{SCRIPTING_PATH}/Script{script_id}", f"/{script_id}"):
                try:
                    self.bus.call(KWIN, script_path, "org.kde.kwin.Script", "run")
                    break
                except Exception as e:
                    if "UnknownObject" not in str(e) and "No such object" not in str(e):
                        raise
            else:
                raise RuntimeError(f"KWin serves no script {script_id}")
            line = wait_until(lambda: re.search("^.*" + re.escape(mark) + "(.*)$", self._log(), re.M),
                              what=f"the answer of KWin script {path}")
            return json.loads(line.group(1))
        finally:
            self.bus.call(KWIN, SCRIPTING_PATH, SCRIPTING, "unloadScript", "s", (name,))

    def on_windows(self, title, js):
        """Runs js on `windows`, the windows of that title, as a KWin script; returns its answer()."""
        return self.script(WINDOWS_JS % json.dumps(title) + js)

    def window_state(self, title):
        """[{minimized, wayland}] for each window of that title; wayland: KWin manages it as an xdg-shell
        toplevel (an X11 client's window would be a KWin::X11Window)."""
        return self.on_windows(title, "answer(windows.map(function (w) { return {minimized: w.minimized, "
                               "wayland: String(w).indexOf('KWin::XdgToplevelWindow(') === 0}; }));")

    def set_minimized(self, title, minimized):
        """Minimizes (or restores) the windows of that title; True once each is."""
        value = json.dumps(minimized)
        return self.on_windows(title, f"windows.forEach(function (w) {{ w.minimized = {value}; }});\n"
                               "answer(windows.length > 0 && windows.every(function (w) { "
                               f"return w.minimized === {value}; }}));")

    def minimize(self, title):
        """Minimizes the windows of that title as their title bar's button does; True once each is."""
        return self.set_minimized(title, True)

    def unminimize(self, title):
        """Brings the minimized windows of that title back, as a click on them in the task manager does.
        Fails when one stays minimized."""
        if not self.set_minimized(title, False):
            raise RuntimeError(f"KWin left a window {title!r} minimized")

    def close(self, title):
        """Closes the windows of that title as their close button does; True once none is left."""
        self.on_windows(title, "windows.forEach(function (w) { w.closeWindow(); });\nanswer(0);")
        time.sleep(0.5)
        return not self.window_state(title)

    def stop(self):
        shutil.rmtree(self.home, ignore_errors=True)
