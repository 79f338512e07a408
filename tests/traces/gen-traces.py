#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generates the SYNTHETIC labelled motion traces in tests/traces/ (there are no public real HDAPS
recordings; see docs/MOTION.md). Deterministic: a fixed seed per scenario.

Format (service/sim/trace.h): '#' comments, header "time_ms,x,y,keyboard,mouse", raw counts as the EC
reports them with axis code 0. Rows every ROW_MS; the emulator interpolates and samples them at the EC
rate. Expected events are machine-readable comment lines read by bench/motion/eval-motion:
  # expect: no-shock                              no shock anywhere (outside shock-allowed spans)
  # expect: shock at_ms=T kind=K [impact_ms=I]     a shock must start at or after T; K=drop (the release
                                                  of a machine tilted by 10 degrees or more) must be
                                                  detected within 2 readouts, K=flat-drop (a nearly flat
                                                  machine) before the impact at I, others within 10
                                                  readouts; with impact_ms a drop must also come before I
  # expect: shock-allowed from_ms=A to_ms=B       shocks in [A, B] are neither required nor false alarms
  # expect: orientation a,b,c                     the exact sequence of orientations (no flicker)
  # expect: flip to=O at_ms=T                     the flip to O must come within 500 ms after T (the
                                                  moment the angle crosses the 35 degree entry angle)
The movement traces (movement/, for bench/motion/eval-movement; not shock traces) have their own:
  # expect: no-movement                           no Moved anywhere (outside movement-allowed spans)
  # expect: movement at_ms=T until_ms=U kind=K    the machine is moved from T to U: Moved must come
                                                  within 1000 ms after T; more Moved until U + 3 s are
                                                  the same movement (put down, carried on)
  # expect: movement-allowed from_ms=A to_ms=B    Moved in [A, B] is neither required nor a false alarm
Usage: gen-traces.py [OUTDIR]   (default: the directory of this script; the movement traces go to
OUTDIR/movement/)
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
        self.pitch = [0.0] * self.n  # the machine's attitude in degrees (set_tilt), for add_body
        self.roll = [0.0] * self.n

    def idx(self, t_ms):
        return min(max(int(round(t_ms / ROW_MS)), 0), self.n - 1)

    def times(self):
        return [i * ROW_MS for i in range(self.n)]

    def set_tilt(self, f):
        """f(t_ms) -> (pitch_deg, roll_deg) for the whole trace (gravity only)."""
        for i, t in enumerate(self.times()):
            p, r = f(t)
            self.pitch[i], self.roll[i] = p, r
            self.gx[i] = math.sin(math.radians(r))
            self.gy[i] = math.sin(math.radians(p))

    def add_body(self, f, start_ms=0, end_ms=None):
        """Adds the acceleration of the machine itself, f(t_ms) -> (side_g, fore_g, vertical_g): side
        and fore are horizontal, along the machine's x (roll) and y (pitch) axes; vertical is up. The
        sensor measures the in-plane part of (acceleration - gravity): side and fore almost in full
        (cos of the tilt), the vertical part through the tilt (sin), as gravity itself."""
        end_ms = self.n * ROW_MS if end_ms is None else end_ms
        for i in range(self.idx(start_ms), self.idx(end_ms)):
            side, fore, vert = f(i * ROW_MS)
            p, r = math.radians(self.pitch[i]), math.radians(self.roll[i])
            self.gx[i] += side * math.cos(r) + vert * math.sin(r)
            self.gy[i] += fore * math.cos(p) + vert * math.sin(p)

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


def scenario_drop(name, seed, height_cm, pitch, roll, kind="drop"):
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
                 "shock at_ms=%d kind=%s impact_ms=%d" % (release, kind, int(land)),
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


# --- Round 2: vehicles, walking, stairs, lap use, nearly flat drops, soft landings. ---
# Physics of these scenarios (all in g; SYNTHETIC, the figures are the generator's choices, from
# ride-comfort and gait literature orders of magnitude):
# - A vehicle: body bounce 1-1.5 Hz and road bumps 1-3 Hz (vertical up to 0.15-0.25 g; in the plane of a
#   nearly flat machine the horizontal bumps reach up to 0.08-0.1 g), a pothole (a short vertical dip then
#   a hit of about 1 g and the suspension ringing at ~10 Hz, a short horizontal pulse of ~0.1 g), gentle
#   acceleration, braking and curves (0.1-0.15 g over seconds) and the engine's hum (its firing
#   frequency, 25-80 Hz, about 0.01 g at the seat). The machine is nearly flat on a lap or seat (3-5 deg)
#   and rocks a little with the seat. A vehicle never holds the in-plane reading at 0 g: bumps pass
#   through it.
# - Walking with the machine in the hands: steps at 1.8-2 Hz, vertical +-0.25 g with its second
#   harmonic, fore-aft +-0.06 g, sideways sway at half the step rate, heel strikes as short rings, the
#   hands' wobble of 1-2 deg. Stairs: up at 1.5 steps/s, down at 1.7 steps/s with a partial unloading
#   (-0.4 g for ~150 ms) and a landing (+0.6 g) per step. Walking starts and stops over a second or two.
# - A lap: thighs tilt the machine 2-6 deg, typing rings softly (8-15 Hz, 0.01-0.04 g), a leg shift
#   rotates the machine by a few degrees in 0.3-0.7 s (sometimes through level) with a 5 Hz jiggle, a
#   bouncing knee shakes it at 4-5 Hz.
# - Free fall reads 0 g on both axes until the impact; a bed stops a machine over ~100 ms at a few g
#   (the reaction is vertical, so in the plane only its sin(tilt) share), bounces and settles at 3-4 Hz.


