#!/usr/bin/env python3
"""From a carrying model (`gemba.carry`, as `models/train.py` exports its heads), the
same model in the two forms it is measured against, side by side: `window/`, given the
window's frames at each frame (the form before `gemba.carry`: each frame through the
per-frame network once per window it is in), and `per-frame/`, its per-frame network
alone (no head). Same weights, so the three differ only in what runs per frame.

    python3 bench/carry_variants.py target/models/default/model.onnx --out DIR
"""

import argparse
import os

import onnx
from onnx import helper


def window_form(m):
    """The graph given the window's frames: `frames` k × H × W × 3, no `carried`, one
    output."""
    g = m.graph
    meta = {p.key: p.value for p in m.metadata_props}
    k = int(meta["gemba.window"])
    g.input[0].type.tensor_type.shape.dim[0].dim_value = k
    for i, node in enumerate(g.node):
        if node.op_type == "Concat" and "carried" in node.input:
            reads = [x for x in node.input if x != "carried"][0]
            g.node.remove(node)
            g.node.insert(i, helper.make_node("Identity", [reads], list(node.output)))
            break
    else:
        raise SystemExit("not a carrying model of train.py's: no Concat of 'carried'")
    for coll in (g.input, g.output):
        for v in [v for v in coll if v.name in ("carried", "carry")]:
            coll.remove(v)
    for n in [n for n in g.node if "carry" in n.output]:
        g.node.remove(n)
    keep = [p for p in m.metadata_props if p.key != "gemba.carry"]
    del m.metadata_props[:]
    m.metadata_props.extend(keep)
    return m


def per_frame_form(m):
    """The per-frame network alone: N frames in, its softmax out."""
    g = m.graph
    names = {n.output[0]: n for n in g.node}
    if "frame_probs" not in names:
        raise SystemExit("not a head over probabilities: no 'frame_probs'")
    # Keep the nodes up to the per-frame softmax.
    cut = [n.output[0] for n in g.node].index("frame_probs")
    kept = list(g.node)[: cut + 1]
    del g.node[:]
    g.node.extend(kept)
    g.node.append(helper.make_node("Identity", ["frame_probs"], ["probs"]))
    g.input[0].type.tensor_type.shape.dim[0].dim_param = "n"
    for v in [v for v in g.input if v.name == "carried"]:
        g.input.remove(v)
    for v in [v for v in g.output if v.name == "carry"]:
        g.output.remove(v)
    g.output[0].type.tensor_type.shape.dim[0].dim_param = "n"
    used = {x for n in g.node for x in n.input}
    for t in [t for t in g.initializer if t.name not in used]:
        g.initializer.remove(t)
    keep = [p for p in m.metadata_props if p.key not in ("gemba.carry", "gemba.window")]
    del m.metadata_props[:]
    m.metadata_props.extend(keep)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    for name, form in (("window", window_form), ("per-frame", per_frame_form)):
        m = form(onnx.load(a.model))
        onnx.checker.check_model(m)
        os.makedirs(os.path.join(a.out, name), exist_ok=True)
        onnx.save(m, os.path.join(a.out, name, "model.onnx"))
        print(os.path.join(a.out, name, "model.onnx"))


if __name__ == "__main__":
    main()
