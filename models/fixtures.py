#!/usr/bin/env python3
"""Writes small ONNX models for tests: one the agent runs and ones it must refuse.

Each carries the agent's metadata (gemba.input_width/height, gemba.labels,
gemba.version), so only its graph decides whether it fits:

- `fits`: a step model as `train.py` exports one (random weights): uint8 frames
  N × height × width × 3 in, float32 N × labels out;
- `float-nchw`: a classifier as image frameworks export one: float32 1 × 3 × height ×
  width in (NCHW), float32 1 × labels out;
- `detector`: takes the agent's frames but answers boxes: float32 1 × boxes × 6 out
  (10 boxes when run), not one value per label;
- `fits-nchw`: the exact equivalent of `fits` (the same weights) as a model made
  elsewhere: float32 1 × 3 × height × width in, each value (x / 255 − mean) / std with
  ImageNet's mean and std, its preprocessing declared in its metadata (gemba.input_*),
  which the graph undoes before `fits`' own graph; BGR with `--bgr`;
- `wrong-classes`: `fits-nchw` answering one value more than it has labels;
- `window`: a temporal model over as many frames as it has labels (`gemba.window`),
  answering each frame's mean byte / 255, oldest frame first, so a test sees which
  frames it was given;
- `carrying`: `window` declaring `gemba.carry`: it takes the newest frame and what it
  carried of the frames before (each one's mean byte / 255), and answers that of this
  frame beside the probabilities.

`--bare` leaves out every gemba.* key (as PyTorch exports a model: the upload then
declares them).

    python3 models/fixtures.py KIND --labels '["pick","background"]' --version v1 \
        --width 64 --height 48 [--bgr] [--bare] --out model.onnx
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402


def fits(labels, version, width, height, out):
    train.WIDTH, train.HEIGHT = width, height
    d, h = width * height * 3, 8
    rng = np.random.default_rng(1)
    p = {
        "w1": rng.normal(0, 0.01, (d, h)).astype(np.float32),
        "b1": np.zeros(h, np.float32),
        "w2": rng.normal(0, 0.1, (h, len(labels))).astype(np.float32),
        "b2": np.zeros(len(labels), np.float32),
    }
    train.export(p, np.zeros(d, np.float32), np.ones(d, np.float32), labels, version, out)


def save(graph, labels, version, width, height, out, more=None):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, val in {
        "gemba.input_width": str(width),
        "gemba.input_height": str(height),
        "gemba.labels": json.dumps(labels),
        "gemba.version": version,
        **(more or {}),
    }.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=k, value=val))
    onnx.checker.check_model(model)
    onnx.save(model, out)


def float_nchw(labels, version, width, height, out):
    """Mean colour → softmax over the labels."""
    rng = np.random.default_rng(2)
    init = [
        numpy_helper.from_array(rng.normal(0, 1, (3, len(labels))).astype(np.float32), "w"),
        numpy_helper.from_array(np.zeros(len(labels), np.float32), "b"),
    ]
    nodes = [
        helper.make_node("ReduceMean", ["image"], ["mean"], axes=[2, 3], keepdims=0),
        helper.make_node("Gemm", ["mean", "w", "b"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "float-nchw",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, height, width])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, len(labels)])],
        init,
    )
    save(graph, labels, version, width, height, out)


def detector(labels, version, width, height, out):
    """The frame's mean, spread over 10 boxes of (x1, y1, x2, y2, score, class)."""
    init = [
        numpy_helper.from_array(np.array([1, 1, 1], np.int64), "one"),
        numpy_helper.from_array(np.array([1, 10, 6], np.int64), "boxes"),
    ]
    nodes = [
        helper.make_node("Cast", ["frames"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMean", ["f"], ["m"], keepdims=0),
        helper.make_node("Reshape", ["m", "one"], ["m3"]),
        helper.make_node("Expand", ["m3", "boxes"], ["detections"]),
    ]
    graph = helper.make_graph(
        nodes,
        "detector",
        [helper.make_tensor_value_info("frames", TensorProto.UINT8, [1, height, width, 3])],
        [helper.make_tensor_value_info("detections", TensorProto.FLOAT, [1, "boxes", 6])],
        init,
    )
    save(graph, labels, version, width, height, out)


# How `fits-nchw` wants its frame: a PyTorch image model's usual normalisation.
SCALE = 1.0 / 255.0
MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def declared(bgr):
    """The gemba.input_* keys of `fits-nchw`."""
    return {
        "gemba.input_layout": "NCHW",
        "gemba.input_type": "float32",
        "gemba.input_scale": repr(SCALE),
        "gemba.input_mean": json.dumps(MEAN),
        "gemba.input_std": json.dumps(STD),
        "gemba.input_format": "BGR" if bgr else "RGB",
    }


def fits_nchw(labels, version, width, height, out, bgr=False, outputs=None):
    """`fits` behind a prefix that takes the declared frame back to the bytes `fits`
    reads: x · std + mean is the scaled value, / scale the byte; the channels back to
    RGB; NCHW to NHWC. It replaces the Cast of `fits`' uint8 input to float, so whatever
    `train.export` does after it is kept as it is."""
    made = out + ".fits.onnx"
    fits(outputs or labels, version, width, height, made)
    m = onnx.load(made)
    os.remove(made)
    g = m.graph
    frames = g.input[0].name
    casts = [n for n in g.node if frames in n.input]
    for n in casts:
        to = [a.i for a in n.attribute if a.name == "to"]
        if n.op_type != "Cast" or to != [TensorProto.FLOAT]:
            sys.exit("fixtures: train.export's graph no longer casts its frames to float first")
    c = [1, 3, 1, 1]
    init = [
        numpy_helper.from_array(np.array(STD, np.float32).reshape(c), "pre_std"),
        numpy_helper.from_array(np.array(MEAN, np.float32).reshape(c), "pre_mean"),
        numpy_helper.from_array(np.float32(SCALE).reshape(()), "pre_scale"),
        numpy_helper.from_array(np.array([2, 1, 0] if bgr else [0, 1, 2], np.int64), "pre_rgb"),
    ]
    prefix = [
        helper.make_node("Mul", ["image", "pre_std"], ["pre_a"]),
        helper.make_node("Add", ["pre_a", "pre_mean"], ["pre_b"]),
        helper.make_node("Div", ["pre_b", "pre_scale"], ["pre_bytes"]),
        helper.make_node("Gather", ["pre_bytes", "pre_rgb"], ["pre_rgbs"], axis=1),
        helper.make_node("Transpose", ["pre_rgbs"], ["pre_nhwc"], perm=[0, 2, 3, 1]),
    ]
    rest = [n for n in g.node if n not in casts]
    for n in rest:
        for i, name in enumerate(n.input):
            if any(name == x.output[0] for x in casts):
                n.input[i] = "pre_nhwc"
    del g.node[:]
    g.node.extend(prefix + rest)
    g.initializer.extend(init)
    del g.input[:]
    g.input.append(
        helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, height, width])
    )
    # As a PyTorch export declares it: one frame, one row of values.
    g.output[0].type.tensor_type.shape.dim[0].Clear()
    g.output[0].type.tensor_type.shape.dim[0].dim_value = 1
    del m.metadata_props[:]
    meta = {
        "gemba.input_width": str(width),
        "gemba.input_height": str(height),
        "gemba.labels": json.dumps(labels),
        "gemba.version": version,
        **declared(bgr),
    }
    for k, val in meta.items():
        m.metadata_props.append(onnx.StringStringEntryProto(key=k, value=val))
    onnx.checker.check_model(m)
    onnx.save(m, out)


