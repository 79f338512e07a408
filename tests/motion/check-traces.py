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
    made = sorted(os.path.basename(p) for p in glob.glob(tmp + "/*.csv"))
    committed = sorted(os.path.basename(p) for p in glob.glob(tracedir + "/*.csv"))
    if made != committed:
        sys.exit("trace set differs: generator makes %s, committed %s" % (made, committed))
    for name in made:
        if not filecmp.cmp(os.path.join(tmp, name), os.path.join(tracedir, name), shallow=False):
            sys.exit("%s differs from what gen-traces.py makes" % name)
        with open(os.path.join(tracedir, name)) as f:
            if "SYNTHETIC" not in f.readline():
                sys.exit("%s does not say it is synthetic" % name)
print("%d traces match the generator" % len(made))
