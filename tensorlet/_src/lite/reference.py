"""NumPy reference kernels for the TFLite builtin operators tensorlet's converter emits.

Used for shape inference and calibration while converting, and as ``tf.lite.Interpreter``'s engine when LiteRT
is not installed.  Quantized tensors follow TFLite's arithmetic model ``real = scale * (q - zero_point)``: an
integer input is dequantized, the op runs in float32, and an integer output is re-quantized (rounded half away
from zero, clamped to the type's range) -- within one quantization step of LiteRT's integer kernels.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tensorlet._src.framework import errors


def _same_pads(size, k, stride, dil):
    eff = (k - 1) * dil + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def _pad_input(x, kh, kw, sh, sw, dh, dw, padding, value=0.0):
    if padding == 0:  # SAME
        ph = _same_pads(x.shape[1], kh, sh, dh)
        pw = _same_pads(x.shape[2], kw, sw, dw)
        return np.pad(x, ((0, 0), ph, pw, (0, 0)), constant_values=value)
    return x


def _windows(x, kh, kw, sh, sw, dh, dw):
    """[N, OH, OW, C, KH, KW] views of the input windows (dilated)."""
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    win = sliding_window_view(x, (eh, ew), axis=(1, 2))[:, ::sh, ::sw, :, ::dh, ::dw]
    return win


def _act(y, code):
    if code == 1:
        return np.maximum(y, 0)
    if code == 2:
        return np.clip(y, -1, 1)
    if code == 3:
        return np.clip(y, 0, 6)
    if code == 4:
        return np.tanh(y)
    return y


def conv_2d(op, x, w, b):
    o = op.options[1]
    _, kh, kw, _ = w.shape
    sh, sw, dh, dw = o["stride_h"], o["stride_w"], o.get("dilation_h_factor", 1), o.get("dilation_w_factor", 1)
    xp = _pad_input(x, kh, kw, sh, sw, dh, dw, o["padding"])
    win = _windows(xp, kh, kw, sh, sw, dh, dw)  # N OH OW C KH KW
    y = np.einsum("nhwcij,oijc->nhwo", win, w, optimize=True)
    if b is not None:
        y = y + b
    return _act(y, o.get("fused_activation_function", 0)).astype(np.float32)


def depthwise_conv_2d(op, x, w, b):
    o = op.options[1]
    _, kh, kw, cm = w.shape
    c = x.shape[3]
    mult = cm // c
    sh, sw, dh, dw = o["stride_h"], o["stride_w"], o.get("dilation_h_factor", 1), o.get("dilation_w_factor", 1)
    xp = _pad_input(x, kh, kw, sh, sw, dh, dw, o["padding"])
    win = _windows(xp, kh, kw, sh, sw, dh, dw)  # N OH OW C KH KW
    wk = w.reshape(kh, kw, c, mult)
    y = np.einsum("nhwcij,ijcm->nhwcm", win, wk, optimize=True).reshape(win.shape[0], win.shape[1], win.shape[2], cm)
    if b is not None:
        y = y + b
    return _act(y, o.get("fused_activation_function", 0)).astype(np.float32)


def _pool(op, x, kind):
    o = op.options[1]
    kh, kw, sh, sw = o["filter_height"], o["filter_width"], o["stride_h"], o["stride_w"]
    if kind == "max":
        xp = _pad_input(x, kh, kw, sh, sw, 1, 1, o["padding"], -np.inf)
        y = _windows(xp, kh, kw, sh, sw, 1, 1).max(axis=(4, 5))
    else:
        xp = _pad_input(x, kh, kw, sh, sw, 1, 1, o["padding"], 0.0)
        ones = _pad_input(np.ones(x.shape[:3] + (1,), x.dtype), kh, kw, sh, sw, 1, 1, o["padding"], 0.0)
        s = _windows(xp, kh, kw, sh, sw, 1, 1).sum(axis=(4, 5))
        n = _windows(ones, kh, kw, sh, sw, 1, 1).sum(axis=(4, 5))
        y = s / n
    return _act(y, o.get("fused_activation_function", 0)).astype(x.dtype)


def fully_connected(op, x, w, b):
    o = op.options[1] if op.options else {}
    k = w.shape[1]
    lead = x.shape[:-1] if o.get("keep_num_dims") else (x.size // k,)
    y = x.reshape(-1, k) @ w.T
    if b is not None:
        y = y + b
    return _act(y, o.get("fused_activation_function", 0)).reshape(lead + (w.shape[0],)).astype(np.float32)


def _binary(fn):
    def k(op, a, b):
        y = fn(a, b)
        code = op.opt("fused_activation_function", 0) if op.options else 0
        return _act(y, code).astype(np.result_type(a, b) if a.dtype == b.dtype else y.dtype)
    return k


def _softmax(op, x):
    beta = op.opt("beta", 1.0) if op.options else 1.0
    z = (x - x.max(axis=-1, keepdims=True)) * beta
    e = np.exp(z)
    return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype)


def _log_softmax(op, x):
    z = x - x.max(axis=-1, keepdims=True)
    return (z - np.log(np.exp(z).sum(axis=-1, keepdims=True))).astype(x.dtype)


def _reshape(op, x, shape=None):
    new = shape if shape is not None else np.asarray(op.opt("new_shape", []) if op.options else [])
    new = [int(v) for v in np.asarray(new).reshape(-1)]
    return x.reshape(new)


def _strided_slice(op, x, begin, end, strides):
    o = op.options[1]
    key, dim = [], 0
    for i in range(len(begin)):
        bit = 1 << i
        if o.get("ellipsis_mask", 0) & bit:
            key.append(Ellipsis)
            dim = x.ndim - (len(begin) - i - 1)
            continue
        if o.get("new_axis_mask", 0) & bit:
            key.append(None)
            continue
        if o.get("shrink_axis_mask", 0) & bit:
            key.append(int(begin[i]))
        else:
            key.append(slice(None if o.get("begin_mask", 0) & bit else int(begin[i]),
                             None if o.get("end_mask", 0) & bit else int(end[i]), int(strides[i])))
        dim += 1
    return np.asarray(x[tuple(key)])


def _reduce(fn):
    def k(op, x, axes):
        return np.asarray(fn(x, axis=tuple(int(a) for a in np.asarray(axes).reshape(-1)),
                             keepdims=bool(op.opt("keep_dims", False)))).astype(x.dtype)
    return k


def _cast(op, x):
    from tensorlet._src.lite import schema

    return x.astype(schema.TENSOR_TYPES[op.opt("out_data_type")])


def _lstm(op, x, *w):
    """UNIDIRECTIONAL_SEQUENCE_LSTM without peepholes/projection (gates i, f, c, o; inputs as TFLite orders)."""
    wi, wf, wc, wo, ri, rf, rc, ro = w[1:9]
    bi, bf, bc, bo = w[12:16]
    h, c = np.array(w[18], np.float32), np.array(w[19], np.float32)
    time_major = op.opt("time_major", False)
    seq = x if time_major else np.swapaxes(x, 0, 1)
    act = op.opt("fused_activation_function", 4)
    outs = []
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    for xt in seq:
        i = sig(xt @ wi.T + h @ ri.T + bi)
        f = sig(xt @ wf.T + h @ rf.T + bf)
        g = _act(xt @ wc.T + h @ rc.T + bc, act)
        o = sig(xt @ wo.T + h @ ro.T + bo)
        c = f * c + i * g
        h = o * _act(c, act)
        outs.append(h)
    y = np.stack(outs)
    return (y if time_major else np.swapaxes(y, 0, 1)).astype(np.float32)


K = {
    "CONV_2D": conv_2d, "DEPTHWISE_CONV_2D": depthwise_conv_2d, "FULLY_CONNECTED": fully_connected,
    "MAX_POOL_2D": lambda op, x: _pool(op, x, "max"), "AVERAGE_POOL_2D": lambda op, x: _pool(op, x, "avg"),
    "ADD": _binary(np.add), "SUB": _binary(np.subtract), "MUL": _binary(np.multiply), "DIV": _binary(np.divide),
    "MAXIMUM": _binary(np.maximum), "MINIMUM": _binary(np.minimum), "POW": _binary(np.power),
    "SQUARED_DIFFERENCE": _binary(lambda a, b: (a - b) ** 2),
    "LOGISTIC": lambda op, x: (1 / (1 + np.exp(-x))).astype(x.dtype), "TANH": lambda op, x: np.tanh(x),
    "RELU": lambda op, x: np.maximum(x, 0).astype(x.dtype), "RELU6": lambda op, x: np.clip(x, 0, 6).astype(x.dtype),
    "RELU_N1_TO_1": lambda op, x: np.clip(x, -1, 1).astype(x.dtype),
    "LEAKY_RELU": lambda op, x: np.where(x >= 0, x, x * op.opt("alpha")).astype(x.dtype),
    "EXP": lambda op, x: np.exp(x), "LOG": lambda op, x: np.log(x), "SQRT": lambda op, x: np.sqrt(x),
    "RSQRT": lambda op, x: (1 / np.sqrt(x)).astype(x.dtype), "NEG": lambda op, x: -x, "ABS": lambda op, x: np.abs(x),
    "SQUARE": lambda op, x: x * x, "FLOOR": lambda op, x: np.floor(x),
    "SOFTMAX": _softmax, "LOG_SOFTMAX": _log_softmax, "RESHAPE": _reshape,
    "SHAPE": lambda op, x: np.asarray(x.shape, np.int64 if op.opt("out_type") == 4 else np.int32),
    "STRIDED_SLICE": _strided_slice,
    "PACK": lambda op, *xs: np.stack(xs, axis=op.opt("axis", 0)),
    "UNPACK": lambda op, x: tuple(np.moveaxis(x, op.opt("axis", 0), 0)),
    "CONCATENATION": lambda op, *xs: _act(np.concatenate(xs, axis=op.opt("axis")),
                                          op.opt("fused_activation_function", 0)),
    "SPLIT": lambda op, axis, x: tuple(np.split(x, op.opt("num_splits"), axis=int(axis))),
    "MEAN": _reduce(np.mean), "SUM": _reduce(np.sum), "REDUCE_MAX": _reduce(np.max),
    "PAD": lambda op, x, p: np.pad(x, [tuple(int(v) for v in r) for r in np.asarray(p)]),
    "TRANSPOSE": lambda op, x, perm: np.transpose(x, [int(v) for v in perm]),
    "GATHER": lambda op, x, idx: np.take(x, idx.astype(np.int64), axis=op.opt("axis", 0)),
    "SQUEEZE": lambda op, x: np.squeeze(x, axis=tuple(op.opt("squeeze_dims", []) or
                                                      [i for i, d in enumerate(x.shape) if d == 1])),
    "EXPAND_DIMS": lambda op, x, axis: np.expand_dims(x, int(np.asarray(axis).reshape(-1)[0])),
    "CAST": _cast,
    "BATCH_MATMUL": lambda op, a, b: np.matmul(np.swapaxes(a, -1, -2) if op.opt("adj_x") else a,
                                               np.swapaxes(b, -1, -2) if op.opt("adj_y") else b),
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm,
}
# ops whose integer inputs/outputs are not dequantized/requantized around a float kernel
_RAW = {"SHAPE", "CAST"}


def dequantize(a, q):
    if q is None or a.dtype.kind == "f":
        return a.astype(np.float32)
    scale = np.asarray(q["scale"], np.float32)
    zp = np.asarray(q["zero_point"], np.float32)
    if scale.size > 1:
        shape = [1] * a.ndim
        shape[q.get("dim", 0)] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return ((a.astype(np.float32) - zp) * scale).astype(np.float32)


def quantize(x, q, dtype):
    info = np.iinfo(dtype)
    scale = np.asarray(q["scale"], np.float64)
    zp = np.asarray(q["zero_point"], np.float64)
    if scale.size > 1:
        shape = [1] * x.ndim
        shape[q.get("dim", 0)] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    v = np.asarray(x, np.float64) / scale
    v = np.sign(v) * np.floor(np.abs(v) + 0.5) + zp  # round half away from zero, as TFLite
    return np.clip(v, info.min, info.max).astype(dtype)


def _custom(op, *ins):
    custom = op.custom.decode() if isinstance(op.custom, bytes) else (op.custom or "")
    if not custom.startswith("Flex"):
        raise errors.UnimplementedError(
            None, None, f"Encountered unresolved custom op: {custom}. The NumPy reference interpreter runs builtin "
            "operators and Select TF (Flex) ops only.")
    from tensorlet._src.lite import flex

    return tuple(flex.run_flex(op, ins))


def run_op(op, tensors, values):
    """Runs one op on ``values`` (tensor index -> array); returns the output arrays."""
    fn = _custom if op.code == "CUSTOM" else K.get(op.code)
    if fn is None:
        raise errors.UnimplementedError(
            None, None, f"The NumPy reference interpreter has no kernel for TFLite operator {op.code}; install "
            'LiteRT (pip install "tensorlet[lite]") to run this model.')
    ins = []
    for i in op.inputs:
        if i < 0:
            ins.append(None)
            continue
        a = values[i]
        t = tensors[i]
        if op.code not in _RAW and (t.quant is not None and a.dtype.kind in "iu" or a.dtype == np.float16):
            a = dequantize(a, t.quant)
        ins.append(a)
    out = fn(op, *ins)
    outs = out if isinstance(out, tuple) else (out,)
    res = []
    for o, y in zip(op.outputs, outs):
        t = tensors[o]
        y = np.asarray(y)
        if t.quant is not None and t.dtype.kind in "iu" and op.code not in _RAW:
            y = quantize(y, t.quant, t.dtype)
        elif y.dtype != t.dtype and t.dtype.kind == "f":
            y = y.astype(t.dtype)
        res.append(y)
    return res


K["QUANTIZE"] = lambda op, x: x  # dequantized (or float) in, quantized by run_op on the way out
K["DEQUANTIZE"] = lambda op, x: x.astype(np.float32)


def execute(graph, feeds: dict, keep=False):
    """Runs an ``LGraph`` on ``feeds`` ({input tensor index: array}); returns {tensor index: array}."""
    tensors = graph.tensors
    values = {i: t.data for i, t in enumerate(tensors) if t.data is not None}
    values.update(feeds)
    for op in graph.ops:
        for o, y in zip(op.outputs, run_op(op, tensors, values)):
            values[o] = y
    return values
