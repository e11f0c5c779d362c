#!/usr/bin/env python3
"""Trains a step-detection model from labelled video and writes it as a model bundle.

The input is one or more videos, each with its labels: a JSON file holding the step
names (`steps`) and the labelled segments (`segments`: step index, start_ms, end_ms);
frames outside every segment are background. Frames are decoded and scaled by GStreamer
exactly as the agent does it (`videoconvert ! videoscale ! RGB`), so the model sees in
training what it sees on the device.

The model is the robust recipe of `recipe.py` (`--recipe`; chosen by measurement,
docs/benchmarks.md "Step-model recipes"): a small multilayer perceptron over the scaled
frame (64×48 with 48 hidden units, unless `--width`, `--height` and `--hidden` give a
model type's recipe), normalised per frame and compared with the still bench in the
graph, trained on frames moved, relit, recoloured and cluttered as other stations would
show them, and a small head deciding each frame from the last eight frames' step
probabilities. In ONNX: input `frames`, the newest frame (1 × height × width × 3, uint8
RGB) and input `carried`, the per-frame network's log-probabilities of the seven frames
before it (7 × (steps + 1), oldest first); output `probs` (1 × (steps + 1), softmax,
background last) and output `carry`, this frame's to carry (`gemba.window` 8,
`gemba.carry`). `--recipe per-frame` (no head: N frames in, N × (steps + 1) out),
`temporal` (a head over the last four frames' hidden layers) and `plain` (the first
recipe) are kept for comparison. Its metadata says what the agent needs: input width
and height, the window and what it carries, the labels, the version. Written to
`<out>/model.onnx` with `<out>/train.json` (what it was
trained on and its frame accuracy on the held-out video, when one is given).

    python3 models/train.py --train a.mp4:a.truth.json --holdout b.mp4:b.truth.json --out DIR

For the cloud's trainer: `--progress` prints one JSON line per stage on stdout
(`{"stage": "decode"|"train"|"export", "done": i, "of": n, ...}`); `--predictions FILE`
writes the model's output on every held-out frame (`{"fps", "videos": [{"start_frame",
"probs"}]}`), which the cloud scores with the cycle engine; `--holdout-tail SHARE` holds
out the last SHARE of each training video when there is no held-out video; `--propagate
VIDEO` (repeatable) runs the trained model on a video without labels and adds its output
to the predictions file (`"propagated": [{"probs"}]`, in the order given), which the
cloud turns into labels for a person to review.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipe  # noqa: E402

WIDTH, HEIGHT = 64, 48
HIDDEN = 48


def frames(video, fps):
    """Decoded frames (N × HEIGHT × WIDTH × 3 uint8) at `fps`, as the agent scales them."""
    raw = subprocess.run(
        [
            "gst-launch-1.0", "-q", "filesrc", f"location={video}", "!", "decodebin", "!",
            "videoconvert", "!", "videoscale", "!", "videorate", "!",
            f"video/x-raw,format=RGB,width={WIDTH},height={HEIGHT},framerate={fps}/1",
            "!", "fdsink", "fd=1",
        ],
        check=True,
        capture_output=True,
    ).stdout
    n = len(raw) // (WIDTH * HEIGHT * 3)
    return np.frombuffer(raw[: n * WIDTH * HEIGHT * 3], np.uint8).reshape(n, HEIGHT, WIDTH, 3)


def labels_for(truth, n, fps):
    """Each frame's label: its step's index, or len(steps) for background."""
    y = np.full(n, len(truth["steps"]), np.int64)
    t = np.arange(n) * 1000.0 / fps
    for s in truth["segments"]:
        y[(t >= s["start_ms"]) & (t < s["end_ms"])] = s["step"]
    return y


def load_each(pairs, fps, progress=lambda i, n: None):
    """Each video's frames and labels, and the steps they share."""
    out, steps = [], None
    for i, pair in enumerate(pairs):
        video, labels = pair.rsplit(":", 1)
        with open(labels) as fh:
            truth = json.load(fh)
        if steps is not None and truth["steps"] != steps:
            sys.exit(f"{labels}: its steps differ from the other videos'")
        steps = truth["steps"]
        x = frames(video, fps)
        out.append((x, labels_for(truth, len(x), fps)))
        progress(i + 1, len(pairs))
    return out, steps


# The recipes `--recipe` names (docs/benchmarks.md "Step-model recipes" compares them).
ROBUST = {"frame_norm": True, "augment": True, "recolour": True, "clutter": True,
          "difference": "both"}
RECIPES = {
    "robust": {**ROBUST, "window": 8, "head_input": "probs", "head_passes": 3},
    "per-frame": {**ROBUST, "window": 1},
    "temporal": {**ROBUST, "window": 4},
    "plain": {"frame_norm": False, "augment": False, "recolour": False, "window": 1},
}


def export(p, mean, std, labels, version, path, frame_norm=False, card=None):
    """The model as ONNX at the module's WIDTH × HEIGHT (`recipe.export`)."""
    recipe.export(p, mean, std, labels, version, path, WIDTH, HEIGHT, frame_norm, card)


