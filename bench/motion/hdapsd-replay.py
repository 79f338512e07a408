#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Replays labelled traces through Debian's hdapsd for a side-by-side comparison with eval-motion.

hdapsd hard-codes /sys paths; umockdev-run redirects them into a private testbed, where this script
builds a fake HDAPS platform device (position, sampling_rate, keyboard/mouse_activity) and a fake
rotational disk sda (device/unload_heads, queue/rotational, removable). hdapsd runs in its sysfs
polling mode (-y) and dry-run mode (-t, nothing is written), with -v so that it prints one line per
sample with its V/A/X decision. A replayer thread rewrites `position` (atomically, by rename) at the
trace's row times in real time, and every hdapsd line is time-stamped on arrival.

Output per trace in OUTDIR: NAME.log (hdapsd's lines with their trace time in ms) and NAME.parks
("start_ms end_ms" per park: hdapsd parks on the first V/A/X decision and unparks 1 s after the last
one, FREEZE_SECONDS). Real time, so latencies are +-1 sample (20 ms); hdapsd counts are exact unless
the machine is overloaded (the runs are batched for that reason).

Usage: hdapsd-replay.py OUTDIR TRACE.csv... [-- HDAPSD-OPTIONS]   (default options: -s 15)
"""
import os
import re
import subprocess
import sys
import threading
import time

HDAPSD = "/usr/sbin/hdapsd"
FREEZE_S = 1.0          # hdapsd's FREEZE_SECONDS: unpark this long after the last park decision
PARALLEL = 4            # traces replayed at once
LINE_RE = re.compile(r"^dt=\s*([0-9.]+)\s+dpos=.*thr=\s*[0-9.]+  (.{0,3})")

SETUP = r'''
set -e
S=$UMOCKDEV_DIR/sys
mkdir -p $S/devices/platform/hdaps $S/block/sda/device $S/block/sda/queue
echo "(%d,%d)" > $S/devices/platform/hdaps/position
echo 50 > $S/devices/platform/hdaps/sampling_rate
echo 0 > $S/devices/platform/hdaps/keyboard_activity
echo 0 > $S/devices/platform/hdaps/mouse_activity
echo 0 > $S/block/sda/device/unload_heads
echo 1 > $S/block/sda/queue/rotational
echo 0 > $S/block/sda/removable
echo "TESTBED=$UMOCKDEV_DIR"
exec stdbuf -oL %s -d sda -v -t -y %s
'''


def read_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("time_ms") or not line.strip():
                continue
            t, x, y, k, m = line.strip().split(",")
            rows.append((float(t), int(x), int(y), int(k), int(m)))
    return rows


def write_attr(path, text):
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def replay(rows, testbed, t0):
    base = os.path.join(testbed, "sys/devices/platform/hdaps")
    last_k = last_m = None
    for t, x, y, k, m in rows:
        delay = t0 + t / 1000.0 - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        write_attr(os.path.join(base, "position"), "(%d,%d)\n" % (x, y))
        if k != last_k:
            write_attr(os.path.join(base, "keyboard_activity"), "%d\n" % k)
            last_k = k
        if m != last_m:
            write_attr(os.path.join(base, "mouse_activity"), "%d\n" % m)
            last_m = m


def run_one(trace, outdir, options):
    name = os.path.splitext(os.path.basename(trace))[0]
    rows = read_rows(trace)
    script = SETUP % (rows[0][1], rows[0][2], HDAPSD, " ".join(options))
    p = subprocess.Popen(["umockdev-run", "--", "sh", "-c", script], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace")
    testbed = None
    for line in p.stdout:
        if line.startswith("TESTBED="):
            testbed = line.strip().split("=", 1)[1]
            break
    if testbed is None:
        p.kill()
        raise RuntimeError("%s: umockdev-run did not start: %s" % (name, p.stdout.read()))

    time.sleep(0.5)  # hdapsd settles on the rest position before the trace starts
    t0 = time.monotonic()
    replayer = threading.Thread(target=replay, args=(rows, testbed, t0))
    replayer.start()

    decisions = []  # (trace_ms, reason)
    end = rows[-1][0] / 1000.0 + 0.3
    log = []
    while True:
        line = p.stdout.readline()
        now = time.monotonic() - t0
        if not line:
            break
        m = LINE_RE.match(line)
        if m and now >= 0:
            reason = "".join(c for c in m.group(2) if c in "VAXvax")
            log.append("%.0f %s" % (now * 1000, line.rstrip()[:140]))
            if any(c in "VAX" for c in reason):
                decisions.append((now * 1000, reason))
        if now > end:
            break
    replayer.join()
    p.kill()  # SIGKILL: hdapsd 20141203 can deadlock in its SIGTERM handler under -v (notes 3.5)
    p.wait()

    parks = []
    for t, _ in decisions:
        if parks and t - parks[-1][1] <= FREEZE_S * 1000:
            parks[-1][1] = t
        else:
            parks.append([t, t])
    with open(os.path.join(outdir, name + ".parks"), "w") as f:
        for a, b in parks:
            f.write("%.0f %.0f\n" % (a, b + FREEZE_S * 1000))
    with open(os.path.join(outdir, name + ".log"), "w") as f:
        f.write("\n".join(log) + "\n")
    return name, len(parks)


def main():
    args = sys.argv[1:]
    options = ["-s", "15"]
    if "--" in args:
        i = args.index("--")
        options = args[i + 1:]
        args = args[:i]
    if len(args) < 2:
        sys.exit(__doc__)
    outdir, traces = args[0], args[1:]
    os.makedirs(outdir, exist_ok=True)
    for i in range(0, len(traces), PARALLEL):
        batch = traces[i:i + PARALLEL]
        results = [None] * len(batch)

        def work(j):
            results[j] = run_one(batch[j], outdir, options)
        threads = [threading.Thread(target=work, args=(j,)) for j in range(len(batch))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in results:
            if r:
                print("hdapsd %s: %s, %d parks" % (" ".join(options), r[0], r[1]), file=sys.stderr)


if __name__ == "__main__":
    main()
