"""Lowers a traced tensorlet graph (variables frozen to constants) to TFLite builtin operators.

Each IR node is either folded (all inputs constant: evaluated now on its NumPy kernel, as TF's converter
constant-folds) or lowered by its entry in ``LOWER`` (keyed by TF op name).  Patterns TF's converter fuses are
fused here too: a bias add after CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED becomes the op's bias, a
per-channel multiply after them (inference batch norm) is folded into the filter, and RELU / RELU6 / RELU_N1_TO_1
after an op that has ``fused_activation_function`` becomes that option.  Ops without a TFLite equivalent raise
``ConverterError`` naming the op and the user's line.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.graph.executor import run_kernel
from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR
from tensorlet._src.lite.model import LGraph, LTensor
from tensorlet._src.ops.array_identity import PASSTHROUGH
from tensorlet._src.ops.registry import tf_export


@tf_export("lite.ConverterError")
class ConverterError(Exception):
    """Raised when an error occurs during model conversion (``tf.lite.ConverterError``)."""


_FUSABLE_ACT = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL", "DIV"}
_OPTIONS_OF = {"CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
               "FULLY_CONNECTED": "FullyConnectedOptions", "ADD": "AddOptions", "SUB": "SubOptions",
               "MUL": "MulOptions", "DIV": "DivOptions"}
_ACT_CODE = {"Relu": 1, "Relu6": 3}


def _np_dtype(dt):
    return np.dtype(dt.as_numpy_dtype)


class Lowerer:
    def __init__(self, graph, allow_custom=False, select_tf_ops=False):
        self.ir = graph
        self.g = LGraph()
        self.val = {}  # id(GraphTensor) -> ("c", ndarray) | ("t", tensor index)
        self.const_index = {}  # id(GraphTensor) -> tensor index of its materialized constant
        self.producer = {}  # tensor index -> LOp
        self.uses = {}
        for node in graph.nodes:
            for t in node.inputs:
                self.uses[id(t)] = self.uses.get(id(t), 0) + 1
        for t in graph.outputs:
            self.uses[id(t)] = self.uses.get(id(t), 0) + 100  # graph outputs are never fused away
        self.allow_custom = allow_custom
        self.select_tf_ops = select_tf_ops

    # --- values -------------------------------------------------------------------------------------------------
    def const(self, gt):
        v = self.val.get(id(gt))
        return v[1] if v is not None and v[0] == "c" else None

    def tensor(self, gt, dtype=None) -> int:
        v = self.val[id(gt)]
        if v[0] == "t":
            return v[1]
        hit = self.const_index.get(id(gt))
        if hit is None:
            arr = v[1] if dtype is None else v[1].astype(dtype)
            hit = self.const_index[id(gt)] = self.g.const(arr, gt.node.name)
        return hit

    def new(self, gt, name=None) -> int:
        """A fresh tensor for IR output ``gt`` (shape filled later by shape inference)."""
        i = self.g.add(LTensor(name or gt.node.name, _np_dtype(gt.dtype)))
        self.val[id(gt)] = ("t", i)
        return i

    def alias(self, gt, index):
        self.val[id(gt)] = ("t", index)

    def single_use(self, gt):
        return self.uses.get(id(gt), 0) == 1

    def emit(self, code, inputs, node, options=None, n_out=None):
        outs = [self.new(t) for t in (node.outputs if n_out is None else node.outputs[:n_out])]
        op = self.g.op(code, inputs, outs, options)
        for o in outs:
            self.producer[o] = op
        return op

    def unsupported(self, node, why=""):
        raise ConverterError(
            f"'tf.{node.op.name}' op is neither a custom op nor a flex op{node.loc}{': ' + why if why else ''}. "
            "TFLite has no builtin operator for it (tensorlet lowers TFLite builtins only)."
            f"\nSome ops are not supported by the native TFLite runtime: tf.{node.op.name}")

    # --- the walk -----------------------------------------------------------------------------------------------
    def run(self, input_names, output_names):
        for node in self.ir.nodes:
            if node.op is PLACEHOLDER:
                t = node.outputs[0]
                i = self.g.add(LTensor(node.name, _np_dtype(t.dtype)))
                self.val[id(t)] = ("t", i)
                self.g.inputs.append(i)
            elif node.op is CONST:
                self.val[id(node.outputs[0])] = ("c", np.asarray(node.attrs["value"]))
            elif node.op is READ_VAR:
                self.val[id(node.outputs[0])] = ("c", np.asarray(node.attrs["var"].numpy()))
            elif node.op in PASSTHROUGH:
                self.val[id(node.outputs[0])] = self.val[id(node.inputs[0])]
            elif not getattr(node.op, "stateful", False) and all(self.const(t) is not None for t in node.inputs):
                out = run_kernel(node.op, [self.const(t) for t in node.inputs], node.attrs, node.loc)
                outs = out if len(node.outputs) > 1 else (out,)
                for t, v in zip(node.outputs, outs):
                    self.val[id(t)] = ("c", np.asarray(v))
            else:
                fn = LOWER.get(node.op.name)
                if fn is None and self.select_tf_ops:
                    fn = _flex
                if fn is None:
                    self.unsupported(node)
                fn(self, node)
        g = self.g
        g.outputs = [self.tensor(t) for t in self.ir.outputs]
        g.input_names = list(input_names)
        g.output_names = list(output_names)
        g.prune()
        return g


def _flex(lw, node):
    """A TF op with no builtin as a Flex custom operator (``SELECT_TF_OPS``)."""
    from tensorlet._src.lite import flex

    tf_name, consts, nd = flex.node_def(node, f"node {node.name}")
    if tf_name is None:
        lw.unsupported(node, f"not even as a Select TF op: {nd}")
    ins = [lw.tensor(t) for t in node.inputs]
    for k, (idx, value) in enumerate(consts):
        ins.insert(idx, lw.g.const(np.asarray(value), f"{node.name}/{'const' if not k else f'const{k}'}"))
    op = lw.emit("CUSTOM", ins, node)
    op.custom = "Flex" + tf_name
    op.custom_options = flex.flexbuffer_strings([tf_name.encode(), nd])


# --- lowering rules -------------------------------------------------------------------------------------------------
LOWER = {}


def rule(*names):
    def deco(fn):
        for n in names:
            LOWER[n] = fn
        return fn
    return deco


def _check_nhwc(L, node):
    if node.attrs.get("data_format", "NHWC") != "NHWC":
        L.unsupported(node, f"data_format={node.attrs['data_format']!r} (TFLite convolutions are NHWC)")


def _padding(L, node, x):
    """(x tensor, TFLite padding code): EXPLICIT padding becomes a PAD op before a VALID convolution."""
    pad = node.attrs.get("padding", "VALID")
    if pad == "EXPLICIT":
        ep = np.asarray(node.attrs["explicit_paddings"], np.int32).reshape(4, 2)
        p = L.g.const(ep, node.name + "/paddings")
        out = L.g.add(LTensor(node.name + "/pad", L.g.tensors[x].dtype))
        L.g.op("PAD", [x, p], [out], ("PadOptions", {}))
        return out, 1
    return x, 0 if pad == "SAME" else 1


def _conv_setup(L, node):
    """(filter, input tensor, padding code, strides, dilations) of an NHWC convolution with a constant filter."""
    _check_nhwc(L, node)
    w = L.const(node.inputs[1])
    if w is None:
        L.unsupported(node, "a non-constant filter")
    x, pad = _padding(L, node, L.tensor(node.inputs[0]))
    return w, x, pad, node.attrs["strides"], node.attrs.get("dilations", (1, 1, 1, 1))


@rule("Conv2D")
def _conv2d(L, node):
    w, x, pad, s, d = _conv_setup(L, node)
    filt = L.g.const(np.transpose(w, (3, 0, 1, 2)), node.name + "/filter")  # HWIO -> OHWI
    bias = L.g.const(np.zeros(w.shape[3], w.dtype), node.name + "/bias")
    op = L.emit("CONV_2D", [x, filt, bias], node, ("Conv2DOptions", {
        "padding": pad, "stride_h": s[1], "stride_w": s[2], "dilation_h_factor": d[1], "dilation_w_factor": d[2],
        "fused_activation_function": 0}))
    op.kind = "float"


@rule("DepthwiseConv2dNative")
def _depthwise(L, node):
    w, x, pad, s, d = _conv_setup(L, node)
    h, wd, cin, mult = w.shape
    filt = L.g.const(w.reshape(1, h, wd, cin * mult), node.name + "/filter")  # [1, H, W, Cin*mult]
    bias = L.g.const(np.zeros(cin * mult, w.dtype), node.name + "/bias")
    L.emit("DEPTHWISE_CONV_2D", [x, filt, bias], node, ("DepthwiseConv2DOptions", {
        "padding": pad, "stride_h": s[1], "stride_w": s[2], "depth_multiplier": mult, "dilation_h_factor": d[1],
        "dilation_w_factor": d[2], "fused_activation_function": 0}))


@rule("MaxPool", "AvgPool")
def _pool(L, node):
    _check_nhwc(L, node)
    k, s = node.attrs["ksize"], node.attrs["strides"]
    if node.attrs.get("padding") == "EXPLICIT":
        L.unsupported(node, "explicit padding")
    L.emit("MAX_POOL_2D" if node.op.name == "MaxPool" else "AVERAGE_POOL_2D", [L.tensor(node.inputs[0])], node,
           ("Pool2DOptions", {"padding": 0 if node.attrs["padding"] == "SAME" else 1, "stride_h": s[1],
                              "stride_w": s[2], "filter_height": k[1], "filter_width": k[2],
                              "fused_activation_function": 0}))


@rule("MatMul", "BatchMatMulV2", "BatchMatMulV3", "BatchMatMul")
def _matmul(L, node):
    a_t, b_t = node.inputs
    ta = node.attrs.get("transpose_a", False) or node.attrs.get("adj_x", False)
    tb = node.attrs.get("transpose_b", False) or node.attrs.get("adj_y", False)
    w = L.const(b_t)
    if w is not None and w.ndim == 2 and not ta and L.const(a_t) is None:
        weights = w if tb else w.T  # TFLite wants [out, in]
        filt = L.g.const(np.ascontiguousarray(weights), node.name + "/weights")
        keep = node.op.name != "MatMul" and (a_t.shape.rank is None or a_t.shape.rank != 2)
        L.emit("FULLY_CONNECTED", [L.tensor(a_t), filt, -1], node, ("FullyConnectedOptions", {
            "fused_activation_function": 0, "keep_num_dims": keep}))
        return
    L.emit("BATCH_MATMUL", [L.tensor(a_t), L.tensor(b_t)], node, ("BatchMatMulOptions", {
        "adj_x": bool(ta), "adj_y": bool(tb)}))


def _per_channel(c, n):
    """``c`` as a length-``n`` vector when it broadcasts along the last axis only (a bias), else None."""
    c = np.asarray(c)
    if c.size == n and (c.ndim == 1 or all(d == 1 for d in c.shape[:-1])) and c.shape[-1] == n:
        return c.reshape(n)
    if c.size == 1:
        return np.full(n, c.reshape(()), c.dtype)
    return None


def _channels(L, op):
    if op.code == "FULLY_CONNECTED":
        return L.g.tensors[op.inputs[1]].data.shape[0]
    return L.g.tensors[op.inputs[1]].data.shape[0 if op.code == "CONV_2D" else 3]


def _weighted_producer(L, x_t):
    """The CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED (no fused activation yet) producing ``x_t``, when
    nothing else uses ``x_t``; else None."""
    if not L.single_use(x_t):
        return None
    v = L.val.get(id(x_t))
    op = L.producer.get(v[1]) if v and v[0] == "t" else None
    if op is None or op.code not in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") or op.opt(
            "fused_activation_function"):
        return None
    return op


def _try_fuse_bias(L, node, x_t, c, sign=1.0):
    """x_t + c where x_t comes from a conv/FC used only here and c is per-channel: fold c into the bias."""
    op = _weighted_producer(L, x_t)
    if op is None:
        return False
    n = _channels(L, op)
    vec = _per_channel(c, n)
    if vec is None:
        return False
    out_dtype = L.g.tensors[op.outputs[0]].dtype
    if op.inputs[2] < 0:
        op.inputs[2] = L.g.const((sign * vec).astype(out_dtype), node.name + "/bias")
    else:
        old = L.g.tensors[op.inputs[2]]
        old.data = (old.data + sign * vec).astype(old.dtype)
        old.name = node.name + "/bias"
    L.g.tensors[op.outputs[0]].name = node.name
    L.alias(node.outputs[0], op.outputs[0])
    return True


def _try_fold_scale(L, node, x_t, c):
    """x_t * c (per output channel) after a conv/FC used only here: scale the filter and bias instead."""
    op = _weighted_producer(L, x_t)
    if op is None:
        return False
    vec = _per_channel(c, _channels(L, op))
    if vec is None:
        return False
    w = L.g.tensors[op.inputs[1]]
    if op.code == "DEPTHWISE_CONV_2D":
        w.data = (w.data * vec.reshape(1, 1, 1, -1)).astype(w.dtype)
    else:
        w.data = (w.data * vec.reshape((-1,) + (1,) * (w.data.ndim - 1))).astype(w.dtype)
    if op.inputs[2] >= 0:
        b = L.g.tensors[op.inputs[2]]
        b.data = (b.data * vec).astype(b.dtype)
    L.g.tensors[op.outputs[0]].name = node.name
    L.alias(node.outputs[0], op.outputs[0])
    return True


_BINARY = {"AddV2": "ADD", "Add": "ADD", "Sub": "SUB", "Mul": "MUL", "RealDiv": "DIV", "Maximum": "MAXIMUM",
           "Minimum": "MINIMUM", "SquaredDifference": "SQUARED_DIFFERENCE", "Pow": "POW"}
_BIN_OPTS = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions", "DIV": "DivOptions",
             "MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
             "SQUARED_DIFFERENCE": "SquaredDifferenceOptions"}


@rule(*_BINARY)
def _binary(L, node):
    a, b = node.inputs
    code = _BINARY[node.op.name]
    ca, cb = L.const(a), L.const(b)
    if code in ("ADD", "SUB") and cb is not None and _try_fuse_bias(L, node, a, cb, 1.0 if code == "ADD" else -1.0):
        return
    if code == "ADD" and ca is not None and _try_fuse_bias(L, node, b, ca):
        return
    if code == "MUL" and cb is not None and _try_fold_scale(L, node, a, cb):
        return
    if code == "MUL" and ca is not None and _try_fold_scale(L, node, b, ca):
        return
    opts = _BIN_OPTS.get(code)
    body = {"fused_activation_function": 0} if code in _FUSABLE_ACT else {}
    L.emit(code, [L.tensor(a), L.tensor(b)], node, (opts, body) if opts else None)


_UNARY = {"Sigmoid": "LOGISTIC", "Tanh": "TANH", "Exp": "EXP", "Log": "LOG", "Sqrt": "SQRT", "Rsqrt": "RSQRT",
          "Neg": "NEG", "Abs": "ABS", "Square": "SQUARE", "Floor": "FLOOR", "Relu": "RELU", "Relu6": "RELU6"}
_UNARY_OPTS = {"EXP": "ExpOptions", "NEG": "NegOptions", "ABS": "AbsOptions", "SQUARE": "SquareOptions"}


@rule(*_UNARY)
def _unary(L, node):
    x = node.inputs[0]
    act = _ACT_CODE.get(node.op.name)
    if act is not None and L.single_use(x):
        v = L.val.get(id(x))
        op = L.producer.get(v[1]) if v and v[0] == "t" else None
        if op is not None and op.code in _FUSABLE_ACT and op.options and not op.opt("fused_activation_function"):
            op.options[1]["fused_activation_function"] = act
            L.g.tensors[op.outputs[0]].name = f"{node.name};{L.g.tensors[op.outputs[0]].name}"
            L.alias(node.outputs[0], op.outputs[0])
            return
    code = _UNARY[node.op.name]
    opts = _UNARY_OPTS.get(code)
    L.emit(code, [L.tensor(x)], node, (opts, {}) if opts else None)


@rule("LeakyRelu")
def _leaky(L, node):
    L.emit("LEAKY_RELU", [L.tensor(node.inputs[0])], node, ("LeakyReluOptions", {"alpha": node.attrs["alpha"]}))


@rule("Softmax", "LogSoftmax")
def _softmax(L, node):
    x = node.inputs[0]
    axis = node.attrs.get("axis", -1)
    if axis not in (-1, None) and x.shape.rank is not None and axis != x.shape.rank - 1:
        L.unsupported(node, f"softmax over axis {axis} (TFLite's SOFTMAX is over the last axis)")
    if node.op.name == "Softmax":
        L.emit("SOFTMAX", [L.tensor(x)], node, ("SoftmaxOptions", {"beta": 1.0}))
    else:
        L.emit("LOG_SOFTMAX", [L.tensor(x)], node, ("LogSoftmaxOptions", {}))


@rule("Reshape")
def _reshape(L, node):
    shape = np.asarray(node.attrs["shape"], np.int32)
    s = L.g.const(shape, node.name + "/shape")
    L.emit("RESHAPE", [L.tensor(node.inputs[0]), s], node)


@rule("ReshapeDyn")
def _reshape_dyn(L, node):
    L.emit("RESHAPE", [L.tensor(node.inputs[0]), L.tensor(node.inputs[1], np.int32)], node)


@rule("Shape")
def _shape(L, node):
    out = _np_dtype(node.outputs[0].dtype)
    L.emit("SHAPE", [L.tensor(node.inputs[0])], node, ("ShapeOptions", {"out_type": 4 if out == np.int64 else 2}))


@rule("StridedSlice")
def _strided_slice(L, node):
    key = node.attrs["key"]
    begin, end, strides = [], [], []
    bm = em = el = na = sh = 0
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            el |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif k is None:
            na |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, slice):
            st = 1 if k.step is None else int(k.step)
            begin.append(0 if k.start is None else int(k.start))
            end.append(0 if k.stop is None else int(k.stop))
            strides.append(st)
            bm |= bit if k.start is None else 0
            em |= bit if k.stop is None else 0
        else:
            k = int(k)
            sh |= bit
            begin.append(k), end.append(k + 1 if k != -1 else 0), strides.append(1)
    mk = lambda v, n: L.g.const(np.asarray(v, np.int32), node.name + n)  # noqa: E731
    L.emit("STRIDED_SLICE", [L.tensor(node.inputs[0]), mk(begin, "/begin"), mk(end, "/end"),
                             mk(strides, "/strides")], node, ("StridedSliceOptions", {
                                 "begin_mask": bm, "end_mask": em, "ellipsis_mask": el, "new_axis_mask": na,
                                 "shrink_axis_mask": sh}))


@rule("Pack")
def _pack(L, node):
    L.emit("PACK", [L.tensor(t) for t in node.inputs], node, ("PackOptions", {
        "values_count": len(node.inputs), "axis": node.attrs.get("axis", 0)}))


@rule("Unpack")
def _unpack(L, node):
    L.emit("UNPACK", [L.tensor(node.inputs[0])], node, ("UnpackOptions", {
        "num": len(node.outputs), "axis": node.attrs.get("axis", 0)}))


@rule("ConcatV2")
def _concat(L, node):
    L.emit("CONCATENATION", [L.tensor(t) for t in node.inputs], node, ("ConcatenationOptions", {
        "axis": node.attrs["axis"], "fused_activation_function": 0}))


@rule("Split")
def _split(L, node):
    axis = L.g.const(np.asarray(node.attrs["axis"], np.int32), node.name + "/axis")
    L.emit("SPLIT", [axis, L.tensor(node.inputs[0])], node, ("SplitOptions", {"num_splits": len(node.outputs)}))


_REDUCE = {"Mean": "MEAN", "Sum": "SUM", "Max": "REDUCE_MAX"}


@rule(*_REDUCE)
def _reduce(L, node):
    x = node.inputs[0]
    axis = node.attrs.get("axis")
    if axis is None:
        axis = tuple(range(x.shape.rank))
    axes = L.g.const(np.asarray(np.atleast_1d(axis), np.int32), node.name + "/axes")
    L.emit(_REDUCE[node.op.name], [L.tensor(x), axes], node, ("ReducerOptions", {
        "keep_dims": bool(node.attrs.get("keepdims", False))}))


@rule("Pad", "PadV2")
def _pad(L, node):
    p = np.asarray(node.attrs["paddings"], np.int32)
    cv = node.attrs.get("constant_values", 0)
    if cv:
        L.unsupported(node, "a non-zero constant pad value")
    L.emit("PAD", [L.tensor(node.inputs[0]), L.g.const(p, node.name + "/paddings")], node, ("PadOptions", {}))


@rule("Transpose")
def _transpose(L, node):
    perm = L.g.const(np.asarray(node.attrs["perm"], np.int32), node.name + "/perm")
    L.emit("TRANSPOSE", [L.tensor(node.inputs[0]), perm], node, ("TransposeOptions", {}))


@rule("GatherV2")
def _gather(L, node):
    params, idx = node.inputs
    L.emit("GATHER", [L.tensor(params), L.tensor(idx, np.int32)], node, ("GatherOptions", {
        "axis": node.attrs.get("axis", 0), "batch_dims": node.attrs.get("batch_dims", 0)}))


@rule("Squeeze")
def _squeeze(L, node):
    L.emit("SQUEEZE", [L.tensor(node.inputs[0])], node, ("SqueezeOptions", {
        "squeeze_dims": list(node.attrs.get("axis") or ())}))


@rule("ExpandDims")
def _expand_dims(L, node):
    axis = L.g.const(np.asarray(node.attrs["axis"], np.int32), node.name + "/axis")
    L.emit("EXPAND_DIMS", [L.tensor(node.inputs[0]), axis], node, ("ExpandDimsOptions", {}))


@rule("Cast")
def _cast(L, node):
    from tensorlet._src.lite import schema

    src = L.g.tensors[L.tensor(node.inputs[0])].dtype
    dst = _np_dtype(node.outputs[0].dtype)
    if src not in schema.TYPE_OF or dst not in schema.TYPE_OF:
        L.unsupported(node, f"a cast from {src} to {dst}")
    L.emit("CAST", [L.tensor(node.inputs[0])], node, ("CastOptions", {
        "in_data_type": schema.TYPE_OF[src], "out_data_type": schema.TYPE_OF[dst]}))


@rule("BiasAdd")
def _bias_add(L, node):
    if node.attrs.get("data_format", "NHWC") not in ("NHWC", "N...C"):
        L.unsupported(node, "data_format NCHW")
    x, b = node.inputs
    cb = L.const(b)
    if cb is not None and _try_fuse_bias(L, node, x, cb):
        return
    L.emit("ADD", [L.tensor(x), L.tensor(b)], node, ("AddOptions", {"fused_activation_function": 0}))
