#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Regenerates the traces into a temporary directory and checks the committed files are exactly what
the generator makes (so no trace was edited by hand), and that each says it is synthetic."""
import filecmp
import glob
import os
import subprocess
import sys
import tempfile

tracedir = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, os.path.join(tracedir, "gen-traces.py"), tmp], check=True,
                   stdout=subprocess.DEVNULL)
    total = 0
    for sub in ("", "movement"):  # the shock and orientation traces, and the movement ones
        made = sorted(os.path.basename(p) for p in glob.glob(os.path.join(tmp, sub, "*.csv")))
        committed = sorted(os.path.basename(p) for p in glob.glob(os.path.join(tracedir, sub, "*.csv")))
        if made != committed:
            sys.exit("trace set of %s/ differs: generator makes %s, committed %s" % (sub or ".", made, committed))
        for name in made:
            if not filecmp.cmp(os.path.join(tmp, sub, name), os.path.join(tracedir, sub, name), shallow=False):
                sys.exit("%s differs from what gen-traces.py makes" % os.path.join(sub, name))
            with open(os.path.join(tracedir, sub, name)) as f:
                if "SYNTHETIC" not in f.readline():
                    sys.exit("%s does not say it is synthetic" % os.path.join(sub, name))
        total += len(made)
print("%d traces match the generator" % total)
