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

What a real station varies can be varied (the robustness suite, `models/robustness.py`,
names sets of these): the light's level (`--light`, and a change to `--light-after` at
`--light-change-at` seconds, over two seconds: a cloud, a lamp switched off), its colour
temperature (`--warmth`, -1 cold daylight to 1 warm tungsten), flicker (`--flicker`), the
camera nudged, turned or zoomed (`--shift DX,DY` as shares of the frame, `--rotate`
degrees, `--zoom`), another resolution and frame rate (`--size WxH`, `--fps`), heavier
compression (`--bitrate` kbit/s), sensor noise (`--noise`), another operator
(`--operator`: skin tone, sleeves, gloves; see OPERATORS) and clutter on the bench
(`--clutter N` things).
"""

import argparse
import json
import math
import subprocess
import sys

import numpy as np

W, H, FPS = 640, 480, 15
# Operators: the hand's colour (skin or glove), the forearm's (skin or sleeve), the
# hand's radius in pixels.
OPERATORS = {
    "a": ((205, 160, 130), (190, 145, 118), 28),  # the one the demo model knows
    "b": ((120, 80, 58), (105, 70, 50), 30),  # darker skin, bare forearm
    "c": ((40, 90, 200), (45, 45, 50), 30),  # blue nitrile gloves, dark sleeve
    "d": ((225, 190, 165), (235, 235, 230), 25),  # pale skin, white coat sleeve
    "e": ((230, 120, 30), (70, 90, 60), 33),  # orange work gloves, green sleeve
}
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


def bench(rng=None, clutter=0):
    """The still scene: bench, bins, fixture, lamp; and `clutter` things left on it
    (placed by `rng`)."""
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
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    for _ in range(clutter):
        # A box, a rag or a cup: a rectangle or a disc of some colour, anywhere.
        c = rng.uniform(20, 235, 3)
        cx, cy = rng.uniform(20, W - 20), rng.uniform(20, H - 40)
        if rng.random() < 0.5:
            w, h = rng.uniform(15, 60, 2)
            img[(np.abs(xx - cx) < w / 2) & (np.abs(yy - cy) < h / 2)] = c
        else:
            img[(xx - cx) ** 2 + (yy - cy) ** 2 < rng.uniform(8, 25) ** 2] = c
    return img


def warp(shift, rotate, zoom):
    """Where each output pixel comes from when the camera is moved by `shift` (shares of
    the frame), turned by `rotate` degrees and zoomed by `zoom`: index maps (rows, columns)
    for numpy's take, edges repeated. None when the camera is where it was."""
    if shift == (0.0, 0.0) and rotate == 0.0 and zoom == 1.0:
        return None
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = math.radians(rotate)
    cx, cy = W / 2 + shift[0] * W, H / 2 + shift[1] * H
    dx, dy = (xx - W / 2) / zoom, (yy - H / 2) / zoom
    sx = cx + dx * math.cos(a) - dy * math.sin(a)
    sy = cy + dx * math.sin(a) + dy * math.cos(a)
    return (
        np.clip(np.rint(sy), 0, H - 1).astype(np.intp),
        np.clip(np.rint(sx), 0, W - 1).astype(np.intp),
    )


def light_at(a, t):
    """The light's level at `t` seconds: `--light`, then a two-second change to
    `--light-after` at `--light-change-at`."""
    if a.light_after is None or t < a.light_change_at:
        return a.light
    k = min(1.0, (t - a.light_change_at) / 2.0)
    return a.light + (a.light_after - a.light) * k


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


