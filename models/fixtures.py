#!/usr/bin/env python3
"""Writes small ONNX models for tests: one the agent runs and ones it must refuse.

Each carries the agent's metadata (gemba.input_width/height, gemba.labels,
gemba.version), so only its graph decides whether it fits:

- `fits`: a step model as `train.py` exports one (random weights): uint8 frames
  N × height × width × 3 in, float32 N × labels out;
- `float-nchw`: a classifier as image frameworks export one: float32 1 × 3 × height ×
  width in (NCHW), float32 1 × labels out;
- `detector`: takes the agent's frames but answers boxes: float32 1 × boxes × 6 out
  (10 boxes when run), not one value per label.

    python3 models/fixtures.py KIND --labels '["pick","background"]' --version v1 \
        --width 64 --height 48 --out model.onnx
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


def save(graph, labels, version, width, height, out):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for k, val in {
        "gemba.input_width": str(width),
        "gemba.input_height": str(height),
        "gemba.labels": json.dumps(labels),
        "gemba.version": version,
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


KINDS = {"fits": fits, "float-nchw": float_nchw, "detector": detector}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=KINDS)
    ap.add_argument("--labels", required=True, help="a JSON list: the steps, then background")
    ap.add_argument("--version", default="fixture-1")
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--height", type=int, default=48)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    KINDS[a.kind](json.loads(a.labels), a.version, a.width, a.height, a.out)


if __name__ == "__main__":
    main()
