#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Configuring the project (meson setup of the source tree, no tests, no clients): the directories
systemd, udev and polkit read come from their pkg-config files (fake ones here), the options override
them, and without polkit's ITS rules (polkit.its) configuring still works, with a warning, and the
polkit actions are the untranslated policy. Usage: test-configure.py MESON"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

MESON = sys.argv.pop(1) if len(sys.argv) > 1 else 'meson'
SRCDIR = os.environ.get('TOP_SRCDIR') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
POLICY = 'org.thinkpad.accelerometer.policy'

UDEV_PC = 'udevdir=/fake/udev\nName: udev\nDescription: fake\nVersion: 252\n'
SYSTEMD_PC = ('systemdsystemunitdir=/fake/systemd/system\nsysusersdir=/fake/sysusers.d\n'
              'Name: systemd\nDescription: fake\nVersion: 252\n')
POLKIT_PC = ('prefix=/usr\ndatadir=${prefix}/share\npolicydir=${datadir}/polkit-1/actions\n'
             'itsdir=/fake/no-its-here\nName: polkit-gobject-1\nDescription: fake\nVersion: 122\n')


class ConfigureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.pc = os.path.join(self.tmp.name, 'pkgconfig')
        os.mkdir(self.pc)
        for name, text in (('udev', UDEV_PC), ('systemd', SYSTEMD_PC), ('polkit-gobject-1', POLKIT_PC)):
            with open(os.path.join(self.pc, name + '.pc'), 'w') as f:
                f.write(text)

    def tearDown(self):
        self.tmp.cleanup()

    def setup(self, *options, reconfigure=False):
        """meson setup of the source tree (reconfigure: again, on the build of the last call, with the
        compiler checks it cached: the options are what changes)."""
        build = os.path.join(self.tmp.name, 'build')
        env = dict(os.environ, PKG_CONFIG_PATH=self.pc)  # searched before the system's .pc files
        argv = [MESON, 'setup', build, SRCDIR, '--prefix=/opt/tp', '-Dtests=false', '-Dclients=false']
        if reconfigure:
            argv.append('--reconfigure')
        res = subprocess.run(argv + list(options), capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        installed = subprocess.run([MESON, 'introspect', build, '--installed'], capture_output=True,
                                   text=True, check=True, timeout=60)
        return build, res.stdout, sorted(json.loads(installed.stdout).values())

    def assertInstalled(self, installed, path):
        self.assertIn(path, installed)

    def test_directories_from_pkg_config_and_options(self):
        _, out, installed = self.setup()
        self.assertInstalled(installed, '/fake/udev/rules.d/60-tpaccel-unload-heads.rules')
        self.assertInstalled(installed, '/fake/sysusers.d/tpaccel.conf')
        self.assertInstalled(installed, '/fake/systemd/system/tpacceld.service')
        # polkit's policydir follows the prefix.
        self.assertInstalled(installed, '/opt/tp/share/polkit-1/actions/' + POLICY)

        _, out, installed = self.setup('-Dudevrulesdir=/u/rules.d', '-Dsysusersdir=/s',
                                       '-Dsystemdsystemunitdir=/d', '-Dpolkitactionsdir=/p', reconfigure=True)
        for path in ('/u/rules.d/62-tpaccel-uinput.rules', '/s/tpaccel.conf', '/d/tpacceld.service',
                     '/p/' + POLICY):
            self.assertInstalled(installed, path)

    def test_without_polkit_its(self):
        empty = os.path.join(self.tmp.name, 'no-its')
        os.mkdir(empty)
        build, out, installed = self.setup('-Dpolkititsdir=' + empty)
        self.assertIn('WARNING: polkit.its is not in ' + empty, out)
        self.assertIn('untranslated', out)
        self.assertInstalled(installed, '/opt/tp/share/polkit-1/actions/' + POLICY)
        subprocess.run(['ninja', '-C', build, os.path.join('policy', POLICY)], capture_output=True,
                       check=True, timeout=120)
        with open(os.path.join(build, 'policy', POLICY)) as built, \
                open(os.path.join(SRCDIR, 'policy', POLICY + '.in')) as source:
            self.assertEqual(built.read(), source.read())


if __name__ == '__main__':
    unittest.main()
