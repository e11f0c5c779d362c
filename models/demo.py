#!/usr/bin/env python3
"""Synthetic workstation footage for the demo operation, with its ground truth.

A bench seen from above: two part bins, an assembly fixture and an inspection lamp.
One hand (and a screwdriver while fastening) performs the demo operation's steps:
Pick base, Pick cover, Fasten screws, Inspect. Step times vary, the hand rests between
cycles for a random while, the light flickers and the sensor adds noise. About one
cycle in six is bad: a step is missed, or the picks are swapped.

Deterministic: the same seed writes the same frames. Writes `<out>.mp4` (H.264, by
GStreamer's x264enc) and `<out>.truth.json` (the step segments and the cycles).

    python3 models/demo.py --seed 1 --seconds 180 --out target/models/demo
"""

import argparse
import json
import math
import subprocess
import sys

import numpy as np

W, H, FPS = 640, 480, 15
STEPS = ["Pick base", "Pick cover", "Fasten screws", "Inspect"]
# Where the hand works for each step, and where it rests (background).
SPOTS = [(130, 110), (300, 110), (330, 330), (530, 170)]
REST = (560, 420)
# Seconds a step takes: (shortest, longest).
DURATION = [(1.4, 2.4), (1.4, 2.4), (3.0, 4.8), (1.6, 2.8)]
# Each step with its sub-step: the portal's save rules want one (portal spec 5), and the
# demo seeds this operation as it is.
SUBSTEPS = ["Take base", "Take cover", "Drive", "Look"]
OPERATION = "Assemble sensor\n" + "".join(f"{s}:\n{b};\n" for s, b in zip(STEPS, SUBSTEPS))


def bench():
    """The still scene: bench, bins, fixture, lamp."""
    img = np.zeros((H, W, 3), np.float32)
    img[:] = (92, 88, 80)
    # Wood-ish grain across the bench.
    y = np.arange(H, dtype=np.float32)[:, None]
    x = np.arange(W, dtype=np.float32)[None, :]
    img += (6 * np.sin(y / 7.0 + 0.3 * np.sin(x / 40.0)))[..., None]

    def rect(x0, y0, x1, y1, c):
        img[y0:y1, x0:x1] = c

    rect(70, 50, 190, 170, (40, 60, 150))  # base bin (blue)
    rect(82, 62, 178, 158, (30, 45, 115))
    rect(240, 50, 360, 170, (150, 60, 40))  # cover bin (red)
    rect(252, 62, 348, 158, (115, 45, 30))
    rect(250, 270, 410, 390, (150, 150, 150))  # fixture
    rect(300, 310, 360, 350, (70, 70, 70))
    rect(480, 120, 580, 220, (200, 190, 90))  # inspection lamp
    rect(20, 440, 620, 452, (60, 60, 60))  # bench edge
    return img


def plan(rng, seconds):
    """The operator's day: a list of (label or None, start_s, end_s, target)."""
    moves, cycles = [], []
    t, pos = 1.0 + rng.uniform(0, 1.5), REST
    moves.append((None, 0.0, t, REST))
    n = 0
    while True:
        order = [0, 1, 2, 3]
        reasons = []
        if n > 0:
            r = rng.random()
            if r < 0.07:
                order = [0, 2, 3]  # cover forgotten
                reasons = ["missed_step"]
            elif r < 0.12:
                order = [0, 1, 2]  # not inspected
                reasons = ["missed_step"]
            elif r < 0.17:
                order = [1, 0, 2, 3]  # picks swapped
                reasons = ["wrong_order"]
        start = None
        steps = []
        for s in order:
            travel = rng.uniform(0.35, 0.7)
            moves.append((None, t, t + travel, SPOTS[s]))
            t += travel
            d = rng.uniform(*DURATION[s])
            moves.append((s, t, t + d, SPOTS[s]))
            steps.append((s, t, t + d))
            if start is None:
                start = t
            t += d
        cycles.append({"start_s": start, "end_s": t, "steps": steps, "reasons": reasons})
        back = rng.uniform(0.4, 0.8)
        moves.append((None, t, t + back, REST))
        t += back
        idle = rng.uniform(1.0, 4.0)
        moves.append((None, t, t + idle, REST))
        t += idle
        n += 1
        if t > seconds:
            return moves, cycles