def band(rng, f_lo, f_hi, n, peak_g):
    """A random sum of n sines between f_lo and f_hi Hz, scaled so that its peak is about peak_g."""
    comps = [(rng.uniform(f_lo, f_hi), rng.uniform(0, 2 * math.pi)) for _ in range(n)]
    scale = peak_g / (0.7 * n) if n > 1 else peak_g

    def f(ms):
        u = ms / 1000.0
        return scale * sum(math.sin(2 * math.pi * fr * u + ph) for fr, ph in comps)
    return f


def hum(rng, freq_hz, amp_g):
    """An engine's hum: its firing frequency with a slow wander, on both in-plane axes."""
    ph = rng.uniform(0, 2 * math.pi)

    def f(ms):
        u = ms / 1000.0
        fr = freq_hz * (1 + 0.03 * math.sin(2 * math.pi * 0.2 * u))
        return amp_g * math.sin(2 * math.pi * fr * u + ph), 0.7 * amp_g * math.cos(2 * math.pi * fr * u + ph)
    return f


def pothole(t, t0, fore_g, side_g):
    """A pothole: the wheel drops (-0.3 g, 60 ms), hits (+0.6 g at the seat, 40 ms), the suspension rings at 10 Hz;
    a short horizontal pulse; the seat rocks the machine by about a degree."""
    def vert(ms):
        u = ms - t0
        if u < 60:
            return -0.3 * math.sin(math.pi * u / 60)
        if u < 100:
            return 0.6 * math.sin(math.pi * (u - 60) / 40)
        return 0.2 * math.exp(-(u - 100) / 80.0) * math.sin(2 * math.pi * 10 * (u - 100) / 1000.0)
    t.add_body(lambda ms: (0.0, 0.0, vert(ms)), t0, t0 + 600)
    t.add_body(lambda ms: (side_g * math.sin(math.pi * (ms - t0 - 60) / 60),
                           fore_g * math.sin(math.pi * (ms - t0 - 60) / 60), 0.0), t0 + 60, t0 + 120)
    t.ring(t0 + 60, 0.025, 4, 120, 80)  # the seat rocking (~1 deg)


def level_start(ms, k_ms=1000, settle_ms=600):
    """0 before k_ms (the first readout calibrates the rest, level), 1 after k_ms + settle_ms."""
    return smoothstep((ms - k_ms) / settle_ms)


def scenario_vehicle(name, seed, desc, pitch, roll, bounce_g, bump_g, hum_hz, hum_g, potholes, stops):
    dur = 30000
    t = Trace(name, dur, seed, desc)
    rng = random.Random(seed * 13)
    rock_p = band(rng, 0.3, 1.2, 3, 0.8)
    rock_r = band(rng, 0.3, 1.2, 3, 0.6)
    t.set_tilt(lambda ms: (level_start(ms) * (pitch + rock_p(ms)), level_start(ms) * (roll + rock_r(ms))))
    h = hum(rng, hum_hz, hum_g)
    t.add(h, 1000)  # the engine runs from the start
    vert = band(rng, 1.0, 1.6, 3, bounce_g)
    fore = band(rng, 1.0, 3.0, 5, bump_g)
    side = band(rng, 1.0, 3.0, 5, 0.8 * bump_g)

    def road(ms):
        # the ride builds up while pulling away (3 s) and dies down at each stop
        k = smoothstep((ms - 2000) / 3000)
        for a, b in stops:
            k *= 1 - smoothstep((ms - a) / 1500) * (1 - smoothstep((ms - b) / 1500))
        return side(ms) * k, fore(ms) * k, vert(ms) * k
    t.add_body(road, 2000)
    # pulling away, braking for each stop, curves: 0.1-0.15 g over seconds
    t.add_body(lambda ms: (0.0, 0.12 * math.sin(math.pi * min(max((ms - 2000) / 3000, 0), 1)), 0.0), 2000, 5000)
    for a, b in stops:
        t.add_body(lambda ms, a=a: (0.0, -0.15 * math.sin(math.pi * (ms - a + 1500) / 1500), 0.0), a - 1500, a)
        t.add_body(lambda ms, b=b: (0.0, 0.12 * math.sin(math.pi * (ms - b) / 2500), 0.0), b, b + 2500)
    for c0 in (9000, 21000):
        t.add_body(lambda ms, c0=c0: (0.13 * math.sin(math.pi * (ms - c0) / 3000), 0.0, 0.0), c0, c0 + 3000)
    for t0, fg, sg in potholes:
        pothole(t, t0, fg, sg)
    t.expect += ["no-shock", "orientation normal"]
    return t


