"""The step model's recipe: how frames are augmented in training, the network, and its
export to ONNX. `train.py` reads video and labels and calls these.

The network is a multilayer perceptron over the frame the agent scales (64×48 RGB by
default). Two things make it hold on a real station, each chosen by measurement
(docs/benchmarks.md "Step-model recipes", docs/decisions.md):

- **Per-frame normalisation in the graph** (`frame_norm`): each colour channel of a
  frame is divided by that channel's mean over the frame, so a station lit darker or
  brighter, warmer or colder, gives the network the same numbers.
- **Augmentation in training** (`augment`): every batch is moved, turned and zoomed a
  little (a nudged camera), lit at another level and colour, given another contrast,
  blurred (another resolution, compression) and noised (a cheaper sensor); with
  `recolour`, the things that move (the operator's hands and sleeves) are given other
  colours than the footage's, so a new operator or gloves do not look like nothing.

With a `window` above 1, a second, small network (the head) decides each frame from
the last few frames. It reads either the per-frame network's step probabilities
(`head_input="probs"`, the default recipe: a hand arriving and a hand working look alike
in one frame, but not in the last eight frames' probabilities, which hold on other
stations as the per-frame network does) or its hidden layers (`"hidden"`: more to learn
from, but also the footage's own colours, so it does not hold on other operators).
"""

import json

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# A channel's mean is never taken as less than this (a black frame stays finite).
NORM_FLOOR = 4.0 / 255.0


def normalise(xf):
    """Per-frame normalisation of N × H × W × 3 floats in unit range, as the graph does
    it: each channel divided by its mean over the frame."""
    m = xf.mean(axis=(1, 2), keepdims=True)
    return xf / np.maximum(m, NORM_FLOOR)