def pair(text, kind=float, sep=","):
    a, b = text.split(sep)
    return kind(a), kind(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--out", required=True, help="path without extension")
    ap.add_argument("--light", type=float, default=1.0, help="the light's level (1: as lit)")
    ap.add_argument("--light-after", type=float, help="the level it changes to")
    ap.add_argument("--light-change-at", type=float, default=0.0, metavar="SECONDS")
    ap.add_argument("--warmth", type=float, default=0.0, help="-1 (cold) to 1 (warm)")
    ap.add_argument("--flicker", type=float, default=0.04, help="its depth (share)")
    ap.add_argument("--flicker-hz", type=float, default=2.3 / (2 * math.pi), help="its rate")
    ap.add_argument("--shift", type=pair, default=(0.0, 0.0), metavar="DX,DY")
    ap.add_argument("--rotate", type=float, default=0.0, metavar="DEGREES")
    ap.add_argument("--zoom", type=float, default=1.0)
    ap.add_argument("--size", type=lambda t: pair(t, int, "x"), default=(W, H), metavar="WxH")
    ap.add_argument("--fps", type=int, default=FPS)
    ap.add_argument("--bitrate", type=int, default=500, help="kbit/s")
    ap.add_argument("--noise", type=float, default=2.5, help="the sensor's noise (σ)")
    ap.add_argument("--operator", choices=OPERATORS, default="a")
    ap.add_argument("--clutter", type=int, default=0, help="things left on the bench")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    moves, cycles = plan(rng, a.seconds)
    fps = a.fps
    frames = int(a.seconds * fps)
    still = bench(np.random.default_rng(a.seed + 2000), a.clutter)
    skin, arm, radius = OPERATORS[a.operator]
    # Colour temperature: warm light is redder and less blue.
    tint = np.array([1 + 0.18 * a.warmth, 1.0, 1 - 0.22 * a.warmth], np.float32)
    moved = warp(a.shift, a.rotate, a.zoom)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # Sensor noise: a bank of frames drawn once, used in turn (drawing each frame's
    # anew would be most of the work).
    noise = np.random.default_rng(a.seed + 1000).normal(0, 1, (7, H, W, 1)).astype(np.float32)
    noise *= a.noise
    out_w, out_h = a.size
    enc = subprocess.Popen(
        [
            "gst-launch-1.0", "-q", "fdsrc", "fd=0", "!",
            "rawvideoparse", f"width={W}", f"height={H}", "format=rgb", f"framerate={fps}/1", "!",
            "videoconvert", "!", "videoscale", "!",
            f"video/x-raw,format=I420,width={out_w},height={out_h}", "!",
            "x264enc", "speed-preset=faster", "threads=1", f"key-int-max={2 * fps}",
            f"bitrate={a.bitrate}", "!",
            "h264parse", "!", "mp4mux", "!", "filesink", f"location={a.out}.mp4",
        ],
        stdin=subprocess.PIPE,
    )
    mi, prev = 0, REST
    for f in range(frames):
        t = f / fps
        while mi + 1 < len(moves) and moves[mi][2] <= t:
            prev = moves[mi][3]
            mi += 1
        hx, hy = hand_at(moves, mi, t, prev)
        img = still.copy()
        # Hand, forearm and tool are drawn in a window around the hand.
        x0, x1 = max(int(hx) - 110, 0), min(int(hx) + 110, W)
        y0 = max(int(hy) - 60, 0)
        win, wx, wy = img[y0:, x0:x1], xx[y0:, x0:x1], yy[y0:, x0:x1]
        win[(wx - hx) ** 2 + (wy - hy) ** 2 < radius**2] = skin  # the hand
        # The forearm, toward the operator at the bottom.
        win[(np.abs(wx - (hx + (wy - hy) * 0.15)) < 22) & (wy > hy)] = arm
        if moves[mi][0] == 2:  # the screwdriver
            win[(np.abs(wx - hx + 30) < 6) & (np.abs(wy - hy + 25) < 30)] = (30, 30, 30)
        if moved is not None:
            img = img[moved[0], moved[1]]
        img *= tint * (light_at(a, t) * (1.0 + a.flicker * math.sin(2 * math.pi * a.flicker_hz * t)))
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
        "fps": fps,
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
