#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generates the SYNTHETIC tablet-mode rotation trace tests/sensorproxy/tablet-tour.csv with the trace
machinery of tests/traces/gen-traces.py (same rest, scale, noise, sensor filter and format).

The base of a ThinkPad tablet, screen folded face up over the keyboard, turned by hand: the base's right
side up (roll +90: the screen's left edge up), back; its left side up (roll -90: the screen's right edge
up), back; its hinge edge up (pitch -90: the screen's bottom edge up), back. In tablet mode tpacceld must
report normal,left-up,normal,right-up,normal,bottom-up,normal (docs/ROTATION.md); in laptop mode normal only.
Usage: gen-tablet-trace.py [OUTDIR]   (default: the directory of this script)"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gen_traces", os.path.join(HERE, "..", "traces", "gen-traces.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

TURN_MS = 800   # a deliberate turn, as in the rotate-* traces
# Each rotation's hold, and the rest after its turn back. The classifier (docs/ROTATION.md) proposes a
# rotation from 35 degrees on (0.34 s into a turn) and keeps it until 25 degrees (0.51 s into the turn
# back), and proposes normal until 35 degrees of the next turn: with these, each orientation stands
# 1.2 s (rotated) and 0.9 s (normal), of which the 250 ms debounce and a 50 ms readout need 0.3 s; the
# rest is slack for a daemon stalled on a loaded machine.
HOLD_MS = 300
REST_MS = 300
# (axis, base angle in degrees, the screen orientation it gives in tablet mode)
TURNS = [("roll", 90, "left-up"), ("roll", -90, "right-up"), ("pitch", -90, "bottom-up")]
SCREEN_SEQUENCE = "normal,left-up,normal,right-up,normal,bottom-up,normal"


def segments():
    t, out = 1500, []
    for axis, angle, label in TURNS:
        out.append((t, axis, angle, label))
        t += 2 * TURN_MS + HOLD_MS + REST_MS
    return out, t + 500


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else HERE
    segs, duration = segments()
    t = gen.Trace("tablet-tour", duration, 41, "tablet mode: the base turned right side up (roll +90), left side "
                  "up (roll -90), hinge up (pitch -90), each in 0.8 s, held %g s, turned back" % (HOLD_MS / 1000))

    def f(ms):
        pitch = roll = 0.0
        for t0, axis, angle, _ in segs:
            a = gen.ramp(ms, t0, t0 + TURN_MS, 0, angle) if ms < t0 + TURN_MS + HOLD_MS else \
                gen.ramp(ms, t0 + TURN_MS + HOLD_MS, t0 + 2 * TURN_MS + HOLD_MS, angle, 0)
            if t0 <= ms:
                if axis == "pitch":
                    pitch = a
                else:
                    roll = a
        return pitch, roll
    t.set_tilt(f)
    t.expect.append("screen-orientation tablet %s" % SCREEN_SEQUENCE)
    t.expect.append("screen-orientation laptop normal")
    t.render(outdir)
    path = os.path.join(outdir, "tablet-tour.csv")
    with open(path) as fh:
        lines = fh.readlines()
    lines[0] = "# SYNTHETIC trace, made by tests/sensorproxy/gen-tablet-trace.py; not a hardware recording.\n"
    with open(path, "w") as fh:
        fh.writelines(lines)
    print("wrote %s" % path)


if __name__ == "__main__":
    main()
