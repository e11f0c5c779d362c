#!/usr/bin/env python3
"""Inference cost of a step model: mean milliseconds per frame in ONNX Runtime on one
thread (as the agent runs it: one frame per call with what a carrying model carried of
the frames before, or a temporal model's window of frames), over FRAMES random frames of the model's input size after a warm-up. Prints
one line.

    python3 bench/model_cost.py target/models/default/model.onnx [--frames 500]
"""

import argparse
import time

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--frames", type=int, default=500)
    a = ap.parse_args()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    s = ort.InferenceSession(a.model, opts, providers=["CPUExecutionProvider"])
    meta = s.get_modelmeta().custom_metadata_map
    w, h = int(meta["gemba.input_width"]), int(meta["gemba.input_height"])
    k = int(meta.get("gemba.window", "1"))
    carry = int(meta.get("gemba.carry", "0"))
    inp = s.get_inputs()[0]
    feed = {}
    if carry:
        # A carrying model: one frame, and what it carried of the window's others.
        feed[s.get_inputs()[1].name] = np.zeros((k - 1, carry), np.float32)
        k = 1
    shape = [k, h, w, 3] if inp.type == "tensor(uint8)" else [k, 3, h, w]
    dtype = np.uint8 if inp.type == "tensor(uint8)" else np.float32
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, shape).astype(dtype) for _ in range(16)]
    for f in frames:
        s.run(None, {inp.name: f, **feed})
    t0 = time.perf_counter()
    for i in range(a.frames):
        s.run(None, {inp.name: frames[i % len(frames)], **feed})
    ms = (time.perf_counter() - t0) * 1000 / a.frames
    print(f"{a.model}: {ms:.3f} ms per frame ({w}×{h}, {k} frames a call, carrying {carry}), "
          f"{1000 / ms:.0f} frames/s on one thread")


if __name__ == "__main__":
    main()
