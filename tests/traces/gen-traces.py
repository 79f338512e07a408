#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generates the SYNTHETIC labelled motion traces in tests/traces/ (there are no public real HDAPS
recordings; see docs/MOTION.md). Deterministic: a fixed seed per scenario.

Format (service/sim/trace.h): '#' comments, header "time_ms,x,y,keyboard,mouse", raw counts as the EC
reports them with axis code 0. Rows every ROW_MS; the emulator interpolates and samples them at the EC
rate. Expected events are machine-readable comment lines read by bench/motion/eval-motion:
  # expect: no-shock                              no shock anywhere (outside shock-allowed spans)
  # expect: shock at_ms=T kind=K                  a shock must start at or after T; K=drop must be
                                                  detected within 2 readouts, others within 10
  # expect: shock-allowed from_ms=A to_ms=B       shocks in [A, B] are neither required nor false alarms
  # expect: orientation a,b,c                     the exact sequence of orientations (no flicker)
  # expect: flip to=O at_ms=T                     the flip to O must come within 500 ms after T (the
                                                  moment the angle crosses the 35 degree entry angle)
Usage: gen-traces.py [OUTDIR]   (default: the directory of this script)
"""
import math
import os
import random
import sys

REST_X, REST_Y = -498, -439  # hdapsd tests/hdaps.umockdev snapshot
COUNTS_PER_G = 157.0         # HDAPS_COUNTS_PER_G_DEFAULT
ROW_MS = 5                   # 200 rows per second
NOISE_SD = 0.8               # counts, clipped to +-2: the sensor's noise
SENSOR_TAU_MS = 8.0          # the sensor's own low-pass: a step settles in ~25 ms
ENTER_DEG = 35.0             # orientation entry angle (motion-params.h), for flip labels
G = 9.81


def smoothstep(u):
    u = min(max(u, 0.0), 1.0)
    return 0.5 - 0.5 * math.cos(math.pi * u)


class Trace:
    def __init__(self, name, duration_ms, seed, description):
        self.name = name
        self.n = int(duration_ms / ROW_MS) + 1
        self.rng = random.Random(seed)
        self.description = description
        # true acceleration components in g along x (roll) and y (pitch), before the sensor filter
        self.gx = [0.0] * self.n
        self.gy = [0.0] * self.n
        self.kbd = [0] * self.n
        self.mouse = [0] * self.n
        self.expect = []

    def idx(self, t_ms):
        return min(max(int(round(t_ms / ROW_MS)), 0), self.n - 1)

    def times(self):
        return [i * ROW_MS for i in range(self.n)]

    def set_tilt(self, f):
        """f(t_ms) -> (pitch_deg, roll_deg) for the whole trace (gravity only)."""
        for i, t in enumerate(self.times()):
            p, r = f(t)
            self.gx[i] = math.sin(math.radians(r))
            self.gy[i] = math.sin(math.radians(p))

    def add(self, f, start_ms=0, end_ms=None):
        """Adds f(t_ms) -> (dx_g, dy_g) on [start, end)."""
        end_ms = self.n * ROW_MS if end_ms is None else end_ms
        for i in range(self.idx(start_ms), self.idx(end_ms)):
            dx, dy = f(i * ROW_MS)
            self.gx[i] += dx
            self.gy[i] += dy

    def ring(self, t0_ms, amp_g, freq_hz, decay_ms, angle_deg):
        """A damped oscillation (knock, impact) starting at t0 in direction angle."""
        c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))

        def f(t):
            u = (t - t0_ms) / 1000.0
            a = amp_g * math.exp(-(t - t0_ms) / decay_ms) * math.sin(2 * math.pi * freq_hz * u)
            return a * c, a * s
        self.add(f, t0_ms, t0_ms + 6 * decay_ms)

    def pulse(self, t0_ms, amp_g, width_ms, angle_deg):
        """A half-sine pulse (the push of a knock or a bump) starting at t0 in direction angle."""
        c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))

        def f(t):
            a = amp_g * math.sin(math.pi * (t - t0_ms) / width_ms)
            return a * c, a * s
        self.add(f, t0_ms, t0_ms + width_ms)

    def freefall(self, t0_ms, t1_ms):
        """Free fall between t0 and t1: every component reads 0 g."""
        for i in range(self.idx(t0_ms), self.idx(t1_ms)):
            self.gx[i] = self.gy[i] = 0.0

    def activity(self, t_ms, which, length_ms=20):
        arr = self.kbd if which == "keyboard" else self.mouse
        for i in range(self.idx(t_ms), self.idx(t_ms + length_ms) + 1):
            arr[i] = 1

    def render(self, outdir):
        # the sensor's own low-pass, then noise, then integer counts
        a = 1.0 - math.exp(-ROW_MS / SENSOR_TAU_MS)
        fx, fy = self.gx[0], self.gy[0]
        path = os.path.join(outdir, self.name + ".csv")
        with open(path, "w") as out:
            out.write("# SYNTHETIC trace, made by tests/traces/gen-traces.py; not a hardware recording.\n")
            out.write("# scenario: %s\n" % self.description)
            out.write("# rest %d,%d counts (axis code 0), %.0f counts per g, a row every %d ms,\n"
                      % (REST_X, REST_Y, COUNTS_PER_G, ROW_MS))
            out.write("# sensor noise sd %.1f counts (clipped to +-2), sensor low-pass tau %.0f ms.\n"
                      % (NOISE_SD, SENSOR_TAU_MS))
            out.write("# x grows when the right side goes up (roll), y when the front edge goes up (pitch).\n")
            for e in self.expect:
                out.write("# expect: %s\n" % e)
            out.write("time_ms,x,y,keyboard,mouse\n")
            for i in range(self.n):
                fx += a * (self.gx[i] - fx)
                fy += a * (self.gy[i] - fy)
                nx = max(-2.0, min(2.0, self.rng.gauss(0, NOISE_SD)))
                ny = max(-2.0, min(2.0, self.rng.gauss(0, NOISE_SD)))
                x = int(round(REST_X + fx * COUNTS_PER_G + nx))
                y = int(round(REST_Y + fy * COUNTS_PER_G + ny))
                out.write("%d,%d,%d,%d,%d\n" % (i * ROW_MS, x, y, self.kbd[i], self.mouse[i]))


def ramp(t, t0, t1, v0, v1):
    return v0 + (v1 - v0) * smoothstep((t - t0) / (t1 - t0))


def crossing_ms(t0, t1, target_deg):
    """When a smoothstep turn from 0 to target over [t0, t1] crosses the entry angle."""
    u = math.acos(1 - 2 * ENTER_DEG / abs(target_deg)) / math.pi
    return int(round(t0 + u * (t1 - t0)))


def scenario_rest():
    t = Trace("rest", 20000, 1, "machine flat and still on a desk for 20 s")
    t.set_tilt(lambda ms: (0.0, 0.0))
    t.expect += ["no-shock", "orientation normal"]
    return t


def scenario_slow_tilt():
    t = Trace("slow-tilt", 16000, 2,
              "slow tilts: pitch to 25 deg and back over 3+3 s, then roll to -20 deg and back")

    def f(ms):
        p = ramp(ms, 1000, 4000, 0, 25) if ms < 6000 else ramp(ms, 6000, 9000, 25, 0)
        r = ramp(ms, 9000, 12000, 0, -20) if ms < 13000 else ramp(ms, 13000, 16000, -20, 0)
        return p, r
    t.set_tilt(f)
    t.expect += ["no-shock", "orientation normal"]
    return t


def scenario_slow_roll_45():
    t = Trace("slow-roll-45", 16000, 3,
              "a slow roll to +45 deg (right side up) over 5 s, held 4 s, back over 5 s")
    t.set_tilt(lambda ms: (0.0, ramp(ms, 1000, 6000, 0, 45) if ms < 10000 else ramp(ms, 10000, 15000, 45, 0)))
    t.expect += ["no-shock", "orientation normal,right-up,normal",
                 "flip to=right-up at_ms=%d" % crossing_ms(1000, 6000, 45)]
    return t


def scenario_rotation(name, seed, axis, target, label):
    t = Trace(name, 9000, seed, "a deliberate turn to %s (%s %+d deg) in 0.8 s, held 3 s, turned back in 0.8 s"
              % (label, axis, target))

    def f(ms):
        a = ramp(ms, 2000, 2800, 0, target) if ms < 5800 else ramp(ms, 5800, 6600, target, 0)
        return (a, 0.0) if axis == "pitch" else (0.0, a)
    t.set_tilt(f)
    # a hand turning a laptop is not smooth: small jolts while it moves
    t.add(lambda ms: (0.01 * math.sin(ms / 23.0), 0.01 * math.cos(ms / 31.0)), 2000, 2800)
    t.add(lambda ms: (0.01 * math.sin(ms / 23.0), 0.01 * math.cos(ms / 31.0)), 5800, 6600)
    t.expect += ["shock-allowed from_ms=2000 to_ms=3800", "shock-allowed from_ms=5800 to_ms=7600"]
    if label == "normal":
        t.expect.append("orientation normal")
    else:
        back = 5800 + (6600 - 5800) - (crossing_ms(5800, 6600, target) - 5800)
        t.expect += ["orientation normal,%s,normal" % label,
                     "flip to=%s at_ms=%d" % (label, crossing_ms(2000, 2800, target)),
                     "flip to=normal at_ms=%d" % back]
    return t


def scenario_wobble():
    t = Trace("wobble", 8000, 4, "quick wobbles: roll to -45 deg and back within 200 ms, twice; pitch to 50 and "
              "back within 180 ms")

    def bump(ms, t0, width, amp):
        u = (ms - t0) / width
        return amp * math.sin(math.pi * u) if 0 <= u <= 1 else 0.0
    t.set_tilt(lambda ms: (bump(ms, 5000, 180, 50), bump(ms, 2000, 200, -45) + bump(ms, 3500, 200, -45)))
    t.expect += ["shock-allowed from_ms=2000 to_ms=6500", "orientation normal"]
    return t


def scenario_typing():
    t = Trace("typing", 15000, 5, "typing at 4-8 keys/s with space-bar slams, then trackpoint use")
    t.set_tilt(lambda ms: (0.0, 0.0))
    rng = random.Random(50)
    ms = 1000.0
    while ms < 9000:
        slam = rng.random() < 0.12
        amp = (rng.uniform(0.035, 0.05) if slam else rng.uniform(0.01, 0.03))
        t.ring(ms, amp, rng.uniform(20, 40), rng.uniform(8, 15), rng.uniform(60, 120))
        t.activity(ms, "keyboard")
        ms += rng.uniform(120, 250)
    ms = 10000.0
    while ms < 14000:  # trackpoint: tiny pushes, mouse flag
        t.add(lambda u: (0.006 * math.sin(u / 40.0), 0.004 * math.cos(u / 55.0)), ms, ms + 100)
        t.activity(ms, "mouse", 100)
        ms += 120
    t.expect += ["no-shock", "orientation normal"]
    return t


def scenario_knock():
    t = Trace("desk-knock", 12000, 6, "three knocks on the desk 3 s apart: a 40 ms push of 0.15, 0.25, 0.4 g, then the desk ringing (17, 21, 29 Hz) down in 25 ms")
    t.set_tilt(lambda ms: (0.0, 0.0))
    for t0, amp, freq in ((3000, 0.15, 17), (6000, 0.25, 21), (9000, 0.4, 29)):
        t.pulse(t0, amp, 40, 70)
        t.ring(t0 + 40, amp / 3, freq, 25, 250)
        t.expect.append("shock at_ms=%d kind=knock" % t0)
    t.expect.append("orientation normal")
    return t


def scenario_lift_carry():
    t = Trace("lift-and-carry", 12000, 7, "lifted at 2 s (to pitch 15, roll -8 in 0.4 s), carried "
              "walking for 4.6 s (2 Hz steps), put down at 7 s")

    def f(ms):
        if ms < 2400:
            k = smoothstep((ms - 2000) / 400)
        elif ms < 7000:
            k = 1.0
        else:
            k = 1 - smoothstep((ms - 7000) / 400)
        return 15 * k, -8 * k
    t.set_tilt(f)
    t.ring(2000, 0.2, 8, 60, 30)        # the jolt of lifting
    t.add(lambda ms: (0.04 * math.sin(2 * math.pi * 2 * ms / 1000.0),
                      0.08 * abs(math.sin(2 * math.pi * 2 * ms / 1000.0)) - 0.05), 2400, 7000)
    t.ring(7300, 0.3, 20, 20, 100)      # set down
    t.expect += ["shock at_ms=2000 kind=lift", "shock-allowed from_ms=2000 to_ms=8500",
                 "orientation normal"]
    return t


def scenario_drop(name, seed, height_cm, pitch, roll):
    fall_ms = 1000.0 * math.sqrt(2 * height_cm / 100.0 / G)
    t = Trace(name, 10000, seed, "held in the hands (pitch %d, roll %d deg) then dropped %d cm: free fall %.0f ms, "
              "impact, lands flat" % (pitch, roll, height_cm, fall_ms))
    release = 5000

    def f(ms):
        if ms < release:
            k = smoothstep((ms - 1000) / 500)
            return pitch * k, roll * k
        return 0.0, 0.0
    t.set_tilt(f)
    # hands: physiological tremor ~10 Hz, 0.004 g
    t.add(lambda ms: (0.004 * math.sin(2 * math.pi * 10 * ms / 1000.0),
                      0.003 * math.sin(2 * math.pi * 9 * ms / 1000.0 + 1)), 1000, release)
    land = release + fall_ms
    t.freefall(release, land)
    t.ring(land, 2.0 + height_cm / 50.0, 70, 8, 40)  # impact
    t.ring(land + 60, 0.5, 30, 20, 120)               # bounce
    t.expect += ["shock-allowed from_ms=1000 to_ms=3000",
                 "shock at_ms=%d kind=drop" % release,
                 "shock-allowed from_ms=%d to_ms=%d" % (release, land + 1500),
                 "orientation normal"]
    return t


def scenario_vibration(name, seed, desc, freqs, amp_g, sway_deg):
    t = Trace(name, 20000, seed, desc)
    t.set_tilt(lambda ms: (sway_deg * math.sin(2 * math.pi * 0.3 * ms / 1000.0) * smoothstep((ms - 2000) / 4000),
                           0.0))
    rng = random.Random(seed * 7)
    phases = [rng.uniform(0, 2 * math.pi) for _ in freqs]

    def f(ms):
        env = smoothstep((ms - 2000) / 4000) * (0.8 + 0.2 * math.sin(ms / 700.0))
        u = ms / 1000.0
        s = sum(math.sin(2 * math.pi * fr * u + ph) for fr, ph in zip(freqs, phases)) / len(freqs)
        s2 = sum(math.cos(2 * math.pi * fr * 1.07 * u + ph) for fr, ph in zip(freqs, phases)) / len(freqs)
        return amp_g * env * s2 * 0.6, amp_g * env * s
    t.add(f, 2000)
    t.expect += ["no-shock", "orientation normal"]
    return t


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    traces = [
        scenario_rest(),
        scenario_slow_tilt(),
        scenario_slow_roll_45(),
        scenario_rotation("rotate-left-up", 11, "roll", -90, "left-up"),
        scenario_rotation("rotate-right-up", 12, "roll", 90, "right-up"),
        scenario_rotation("rotate-bottom-up", 13, "pitch", 90, "bottom-up"),
        scenario_rotation("rotate-upright", 14, "pitch", -90, "normal"),
        scenario_wobble(),
        scenario_typing(),
        scenario_knock(),
        scenario_lift_carry(),
        scenario_drop("drop-10cm", 21, 10, 12, -6),
        scenario_drop("drop-30cm", 22, 30, 8, 5),
        scenario_drop("drop-75cm", 23, 75, 15, 10),
        scenario_drop("drop-flat-75cm", 24, 75, 5, 0),
        scenario_vibration("vibration-train", 31, "a train: 5-12 Hz, up to 0.12 g, building up over 4 s, "
                           "with a 0.3 Hz sway of 3 deg", (5.0, 8.0, 12.0), 0.12, 3.0),
        scenario_vibration("vibration-desk", 32, "a vibrating desk: 15 Hz, 0.06 g, building up over 4 s",
                           (15.0,), 0.06, 0.0),
    ]
    for t in traces:
        t.render(outdir)
    print("wrote %d traces to %s" % (len(traces), outdir))


if __name__ == "__main__":
    main()
