#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Screenshots of tpaccel-tray on Wayland, in the sessions of the Wayland tests: headless sway with waybar
as the tray host and mako for the bubbles (tests/lib/swaysession.py), and headless GNOME Shell with the
AppIndicator extension (tests/lib/gnomesession.py), against tpacceld on the EC emulator on a private
session bus (GNOME's system bus too). Installs what is missing (scripts/deps.sh test).
Writes sway-*.png and gnome-wayland-*.png here.
Usage: docs/screenshots/make-wayland-screenshots.py BUILDDIR"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
OUT = os.path.join(SRC, 'docs', 'screenshots')
sys.path.insert(0, os.path.join(SRC, 'tests', 'lib'))
from daemontest import Bus, wait_until  # noqa: E402
from programs import read_programs  # noqa: E402
from gnomesession import GnomeSession  # noqa: E402
from gnomesession import missing as gnome_missing  # noqa: E402
from swaysession import BAR_HEIGHT, WIDTH, SwaySession, missing_programs  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.realpath(sys.argv[1])
    if os.environ.get('TPACCEL_SHOT_INNER') != '1':
        if missing_programs() or gnome_missing():
            subprocess.run([os.path.join(SRC, 'scripts', 'deps.sh'), 'test'], check=True)
        home = tempfile.mkdtemp(prefix='tpaccel-shots-')
        env = dict(os.environ, TPACCEL_SHOT_INNER='1', HOME=home, XDG_CONFIG_HOME=home + '/.config',
                   XDG_CACHE_HOME=home + '/.cache', XDG_DATA_HOME=home + '/.local/share')
        status = subprocess.run(['dbus-run-session', '--', sys.executable] + sys.argv, env=env).returncode
        shutil.rmtree(home, ignore_errors=True)
        sys.exit(status)

    sway_shots(build)
    gnome_shots(build)
    print('wrote', os.path.join(OUT, 'sway-*.png'), os.path.join(OUT, 'gnome-wayland-*.png'))


class Programs:
    """The programs a part started, stopped by pid at the end, and its scratch folder."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix='tpaccel-wayland-shots-')
        self.procs = []

    def spawn(self, argv, log_name, env):
        with open(os.path.join(self.tmp, log_name), 'a') as log:
            self.procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env))
        return self.procs[-1]

    def daemon(self, build, env, trace):
        return self.spawn([read_programs(build)['TPACCELD'], '--session', '--backend=sim',
                           '--state-dir=' + self.tmp, '--trace=' + trace, '--trace-loop'], 'tpacceld.log', env)

    def stop(self):
        for p in reversed(self.procs):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def sway_shots(build):
    run = Programs()
    env = dict(os.environ, NO_AT_BRIDGE='1', GSETTINGS_BACKEND='memory')
    sway = SwaySession(run.spawn, env, run.tmp)
    try:
        # Installed icons, as waybar finds them: the theme's index beside ours.
        icons = os.path.join(run.tmp, 'icons', 'hicolor')
        os.makedirs(icons)
        os.symlink('/usr/share/icons/hicolor/index.theme', os.path.join(icons, 'index.theme'))
        os.symlink(os.path.join(SRC, 'data', 'icons', 'hicolor', 'scalable'), os.path.join(icons, 'scalable'))
        env = dict(sway.client_env(env), TPACCEL_ICON_DIR=os.path.dirname(icons))
        sway.start_waybar(env)
        sway.start_mako(env)
        daemon = run.daemon(build, env, os.path.join(SRC, 'scripts', 'demo-tour.csv'))
        time.sleep(1)
        run.spawn([read_programs(build)['TPACCEL_TRAY'], '--session', '--show-window'], 'tray.log', env)
        time.sleep(3.2)  # the demo's motion: the icon leans within the first seconds
        sway.screenshot(os.path.join(OUT, 'sway-waybar-icon-leaning.png'), f'{WIDTH - 160},0 160x{BAR_HEIGHT}')
        # sway tiles the window to the whole screen, below the bar.
        sway.screenshot(os.path.join(OUT, 'sway-window.png'))
        # The service stops: mako's bubble, at the top right.
        daemon.terminate()
        time.sleep(2.5)
        sway.swaymsg('workspace', '2')  # an empty workspace behind the bar and the bubble
        time.sleep(1)
        sway.screenshot(os.path.join(OUT, 'sway-mako-service-stopped.png'), f'{WIDTH - 480},0 480x160')
    finally:
        run.stop()
        sway.stop()


def icon_name(bus):
    """The tray's icon as the tray host sees it ('' while it is not registered)."""
    try:
        items = bus.get_property('org.kde.StatusNotifierWatcher', '/StatusNotifierWatcher',
                                 'org.kde.StatusNotifierWatcher', 'RegisteredStatusNotifierItems')
        name = items[0].split('/', 1)[0].rstrip('@')
        return bus.get_property(name, '/org/ayatana/NotificationItem/tpaccel_tray', 'org.kde.StatusNotifierItem',
                                'IconName')
    except Exception:
        return ''


def leaning(icon):
    return 'tilt' in icon and 'r2-p2' not in icon


def gnome_shots(build):
    run = Programs()
    env = dict(os.environ, NO_AT_BRIDGE='1', DBUS_SYSTEM_BUS_ADDRESS=os.environ['DBUS_SESSION_BUS_ADDRESS'])
    bus = Bus(os.environ['DBUS_SESSION_BUS_ADDRESS'])
    gnome = GnomeSession(run.spawn, bus, env)
    try:
        env = dict(gnome.client_env(env), GSETTINGS_BACKEND='memory')
        run.daemon(build, env, os.path.join(SRC, 'scripts', 'demo-tour.csv'))
        time.sleep(1)
        run.spawn([read_programs(build)['TPACCEL_TRAY'], '--session', '--show-window'], 'tray.log', env)
        # The window, out of the overview GNOME starts in, and the shell's banner about unsafe mode
        # dismissed; then the top bar while the icon leans (the demo's motion leans it within seconds and
        # brings it back level; the shell is slow to show both on a loaded machine).
        wait_until(lambda: gnome.window_state('ThinkPad Accelerometer'), timeout=60, what='the window')
        gnome.eval('Main.overview.hide(); Main.messageTray.getSources().forEach(s => s.destroy())')
        time.sleep(2)
        gnome.screenshot(os.path.join(OUT, 'gnome-wayland-window.png'))
        wait_until(lambda: leaning(icon_name(bus)), timeout=60, interval=0.1, what='a leaning icon')
        time.sleep(1)  # the extension redraws it
        shot = gnome.screenshot(os.path.join(run.tmp, 'screen.png'))
        subprocess.run(['convert', shot, '-crop', f'240x32+{WIDTH - 240}+0', '+repage',
                        os.path.join(OUT, 'gnome-wayland-topbar-leaning.png')], check=True)
    finally:
        run.stop()
        gnome.stop()
        bus.close()


if __name__ == '__main__':
    main()
