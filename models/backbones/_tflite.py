"""A small TFLite -> ONNX converter for the float (fp16-weight) MediaPipe models that the
`mediapipe` wheel ships: hand landmark, palm detection, pose landmark.

Activations are kept NCHW inside the ONNX graph (the TFLite graph is NHWC); shape-sensitive ops
(RESHAPE, CONCATENATION of 4-D tensors, MEAN, PAD) are translated with that in mind. The batch
dimension is left dynamic. Unknown ops are refused with their name, never guessed.

Only the `tflite` package (flatbuffer accessors), numpy and onnx are needed.
"""
import numpy as np
import tflite
from onnx import TensorProto, helper, numpy_helper

OPNAMES = {v: k for k, v in tflite.BuiltinOperator.__dict__.items() if not k.startswith("_")}
NP = {tflite.TensorType.FLOAT32: np.float32, tflite.TensorType.FLOAT16: np.float16,
      tflite.TensorType.INT32: np.int32, tflite.TensorType.INT64: np.int64,
      tflite.TensorType.UINT8: np.uint8, tflite.TensorType.INT8: np.int8}
NHWC2NCHW = {0: 0, 1: 2, 2: 3, 3: 1}


class Converter:
    def __init__(self, buf, prefix=""):
        self.m = tflite.Model.GetRootAsModel(buf, 0)
        self.g = self.m.Subgraphs(0)
        self.p = prefix
        self.nodes, self.inits = [], []
        self.consts = {}      # tensor index -> numpy (weights, folded DEQUANTIZE)
        self.name = {}        # tensor index -> onnx value name
        self.rank4 = set()    # tensor indices held NCHW in the graph
        self.k = 0

    # ---- helpers -------------------------------------------------------------------------
    def t(self, i):
        return self.g.Tensors(i)

    def shape(self, i):
        s = self.t(i).ShapeAsNumpy()
        return [] if isinstance(s, int) else [int(v) for v in s]

    def buffer(self, i):
        t = self.t(i)
        b = self.m.Buffers(t.Buffer())
        if b is None or b.DataLength() == 0:
            return None
        return np.frombuffer(b.DataAsNumpy().tobytes(), NP[t.Type()]).reshape(self.shape(i))

    def uniq(self, base):
        self.k += 1
        return f"{self.p}{base}_{self.k}"

    def const(self, arr, base="c"):
        nm = self.uniq(base)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), nm))
        return nm

    def node(self, op, ins, base=None, out=None, **attrs):
        out = out or self.uniq(base or op.lower())
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def val(self, i):
        if i in self.name:
            return self.name[i]
        if i in self.consts:
            return self.const(self.consts[i], "w")
        a = self.buffer(i)
        if a is None:
            raise ValueError(f"tensor {self.t(i).Name()} has no producer")
        return self.const(a.astype(np.float32) if a.dtype == np.float16 else a, "w")

    def weight(self, i):
        a = self.consts.get(i)
        if a is None:
            a = self.buffer(i)
        return None if a is None else np.asarray(a, np.float32 if a.dtype == np.float16 else a.dtype)

    def act(self, x, code):
        if code == tflite.ActivationFunctionType.NONE:
            return x
        if code == tflite.ActivationFunctionType.RELU:
            return self.node("Relu", [x])
        if code == tflite.ActivationFunctionType.RELU6:
            return self.node("Clip", [x, self.const(np.float32(0)), self.const(np.float32(6))])
        if code == tflite.ActivationFunctionType.RELU_N1_TO_1:
            return self.node("Clip", [x, self.const(np.float32(-1)), self.const(np.float32(1))])
        raise NotImplementedError(f"fused activation {code}")

    def same_pads(self, in_hw, k_hw, s_hw, d_hw=(1, 1)):
        pads_b, pads_e = [], []
        for n, k, s, d in zip(in_hw, k_hw, s_hw, d_hw):
            ke = (k - 1) * d + 1
            out = -(-n // s)
            tot = max((out - 1) * s + ke - n, 0)
            pads_b.append(tot // 2); pads_e.append(tot - tot // 2)
        return pads_b + pads_e

    # ---- conversion ----------------------------------------------------------------------
    def convert(self, input_name):
        """Wires the TFLite graph's single NHWC input to `input_name` (already NCHW float in
        the ONNX graph) and returns {tflite output name: onnx value name}."""
        assert self.g.InputsLength() == 1
        i0 = self.g.Inputs(0)
        self.name[i0] = input_name
        self.rank4.add(i0)
        codes = [self.m.OperatorCodes(i) for i in range(self.m.OperatorCodesLength())]
        for j in range(self.g.OperatorsLength()):
            op = self.g.Operators(j)
            oc = codes[op.OpcodeIndex()]
            name = OPNAMES.get(max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode()), "?")
            ins = [int(v) for v in op.InputsAsNumpy()] if op.InputsLength() else []
            outs = [int(v) for v in op.OutputsAsNumpy()]
            fn = getattr(self, "op_" + name, None)
            if fn is None:
                raise NotImplementedError(f"TFLite op {name} is not supported by this converter")
            fn(op, ins, outs)
        res = {}
        for k in range(self.g.OutputsLength()):
            o = self.g.Outputs(k)
            v = self.name[o]
            if o in self.rank4:  # back to NHWC as TFLite gives it
                v = self.node("Transpose", [v], "nhwc", perm=[0, 2, 3, 1])
            res[self.t(o).Name().decode()] = v
        return res

    def opts(self, op, cls):
        o = cls()
        t = op.BuiltinOptions()
        o.Init(t.Bytes, t.Pos)
        return o

    def op_DEQUANTIZE(self, op, ins, outs):
        a = self.buffer(ins[0])
        if a is None:
            raise NotImplementedError("DEQUANTIZE of an activation")
        self.consts[outs[0]] = a.astype(np.float32)

    def op_CONV_2D(self, op, ins, outs, depthwise=False):
        o = self.opts(op, tflite.DepthwiseConv2DOptions if depthwise else tflite.Conv2DOptions)
        w = self.weight(ins[1])  # [O,KH,KW,I] or depthwise [1,KH,KW,C*M]
        b = self.weight(ins[2]) if len(ins) > 2 and ins[2] >= 0 else None
        in_shape = self.shape(ins[0])
        cin = in_shape[3]
        if depthwise:
            w = w.transpose(3, 0, 1, 2)  # [C*M,1,KH,KW]
            group = cin
        else:
            w = w.transpose(0, 3, 1, 2)
            group = 1
        kh, kw = w.shape[2], w.shape[3]
        s = [o.StrideH(), o.StrideW()]
        d = [o.DilationHFactor(), o.DilationWFactor()]
        pads = (self.same_pads(in_shape[1:3], (kh, kw), s, d)
                if o.Padding() == tflite.Padding.SAME else [0, 0, 0, 0])
        args = [self.val(ins[0]), self.const(w, "w")]
        if b is not None:
            args.append(self.const(b, "b"))
        y = self.node("Conv", args, "conv", kernel_shape=[kh, kw], strides=s, dilations=d,
                      group=group, pads=pads)
        self.name[outs[0]] = self.act(y, o.FusedActivationFunction())
        self.rank4.add(outs[0])

    def op_DEPTHWISE_CONV_2D(self, op, ins, outs):
        self.op_CONV_2D(op, ins, outs, depthwise=True)

    def _binary(self, onnx_op, op, ins, outs, opt_cls):
        a, b = ins
        vals = []
        for i in (a, b):
            if i in self.name:
                vals.append(self.name[i])
            else:
                c = self.weight(i)
                if c.ndim == 4 and (a in self.rank4 or b in self.rank4):
                    c = c.transpose(0, 3, 1, 2)
                elif c.ndim in (1, 3) and (a in self.rank4 or b in self.rank4) and c.size > 1:
                    c = c.reshape(-1, 1, 1)  # per-channel over NHWC's last axis
                vals.append(self.const(c, "k"))
        y = self.node(onnx_op, vals)
        act = self.opts(op, opt_cls).FusedActivationFunction() if op.BuiltinOptions() else 0
        self.name[outs[0]] = self.act(y, act)
        if a in self.rank4 or b in self.rank4:
            self.rank4.add(outs[0])

    def op_ADD(self, op, ins, outs):
        self._binary("Add", op, ins, outs, tflite.AddOptions)

    def op_MUL(self, op, ins, outs):
        self._binary("Mul", op, ins, outs, tflite.MulOptions)

    def op_PRELU(self, op, ins, outs):
        alpha = self.weight(ins[1])
        if ins[0] in self.rank4:
            alpha = alpha.reshape(-1, 1, 1)
        self.name[outs[0]] = self.node("PRelu", [self.val(ins[0]), self.const(alpha, "alpha")])
        if ins[0] in self.rank4:
            self.rank4.add(outs[0])

    def op_LOGISTIC(self, op, ins, outs):
        self.name[outs[0]] = self.node("Sigmoid", [self.val(ins[0])])
        if ins[0] in self.rank4:
            self.rank4.add(outs[0])

    def op_HARD_SWISH(self, op, ins, outs):
        self.name[outs[0]] = self.node("HardSwish", [self.val(ins[0])])
        if ins[0] in self.rank4:
            self.rank4.add(outs[0])

    def op_RELU(self, op, ins, outs):
        self.name[outs[0]] = self.node("Relu", [self.val(ins[0])])
        if ins[0] in self.rank4:
            self.rank4.add(outs[0])

    def op_MAX_POOL_2D(self, op, ins, outs):
        o = self.opts(op, tflite.Pool2DOptions)
        k = [o.FilterHeight(), o.FilterWidth()]
        s = [o.StrideH(), o.StrideW()]
        in_shape = self.shape(ins[0])
        pads = self.same_pads(in_shape[1:3], k, s) if o.Padding() == tflite.Padding.SAME else [0] * 4
        if any(pads):
            raise NotImplementedError("MAX_POOL_2D with SAME padding that pads")  # -inf pad
        y = self.node("MaxPool", [self.val(ins[0])], kernel_shape=k, strides=s, pads=pads)
        self.name[outs[0]] = self.act(y, o.FusedActivationFunction())
        self.rank4.add(outs[0])

    def op_PAD(self, op, ins, outs):
        p = self.weight(ins[1]).astype(np.int64)  # [[b,e]] per NHWC axis
        assert ins[0] in self.rank4 and p.shape == (4, 2)
        order = [0, 3, 1, 2]
        pads = [p[a, 0] for a in order] + [p[a, 1] for a in order]
        self.name[outs[0]] = self.node("Pad", [self.val(ins[0]), self.const(np.array(pads, np.int64))])
        self.rank4.add(outs[0])

    def op_RESIZE_BILINEAR(self, op, ins, outs):
        o = self.opts(op, tflite.ResizeBilinearOptions)
        size = self.weight(ins[1]).astype(np.int64)
        mode = ("align_corners" if o.AlignCorners() else
                "half_pixel" if o.HalfPixelCenters() else "asymmetric")
        x = self.val(ins[0])
        n_c = self.node("Slice", [self.node("Shape", [x]), self.const(np.array([0], np.int64)),
                                  self.const(np.array([2], np.int64))])
        sizes = self.node("Concat", [n_c, self.const(size)], axis=0)
        self.name[outs[0]] = self.node("Resize", [x, "", "", sizes], mode="linear",
                                       coordinate_transformation_mode=mode)
        self.rank4.add(outs[0])

    def op_RESHAPE(self, op, ins, outs):
        x = self.val(ins[0])
        if ins[0] in self.rank4:
            x = self.node("Transpose", [x], "nhwc", perm=[0, 2, 3, 1])
        shape = self.shape(outs[0])
        shape = [-1] + shape[1:] if shape and shape[0] == 1 else shape
        self.name[outs[0]] = self.node("Reshape", [x, self.const(np.array(shape, np.int64))])

    def op_CONCATENATION(self, op, ins, outs):
        o = self.opts(op, tflite.ConcatenationOptions)
        axis = o.Axis()
        four = [i in self.rank4 for i in ins]
        assert all(four) or not any(four)
        if all(four):
            axis = NHWC2NCHW[axis % 4]
            self.rank4.add(outs[0])
        y = self.node("Concat", [self.val(i) for i in ins], axis=axis)
        self.name[outs[0]] = self.act(y, o.FusedActivationFunction())

    def op_MEAN(self, op, ins, outs):
        axes = [int(a) for a in self.weight(ins[1]).reshape(-1)]
        keep = self.opts(op, tflite.ReducerOptions).KeepDims()
        if ins[0] in self.rank4:
            axes = [NHWC2NCHW[a % 4] for a in axes]
            if sorted(axes) != [2, 3]:
                raise NotImplementedError(f"MEAN over {axes}")
        y = self.node("ReduceMean", [self.val(ins[0])], axes=axes, keepdims=1 if keep else 0)
        self.name[outs[0]] = y
        if keep and ins[0] in self.rank4:
            self.rank4.add(outs[0])

    def op_FULLY_CONNECTED(self, op, ins, outs):
        o = self.opts(op, tflite.FullyConnectedOptions)
        w = self.weight(ins[1])  # [O, I]
        b = self.weight(ins[2]) if len(ins) > 2 and ins[2] >= 0 else np.zeros(w.shape[0], np.float32)
        x = self.val(ins[0])
        if ins[0] in self.rank4 or len(self.shape(ins[0])) != 2:
            if ins[0] in self.rank4:
                x = self.node("Transpose", [x], "nhwc", perm=[0, 2, 3, 1])
            x = self.node("Reshape", [x, self.const(np.array([-1, w.shape[1]], np.int64))])
        y = self.node("Gemm", [x, self.const(w, "w"), self.const(b, "b")], transB=1)
        self.name[outs[0]] = self.act(y, o.FusedActivationFunction())
