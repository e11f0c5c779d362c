"""MediaPipe Hands (palm detection + hand landmarks, from the `mediapipe` wheel's .tflite files)
as single ONNX graphs that take uint8 NHWC RGB frames.

hand_landmark_graph: the landmark model alone on the whole (square) frame, 224x224, as
    MediaPipe's HandLandmarkCpu would see an ROI that is the whole frame.
hand_track_graph: the landmark model on a given ROI (a previous frame's next_roi), MediaPipe's
    tracking step, for callers that run palm detection only when the hand is lost.
hand_pipeline_graph: per frame, palm detection on the letterboxed frame (192x192), the best
    palm turned into MediaPipe's hand ROI (rotation from wrist to middle-finger keypoints, x2.6,
    shifted by -0.5, square), that ROI cropped by GridSample to 224x224, the landmark model on
    the crop, and the landmarks projected back to the frame. One hand per frame (the palm with
    the highest score, whatever it is: look at palm_score / presence).

Constants follow mediapipe/modules/{palm_detection,hand_landmark} 0.10 graphs (Apache-2.0).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from _tflite import Converter

PALM = 192
LM = 224
OPSET = 17


def ssd_anchors():
    """SsdAnchorsCalculator for palm detection: 4 layers, strides 8,16,16,16, fixed size."""
    strides, out = [8, 16, 16, 16], []
    i = 0
    while i < len(strides):
        n = 0
        j = i
        while j < len(strides) and strides[j] == strides[i]:
            n += 2  # aspect ratio 1.0 + the interpolated scale, per layer
            j += 1
        f = -(-PALM // strides[i])
        for y in range(f):
            for x in range(f):
                out += [((x + 0.5) / f, (y + 0.5) / f)] * n
        i = j
    a = np.array(out, np.float32)
    assert a.shape == (2016, 2)
    return a


class _B:
    """Tiny graph builder sharing the converter's node/initializer lists."""

    def __init__(self):
        self.nodes, self.inits, self.k = [], [], 0

    def u(self, b):
        self.k += 1
        return f"{b}_{self.k}"

    def c(self, v, dtype=np.float32):
        n = self.u("k")
        self.inits.append(numpy_helper.from_array(np.asarray(v, dtype), n))
        return n

    def i64(self, v):
        return self.c(v, np.int64)

    def __call__(self, op, ins, out=None, **a):
        out = out or self.u(op.lower())
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **a))
        return out

    def col(self, x, j):
        """x[:, j:j+1]"""
        return self("Slice", [x, self.i64([j]), self.i64([j + 1]), self.i64([1])])

    def absorb(self, conv):
        self.nodes += conv.nodes
        self.inits += conv.inits


def _landmarks(b, tfl_buf, x_nchw, prefix):
    """Runs the landmark model; returns (screen landmarks [N,63] in 224-px, flag, handedness)."""
    cv = Converter(tfl_buf, prefix)
    outs = cv.convert(x_nchw)
    b.absorb(cv)
    return outs["Identity"], outs["Identity_1"], outs["Identity_2"]


def _io(size_hw):
    return [helper.make_tensor_value_info("frames", TensorProto.UINT8, ["N", size_hw[0], size_hw[1], 3])]


def _model(b, name, ins, outs):
    g = helper.make_graph(b.nodes, name, ins, outs, initializer=b.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="gemba models/backbones")
    m.ir_version = 8
    return m