def affine_maps(draw, h, w, shift, rotate, zoom):
    """Per-frame source rows and columns (n × h × w) of a random move by up to `shift`
    (share of the frame), a turn by up to `rotate` degrees, a zoom within `zoom`;
    `draw(low, high, shape)` gives each frame's value."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx = draw(-shift, shift, (1, 1)) * w
    dy = draw(-shift, shift, (1, 1)) * h
    a = np.radians(draw(-rotate, rotate, (1, 1)))
    z = draw(1.0 / zoom, zoom, (1, 1))
    cx, cy = (xx - w / 2) / z, (yy - h / 2) / z
    sx = w / 2 + dx + cx * np.cos(a) - cy * np.sin(a)
    sy = h / 2 + dy + cx * np.sin(a) + cy * np.cos(a)
    rows = np.clip(np.rint(sy), 0, h - 1).astype(np.intp)
    cols = np.clip(np.rint(sx), 0, w - 1).astype(np.intp)
    return rows, cols


def blur(xb, pick):
    """A 3×3 box blur on the frames `pick` chooses (a softer lens, a lower resolution,
    heavier compression)."""
    if not pick.any():
        return xb
    x = xb[pick]
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = x.shape[1:3]
    acc = sum(p[:, i : i + h, j : j + w] for i in range(3) for j in range(3))
    xb = xb.copy()
    xb[pick] = acc / 9.0
    return xb


def scatter(xb, rng, run):
    """Things left on the bench: up to five boxes and discs of any colour, anywhere, on
    half the runs of frames (the same things through a run)."""
    n, h, w, _ = xb.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xb = xb.copy()
    for start in range(0, n, run):
        if rng.random() < 0.5:
            continue
        for _ in range(rng.integers(1, 6)):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            if rng.random() < 0.5:
                rw, rh = rng.uniform(1.5, 6, 2)
                mask = (np.abs(xx - cx) < rw) & (np.abs(yy - cy) < rh)
            else:
                mask = (xx - cx) ** 2 + (yy - cy) ** 2 < rng.uniform(1, 3.5) ** 2
            xb[start : start + run, mask] = rng.uniform(0.05, 0.95, 3)
    return xb


def augment(xb, rng, background=None, recolour=False, run=1, clutter=False):
    """A batch (N × H × W × 3 floats, unit range) as another station might show it; each
    `run` of consecutive frames as the same station (one camera pose, one light), as a
    temporal model sees them."""
    n, h, w, _ = xb.shape
    groups = -(-n // run)

    def draw(low, high, shape=()):
        return np.repeat(rng.uniform(low, high, (groups, *shape)), run, axis=0)[:n]

    if recolour and background is not None:
        # What differs from the still bench is the operator: give it other colours
        # (gloves, sleeves, skin; two colours meeting along a random line, as a glove
        # meets a sleeve), keeping its shape and shading.
        diff = np.abs(xb - background).sum(axis=3, keepdims=True)
        moving = np.clip((diff - 0.12) / 0.1, 0, 1)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = draw(0, 2 * np.pi, (1, 1))
        line = (xx / w - 0.5) * np.cos(angle) + (yy / h - 0.5) * np.sin(angle) + draw(
            -0.3, 0.3, (1, 1))
        split = np.clip(line * 8 + 0.5, 0, 1)[..., None]
        colour = draw(0.02, 0.98, (1, 1, 3)) * split + draw(0.02, 0.98, (1, 1, 3)) * (1 - split)
        shade = xb.mean(axis=3, keepdims=True) / np.maximum(
            xb.mean(axis=(1, 2, 3), keepdims=True), 1e-3)
        mix = np.minimum(draw(0.0, 1.5, (1, 1, 1)), 1.0).astype(np.float32)
        painted = np.clip(colour * (0.6 + 0.4 * shade), 0, 1)
        xb = xb + moving * mix * (painted - xb)
    if clutter:
        xb = scatter(xb, rng, run)
    rows, cols = affine_maps(draw, h, w, shift=0.04, rotate=4.0, zoom=1.1)
    xb = xb[np.arange(n)[:, None, None], rows, cols]
    xb = blur(xb, draw(0, 1) < 0.3)
    gain = draw(0.35, 1.6, (1, 1, 1)) * draw(0.8, 1.2, (1, 1, 3))
    gamma = draw(0.75, 1.35, (1, 1, 1))
    xb = np.clip(xb, 0, 1) ** gamma * gain
    xb = xb + rng.normal(0, 1, xb.shape) * draw(0, 0.05, (1, 1, 1))
    return np.clip(xb, 0, 1).astype(np.float32)


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class Recipe:
    """What to train: the frame size, the hidden width, whether to normalise each frame,
    how to augment, and the window (frames the model looks at: the newest and those just
    before it; 1 decides each frame alone) with what its head reads of each frame
    (`head_input`: "probs" or "hidden") and how many augmented passes over the footage
    it learns from beside the footage as it is (`head_passes`)."""

    def __init__(self, width=64, height=48, hidden=48, frame_norm=True, augment=True,
                 recolour=True, window=1, difference=None, clutter=False,
                 head_input="hidden", head_passes=2):
        self.width, self.height, self.hidden = width, height, hidden
        self.frame_norm, self.augment, self.recolour = frame_norm, augment, recolour
        self.window = window
        if head_input not in ("probs", "hidden"):
            raise ValueError(f"head_input: probs or hidden, not {head_input}")
        self.head_input, self.head_passes = head_input, head_passes
        # "only": each pixel's distance from the still bench instead of its colour;
        # "both": the colour and the distance. None: the colour.
        self.difference = difference
        # Whether training scatters things on the bench.
        self.clutter = clutter
        # The still bench as the features see it (set by `fit`).
        self.bench = None

    def features(self, xf):
        """N × H × W × 3 unit-range floats → N × D, as the graph computes them before
        the learnt standardisation."""
        if self.frame_norm:
            xf = normalise(xf)
        if self.difference is None:
            return xf.reshape(len(xf), -1)
        dist = np.abs(xf - self.bench).sum(axis=3).reshape(len(xf), -1)
        if self.difference == "only":
            return dist
        return np.concatenate([xf.reshape(len(xf), -1), dist], axis=1)


# The temporal head's hidden units.
HEAD_HIDDEN = 32

# A step probability's floor before its logarithm, where the head reads probabilities (a
# sure network's zeros stay finite and alike).
PROB_FLOOR = 1e-3


class Trained:
    """A trained model: the per-frame network `p` over standardised features (`mean`,
    `std`), and with a window, the head `q` over the window's hidden layers
    (standardised by `head_mean`, `head_std`)."""

    def __init__(self, recipe, p, mean, std, q=None, head_mean=None, head_std=None):
        self.recipe, self.p, self.mean, self.std = recipe, p, mean, std
        self.q, self.head_mean, self.head_std = q, head_mean, head_std

    def hidden(self, unit):
        z = (self.recipe.features(unit) - self.mean) / self.std
        return np.maximum(z @ self.p["w1"] + self.p["b1"], 0)

    def per_frame(self, unit):
        """The per-frame network's step probabilities."""
        return softmax(self.hidden(unit) @ self.p["w2"] + self.p["b2"])

    def head_reads(self, unit):
        """What the head reads of each frame: the per-frame network's log-probabilities
        (floored at PROB_FLOOR) or its hidden layer."""
        if self.recipe.head_input == "probs":
            return np.log(self.per_frame(unit) + PROB_FLOOR)
        return self.hidden(unit)

    def probabilities(self, x):
        """The model's output on each of the uint8 frames `x` (consecutive), as the
        agent gets it: each frame's window padded, at the start, with the first frame."""
        read = self.per_frame if self.q is None else self.head_reads
        out = [read(x[k : k + 2048].astype(np.float32) / 255.0) for k in range(0, len(x), 2048)]
        h = np.concatenate(out) if out else np.zeros((0, self.recipe.hidden), np.float32)
        if self.q is None:
            return h
        z = (windows(h, self.recipe.window) - self.head_mean) / self.head_std
        return softmax(np.maximum(z @ self.q["w1"] + self.q["b1"], 0) @ self.q["w2"]
                       + self.q["b2"])


