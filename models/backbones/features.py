"""Per-frame features from a model that models/backbones/build.py wrote, with onnxruntime.

    from features import load
    fx = load("target/backbones/efficientnet_lite0_120x160.onnx")   # or hand_pipeline_lite_240x320.onnx
    f = fx.extract(frames)        # frames: uint8 [N,h,w,3] RGB, any h×w -> float32 [N, fx.dim]

Frames of another size are resized (bilinear, numpy only) to the model's own input size, so the
caller can decode at that size (cheaper, as the agent would) or hand over what it has.
Needs numpy and onnxruntime only.
"""
import numpy as np
import onnxruntime as ort


def resize(frames, h, w):
    """Bilinear resize of uint8 [N,H,W,C] frames to [N,h,w,C] (pixel centres aligned, as
    GStreamer's videoscale and onnx Resize half_pixel). Box-averages first when shrinking by 2x
    or more, so small outputs do not alias."""
    x = np.asarray(frames)
    while x.shape[1] >= 2 * h and x.shape[2] >= 2 * w:
        x = x[:, : x.shape[1] // 2 * 2, : x.shape[2] // 2 * 2].astype(np.float32)
        x = (x[:, 0::2, 0::2] + x[:, 1::2, 0::2] + x[:, 0::2, 1::2] + x[:, 1::2, 1::2]) / 4
    H, W = x.shape[1:3]
    if (H, W) == (h, w):
        return np.clip(np.rint(x), 0, 255).astype(np.uint8)
    x = x.astype(np.float32)

    def axis(n_in, n_out):
        c = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
        i0 = np.floor(c).astype(np.int64)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, (c - i0).astype(np.float32)
    y0, y1, fy = axis(H, h)
    x0, x1, fx = axis(W, w)
    rows = x[:, y0] * (1 - fy)[None, :, None, None] + x[:, y1] * fy[None, :, None, None]
    out = rows[:, :, x0] * (1 - fx)[None, None, :, None] + rows[:, :, x1] * fx[None, None, :, None]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


class Extractor:
    def __init__(self, path, threads=1):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        if inp.name != "frames" or inp.type != "tensor(uint8)" or len(inp.shape) != 4:
            raise ValueError(f"{path}: input {inp.name} {inp.type} {inp.shape} is not frames uint8 NHWC")
        self.height, self.width = int(inp.shape[1]), int(inp.shape[2])
        outs = {o.name: o for o in self.session.get_outputs()}
        if "features" not in outs:
            raise ValueError(f"{path}: no 'features' output")
        self.dim = int(outs["features"].shape[1])
        self.outputs = list(outs)

    def extract(self, frames, batch=32, outputs=("features",)):
        """float32 [N, dim] features of uint8 [N,h,w,3] RGB frames (a single [h,w,3] frame is
        taken as N=1). With outputs=(...) names, returns a dict of those outputs instead."""
        x = np.asarray(frames, np.uint8)
        if x.ndim == 3:
            x = x[None]
        if x.shape[1:3] != (self.height, self.width):
            x = resize(x, self.height, self.width)
        names = list(outputs)
        parts = {n: [] for n in names}
        for i in range(0, len(x), batch):
            for n, v in zip(names, self.session.run(names, {"frames": np.ascontiguousarray(x[i:i + batch])})):
                parts[n].append(v)
        res = {n: (np.concatenate(v) if v else np.zeros((0,) + tuple(
            d if isinstance(d, int) else 0 for d in self._shape(n)[1:]), np.float32)) for n, v in parts.items()}
        return res["features"] if names == ["features"] else res

    def _shape(self, name):
        return next(o.shape for o in self.session.get_outputs() if o.name == name)


def load(path, threads=1):
    """An Extractor for a model written by build.py (input 'frames' uint8 [N,H,W,3])."""
    return Extractor(path, threads)