def hand_landmark_graph(lm_buf, name):
    """frames uint8 [N,224,224,3] -> features [N,65] = 21 x (x, y, z) normalised to the frame
    (z scaled as MediaPipe's normalize_z 0.4), presence score, handedness score (>0.5: right)."""
    b = _B()
    x = b("Cast", ["frames"], to=TensorProto.FLOAT)
    x = b("Mul", [b("Transpose", [x], perm=[0, 3, 1, 2]), b.c(1.0 / 255)])
    lm, flag, hd = _landmarks(b, lm_buf, x, "lm/")
    scale = np.tile(np.array([1 / LM, 1 / LM, 1 / LM / 0.4], np.float32), 21)
    lm = b("Mul", [lm, b.c(scale)])
    b("Concat", [lm, flag, hd], out="features", axis=1)
    b("Reshape", [lm, b.i64([-1, 21, 3])], out="landmarks")
    F = TensorProto.FLOAT
    outs = [helper.make_tensor_value_info("features", F, ["N", 65]),
            helper.make_tensor_value_info("landmarks", F, ["N", 21, 3])]
    return _model(b, name, _io((LM, LM)), outs)


def _frames(b):
    x = b("Cast", ["frames"], to=TensorProto.FLOAT)
    return b("Mul", [b("Transpose", [x], perm=[0, 3, 1, 2]), b.c(1.0 / 255)])  # [N,3,H,W] 0..1


def _wrap(b, rot):
    """angle - 2 pi floor((angle + pi) / 2 pi), as MediaPipe's NormalizeRadians."""
    two_pi = b.c(2 * np.pi)
    return b("Sub", [rot, b("Mul", [two_pi, b("Floor", [b("Div", [b("Add", [rot, b.c(np.pi)]), two_pi])])])])


def _transform(b, cx, cy, w, h, rot, scale, shift_y):
    """RectTransformationCalculator in pixels: shift_y (rotated), square_long, scale.
    Returns (cx, cy, size, cos, sin), each [N,1]."""
    cos, sin = b("Cos", [rot]), b("Sin", [rot])
    sh = b("Mul", [h, b.c(shift_y)])
    cx = b("Sub", [cx, b("Mul", [sh, sin])])
    cy = b("Add", [cy, b("Mul", [sh, cos])])
    size = b("Mul", [b("Max", [w, h]), b.c(scale)])
    return cx, cy, size, cos, sin


def _palm_roi(b, img, palm_buf, H, W):
    """Palm detection on the letterboxed frame; the best palm's hand ROI in frame pixels.
    Returns (cx, cy, size, rot, palm_score [N])."""
    # letterbox to 192x192 (keep aspect, zero border, centred) as ImageToTensorCalculator does
    s = PALM / max(H, W)
    rh, rw = int(round(H * s)), int(round(W * s))
    py, px = (PALM - rh) // 2, (PALM - rw) // 2
    small = b("Resize", [img, "", "", b("Concat", [b("Slice", [b("Shape", [img]), b.i64([0]), b.i64([2])]),
                                                    b.i64([rh, rw])], axis=0)],
              mode="linear", coordinate_transformation_mode="half_pixel")
    box = b("Pad", [small, b.i64([0, 0, py, px, 0, 0, PALM - rh - py, PALM - rw - px])])
    cv = Converter(palm_buf, "palm/")
    po = cv.convert(box)
    b.absorb(cv)
    raw, logit = po["Identity"], po["Identity_1"]          # [N,2016,18], [N,2016,1]
    score = b("Sigmoid", [b("Clip", [b("Squeeze", [logit, b.i64([2])]), b.c(-100.0), b.c(100.0)])])
    best = b("ArgMax", [score], axis=1, keepdims=1)        # [N,1]
    palm_score = b("Squeeze", [b("GatherElements", [score, best], axis=1), b.i64([1])], out="palm_score")
    det = b("GatherND", [raw, best], batch_dims=1)         # [N,18]
    anc = b("Gather", [b.c(ssd_anchors()), b("Squeeze", [best, b.i64([1])])], axis=0)  # [N,2]
    anc9 = b("Tile", [anc, b.i64([1, 9])])                 # ax, ay repeated for box + 7 kps
    mask = np.array([1, 1, 0, 0] + [1, 1] * 7, np.float32)
    det = b("Add", [b("Mul", [det, b.c(1.0 / PALM)]), b("Mul", [anc9, b.c(mask)])])
    # letterbox removal -> frame pixels: u = (v*192 - pad) / s
    off = -np.array([px, py, 0, 0] + [px, py] * 7, np.float32) / s
    det = b("Add", [b("Mul", [det, b.c(np.full(18, PALM / s, np.float32))]), b.c(off)])
    cx, cy, bw, bh = (b.col(det, j) for j in range(4))
    x0, y0, x2, y2 = b.col(det, 4), b.col(det, 5), b.col(det, 8), b.col(det, 9)
    # rotation = 90deg - atan2(-(y2 - y0), x2 - x0): wrist -> middle finger MCP points up
    rot = _wrap(b, b("Sub", [b.c(np.pi / 2), _atan2(b, b("Neg", [b("Sub", [y2, y0])]), b("Sub", [x2, x0]))]))
    cx, cy, size, _, _ = _transform(b, cx, cy, bw, bh, rot, 2.6, -0.5)
    return cx, cy, size, rot, palm_score