def windows(h, k):
    """Each row's window of `k` rows, oldest first, ending at it (before the first row:
    the first row again), flattened: N × (k · D)."""
    n = len(h)
    idx = np.arange(n)[:, None] + np.arange(-k + 1, 1)[None, :]
    return h[np.clip(idx, 0, max(n - 1, 0))].reshape(n, -1)


def mlp(d, hidden, classes, rng):
    return {
        "w1": (rng.normal(0, 1, (d, hidden)) / np.sqrt(d)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": (rng.normal(0, 1, (hidden, classes)) / np.sqrt(hidden)).astype(np.float32),
        "b2": np.zeros(classes, np.float32),
    }


class Adam:
    """Adam over a one-hidden-layer network's parameters, with class weights by rarity
    (so short steps count as much as long idle time) and a little weight decay."""

    def __init__(self, p, y, classes, lr=1e-3):
        self.p, self.lr, self.step = p, lr, 0
        self.m = {k: np.zeros_like(v) for k, v in p.items()}
        self.v = {k: np.zeros_like(v) for k, v in p.items()}
        counts = np.bincount(y, minlength=classes).astype(np.float32)
        self.cw = (counts.sum() / np.maximum(counts, 1) / classes).astype(np.float32)

    def batch(self, xb, yb):
        """One step on standardised inputs `xb` with labels `yb`; its weighted loss."""
        p = self.p
        h = np.maximum(xb @ p["w1"] + p["b1"], 0)
        pr = softmax(h @ p["w2"] + p["b2"])
        w = self.cw[yb]
        loss = float(-(w * np.log(pr[np.arange(len(yb)), yb] + 1e-9)).sum())
        g = pr
        g[np.arange(len(yb)), yb] -= 1
        g *= (w / w.sum())[:, None]
        grads = {"w2": h.T @ g, "b2": g.sum(0)}
        gh = (g @ p["w2"].T) * (h > 0)
        grads["w1"] = xb.T @ gh
        grads["b1"] = gh.sum(0)
        self.step += 1
        b1, b2 = 0.9, 0.999
        for k in p:
            gk = grads[k] + (1e-4 * p[k] if k.startswith("w") else 0)
            self.m[k] = b1 * self.m[k] + (1 - b1) * gk
            self.v[k] = b2 * self.v[k] + (1 - b2) * gk * gk
            mh = self.m[k] / (1 - b1**self.step)
            vh = self.v[k] / (1 - b2**self.step)
            p[k] -= (self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        return loss


# An epoch is a pass over the frames, or over this many drawn from them when there are
# fewer (a few labelled cycles still get enough steps to learn from).
EPOCH_FRAMES = 3200


def epoch_order(rng, n):
    """The order of one epoch's frames: a shuffle of all `n`, repeated (each shuffled
    anew) up to EPOCH_FRAMES."""
    reps = -(-EPOCH_FRAMES // max(n, 1)) if n < EPOCH_FRAMES else 1
    return np.concatenate([rng.permutation(n) for _ in range(reps)])


# Frames per run of the same station when the head's training windows are augmented.
HEAD_RUN = 32

# The head learns from at least this many windows (the footage as it is and augmented
# passes of it), so a few labelled cycles give it as many as a long video.
HEAD_WINDOWS = 12000

# But from at most this many augmented passes: a clip of seconds would otherwise take
# hundreds (a minute of training for what it cannot teach). Five labelled cycles (about
# 70 s) take 10; a clip under 47 s at 15 fps is the first to be capped.
MAX_HEAD_PASSES = 16


def fit(recipe, x, y, classes, seed, epochs, progress):
    """Trains on uint8 frames `x` (N × H × W × 3, consecutive) with labels `y`: the
    per-frame network for `epochs`, then (with a window) the head for as many.
    `progress(done, of, loss)` after each epoch of either."""
    rng = np.random.default_rng(seed)
    unit = x.astype(np.float32) / 255.0
    # The still bench: the median frame (the operator moves; the bench does not).
    background = np.median(unit[:: max(1, len(unit) // 400)], axis=0)
    bench = background[None]
    recipe.bench = (normalise(bench) if recipe.frame_norm else bench)[0]
    # Standardisation from augmented frames, so it covers what training shows.
    sample = unit[rng.permutation(len(unit))[:2048]]
    if recipe.augment:
        sample = augment(sample, rng, background, recipe.recolour, 1, recipe.clutter)
    fs = recipe.features(sample)
    mean = fs.mean(axis=0)
    std = fs.std(axis=0) + 0.05
    p = mlp(fs.shape[1], recipe.hidden, classes, rng)
    opt = Adam(p, y, classes)
    stages = 2 if recipe.window > 1 else 1
    batch = 64
    for epoch in range(epochs):
        order = epoch_order(rng, len(unit))
        loss = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            xb = unit[idx]
            if recipe.augment:
                xb = augment(xb, rng, background, recipe.recolour, 1, recipe.clutter)
            xb = (recipe.features(xb) - mean) / std
            if not recipe.augment:
                # The first recipe's light touch: brightness and noise on the features.
                xb = xb * rng.uniform(0.9, 1.1) + rng.normal(0, 0.1, xb.shape).astype(np.float32)
            loss += opt.batch(xb, y[idx])
        progress(epoch + 1, epochs * stages, loss / len(order))
    trained = Trained(recipe, p, mean.astype(np.float32), std.astype(np.float32))
    if stages == 1:
        return trained
    # The head: windows of what it reads of each frame over the footage as it is and as
    # other stations would show it (one station per run of frames).
    seqs = [trained.head_reads(unit)]
    passes = max(recipe.head_passes,
                 min(-(-HEAD_WINDOWS // max(len(unit), 1)) - 1, MAX_HEAD_PASSES))
    for _ in range(passes if recipe.augment else 0):
        parts = []
        for i in range(0, len(unit), 1024):
            parts.append(trained.head_reads(
                augment(unit[i : i + 1024], rng, background, recipe.recolour, HEAD_RUN,
                        recipe.clutter)))
        seqs.append(np.concatenate(parts))
    z = np.concatenate([windows(h, recipe.window) for h in seqs])
    yz = np.concatenate([y] * len(seqs))
    head_mean = z.mean(axis=0)
    head_std = z.std(axis=0) + 0.05
    z = (z - head_mean) / head_std
    q = mlp(z.shape[1], HEAD_HIDDEN, classes, rng)
    opt = Adam(q, yz, classes)
    for epoch in range(epochs):
        order = epoch_order(rng, len(z))
        loss = 0.0
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            loss += opt.batch(z[idx], yz[idx])
        progress(epochs + epoch + 1, epochs * stages, loss / len(order))
    trained.q = q
    trained.head_mean = head_mean.astype(np.float32)
    trained.head_std = head_std.astype(np.float32)
    return trained


def export(p, mean, std, labels, version, path, width, height, frame_norm=False,
           card=None, head=None, difference=None, bench=None):
    """The model as ONNX: uint8 frames in, softmax out; the scaling (and, with
    `frame_norm`, the per-frame normalisation) in the graph. Without a `head`: N frames
    → N × labels. With a `head` (q, head_mean, head_std, window, what it reads: "probs"
    or "hidden", `Recipe.head_input`): the newest frame (1 × height × width × 3) and,
    as input `carried`, what the head read of the window's frames before it (window − 1
    rows, oldest first) → 1 × labels, and as output `carry` what it reads of this frame
    (1 × C), which the agent gives back with the next frames: `gemba.window` and
    `gemba.carry` (C) in the metadata. Each frame goes through the per-frame network
    once. `card` (a dict) goes into the
    metadata as `gemba.card`."""
    d = width * height * 3
    init = [
        numpy_helper.from_array(np.array([-1, d], np.int64), "shape"),
        numpy_helper.from_array(np.float32(1.0 / 255.0).reshape(()), "scale"),
        numpy_helper.from_array(mean.astype(np.float32), "mean"),
        numpy_helper.from_array(std.astype(np.float32), "std"),
        numpy_helper.from_array(p["w1"], "w1"),
        numpy_helper.from_array(p["b1"], "b1"),
    ]
    nodes = [
        helper.make_node("Cast", ["frames"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["f", "scale"], ["unit"]),
    ]
    pixels = "unit"
    if frame_norm:
        init += [
            numpy_helper.from_array(np.array([1, 2], np.int64), "hw"),
            numpy_helper.from_array(np.float32(NORM_FLOOR).reshape(()), "floor"),
        ]
        nodes += [
            helper.make_node("ReduceMean", ["unit", "hw"], ["chan_mean"], keepdims=1),
            helper.make_node("Max", ["chan_mean", "floor"], ["chan_div"]),
            helper.make_node("Div", ["unit", "chan_div"], ["normed"]),
        ]
        pixels = "normed"
    if difference != "only":
        nodes.append(helper.make_node("Reshape", [pixels, "shape"], ["colour"]))
    flat = "colour"
    if difference is not None:
        init += [
            numpy_helper.from_array(bench.astype(np.float32), "bench"),
            numpy_helper.from_array(np.array([3], np.int64), "channels"),
            numpy_helper.from_array(np.array([-1, width * height], np.int64), "plane"),
        ]
        nodes += [
            helper.make_node("Sub", [pixels, "bench"], ["off"]),
            helper.make_node("Abs", ["off"], ["apart"]),
            helper.make_node("ReduceSum", ["apart", "channels"], ["dist"], keepdims=0),
            helper.make_node("Reshape", ["dist", "plane"], ["dist_flat"]),
        ]
        flat = "dist_flat"
        if difference == "both":
            nodes.append(helper.make_node("Concat", ["colour", "dist_flat"], ["both"], axis=1))
            flat = "both"
    nodes += [
        helper.make_node("Sub", [flat, "mean"], ["centred"]),
        helper.make_node("Div", ["centred", "std"], ["z"]),
        helper.make_node("Gemm", ["z", "w1", "b1"], ["h"]),
        helper.make_node("Relu", ["h"], ["hr"]),
    ]
    batch = "n"
    inputs, outputs, carry = [], [], 0
    if head is None:
        init += [numpy_helper.from_array(p["w2"], "w2"), numpy_helper.from_array(p["b2"], "b2")]
        nodes.append(helper.make_node("Gemm", ["hr", "w2", "b2"], ["logits"]))
    else:
        q, head_mean, head_std, window, head_input = head
        batch = 1
        reads = "hr"
        carry = p["w1"].shape[1]
        if head_input == "probs":
            init += [
                numpy_helper.from_array(p["w2"], "w2"),
                numpy_helper.from_array(p["b2"], "b2"),
                numpy_helper.from_array(np.float32(PROB_FLOOR).reshape(()), "prob_floor"),
            ]
            nodes += [
                helper.make_node("Gemm", ["hr", "w2", "b2"], ["frame_logits"]),
                helper.make_node("Softmax", ["frame_logits"], ["frame_probs"], axis=1),
                helper.make_node("Add", ["frame_probs", "prob_floor"], ["frame_floored"]),
                helper.make_node("Log", ["frame_floored"], ["frame_log"]),
            ]
            reads = "frame_log"
            carry = len(labels)
        inputs.append(
            helper.make_tensor_value_info("carried", TensorProto.FLOAT, [window - 1, carry]))
        outputs.append(helper.make_tensor_value_info("carry", TensorProto.FLOAT, [1, carry]))
        init += [
            numpy_helper.from_array(np.array([1, -1], np.int64), "one_row"),
            numpy_helper.from_array(head_mean.astype(np.float32), "head_mean"),
            numpy_helper.from_array(head_std.astype(np.float32), "head_std"),
            numpy_helper.from_array(q["w1"], "q1"),
            numpy_helper.from_array(q["b1"], "c1"),
            numpy_helper.from_array(q["w2"], "q2"),
            numpy_helper.from_array(q["b2"], "c2"),
        ]
        nodes += [
            helper.make_node("Identity", [reads], ["carry"]),
            helper.make_node("Concat", ["carried", reads], ["rows"], axis=0),
            helper.make_node("Reshape", ["rows", "one_row"], ["seq"]),
            helper.make_node("Sub", ["seq", "head_mean"], ["seq_c"]),
            helper.make_node("Div", ["seq_c", "head_std"], ["seq_z"]),
            helper.make_node("Gemm", ["seq_z", "q1", "c1"], ["g"]),
            helper.make_node("Relu", ["g"], ["gr"]),
            helper.make_node("Gemm", ["gr", "q2", "c2"], ["logits"]),
        ]
    nodes.append(helper.make_node("Softmax", ["logits"], ["probs"], axis=1))
    graph = helper.make_graph(
        nodes,
        "gemba-steps",
        [helper.make_tensor_value_info("frames", TensorProto.UINT8, [batch, height, width, 3])]
        + inputs,
        [helper.make_tensor_value_info(
            "probs", TensorProto.FLOAT, ["n" if head is None else 1, len(labels)])] + outputs,
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    meta = {
        "gemba.input_width": str(width),
        "gemba.input_height": str(height),
        "gemba.input_format": "RGB",
        "gemba.labels": json.dumps(labels),
        "gemba.version": version,
    }
    if head is not None:
        meta["gemba.window"] = str(head[3])
        meta["gemba.carry"] = str(carry)
    if card is not None:
        meta["gemba.card"] = json.dumps(card)
    for k, val in meta.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=k, value=val))
    onnx.checker.check_model(model)
    onnx.save(model, path)


def export_trained(t, labels, version, path, card=None):
    """A `Trained` model as ONNX (`export`)."""
    r = t.recipe
    head = None if t.q is None else (t.q, t.head_mean, t.head_std, r.window, r.head_input)
    export(t.p, t.mean, t.std, labels, version, path, r.width, r.height, r.frame_norm, card,
           head, r.difference, r.bench)
