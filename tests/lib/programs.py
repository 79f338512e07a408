# SPDX-License-Identifier: GPL-2.0-or-later
"""The built programs' paths: from the environment (meson test sets TPACCELD, TPACCELCTL, TPACCEL_TRAY from
the targets, tests/meson.build), else from BUILDDIR/programs.env, which meson writes from the same targets
(scripts/programs.env.in). No path to a built program is spelled anywhere else."""
import os
import shlex


def read_programs(builddir):
    """The KEY='PATH' lines of BUILDDIR/programs.env as a dict; raises OSError when it is missing."""
    programs = {}
    with open(os.path.join(builddir, 'programs.env')) as f:
        for line in f:
            if '=' in line and not line.startswith('#'):
                key, value = line.rstrip('\n').split('=', 1)
                programs[key] = ''.join(shlex.split(value))
    return programs


def program(name, builddir=None):
    """The path of the program NAME ('TPACCELD', 'TPACCELCTL', 'TPACCEL_TRAY'): $NAME, else the build
    directory's programs.env ($TOP_BUILDDIR, default ./build); '' when neither says."""
    if os.environ.get(name):
        return os.environ[name]
    if builddir is None:
        top_srcdir = os.environ.get('TOP_SRCDIR', os.path.join(os.path.dirname(__file__), '..', '..'))
        builddir = os.environ.get('TOP_BUILDDIR', os.path.join(top_srcdir, 'build'))
    try:
        return read_programs(builddir).get(name, '')
    except FileNotFoundError:
        return ''  # no such build here: a caller that needs the program says so when it runs it
