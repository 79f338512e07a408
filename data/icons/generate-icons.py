#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generates tpaccel's SVG icons into hicolor/scalable/{apps,status}/.

Status icons: a laptop silhouette over a level horizon, rotated by roll and foreshortened by pitch,
in a 5 x 5 grid of steps: tpaccel-tilt-r<R>-p<P> with R, P in 0..4 (2 is level; roll 0 is the right
side down, roll 4 the right side up; pitch 0 is the front edge down, pitch 4 the front edge up). The tray picks the step with
TILT_STEP_DEGREES-wide bins (client/tray/tray-icon.c has the same table). Plus tpaccel-shock (alarm),
tpaccel-no-accelerometer, tpaccel-service-missing and the application icon tpaccel.
Each status icon also comes as NAME-symbolic: one colour (SYMBOLIC, which GNOME Shell and GTK recolour
to the panel's foreground) plus the alarm red, for panels that want symbolic icons (GNOME's dark bar,
where the full-colour dark laptop is nearly invisible).

Run: data/icons/generate-icons.py [OUTDIR]  (default: the directory of this script). Deterministic.
"""
import math
import os
import sys

SIZE = 32
STEPS = 5
LEVEL = STEPS // 2
ROLL_DEGREES_PER_STEP = 15.0  # the drawn lean per step
DARK = "#2e3436"
SCREEN = "#729fcf"
BASE = "#555753"
HORIZON = "#888a85"
ALARM = "#cc0000"
ALARM_LIGHT = "#ef2929"
DIM = "#babdb6"
SYMBOLIC = "#bebebe"  # the symbolic icons' foreground, recoloured by the panel


def laptop(roll_step, pitch_step, body=DARK, screen=SCREEN, base=BASE, extra=""):
    """A laptop seen from the front: lid upright above a base whose visible depth shows pitch."""
    roll = (roll_step - LEVEL) * ROLL_DEGREES_PER_STEP
    pitch = pitch_step - LEVEL  # > 0: front edge up, we see more of the keyboard deck
    deck = 5.0 + 2.2 * pitch  # visible deck depth
    lid_h = 15.0 - 1.6 * pitch
    lid_w = 20.0
    cx, bottom = 16.0, 25.0
    lid_bottom = bottom - deck
    lid_top = lid_bottom - lid_h
    base_half_front = 13.0
    base_half_back = 10.0
    parts = [
        # lid
        f'<rect x="{cx - lid_w / 2:.2f}" y="{lid_top:.2f}" width="{lid_w:.2f}" height="{lid_h:.2f}" '
        f'rx="1.5" fill="{body}"/>',
        f'<rect x="{cx - lid_w / 2 + 2:.2f}" y="{lid_top + 2:.2f}" width="{lid_w - 4:.2f}" '
        f'height="{max(lid_h - 4, 1):.2f}" rx="0.5" fill="{screen}"/>',
        # base: trapezoid from the hinge (back) to the front edge
        f'<path d="M {cx - base_half_back:.2f} {lid_bottom:.2f} L {cx + base_half_back:.2f} {lid_bottom:.2f} '
        f'L {cx + base_half_front:.2f} {bottom:.2f} L {cx - base_half_front:.2f} {bottom:.2f} Z" '
        f'fill="{base}" stroke="{body}" stroke-width="1" stroke-linejoin="round"/>',
        # front edge
        f'<rect x="{cx - base_half_front:.2f}" y="{bottom:.2f}" width="{2 * base_half_front:.2f}" '
        f'height="1.6" rx="0.8" fill="{body}"/>',
    ]
    group = "\n    ".join(parts)
    # SVG rotate is clockwise for positive angles; right side up (roll > 0) is counter-clockwise.
    pivot_y = 17.0
    return (f'<g transform="rotate({-roll:.1f} {cx} {pivot_y})">\n    {group}\n  </g>{extra}')


def laptop_symbolic(roll_step, pitch_step, color=SYMBOLIC, extra=""):
    """The same laptop in one colour: the lid an outline (the screen is the hole), the base filled."""
    roll = (roll_step - LEVEL) * ROLL_DEGREES_PER_STEP
    pitch = pitch_step - LEVEL
    deck = 5.0 + 2.2 * pitch
    lid_h = 15.0 - 1.6 * pitch
    lid_w = 20.0
    cx, bottom = 16.0, 25.0
    lid_bottom = bottom - deck
    lid_top = lid_bottom - lid_h
    parts = [
        f'<rect x="{cx - lid_w / 2 + 1:.2f}" y="{lid_top + 1:.2f}" width="{lid_w - 2:.2f}" height="{lid_h - 2:.2f}" '
        f'rx="1.5" fill="none" stroke="{color}" stroke-width="2"/>',
        f'<path d="M {cx - 10:.2f} {lid_bottom:.2f} L {cx + 10:.2f} {lid_bottom:.2f} L {cx + 13:.2f} {bottom:.2f} '
        f'L {cx - 13:.2f} {bottom:.2f} Z" fill="{color}"/>',
        f'<rect x="{cx - 13:.2f}" y="{bottom:.2f}" width="26" height="1.6" rx="0.8" fill="{color}"/>',
    ]
    group = "\n    ".join(parts)
    return f'<g transform="rotate({-roll:.1f} {cx} 17.0)">\n    {group}\n  </g>{extra}'


def horizon(color=HORIZON):
    return f'<path d="M 1 29.5 H 31" stroke="{color}" stroke-width="1.2" stroke-linecap="round"/>'


def svg(title, body, horizon_color=HORIZON):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" '
            f'viewBox="0 0 {SIZE} {SIZE}">\n  <title>{title}</title>\n  {horizon(horizon_color)}\n  {body}\n</svg>\n')


def symbolic(title, body):
    return svg(title, body, SYMBOLIC)


def write(outdir, context, name, text):
    directory = os.path.join(outdir, "hicolor", "scalable", context)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name + ".svg"), "w", encoding="utf-8") as f:
        f.write(text)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for r in range(STEPS):
        for p in range(STEPS):
            write(outdir, "status", f"tpaccel-tilt-r{r}-p{p}",
                  svg(f"tilt: roll step {r - LEVEL}, pitch step {p - LEVEL}", laptop(r, p)))
            write(outdir, "status", f"tpaccel-tilt-r{r}-p{p}-symbolic",
                  symbolic(f"tilt: roll step {r - LEVEL}, pitch step {p - LEVEL}", laptop_symbolic(r, p)))

    bolt = (f'\n  <path d="M 19 1 L 12 12 L 17 12 L 13 22 L 22 9 L 17 9 L 21 1 Z" fill="{ALARM_LIGHT}" '
            f'stroke="{ALARM}" stroke-width="0.8" stroke-linejoin="round"/>')
    write(outdir, "status", "tpaccel-shock",
          svg("shock", laptop(LEVEL + 1, LEVEL, body=ALARM, screen=ALARM_LIGHT, base=ALARM) + bolt))
    write(outdir, "status", "tpaccel-shock-symbolic",
          symbolic("shock", laptop_symbolic(LEVEL + 1, LEVEL, color=ALARM_LIGHT) + bolt))

    slash = f'\n  <path d="M 4 4 L 28 28" stroke="{ALARM}" stroke-width="2.5" stroke-linecap="round"/>'
    write(outdir, "status", "tpaccel-no-accelerometer",
          svg("no accelerometer", laptop(LEVEL, LEVEL, body=DIM, screen="#eeeeec", base=DIM) + slash))
    write(outdir, "status", "tpaccel-no-accelerometer-symbolic",
          symbolic("no accelerometer", laptop_symbolic(LEVEL, LEVEL) + slash.replace(ALARM, SYMBOLIC)))

    question = (f'\n  <text x="16" y="17" font-family="sans-serif" font-weight="bold" font-size="11" '
                f'text-anchor="middle" fill="{DARK}">?</text>')
    write(outdir, "status", "tpaccel-service-missing",
          svg("service missing", laptop(LEVEL, LEVEL, body=DIM, screen="#eeeeec", base=DIM) + question))
    write(outdir, "status", "tpaccel-service-missing-symbolic",
          symbolic("service missing", laptop_symbolic(LEVEL, LEVEL) + question.replace(DARK, SYMBOLIC)))

    bubble = (f'\n  <circle cx="16" cy="12" r="3" fill="#8ae234" stroke="#4e9a06" stroke-width="0.8"/>')
    write(outdir, "apps", "tpaccel", svg("tpaccel", laptop(LEVEL - 1, LEVEL + 1) + bubble))
    return 0


if __name__ == "__main__":
    sys.exit(main())
