#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Screenshots of tpaccel-tray on Wayland: headless sway with waybar as the tray host and mako for the
bubbles (tests/lib/swaysession.py, the session of the Wayland tests), against tpacceld on the EC emulator
on a private session bus. Installs sway, waybar, mako and grim when missing (scripts/deps.sh test).
Writes sway-*.png here.
Usage: docs/screenshots/make-sway-screenshots.py BUILDDIR"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
OUT = os.path.join(SRC, 'docs', 'screenshots')
sys.path.insert(0, os.path.join(SRC, 'tests', 'lib'))
from swaysession import BAR_HEIGHT, WIDTH, SwaySession, missing_programs  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.realpath(sys.argv[1])
    if os.environ.get('TPACCEL_SHOT_INNER') != '1':
        if missing_programs():
            subprocess.run([os.path.join(SRC, 'scripts', 'deps.sh'), 'test'], check=True)
        home = tempfile.mkdtemp(prefix='tpaccel-shots-')
        env = dict(os.environ, TPACCEL_SHOT_INNER='1', HOME=home, XDG_CONFIG_HOME=home + '/.config',
                   XDG_CACHE_HOME=home + '/.cache', XDG_DATA_HOME=home + '/.local/share')
        status = subprocess.run(['dbus-run-session', '--', sys.executable] + sys.argv, env=env).returncode
        shutil.rmtree(home, ignore_errors=True)
        sys.exit(status)

    tmp = tempfile.mkdtemp(prefix='tpaccel-sway-shots-')
    procs = []

    def spawn(argv, log_name, env):
        with open(os.path.join(tmp, log_name), 'a') as log:
            procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env))
        return procs[-1]

    env = dict(os.environ, NO_AT_BRIDGE='1', GSETTINGS_BACKEND='memory')
    sway = SwaySession(spawn, env, tmp)
    try:
        # Installed icons, as waybar finds them: the theme's index beside ours.
        icons = os.path.join(tmp, 'icons', 'hicolor')
        os.makedirs(icons)
        os.symlink('/usr/share/icons/hicolor/index.theme', os.path.join(icons, 'index.theme'))
        os.symlink(os.path.join(SRC, 'data', 'icons', 'hicolor', 'scalable'), os.path.join(icons, 'scalable'))
        env = dict(sway.client_env(env), TPACCEL_ICON_DIR=os.path.dirname(icons))
        sway.start_waybar(env)
        sway.start_mako(env)
        daemon = spawn([os.path.join(build, 'service', 'tpacceld'), '--session', '--backend=sim',
                        '--state-dir=' + tmp, '--trace=' + os.path.join(SRC, 'scripts', 'demo-tour.csv'),
                        '--trace-loop'], 'tpacceld.log', env)
        time.sleep(1)
        spawn([os.path.join(build, 'client', 'tpaccel-tray'), '--session', '--show-window'], 'tray.log', env)
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
        print('wrote', os.path.join(OUT, 'sway-*.png'))
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        sway.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