def scenario_walk(name, seed, desc, pitch, roll, stairs):
    dur = 24000
    t = Trace(name, dur, seed, desc)
    rng = random.Random(seed * 17)
    wob_p = band(rng, 0.5, 1.5, 3, 1.5)
    wob_r = band(rng, 0.5, 1.5, 3, 1.0)
    walk_from, walk_to = 2500, 21500

    def env(ms):
        return smoothstep((ms - walk_from) / 1500) * (1 - smoothstep((ms - walk_to + 1500) / 1500))
    t.set_tilt(lambda ms: (level_start(ms) * pitch + env(ms) * wob_p(ms),
                           level_start(ms) * roll + env(ms) * wob_r(ms)))
    if not stairs:
        step_hz = 1.9
        t.add_body(lambda ms: (0.04 * env(ms) * math.sin(math.pi * step_hz * ms / 1000.0),
                               0.06 * env(ms) * math.sin(2 * math.pi * step_hz * ms / 1000.0 + 0.8)
                               + 0.03 * env(ms) * math.sin(4 * math.pi * step_hz * ms / 1000.0),
                               env(ms) * (0.25 * math.sin(2 * math.pi * step_hz * ms / 1000.0)
                                          + 0.1 * math.sin(4 * math.pi * step_hz * ms / 1000.0 + 1.1))))
        period = 1000.0 / step_hz
        ms = walk_from + period
        while ms < walk_to - period:
            k = env(ms)
            t.ring(ms, 0.05 * k, rng.uniform(12, 18), 30, rng.uniform(60, 120))  # heel strike
            ms += period * rng.uniform(0.95, 1.05)
    else:
        # up 12 steps, a landing (a pause of 2 s, turning), down 12 steps
        up_hz, down_hz = 1.5, 1.7
        ms = walk_from + 500
        for _ in range(12):
            t.add_body(lambda u, s0=ms: (0.03 * math.sin(math.pi * (u - s0) / 667.0),
                                         0.08 * math.sin(2 * math.pi * (u - s0) / 667.0),
                                         0.35 * math.sin(2 * math.pi * (u - s0) / 667.0)
                                         - 0.1 * math.sin(4 * math.pi * (u - s0) / 667.0)), ms, ms + 667)
            t.ring(ms + 330, 0.06, rng.uniform(12, 18), 30, rng.uniform(60, 120))
            ms += 1000.0 / up_hz * rng.uniform(0.95, 1.05)
        ms += 2000
        for _ in range(12):
            s0 = ms
            # unloading while the body drops to the next step, then the landing
            t.add_body(lambda u, s0=s0: (0.0, -0.06 * math.sin(math.pi * (u - s0) / 150.0),
                                         -0.4 * math.sin(math.pi * (u - s0) / 150.0)), s0, s0 + 150)
            t.add_body(lambda u, s0=s0: (0.03 * math.sin(math.pi * (u - s0 - 150) / 90.0),
                                         0.08 * math.sin(math.pi * (u - s0 - 150) / 90.0),
                                         0.6 * math.sin(math.pi * (u - s0 - 150) / 90.0)), s0 + 150, s0 + 240)
            t.ring(s0 + 160, 0.08, rng.uniform(14, 20), 25, rng.uniform(60, 120))
            ms += 1000.0 / down_hz * rng.uniform(0.95, 1.05)
    t.expect += ["no-shock", "orientation normal"]
    return t