def _roi_landmarks(b, img, lm_buf, cx, cy, size, rot, H, W):
    """Crops the rotated square ROI to 224x224 (GridSample), runs the landmark model and
    projects its landmarks back. Returns (landmarks [N,21,3] normalised, px [N,21,2] pixels,
    flag [N,1], handedness [N,1])."""
    cos, sin = b("Cos", [rot]), b("Sin", [rot])
    # sampling grid: frame point = c + R @ ((u - .5) size, (v - .5) size)
    t = (np.arange(LM, dtype=np.float32) + 0.5) / LM - 0.5
    U = np.broadcast_to(t[None, :], (LM, LM)).reshape(1, -1)
    V = np.broadcast_to(t[:, None], (LM, LM)).reshape(1, -1)
    su, sv = b("Mul", [b.c(U), size]), b("Mul", [b.c(V), size])   # [N, LM*LM]
    gx = b("Add", [cx, b("Sub", [b("Mul", [su, cos]), b("Mul", [sv, sin])])])
    gy = b("Add", [cy, b("Add", [b("Mul", [su, sin]), b("Mul", [sv, cos])])])
    gx = b("Sub", [b("Mul", [gx, b.c(2.0 / W)]), b.c(1.0)])
    gy = b("Sub", [b("Mul", [gy, b.c(2.0 / H)]), b.c(1.0)])
    grid = b("Reshape", [b("Concat", [b("Unsqueeze", [gx, b.i64([2])]), b("Unsqueeze", [gy, b.i64([2])])], axis=2),
                         b.i64([-1, LM, LM, 2])])
    crop = b("GridSample", [img, grid], mode="bilinear", padding_mode="zeros", align_corners=0)
    lm, flag, hd = _landmarks(b, lm_buf, crop, "lm/")
    # project: [N,21,3] crop px -> frame
    lm3 = b("Reshape", [lm, b.i64([-1, 21, 3])])
    lu = b("Sub", [b("Mul", [b("Slice", [lm3, b.i64([0]), b.i64([1]), b.i64([2])]), b.c(1.0 / LM)]), b.c(0.5)])
    lv = b("Sub", [b("Mul", [b("Slice", [lm3, b.i64([1]), b.i64([2]), b.i64([2])]), b.c(1.0 / LM)]), b.c(0.5)])
    lz = b("Slice", [lm3, b.i64([2]), b.i64([3]), b.i64([2])])
    s3 = b("Unsqueeze", [size, b.i64([2])])
    c3, s3n = b("Unsqueeze", [cos, b.i64([2])]), b("Unsqueeze", [sin, b.i64([2])])
    fu, fv = b("Mul", [lu, s3]), b("Mul", [lv, s3])
    fx = b("Add", [b("Unsqueeze", [cx, b.i64([2])]), b("Sub", [b("Mul", [fu, c3]), b("Mul", [fv, s3n])])])
    fy = b("Add", [b("Unsqueeze", [cy, b.i64([2])]), b("Add", [b("Mul", [fu, s3n]), b("Mul", [fv, c3])])])
    fz = b("Mul", [lz, b("Mul", [s3, b.c(1.0 / LM / 0.4 / W)])])  # z in the frame's width units
    land = b("Concat", [b("Mul", [fx, b.c(1.0 / W)]), b("Mul", [fy, b.c(1.0 / H)]), fz], axis=2, out="landmarks")
    return land, b("Concat", [fx, fy], axis=2), flag, hd