def hand_at(moves, i, t, prev_target):
    """Where the hand is at time t (seconds): moving toward the move's target, then
    working around it."""
    label, s, e, target = moves[i]
    if label is None and target != prev_target:
        k = min(1.0, (t - s) / max(e - s, 1e-6))
        k = k * k * (3 - 2 * k)  # ease in and out
        return (
            prev_target[0] + (target[0] - prev_target[0]) * k,
            prev_target[1] + (target[1] - prev_target[1]) * k,
        )
    wob = 10 if label is not None else 2
    return (target[0] + wob * math.sin(t * 5.1), target[1] + wob * math.cos(t * 3.7))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--out", required=True, help="path without extension")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    moves, cycles = plan(rng, a.seconds)
    frames = int(a.seconds * FPS)
    still = bench()
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # Sensor noise: a bank of frames drawn once, used in turn (drawing each frame's
    # anew would be most of the work).
    noise = np.random.default_rng(a.seed + 1000).normal(0, 2.5, (7, H, W, 1)).astype(np.float32)
    enc = subprocess.Popen(
        [
            "gst-launch-1.0", "-q", "fdsrc", "fd=0", "!",
            "rawvideoparse", f"width={W}", f"height={H}", "format=rgb", f"framerate={FPS}/1", "!",
            "videoconvert", "!", "video/x-raw,format=I420", "!",
            "x264enc", "speed-preset=faster", "threads=1", "key-int-max=30", "bitrate=500", "!",
            "h264parse", "!", "mp4mux", "!", "filesink", f"location={a.out}.mp4",
        ],
        stdin=subprocess.PIPE,
    )
    mi, prev = 0, REST
    for f in range(frames):
        t = f / FPS
        while mi + 1 < len(moves) and moves[mi][2] <= t:
            prev = moves[mi][3]
            mi += 1
        hx, hy = hand_at(moves, mi, t, prev)
        img = still.copy()
        # Hand, forearm and tool are drawn in a window around the hand.
        x0, x1 = max(int(hx) - 110, 0), min(int(hx) + 110, W)
        y0 = max(int(hy) - 60, 0)
        win, wx, wy = img[y0:, x0:x1], xx[y0:, x0:x1], yy[y0:, x0:x1]
        win[(wx - hx) ** 2 + (wy - hy) ** 2 < 28**2] = (205, 160, 130)  # the hand
        # The forearm, toward the operator at the bottom.
        win[(np.abs(wx - (hx + (wy - hy) * 0.15)) < 22) & (wy > hy)] = (190, 145, 118)
        if moves[mi][0] == 2:  # the screwdriver
            win[(np.abs(wx - hx + 30) < 6) & (np.abs(wy - hy + 25) < 30)] = (30, 30, 30)
        img *= 1.0 + 0.04 * math.sin(t * 2.3)  # flicker
        img += noise[f % len(noise)]
        enc.stdin.write(np.clip(img, 0, 255).astype(np.uint8).tobytes())
    enc.stdin.close()
    if enc.wait() != 0:
        sys.exit("gst-launch-1.0 failed to encode the footage")
    ms = lambda s: int(round(s * 1000))
    truth = {
        "operation": OPERATION,
        # The picks have an order: swapping them makes a cycle bad.
        "strict_step_order": True,
        "steps": STEPS,
        "fps": FPS,
        "frames": frames,
        "seed": a.seed,
        "segments": [
            {"step": m[0], "start_ms": ms(m[1]), "end_ms": ms(m[2])}
            for m in moves
            if m[0] is not None and m[1] < a.seconds
        ],
        "cycles": [
            {
                "start_ms": ms(c["start_s"]),
                "end_ms": ms(c["end_s"]),
                "good": not c["reasons"],
                "reasons": c["reasons"],
            }
            for c in cycles
            if c["end_s"] <= a.seconds
        ],
    }
    with open(f"{a.out}.truth.json", "w") as fh:
        json.dump(truth, fh, indent=1)
    print(
        f"{a.out}.mp4: {frames} frames, {len(truth['cycles'])} cycles "
        f"({sum(not c['good'] for c in truth['cycles'])} bad)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
