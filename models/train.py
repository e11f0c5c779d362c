#!/usr/bin/env python3
"""Trains a step-detection model from labelled video and writes it as a model bundle.

The input is one or more videos, each with its labels: a JSON file holding the step
names (`steps`) and the labelled segments (`segments`: step index, start_ms, end_ms);
frames outside every segment are background. Frames are decoded and scaled by GStreamer
exactly as the agent does it (`videoconvert ! videoscale ! RGB`), so the model sees in
training what it sees on the device.

The model is a small multilayer perceptron over the scaled frame (64×48 with 48 hidden
units, unless `--width`, `--height` and `--hidden` give a model type's recipe), in ONNX:
input `frames` (N × height × width × 3, uint8 RGB), output `probs` (N × (steps + 1), softmax,
background last). Its metadata says what the agent needs: input width and height, the
labels, the version. Written to `<out>/model.onnx` with `<out>/train.json` (what it was
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
import onnx
from onnx import TensorProto, helper, numpy_helper

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


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train(x, y, classes, seed, epochs, progress):
    rng = np.random.default_rng(seed)
    xf = x.reshape(len(x), -1).astype(np.float32) / 255.0
    mean = xf.mean(axis=0)
    std = xf.std(axis=0) + 0.05
    xf = (xf - mean) / std
    d = xf.shape[1]
    p = {
        "w1": (rng.normal(0, 1, (d, HIDDEN)) / np.sqrt(d)).astype(np.float32),
        "b1": np.zeros(HIDDEN, np.float32),
        "w2": (rng.normal(0, 1, (HIDDEN, classes)) / np.sqrt(HIDDEN)).astype(np.float32),
        "b2": np.zeros(classes, np.float32),
    }
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    # Classes weighted by their rarity, so short steps count as much as long idle time.
    counts = np.bincount(y, minlength=classes).astype(np.float32)
    cw = (counts.sum() / np.maximum(counts, 1) / classes).astype(np.float32)
    lr, b1, b2, step, batch = 1e-3, 0.9, 0.999, 0, 64
    for epoch in range(epochs):
        order = rng.permutation(len(xf))
        loss = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            xb, yb = xf[idx], y[idx]
            # Light augmentation: brightness and noise, as cameras differ.
            xb = xb * rng.uniform(0.9, 1.1) + rng.normal(0, 0.1, xb.shape).astype(np.float32)
            h = np.maximum(xb @ p["w1"] + p["b1"], 0)
            pr = softmax(h @ p["w2"] + p["b2"])
            w = cw[yb]
            loss += float(-(w * np.log(pr[np.arange(len(yb)), yb] + 1e-9)).sum())
            g = pr
            g[np.arange(len(yb)), yb] -= 1
            g *= (w / w.sum())[:, None]
            grads = {"w2": h.T @ g, "b2": g.sum(0)}
            gh = (g @ p["w2"].T) * (h > 0)
            grads["w1"] = xb.T @ gh
            grads["b1"] = gh.sum(0)
            step += 1
            for k in p:
                gk = grads[k] + (1e-4 * p[k] if k.startswith("w") else 0)
                m[k] = b1 * m[k] + (1 - b1) * gk
                v[k] = b2 * v[k] + (1 - b2) * gk * gk
                mh = m[k] / (1 - b1**step)
                vh = v[k] / (1 - b2**step)
                p[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        progress(epoch + 1, epochs, loss / len(xf))
    return p, mean, std


def probabilities(p, mean, std, x):
    xf = (x.reshape(len(x), -1).astype(np.float32) / 255.0 - mean) / std
    return softmax(np.maximum(xf @ p["w1"] + p["b1"], 0) @ p["w2"] + p["b2"])


def predict(p, mean, std, x):
    return np.argmax(probabilities(p, mean, std, x), axis=1)


def export(p, mean, std, labels, version, path):
    """The model as ONNX: uint8 frames in, softmax out; the scaling is in the graph."""
    d = WIDTH * HEIGHT * 3
    init = [
        numpy_helper.from_array(np.array([-1, d], np.int64), "shape"),
        numpy_helper.from_array(np.float32(1.0 / 255.0).reshape(()), "scale"),
        numpy_helper.from_array(mean.astype(np.float32), "mean"),
        numpy_helper.from_array(std.astype(np.float32), "std"),
        numpy_helper.from_array(p["w1"], "w1"),
        numpy_helper.from_array(p["b1"], "b1"),
        numpy_helper.from_array(p["w2"], "w2"),
        numpy_helper.from_array(p["b2"], "b2"),
    ]
    nodes = [
        helper.make_node("Cast", ["frames"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Reshape", ["f", "shape"], ["flat"]),
        helper.make_node("Mul", ["flat", "scale"], ["unit"]),
        helper.make_node("Sub", ["unit", "mean"], ["centred"]),
        helper.make_node("Div", ["centred", "std"], ["z"]),
        helper.make_node("Gemm", ["z", "w1", "b1"], ["h"]),
        helper.make_node("Relu", ["h"], ["hr"]),
        helper.make_node("Gemm", ["hr", "w2", "b2"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "gemba-steps",
        [helper.make_tensor_value_info("frames", TensorProto.UINT8, ["n", HEIGHT, WIDTH, 3])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["n", len(labels)])],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, val in {
        "gemba.input_width": str(WIDTH),
        "gemba.input_height": str(HEIGHT),
        "gemba.input_format": "RGB",
        "gemba.labels": json.dumps(labels),
        "gemba.version": version,
    }.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=k, value=val))
    onnx.checker.check_model(model)
    onnx.save(model, path)


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

    p, mean, std = train(x, y, len(labels), a.seed, a.epochs, progress)
    os.makedirs(a.out, exist_ok=True)
    report = {
        "version": a.version,
        "labels": labels,
        "input": [WIDTH, HEIGHT],
        "train_frames": int(len(x)),
        "train_accuracy": float((predict(p, mean, std, x) == y).mean()),
    }
    if holdout:
        hx = np.concatenate([h[1] for h in holdout])
        hy = np.concatenate([h[2] for h in holdout])
        report["holdout_frames"] = int(len(hx))
        report["holdout_accuracy"] = float((predict(p, mean, std, hx) == hy).mean())
    if a.propagate and not a.predictions:
        sys.exit("--propagate writes into the --predictions file: give one")
    if a.predictions:
        videos = [
            {
                "start_frame": start,
                "probs": np.round(probabilities(p, mean, std, hx), 4).tolist(),
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
            probs = [
                np.round(probabilities(p, mean, std, px[k : k + 2048]), 4)
                for k in range(0, len(px), 2048)
            ]
            rows = np.concatenate(probs).tolist() if probs else []
            propagated.append({"probs": rows})
            report_progress("propagate", i + 1, len(a.propagate))
        with open(a.predictions, "w") as fh:
            json.dump(
                {"fps": a.fps, "labels": labels, "videos": videos, "propagated": propagated}, fh
            )
    report_progress("export", 0, 1)
    export(p, mean, std, labels, a.version, os.path.join(a.out, "model.onnx"))
    report["seconds"] = round(time.time() - t0, 1)
    with open(os.path.join(a.out, "train.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    report_progress("export", 1, 1)
    print(json.dumps(report), file=sys.stderr)


if __name__ == "__main__":
    main()