PARTIAL = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]  # MediaPipe's landmarks-to-ROI subset


def _next_roi(b, px):
    """HandLandmarkLandmarksToRoi (pixels): the ROI to crop in the next frame from this
    frame's landmarks [N,21,2]. Returns [N,4] (cx, cy, size, rotation)."""
    p = b("Gather", [px, b.i64(PARTIAL)], axis=1)                # [N,12,2]
    pt = lambda i, a: b("Slice", [p, b.i64([i, a]), b.i64([i + 1, a + 1]), b.i64([1, 2])])  # [N,1,1]
    half = b.c(0.5)
    x1 = b("Mul", [b("Add", [b("Mul", [b("Add", [pt(4, 0), pt(8, 0)]), half]), pt(6, 0)]), half])
    y1 = b("Mul", [b("Add", [b("Mul", [b("Add", [pt(4, 1), pt(8, 1)]), half]), pt(6, 1)]), half])
    rot = _wrap(b, b("Sub", [b.c(np.pi / 2), _atan2(b, b("Neg", [b("Sub", [y1, pt(0, 1)])]),
                                                   b("Sub", [x1, pt(0, 0)]))]))  # [N,1,1]
    cos, sin = b("Cos", [rot]), b("Sin", [rot])
    lo, hi = b("ReduceMin", [p], axes=[1], keepdims=1), b("ReduceMax", [p], axes=[1], keepdims=1)
    aac = b("Mul", [b("Add", [lo, hi]), half])                   # [N,1,2]
    d = b("Sub", [p, aac])
    dx = b("Slice", [d, b.i64([0]), b.i64([1]), b.i64([2])])
    dy = b("Slice", [d, b.i64([1]), b.i64([2]), b.i64([2])])
    qx = b("Add", [b("Mul", [dx, cos]), b("Mul", [dy, sin])])    # rotate by -rot
    qy = b("Sub", [b("Mul", [dy, cos]), b("Mul", [dx, sin])])
    q = b("Concat", [qx, qy], axis=2)
    qlo, qhi = b("ReduceMin", [q], axes=[1], keepdims=1), b("ReduceMax", [q], axes=[1], keepdims=1)
    pc = b("Mul", [b("Add", [qlo, qhi]), half])
    wh = b("Sub", [qhi, qlo])
    pcx = b("Slice", [pc, b.i64([0]), b.i64([1]), b.i64([2])])
    pcy = b("Slice", [pc, b.i64([1]), b.i64([2]), b.i64([2])])
    flat = lambda v: b("Reshape", [v, b.i64([-1, 1])])
    cx = flat(b("Add", [b("Sub", [b("Mul", [pcx, cos]), b("Mul", [pcy, sin])]),
                        b("Slice", [aac, b.i64([0]), b.i64([1]), b.i64([2])])]))
    cy = flat(b("Add", [b("Add", [b("Mul", [pcx, sin]), b("Mul", [pcy, cos])]),
                        b("Slice", [aac, b.i64([1]), b.i64([2]), b.i64([2])])]))
    w = flat(b("Slice", [wh, b.i64([0]), b.i64([1]), b.i64([2])]))
    h = flat(b("Slice", [wh, b.i64([1]), b.i64([2]), b.i64([2])]))
    rot = flat(rot)
    cx, cy, size, _, _ = _transform(b, cx, cy, w, h, rot, 2.0, -0.1)
    return b("Concat", [cx, cy, size, rot], axis=1, out="next_roi")


