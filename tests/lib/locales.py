# SPDX-License-Identifier: GPL-2.0-or-later
"""A real locale for the tests of a translation, as a user of that language has one.

glibc 2.41 (Debian 13) honours LANGUAGE=de only under a locale other than C, and C.UTF-8 now counts as C:
`LANG=C.UTF-8 LANGUAGE=de` prints English there. So a German test runs under de_DE.UTF-8 itself, compiled
with localedef (the `locales` package's sources) into a directory of the build tree that LOCPATH names: no
locale is generated system-wide, no root is needed, and it works the same on Debian 12. It is compiled
once per build directory (a few seconds of CPU); a lock lets tests running in parallel share it.
"""
import fcntl
import os
import shutil
import subprocess

from daemontest import TOP_BUILDDIR

LOCALE_SOURCES = "/usr/share/i18n/locales"
LOCPATH = os.path.join(TOP_BUILDDIR, "tests", "locale")


def compiled_locale(name):
    """LOCPATH holding the locale NAME (language_TERRITORY.UTF-8), compiled if it is not there yet."""
    source = name.split(".")[0]
    target = os.path.join(LOCPATH, name)
    os.makedirs(LOCPATH, exist_ok=True)
    with open(os.path.join(LOCPATH, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(target, "LC_MESSAGES")):
            return LOCPATH
        if not os.path.exists(os.path.join(LOCALE_SOURCES, source)):
            raise RuntimeError(f"{LOCALE_SOURCES}/{source} is missing: the locale sources are in the package "
                               "'locales' (scripts/deps.sh test installs it)")
        partial = target + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        r = subprocess.run(["localedef", "-i", source, "-f", "UTF-8", partial], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(partial, "LC_MESSAGES")):
            raise RuntimeError(f"localedef -i {source} -f UTF-8 failed ({r.returncode}): {r.stderr.strip()}")
        os.rename(partial, target)
    return LOCPATH


def locale_env(env, name):
    """env running a program under the locale NAME (e.g. de_DE.UTF-8), as LANG=NAME does for a user."""
    env = {k: v for k, v in env.items() if not k.startswith("LC_") and k != "LANGUAGE"}
    return dict(env, LOCPATH=compiled_locale(name), LANG=name)