def scenario_lap(seed, name="lap-typing"):
    t = Trace(name, 30000, seed, "on a lap (thighs tilt it 2-6 deg): typing bursts with soft "
              "keystroke rings, leg shifts that rotate it by 3-6 deg (once through level) in 0.3-0.7 s, a "
              "bouncing knee at 4.5 Hz")
    rng = random.Random(seed * 19)
    # posture: (time, pitch, roll) targets, reached over the shift's duration
    shifts = [(1000, 600, 4.0, 1.0), (7000, 400, 1.0, -1.0), (12500, 300, -1.5, 0.5), (18000, 500, 5.0, 2.0),
              (26000, 700, 2.0, -0.5)]

    def posture(ms):
        p = r = 0.0
        for t0, d, tp, tr in shifts:
            k = smoothstep((ms - t0) / d)
            p += k * (tp - p)
            r += k * (tr - r)
        return p, r
    t.set_tilt(posture)
    for t0, d, _, _ in shifts[1:]:
        t.ring(t0 + d // 2, 0.04, 5, 100, rng.uniform(0, 180))  # the jiggle of a leg moving
    # typing bursts (keyboard flags), keystrokes soft on a lap
    for b0, b1 in ((2000, 6500), (8000, 12000), (13500, 17500), (19000, 23500), (25000, 29500)):
        ms = float(b0)
        while ms < b1:
            slam = rng.random() < 0.1
            amp = rng.uniform(0.03, 0.045) if slam else rng.uniform(0.01, 0.025)
            t.ring(ms, amp, rng.uniform(8, 15), rng.uniform(20, 40), rng.uniform(60, 120))
            t.activity(ms, "keyboard")
            ms += rng.uniform(120, 260)
    # a bouncing knee, 4.5 Hz, during the pause in typing
    t.add(lambda ms: (0.01 * math.sin(2 * math.pi * 4.5 * ms / 1000.0),
                      0.035 * math.sin(2 * math.pi * 4.5 * ms / 1000.0)
                      * smoothstep((ms - 23600) / 300) * (1 - smoothstep((ms - 24700) / 300))), 23600, 25000)
    t.expect += ["no-shock", "orientation normal"]
    return t


def scenario_flat_drop(name, seed, height_cm, pitch, roll, kind, release=5000):
    fall_ms = 1000.0 * math.sqrt(2 * height_cm / 100.0 / G)
    tilt = math.degrees(math.asin(math.hypot(math.sin(math.radians(pitch)), math.sin(math.radians(roll)))))
    t = Trace(name, 10000, seed, "held in the hands nearly flat (pitch %g, roll %g deg: %.1f deg) then dropped "
              "%d cm: free fall %.0f ms, impact, lands flat" % (pitch, roll, tilt, height_cm, fall_ms))
    t.set_tilt(lambda ms: (pitch * level_start(ms, 1000, 500), roll * level_start(ms, 1000, 500))
               if ms < release else (0.0, 0.0))
    t.add(lambda ms: (0.004 * math.sin(2 * math.pi * 10 * ms / 1000.0),
                      0.003 * math.sin(2 * math.pi * 9 * ms / 1000.0 + 1)), 1000, release)
    land = release + fall_ms
    t.freefall(release, land)
    t.ring(land, 2.0 + height_cm / 50.0, 70, 8, 40)
    t.ring(land + 60, 0.5, 30, 20, 120)
    t.expect += ["shock-allowed from_ms=1000 to_ms=3000",
                 "shock at_ms=%d kind=%s impact_ms=%d" % (release, kind, int(land)),
                 "shock-allowed from_ms=%d to_ms=%d" % (release, land + 1500),
                 "orientation normal"]
    return t


def scenario_bed_drop(name, seed, height_cm, pitch, roll, kind, release=5000):
    """Dropped onto a bed: the mattress stops the machine over ~100 ms, it bounces once (a short second
    flight) and settles at 3.5 Hz, resting a little tilted on the soft surface."""
    fall_ms = 1000.0 * math.sqrt(2 * height_cm / 100.0 / G)
    t = Trace(name, 10000, seed, "held at pitch %g, roll %g deg, dropped %d cm onto a bed: free fall %.0f ms, "
              "a soft landing (~100 ms, up to 3 g vertical), one bounce, settles tilted 2-3 deg"
              % (pitch, roll, height_cm, fall_ms))
    land = release + fall_ms
    bounce_at, bounce_ms = land + 110, 60

    def tilt(ms):
        if ms < release:
            return pitch * level_start(ms, 1000, 500), roll * level_start(ms, 1000, 500)
        if ms < land:
            return pitch, roll  # the vector reads 0 g anyway (free fall)
        k = smoothstep((ms - land) / 300)  # the mattress turns it to its resting tilt
        return pitch + k * (2.0 - pitch), roll + k * (-1.5 - roll)
    t.set_tilt(tilt)
    t.add(lambda ms: (0.004 * math.sin(2 * math.pi * 10 * ms / 1000.0),
                      0.003 * math.sin(2 * math.pi * 9 * ms / 1000.0 + 1)), 1000, release)
    t.freefall(release, land)
    peak = min(3.0, 0.6 + height_cm / 20.0)
    t.add_body(lambda ms: (0.0, 0.0, peak * math.sin(math.pi * (ms - land) / 110.0)), land, land + 110)
    t.freefall(bounce_at, bounce_at + bounce_ms)
    t.add_body(lambda ms: (0.0, 0.0, 0.8 * math.exp(-(ms - bounce_at - bounce_ms) / 150.0)
                           * math.sin(2 * math.pi * 3.5 * (ms - bounce_at - bounce_ms) / 1000.0)),
               bounce_at + bounce_ms, bounce_at + bounce_ms + 900)
    t.ring(land, 0.06, 3.5, 200, 60)
    t.expect += ["shock-allowed from_ms=1000 to_ms=3000",
                 "shock at_ms=%d kind=%s impact_ms=%d" % (release, kind, int(land)),
                 "shock-allowed from_ms=%d to_ms=%d" % (release, land + 2000),
                 "orientation normal"]
    return t


def round2(variant=0):
    """The round-2 scenarios; variant k > 0 renders them again with seed 1000 + 7k added to each
    seed and the name suffixed -vK (other noise, bump frequencies and phases, release phases)."""
    o = 1000 + 7 * variant if variant else 0
    n = (lambda name: "%s-v%d" % (name, variant)) if variant else (lambda name: name)
    return [
        scenario_vehicle(n("car-ride"), 41 + o, "a car ride on a lap, nearly flat (pitch 3.5, roll 1.5 deg): body bounce "
                         "0.15 g, road bumps up to 0.08 g at 1-3 Hz, engine hum 30-70 Hz, curves, a stop, "
                         "two potholes", 3.5, 1.5, 0.15, 0.08, 45.0, 0.012,
                         ((8000, 0.06, 0.03), (19000, -0.05, 0.04)), ((13500, 16000),)),
        scenario_vehicle(n("car-ride-rough"), 42 + o, "a car on a rough road, machine on the seat nearly flat (pitch 2, roll "
                         "-3 deg): bounce 0.2 g, bumps up to 0.1 g, hum 28 Hz, three potholes", 2.0, -3.0,
                         0.2, 0.1, 28.0, 0.015, ((6000, 0.08, -0.03), (11000, -0.06, 0.05), (24500, 0.07, 0.0)),
                         ((16000, 18500),)),
        scenario_vehicle(n("bus-ride"), 43 + o, "a city bus, on a lap nearly flat (pitch 5, roll -2 deg): bounce 0.25 g "
                         "at 1-1.5 Hz, bumps up to 0.1 g, diesel hum 24 Hz, two stops, two potholes", 5.0, -2.0,
                         0.25, 0.1, 24.0, 0.015, ((7000, 0.08, 0.04), (22000, -0.07, -0.04)),
                         ((10000, 13000), (25500, 28000))),
        scenario_walk(n("walking"), 44 + o, "walking with the machine in the hands nearly flat (pitch 5, roll 2 deg): "
                      "steps at 1.9 Hz, vertical 0.25 g, fore-aft 0.06 g, heel strikes, hand wobble 1-2 deg",
                      5.0, 2.0, False),
        scenario_walk(n("stairs"), 45 + o, "climbing 12 stairs with the machine in the hands (pitch 4, roll -2 deg), a "
                      "landing, then 12 down: unloading -0.4 g and landings +0.6 g per step", 4.0, -2.0, True),
        scenario_lap(46 + o, n("lap-typing")),
        scenario_flat_drop(n("drop-flat-10cm"), 51 + o, 10, 4.0, 0.0, "flat-drop"),
        scenario_flat_drop(n("drop-flat-30cm"), 52 + o, 30, -2.0, 5.6, "flat-drop"),
        scenario_flat_drop(n("drop-flat4-75cm"), 53 + o, 75, 0.0, -4.0, "flat-drop"),
        scenario_flat_drop(n("drop-10deg-10cm"), 54 + o, 10, 8.0, -6.0, "drop"),
        scenario_bed_drop(n("drop-bed-20cm"), 55 + o, 20, 5.0, 1.0, "flat-drop"),
        scenario_bed_drop(n("drop-bed-50cm"), 56 + o, 50, 10.0, 6.0, "drop"),
    ]


# --- Movement: the machine moved (a theft alarm's input) or not (typing, knocks, vibration). ---
# SYNTHETIC, like the rest; the orders of magnitude are the generator's choices: lifting a laptop tilts it
# by 5-20 deg within half a second and the hands then hold it with a tremor and a wobble of 1-2 deg; a
# slide of 30 cm in 1 s is a push of up to 0.15 g, back and forth, with the rattle of friction; carried
# closed under the arm or in a bag it stands nearly on edge (60-90 deg) and swings with the steps. The
# negatives happen on a desk at rest: keystrokes ring at 8-40 Hz (0.01-0.05 g) and a typing hand presses
# the base by up to a degree or two; a knock is tens of milliseconds; a fan hums at 25-60 Hz; a train
# passing a house shakes the floor at 5-40 Hz (up to 0.03 g) for ten seconds; footsteps on a wooden
# floor are short rings of 0.01-0.03 g.


def hands(t, start_ms, end_ms, seed):
    """The hands holding a machine: tremor (~10 Hz, 0.004 g) and a slow wobble of 1-2 deg."""
    rng = random.Random(seed)
    wob_p, wob_r = band(rng, 0.4, 1.5, 3, 1.5), band(rng, 0.4, 1.5, 3, 1.0)
    t.add(lambda ms: (0.004 * math.sin(2 * math.pi * 10 * ms / 1000.0)
                      + math.sin(math.radians(wob_r(ms))),
                      0.003 * math.sin(2 * math.pi * 9 * ms / 1000.0 + 1)
                      + math.sin(math.radians(wob_p(ms)))), start_ms, end_ms)


def carried(t, start_ms, end_ms, step_hz=1.9, amp=1.0):
    """Walking with it: steps (vertical 0.25 g through the tilt, fore-aft 0.06 g, sideways sway at half the
    step rate), fading in and out over 0.8 s."""
    def f(ms):
        k = amp * smoothstep((ms - start_ms) / 800) * (1 - smoothstep((ms - end_ms + 800) / 800))
        u = ms / 1000.0
        return (0.04 * k * math.sin(math.pi * step_hz * u),
                0.06 * k * math.sin(2 * math.pi * step_hz * u + 0.8),
                k * (0.25 * math.sin(2 * math.pi * step_hz * u) + 0.1 * math.sin(4 * math.pi * step_hz * u + 1.1)))
    t.add_body(f, start_ms, end_ms)


def scenario_picked_up():
    t = Trace("picked-up", 16000, 71, "flat on a desk; at 6 s picked up (to pitch 12, roll -6 in 0.5 s), held in "
              "the hands 3 s, put down flat again at 9.5 s")

    def f(ms):
        k = smoothstep((ms - 6000) / 500) * (1 - smoothstep((ms - 9500) / 400))
        return 12 * k, -6 * k
    t.set_tilt(f)
    t.ring(6000, 0.15, 8, 60, 70)   # the jolt of lifting
    hands(t, 6300, 9500, 711)
    t.ring(9900, 0.25, 20, 20, 100)  # set down
    t.expect += ["movement at_ms=6000 until_ms=10000 kind=lift"]
    return t


def scenario_slid():
    t = Trace("slid-across-desk", 14000, 72, "flat on a desk; at 6 s slid 30 cm across it in 1 s (a push of up to "
              "0.15 g, then the braking) with the rattle of friction")
    t.set_tilt(lambda ms: (0.0, 0.0))
    d, T = 0.30, 1.0  # metres, seconds: displacement d * smoothstep(t / T)

    def push(ms):
        u = (ms - 6000) / 1000.0
        a = d * (math.pi / T) ** 2 / 2 * math.cos(math.pi * u / T) / G  # g
        return 0.35 * a, a, 0.0  # mostly away from the user, a little sideways
    t.add_body(push, 6000, 7000)
    rattle = band(random.Random(721), 20, 40, 4, 0.015)
    t.add(lambda ms: (rattle(ms), 0.7 * rattle(ms + 13)), 6000, 7000)
    t.ring(7000, 0.04, 15, 30, 80)  # it stops
    t.expect += ["movement at_ms=6000 until_ms=7000 kind=slide"]
    return t


def scenario_lid_closed_carried():
    t = Trace("lid-closed-carried", 20000, 73, "flat on a desk; at 6 s the lid is closed (a jolt), at 7.5 s the "
              "machine is lifted and turned on edge under the arm (pitch 75 in 0.8 s), carried walking for 7 s, "
              "put down flat on another desk at 16 s")

    def f(ms):
        k = smoothstep((ms - 7500) / 800) * (1 - smoothstep((ms - 16000) / 700))
        return 75 * k, 8 * k
    t.set_tilt(f)
    t.ring(6000, 0.08, 15, 40, 90)  # the lid shuts
    t.ring(7500, 0.12, 8, 60, 60)
    hands(t, 7800, 16000, 731)
    carried(t, 8500, 15500)
    t.ring(16600, 0.3, 20, 20, 100)
    t.expect += ["movement-allowed from_ms=6000 to_ms=7500",
                 "movement at_ms=7500 until_ms=16700 kind=carry"]
    return t


def scenario_into_bag():
    t = Trace("put-into-bag", 20000, 74, "flat on a desk; at 6 s picked up (pitch 10), turned on edge and slid "
              "into a bag on the floor (pitch 85, roll 10 by 7.5 s, bumping), then the bag is carried away "
              "swinging (0.8 Hz, 10 deg)")

    def f(ms):
        if ms < 6600:
            k = smoothstep((ms - 6000) / 600)
            return 10 * k, 0.0
        k = smoothstep((ms - 6600) / 900)
        swing = 10 * math.sin(2 * math.pi * 0.8 * (ms - 9000) / 1000.0) * smoothstep((ms - 9000) / 1000)
        return 10 + 75 * k, 10 * k + swing
    t.set_tilt(f)
    t.ring(6000, 0.15, 8, 60, 70)
    for t0 in (6900, 7200, 7500):
        t.ring(t0, 0.1, 18, 25, 160)  # it bumps the bag's sides
    hands(t, 6300, 8500, 741)
    carried(t, 9000, 20000, 1.8)
    t.expect += ["movement at_ms=6000 until_ms=20000 kind=bag"]
    return t


def desk(name, duration_ms, seed, description):
    """A negative: the machine flat on a desk the whole time, never moved."""
    t = Trace(name, duration_ms, seed, description)
    t.set_tilt(lambda ms: (0.0, 0.0))
    t.expect.append("no-movement")
    return t


def typing_strokes(t, rng, start_ms, end_ms, rate=(120, 250), press_deg=0.0):
    """Keystrokes: rings (0.01-0.03 g, slams 0.035-0.05 g) at 8-40 Hz with the keyboard flag; press_deg: the
    base pressed down at the front by up to that much for each key (a hand on a light machine)."""
    ms = float(start_ms)
    while ms < end_ms:
        slam = rng.random() < 0.12
        amp = rng.uniform(0.035, 0.05) if slam else rng.uniform(0.01, 0.03)
        t.ring(ms, amp, rng.uniform(8, 40), rng.uniform(8, 15), rng.uniform(60, 120))
        if press_deg:
            p = math.sin(math.radians(press_deg * rng.uniform(0.4, 1.0)))
            t.add(lambda u, s0=ms, p=p: (0.0, -p * math.sin(math.pi * (u - s0) / 180.0)), ms, ms + 180)
        t.activity(ms, "keyboard")
        ms += rng.uniform(*rate)


def scenario_typing_desk():
    t = desk("typing", 20000, 75, "typing on it at 4-8 keys/s with space-bar slams and the hands pressing the "
             "base by up to 0.5 deg, then trackpoint use")
    rng = random.Random(751)
    typing_strokes(t, rng, 2000, 12000, press_deg=0.5)
    ms = 13000.0
    while ms < 18000:
        t.add(lambda u: (0.006 * math.sin(u / 40.0), 0.004 * math.cos(u / 55.0)), ms, ms + 100)
        t.activity(ms, "mouse", 100)
        ms += 120
    return t


def scenario_password():
    t = desk("typing-password", 16000, 76, "the lock screen: a key wakes it at 5 s, a 12-character password "
             "typed at 3-5 keys/s pressing the front of the base down by up to 2 deg, Enter slammed")
    rng = random.Random(761)
    typing_strokes(t, rng, 5000, 5001, press_deg=2.0)
    typing_strokes(t, rng, 6500, 9500, rate=(200, 330), press_deg=2.0)
    t.ring(9700, 0.06, 25, 15, 90)
    t.add(lambda u: (0.0, -math.sin(math.radians(2.0)) * math.sin(math.pi * (u - 9700) / 250.0)), 9700, 9950)
    t.activity(9700, "keyboard")
    return t


def scenario_knocks():
    t = desk("knocks", 20000, 77, "knocks on the desk: 0.15, 0.3, 0.5 g pushes of 40 ms 3 s apart, a double knock, "
             "and a fist banged on the desk (1.2 g, 60 ms)")
    for t0, amp, width in ((3000, 0.15, 40), (6000, 0.3, 40), (9000, 0.5, 40), (12000, 0.3, 40),
                           (12150, 0.3, 40), (15000, 1.2, 60)):
        t.pulse(t0, amp, width, 70)
        t.ring(t0 + width, amp / 3, 25, 25, 250)
    return t


def scenario_fan():
    t = desk("fan", 20000, 78, "a desk fan beside it, switched on at 3 s: a hum at 25 and 50 Hz (0.012 g) with "
             "a wobble at its 1 Hz oscillation")
    h1, h2 = hum(random.Random(781), 25.0, 0.008), hum(random.Random(782), 50.0, 0.004)

    def f(ms):
        k = smoothstep((ms - 3000) / 2000) * (1 + 0.3 * math.sin(2 * math.pi * 1.0 * ms / 1000.0))
        a, b = h1(ms), h2(ms)
        return k * (a[0] + b[0]), k * (a[1] + b[1])
    t.add(f, 3000)
    return t


def scenario_train_passing():
    t = desk("train-passing", 24000, 79, "a train passing the house: the floor shakes at 5-40 Hz up to 0.03 g "
             "with a rumble at 2-4 Hz (0.01 g), building up over 4 s from 4 s, 10 s long")
    rng = random.Random(791)
    shake, shake2 = band(rng, 5, 40, 8, 0.03), band(rng, 5, 40, 8, 0.025)
    rumble, rumble2 = band(rng, 2, 4, 3, 0.01), band(rng, 2, 4, 3, 0.008)

    def f(ms):
        k = smoothstep((ms - 4000) / 4000) * (1 - smoothstep((ms - 14000) / 4000))
        return k * (shake2(ms) + rumble2(ms)), k * (shake(ms) + rumble(ms))
    t.add(f, 4000)
    return t


def scenario_people_walking():
    t = desk("people-walking-past", 20000, 80, "people walking past on a wooden floor: footsteps at 2 Hz "
             "(rings of 0.01-0.03 g at 10-20 Hz), three people at 2-7 s, 9-13 s and 14-19 s")
    rng = random.Random(801)
    for a, b, peak in ((2000, 7000, 0.03), (9000, 13000, 0.02), (14000, 19000, 0.025)):
        ms, mid = float(a), (a + b) / 2
        while ms < b:
            k = 1 - abs(ms - mid) / (mid - a) * 0.7  # the nearest step is the strongest
            t.ring(ms, peak * k * rng.uniform(0.7, 1.0), rng.uniform(10, 20), 40, rng.uniform(0, 180))
            ms += 500 * rng.uniform(0.9, 1.1)
    return t


def movement_traces():
    return [scenario_picked_up(), scenario_slid(), scenario_lid_closed_carried(), scenario_into_bag(),
            scenario_typing_desk(), scenario_password(), scenario_knocks(), scenario_fan(),
            scenario_train_passing(), scenario_people_walking()]


def scenario_demo_tour():
    """scripts/demo.sh's motion (not a test trace): every tray icon step and every orientation within the
    first seconds, then again in a loop. Holds long enough for the 4 Hz icon and the 250 ms orientation
    debounce; turns of 1.5 s, slow enough to be no shock."""
    t = Trace("demo-tour", 26000, 61, "the demo tour: roll right to 15 then 60 deg (right-up), back; left to "
              "-15 then -60 (left-up), back; pitch to 15 then 60 (bottom-up), back; pitch to -20, back; turns "
              "of 1.5 s, 0.5 s level at the start and 1.5 s at the end")
    # (start ms, end ms, pitch from, pitch to, roll from, roll to); in between the last value holds.
    moves = [(500, 2000, 0, 0, 0, 15), (2500, 4000, 0, 0, 15, 60), (5000, 6500, 0, 0, 60, 0),
             (7000, 8500, 0, 0, 0, -15), (9000, 10500, 0, 0, -15, -60), (11500, 13000, 0, 0, -60, 0),
             (13500, 15000, 0, 15, 0, 0), (15500, 17000, 15, 60, 0, 0), (18000, 19500, 60, 0, 0, 0),
             (20000, 21500, 0, -20, 0, 0), (23000, 24500, -20, 0, 0, 0)]
    def f(ms):
        pitch = roll = 0.0
        for t0, t1, p0, p1, r0, r1 in moves:
            if ms < t0:
                break
            pitch, roll = ramp(ms, t0, t1, p0, p1), ramp(ms, t0, t1, r0, r1)
        return pitch, roll
    t.set_tilt(f)
    return t


def main():
    args = sys.argv[1:]
    if args[:1] == ["--demo"]:
        # gen-traces.py --demo OUTDIR: scripts/demo.sh's motion, scripts/demo-tour.csv.
        if len(args) != 2:
            sys.exit("usage: gen-traces.py --demo OUTDIR")
        scenario_demo_tour().render(args[1])
        return
    if args[:1] == ["--variants"]:
        # gen-traces.py --variants K OUTDIR: the round-2 scenarios again with K other seeds each, for the
        # trade-off table in docs/evidence/MOTION-EVALUATION.md (bench/motion/seed-variants.sh); not test traces.
        if len(args) != 3 or not args[1].isdigit() or int(args[1]) < 1:
            sys.exit("usage: gen-traces.py --variants K OUTDIR (K a whole number >= 1)")
        traces = [t for k in range(1, int(args[1]) + 1) for t in round2(k)]
        for t in traces:
            t.render(args[2])
        print("wrote %d traces to %s" % (len(traces), args[2]))
        return
    outdir = args[0] if args else os.path.dirname(os.path.abspath(__file__))
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
        scenario_drop("drop-flat-75cm", 24, 75, 5, 0, "flat-drop"),  # 5 deg: before the impact
        scenario_vibration("vibration-train", 31, "a train: 5-12 Hz, up to 0.12 g, building up over 4 s, "
                           "with a 0.3 Hz sway of 3 deg", (5.0, 8.0, 12.0), 0.12, 3.0),
        scenario_vibration("vibration-desk", 32, "a vibrating desk: 15 Hz, 0.06 g, building up over 4 s",
                           (15.0,), 0.06, 0.0),
    ] + round2()
    for t in traces:
        t.render(outdir)
    movement_dir = os.path.join(outdir, "movement")
    os.makedirs(movement_dir, exist_ok=True)
    moves = movement_traces()
    for t in moves:
        t.render(movement_dir)
    print("wrote %d traces to %s and %d to %s" % (len(traces), outdir, len(moves), movement_dir))


if __name__ == "__main__":
    main()