def main():
    global WIDTH, HEIGHT, HIDDEN
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", action="append", required=True, metavar="VIDEO:LABELS")
    ap.add_argument("--holdout", action="append", default=[], metavar="VIDEO:LABELS")
    ap.add_argument("--holdout-tail", type=float, default=0.0, metavar="SHARE")
    ap.add_argument("--fps", type=int, default=15)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--version", default="demo-1")
    ap.add_argument("--out", required=True)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--predictions", metavar="FILE")
    ap.add_argument("--propagate", action="append", default=[], metavar="VIDEO")
    ap.add_argument("--width", type=int, default=WIDTH, help="the frame width the model takes")
    ap.add_argument("--height", type=int, default=HEIGHT, help="the frame height it takes")
    ap.add_argument("--hidden", type=int, default=HIDDEN, help="units of its hidden layer")
    ap.add_argument("--recipe", choices=RECIPES, default="robust",
                    help="robust (the default), per-frame (robust without its head), "
                         "temporal (robust with a head over the last "
                         "four frames) or plain (the first recipe), for comparison")
    a = ap.parse_args()
    if not (16 <= a.width <= 640 and 16 <= a.height <= 640 and 4 <= a.hidden <= 1024):
        sys.exit("--width/--height: 16 to 640 pixels; --hidden: 4 to 1024 units")
    # The recipe (a model type's, from the cloud): the module's sizes for everything below.
    WIDTH, HEIGHT, HIDDEN = a.width, a.height, a.hidden
    if not 0.0 <= a.holdout_tail < 1.0:
        sys.exit("--holdout-tail: a share from 0 to below 1")
    t0 = time.time()

    def report_progress(stage, done, of, **more):
        if a.progress:
            print(json.dumps({"stage": stage, "done": done, "of": of, **more}), flush=True)

    pairs = a.train + a.holdout
    decoded, steps = load_each(pairs, a.fps, lambda i, n: report_progress("decode", i, n))
    train_part, holdout = [], []  # holdout: (start_frame, frames, labels)
    for i, (x, y) in enumerate(decoded):
        if i >= len(a.train):
            holdout.append((0, x, y))
        elif a.holdout_tail > 0 and not a.holdout:
            cut = int(len(x) * (1 - a.holdout_tail))
            train_part.append((x[:cut], y[:cut]))
            holdout.append((cut, x[cut:], y[cut:]))
        else:
            train_part.append((x, y))
    x = np.concatenate([p[0] for p in train_part])
    y = np.concatenate([p[1] for p in train_part])
    if len(x) == 0:
        sys.exit("no frames to train on")
    labels = steps + ["background"]
    print(f"training on {len(x)} frames, {len(labels)} classes", file=sys.stderr)

    def progress(e, n, loss):
        print(f"  epoch {e}/{n}  loss {loss:.4f}", file=sys.stderr)
        report_progress("train", e, n, loss=round(loss, 5))

    rc = recipe.Recipe(WIDTH, HEIGHT, HIDDEN, **RECIPES[a.recipe])
    trained = recipe.fit(rc, x, y, len(labels), a.seed, a.epochs, progress)
    probabilities = trained.probabilities

    def accuracy(parts):
        """Frame accuracy over videos (frames, labels), each a stream of its own."""
        right = sum(int((np.argmax(probabilities(px), axis=1) == py).sum()) for px, py in parts)
        return right / max(1, sum(len(py) for _, py in parts))

    os.makedirs(a.out, exist_ok=True)
    report = {
        "version": a.version,
        "labels": labels,
        "input": [WIDTH, HEIGHT],
        "recipe": a.recipe,
        "window": rc.window,
        "head_input": rc.head_input if rc.window > 1 else None,
        "train_frames": int(len(x)),
        "train_accuracy": accuracy(train_part),
    }
    if holdout:
        report["holdout_frames"] = sum(len(h[2]) for h in holdout)
        report["holdout_accuracy"] = accuracy([(h[1], h[2]) for h in holdout])
    if a.propagate and not a.predictions:
        sys.exit("--propagate writes into the --predictions file: give one")
    if a.predictions:
        videos = [
            {
                "start_frame": start,
                "probs": np.round(probabilities(hx), 4).tolist(),
            }
            for start, hx, _ in holdout
        ]
        propagated = []
        for i, video in enumerate(a.propagate):
            try:
                px = frames(video, a.fps)
            except subprocess.CalledProcessError:
                # An unreadable video gets no guesses; training itself stands.
                print(f"{video}: could not be decoded; no labels propagated", file=sys.stderr)
                propagated.append({"probs": None})
                continue
            rows = np.round(probabilities(px), 4).tolist()
            propagated.append({"probs": rows})
            report_progress("propagate", i + 1, len(a.propagate))
        with open(a.predictions, "w") as fh:
            json.dump(
                {"fps": a.fps, "labels": labels, "videos": videos, "propagated": propagated}, fh
            )
    report_progress("export", 0, 1)
    recipe.export_trained(trained, labels, a.version, os.path.join(a.out, "model.onnx"))
    report["seconds"] = round(time.time() - t0, 1)
    with open(os.path.join(a.out, "train.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    report_progress("export", 1, 1)
    print(json.dumps(report), file=sys.stderr)


if __name__ == "__main__":
    main()
