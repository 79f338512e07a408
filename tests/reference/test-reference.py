#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The reference driver as the emulator's oracle.

tp_smapi's thinkpad_ec.c and hdaps.c, unmodified, are unpacked from Debian's tp-smapi-dkms package
(never installed: dkms must not build a module here), compiled into a shared object against tpaccel's
kernel shim (tests/reference/shim/) and run by reference-runner next to tpaccel's own transport and
device layer, each on an emulator with the same seed, on virtual time. The runner asserts, per
scenario: no strict-mode violation, equal readouts on the ticks where both got one, equal self-test,
init and exit accesses (or only the differences it names, with the reference lines that explain them),
and that the negative control's stray access is reported. It prints the table this test shows.

The versions it holds to are listed in tests/reference/held-versions (0.43, bookworm's; each later one
once the test passed on it): another version fails the test, naming it, until it is checked and added.
Where the package comes from, first found: $TP_SMAPI_DEB (a .deb), $TP_SMAPI_SRC (an unpacked
tp_smapi-VERSION directory), /var/cache/tpaccel/tp-smapi-dkms_VERSION-*.deb (scripts/deps.sh test puts
the release's there), /usr/src/tp_smapi-VERSION (the package installed), an earlier download in the build
directory, and last `apt-get download tp-smapi-dkms` (the release's version) into the build directory. If
none works the test fails and says so.
"""
import fcntl
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

RUNNER = os.environ.get('REFERENCE_RUNNER', '')
SHIM = os.environ.get('REFERENCE_SHIM', '')
WORKDIR = os.environ.get('REFERENCE_WORKDIR', '')
CC = shlex.split(os.environ.get('CC', 'cc'))
HELD_VERSIONS = [line.strip() for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             'held-versions'))
                 if line.strip() and not line.startswith('#')]
SOURCES = ('thinkpad_ec.c', 'hdaps.c', 'thinkpad_ec.h')



def deb_version(deb):
    """The upstream version of a tp-smapi-dkms .deb (0.44 of 0.44-1.2)."""
    version = subprocess.run(['dpkg-deb', '-f', deb, 'Version'], check=True, capture_output=True,
                             text=True).stdout.strip()
    return version.split(':')[-1].rsplit('-', 1)[0]


def held(version, origin):
    if version not in HELD_VERSIONS:
        raise RuntimeError(f'{origin} is tp_smapi {version}; the reference test holds to '
                           f'{", ".join(HELD_VERSIONS)} (tests/reference/held-versions): run it on {version}, '
                           'and add the version there once it passes')
    return version


def unpack(deb, scratch):
    """dpkg-deb -x into this run's scratch directory: files only, no maintainer scripts, no dkms.
    Returns (source directory, version)."""
    version = held(deb_version(deb), deb)
    target = os.path.join(scratch, 'root')
    os.makedirs(target, exist_ok=True)
    subprocess.run(['dpkg-deb', '-x', deb, target], check=True)
    return os.path.join(target, 'usr', 'src', 'tp_smapi-' + version), version


def has_sources(d):
    return d and all(os.path.isfile(os.path.join(d, f)) for f in SOURCES)


def find_reference(scratch):
    """Returns (source directory, version, where it came from) or raises with every place tried. Meson runs
    the methods in parallel: a lock on the work directory serializes the download."""
    os.makedirs(WORKDIR, exist_ok=True)
    with open(os.path.join(WORKDIR, '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return find_reference_locked(scratch)


def find_reference_locked(scratch):
    tried = []
    deb = os.environ.get('TP_SMAPI_DEB')
    if deb:
        return *unpack(deb, scratch), deb
    src = os.environ.get('TP_SMAPI_SRC')
    if src:
        if not has_sources(src):
            raise RuntimeError(f'TP_SMAPI_SRC={src} lacks one of {", ".join(SOURCES)}')
        return src, held(os.path.basename(os.path.normpath(src)).rsplit('-', 1)[-1], src), src
    for version in HELD_VERSIONS:
        for deb in sorted(glob.glob(f'/var/cache/tpaccel/tp-smapi-dkms_{version}-*.deb')) + \
                sorted(glob.glob(os.path.join(WORKDIR, f'tp-smapi-dkms_{version}-*.deb'))):
            return *unpack(deb, scratch), deb
        installed = f'/usr/src/tp_smapi-{version}'
        if has_sources(installed):
            return installed, version, installed
    tried.append(f'/var/cache/tpaccel/tp-smapi-dkms_VERSION-*.deb, {WORKDIR} and /usr/src/tp_smapi-VERSION '
                 f'for VERSION {", ".join(HELD_VERSIONS)}')
    before = set(glob.glob(os.path.join(WORKDIR, 'tp-smapi-dkms_*.deb')))
    r = subprocess.run(['apt-get', 'download', 'tp-smapi-dkms'], cwd=WORKDIR, capture_output=True, text=True)
    debs = sorted(set(glob.glob(os.path.join(WORKDIR, 'tp-smapi-dkms_*.deb'))) - before)
    if r.returncode == 0 and debs:
        return *unpack(debs[0], scratch), debs[0] + ' (apt-get download)'
    tried.append(f'apt-get download tp-smapi-dkms: {r.stderr.strip() or r.returncode}')
    raise RuntimeError('no tp_smapi source found; run `scripts/deps.sh test` as root, or set TP_SMAPI_DEB to '
                       'a tp-smapi-dkms .deb. Tried: ' + '; '.join(tried))


def build_reference(scratch):
    """Compiles the reference, unmodified, against the shim into one shared object in scratch."""
    src, version, origin = find_reference(scratch)
    so = os.path.join(scratch, 'tp_smapi-reference.so')
    # The wrappers #include the reference files; the shim's linux/ and asm/ headers come first. Warnings
    # are the reference's own business: -w, no -Werror.
    cmd = CC + ['-shared', '-fPIC', '-O1', '-w', '-std=gnu11', '-D__KERNEL__',
                '-I', os.path.join(SHIM, 'shim'), '-I', src,
                os.path.join(SHIM, 'ref-thinkpad-ec.c'), os.path.join(SHIM, 'ref-hdaps.c'), '-o', so]
    subprocess.run(cmd, check=True)
    return so, version, origin


class ReferenceDriverTest(unittest.TestCase):
    so = None

    @classmethod
    def setUpClass(cls):
        if not RUNNER or not SHIM or not WORKDIR:
            raise RuntimeError('run through meson: REFERENCE_RUNNER, REFERENCE_SHIM, REFERENCE_WORKDIR unset')
        os.makedirs(WORKDIR, exist_ok=True)
        cls.scratch = tempfile.mkdtemp(prefix='run-', dir=WORKDIR)
        try:
            cls.so, version, origin = build_reference(cls.scratch)
        except BaseException:
            shutil.rmtree(cls.scratch, ignore_errors=True)
            raise
        print(f'\nreference: tp_smapi {version} from {origin}', file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def run_scenarios(self, *names):
        r = subprocess.run([RUNNER, self.so, *names], capture_output=True, text=True)
        sys.stderr.write(r.stdout)
        sys.stderr.write(r.stderr)
        return r

    def test_sources_unmodified(self):
        """The compiled files are the package's: the wrappers only #include them."""
        for wrapper, name in (('ref-thinkpad-ec.c', 'thinkpad_ec.c'), ('ref-hdaps.c', 'hdaps.c')):
            with open(os.path.join(SHIM, wrapper)) as f:
                self.assertIn(f'#include "{name}"', f.read())
        self.assertFalse(glob.glob(os.path.join(SHIM, '**', 'thinkpad_ec.c'), recursive=True))
        self.assertFalse(glob.glob(os.path.join(SHIM, '**', 'hdaps.c'), recursive=True))

    def test_default_motion(self):
        r = self.run_scenarios('default')
        self.assertEqual(r.returncode, 0, 'the reference and tpaccel disagree on the default motion')
        row = next(line for line in r.stdout.splitlines() if line.startswith('default '))
        ref_readouts, tp_readouts = map(int, row.split()[3].split('/'))
        equal, both = map(int, row.split()[4].split('/'))
        self.assertGreater(ref_readouts, 40)
        self.assertGreater(tp_readouts, 40)
        self.assertGreater(both, 40)
        self.assertEqual(equal, both)

    def test_fault_kinds(self):
        """Every kind of the emulator's table (the runner lists them) has its scenario, and passes."""
        kinds = subprocess.run([RUNNER, 'fault-kinds'], capture_output=True, text=True, check=True).stdout.split()
        self.assertIn('busy', kinds)
        for name in kinds:
            with self.subTest(scenario=name):
                r = self.run_scenarios(name)
                self.assertEqual(r.returncode, 0, f'scenario {name}: see the FAIL lines above')

    def test_negative_control(self):
        """One stray TWR read between two ticks must be reported: the oracle can fail."""
        r = self.run_scenarios('stray-access')
        self.assertEqual(r.returncode, 0, 'the stray access was not reported as exactly one violation')
        row = next(line for line in r.stdout.splitlines() if line.startswith('stray-access '))
        self.assertEqual(row.split()[6], '1')  # the reference side's violations


if __name__ == '__main__':
    unittest.main(verbosity=2)