def wrong_classes(labels, version, width, height, out, bgr=False):
    fits_nchw(labels, version, width, height, out, bgr, outputs=labels + ["extra"])


def window(labels, version, width, height, out):
    k = len(labels)
    init = [
        numpy_helper.from_array(np.array([1, -1], np.int64), "row"),
        numpy_helper.from_array(np.float32(1 / 255).reshape(()), "scale"),
    ]
    nodes = [
        helper.make_node("Cast", ["frames"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMean", ["f"], ["m"], axes=[1, 2, 3], keepdims=0),
        helper.make_node("Reshape", ["m", "row"], ["r"]),
        helper.make_node("Mul", ["r", "scale"], ["probs"]),
    ]
    graph = helper.make_graph(
        nodes,
        "window",
        [helper.make_tensor_value_info("frames", TensorProto.UINT8, [k, height, width, 3])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, k])],
        init,
    )
    save(graph, labels, version, width, height, out, {"gemba.window": str(k)})


def carrying(labels, version, width, height, out):
    k = len(labels)
    init = [
        numpy_helper.from_array(np.array([1, 1], np.int64), "one"),
        numpy_helper.from_array(np.array([1, -1], np.int64), "row"),
        numpy_helper.from_array(np.float32(1 / 255).reshape(()), "scale"),
    ]
    nodes = [
        helper.make_node("Cast", ["frames"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMean", ["f"], ["m"], axes=[1, 2, 3], keepdims=0),
        helper.make_node("Reshape", ["m", "one"], ["r"]),
        helper.make_node("Mul", ["r", "scale"], ["carry"]),
        helper.make_node("Concat", ["carried", "carry"], ["all"], axis=0),
        helper.make_node("Reshape", ["all", "row"], ["probs"]),
    ]
    graph = helper.make_graph(
        nodes,
        "carrying",
        [helper.make_tensor_value_info("frames", TensorProto.UINT8, [1, height, width, 3]),
         helper.make_tensor_value_info("carried", TensorProto.FLOAT, [k - 1, 1])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, k]),
         helper.make_tensor_value_info("carry", TensorProto.FLOAT, [1, 1])],
        init,
    )
    save(graph, labels, version, width, height, out,
         {"gemba.window": str(k), "gemba.carry": "1"})


KINDS = {
    "fits": fits,
    "float-nchw": float_nchw,
    "detector": detector,
    "fits-nchw": fits_nchw,
    "wrong-classes": wrong_classes,
    "window": window,
    "carrying": carrying,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=KINDS)
    ap.add_argument("--labels", required=True, help="a JSON list: the steps, then background")
    ap.add_argument("--version", default="fixture-1")
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--height", type=int, default=48)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bgr", action="store_true", help="fits-nchw: takes BGR")
    ap.add_argument("--bare", action="store_true", help="without any gemba.* metadata")
    a = ap.parse_args()
    labels = json.loads(a.labels)
    if a.kind in ("fits-nchw", "wrong-classes"):
        KINDS[a.kind](labels, a.version, a.width, a.height, a.out, a.bgr)
    else:
        KINDS[a.kind](labels, a.version, a.width, a.height, a.out)
    if a.bare:
        m = onnx.load(a.out)
        keep = [p for p in m.metadata_props if not p.key.startswith("gemba.")]
        del m.metadata_props[:]
        m.metadata_props.extend(keep)
        onnx.save(m, a.out)


if __name__ == "__main__":
    main()