def _outputs(b, land, px, flag, hd, palm_score, size, W):
    b("Reshape", [flag, b.i64([-1])], out="presence")
    b("Reshape", [hd, b.i64([-1])], out="handedness")
    _next_roi(b, px)
    b("Concat", [b("Reshape", [land, b.i64([-1, 63])]), flag, hd,
                 b("Unsqueeze", [palm_score, b.i64([1])]), b("Mul", [size, b.c(1.0 / W)])],
      axis=1, out="features")
    F = TensorProto.FLOAT
    return [helper.make_tensor_value_info("features", F, ["N", 67]),
            helper.make_tensor_value_info("landmarks", F, ["N", 21, 3]),
            helper.make_tensor_value_info("presence", F, ["N"]),
            helper.make_tensor_value_info("handedness", F, ["N"]),
            helper.make_tensor_value_info("next_roi", F, ["N", 4])]


def hand_pipeline_graph(palm_buf, lm_buf, name, height, width):
    """frames uint8 [N,height,width,3] -> features [N,67]: 21 x (x, y, z) with x, y normalised
    to the frame (z in the frame's width units), presence, handedness, palm score, ROI size
    (fraction of the frame's width). Also landmarks [N,21,3], presence [N], handedness [N],
    palm_score [N], roi [N,4] (the palm's hand ROI: cx, cy, size in px, rotation in rad) and
    next_roi [N,4] (the ROI MediaPipe would track into the next frame: see hand_track_graph)."""
    b = _B()
    img = _frames(b)
    cx, cy, size, rot, palm_score = _palm_roi(b, img, palm_buf, height, width)
    land, px, flag, hd = _roi_landmarks(b, img, lm_buf, cx, cy, size, rot, height, width)
    b("Concat", [cx, cy, size, rot], axis=1, out="roi")
    outs = _outputs(b, land, px, flag, hd, palm_score, size, width)
    F = TensorProto.FLOAT
    outs += [helper.make_tensor_value_info("palm_score", F, ["N"]),
             helper.make_tensor_value_info("roi", F, ["N", 4])]
    return _model(b, name, _io((height, width)), outs)


def hand_track_graph(lm_buf, name, height, width):
    """MediaPipe's tracking step without palm detection: frames uint8 [N,height,width,3] and
    roi float32 [N,4] (cx, cy, size in px, rotation: a previous frame's next_roi) -> the same
    outputs as hand_pipeline_graph (palm score -1), next_roi included. Run the pipeline when
    presence drops below 0.5, this graph otherwise: that is MediaPipe Hands' own schedule."""
    b = _B()
    img = _frames(b)
    roi = "roi"
    cx, cy, size, rot = (b.col(roi, j) for j in range(4))
    land, px, flag, hd = _roi_landmarks(b, img, lm_buf, cx, cy, size, rot, height, width)
    palm = b("Mul", [b("Reshape", [flag, b.i64([-1])]), b.c(0.0)])
    palm = b("Sub", [palm, b.c(1.0)])
    outs = _outputs(b, land, px, flag, hd, palm, size, width)
    ins = _io((height, width)) + [helper.make_tensor_value_info("roi", TensorProto.FLOAT, ["N", 4])]
    return _model(b, name, ins, outs)


def _atan2(b, y, x):
    """atan2 from Atan (ONNX has none): atan(y/x) + pi * (x < 0) * sign(y or +1)."""
    eps = b.c(1e-12)
    xs = b("Where", [b("Less", [b("Abs", [x]), eps]), eps, x])
    base = b("Atan", [b("Div", [y, xs])])
    neg = b("Cast", [b("Less", [x, b.c(0.0)])], to=TensorProto.FLOAT)
    sgn = b("Where", [b("Less", [y, b.c(0.0)]), b.c(-1.0), b.c(1.0)])
    return b("Add", [base, b("Mul", [b("Mul", [neg, sgn]), b.c(np.pi)])])
