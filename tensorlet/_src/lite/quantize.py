"""Post-training quantization of a lowered TFLite graph, as TFLite specifies it.

* ``dynamic_range``: weights of CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED / BATCH_MATMUL with at least 1024
  elements become int8, symmetric, per output channel; the ops run "hybrid" (float activations).
* ``float16``: float32 constants are stored as float16 and widened by DEQUANTIZE ops at load time.
* ``full_integer``: the float graph runs on the representative dataset to record each activation's range;
  activations become int8 per tensor (asymmetric), weights int8 per channel (symmetric), biases int32 with
  ``scale = input_scale * weight_scale``; QUANTIZE / DEQUANTIZE at the edges (or int8/uint8 inputs/outputs).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.lite import reference
from tensorlet._src.lite.lower import ConverterError
from tensorlet._src.lite.model import LOp, LTensor

_WEIGHT_OPS = {"CONV_2D": 0, "DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0}  # op -> channel axis of its weights
MIN_ELEMENTS = 1024  # TF's converter leaves smaller weight tensors in float for dynamic-range quantization


def _symmetric(w, axis):
    """Per-channel symmetric int8 (values in [-127, 127]); returns (q, scales)."""
    red = tuple(i for i in range(w.ndim) if i != axis)
    m = np.max(np.abs(w), axis=red) if red else np.abs(w)
    scale = np.where(m > 0, m / 127.0, 1.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = reference.quantize(w, {"scale": scale, "zero_point": np.zeros_like(scale, np.int64), "dim": axis}, np.int8)
    return np.clip(q, -127, 127).astype(np.int8), scale


def _quantize_weight(t: LTensor, axis):
    q, scale = _symmetric(t.data.astype(np.float32), axis)
    t.data, t.dtype = q, np.dtype(np.int8)
    t.quant = {"scale": scale, "zero_point": np.zeros(scale.size, np.int64), "dim": axis}
    return scale


def dynamic_range(g):
    done = set()
    for op in g.ops:
        if op.code in _WEIGHT_OPS and len(op.inputs) > 1:
            w = g.tensors[op.inputs[1]]
            if w.data is None or w.dtype != np.float32 or w.data.size < MIN_ELEMENTS:
                continue
            if op.inputs[1] not in done:
                _quantize_weight(w, _WEIGHT_OPS[op.code])
                done.add(op.inputs[1])
            op.kind = "hybrid"
            if op.code == "FULLY_CONNECTED":
                op.options[1]["asymmetric_quantize_inputs"] = True


def float16(g):
    """Stores float32 constants as float16; one DEQUANTIZE per constant restores float32 for its users."""
    new_ops, widened = [], {}
    for op in g.ops:
        for i in op.inputs:
            t = g.tensors[i] if i >= 0 else None
            if t is None or t.data is None or t.dtype != np.float32 or op.code in ("SHAPE",):
                continue
            if i not in widened:
                half = g.add(LTensor(t.name, np.float16, t.data.astype(np.float16)))
                t.data = None  # becomes the DEQUANTIZE output
                t.name = t.name + "1"
                d = LOp("DEQUANTIZE", [half], [i])
                d.kind = "float16"
                new_ops.append(d)
                widened[i] = half
    g.ops = new_ops + g.ops


# --- full integer ---------------------------------------------------------------------------------------------------
# int8 ops whose output must carry the input's quantization parameters (data movement only)
_SAME = {"MAX_POOL_2D", "AVERAGE_POOL_2D", "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "STRIDED_SLICE",
         "GATHER", "PAD", "SPLIT", "UNPACK"}
# int8 ops with fixed output parameters (TFLite's kernels require them)
_FIXED = {"SOFTMAX": (1 / 256, -128), "LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0),
          "LOG_SOFTMAX": (16 / 256, 127)}
# int8 ops whose inputs must share the output's parameters (requantized by a QUANTIZE op where they differ)
_SHARED = {"CONCATENATION", "PACK", "MAXIMUM", "MINIMUM"}
_CALIBRATED = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL", "MEAN", "SUM",
               "BATCH_MATMUL", "RELU", "RELU6", "LEAKY_RELU", "SQUARED_DIFFERENCE", "REDUCE_MAX"}
INT8_OPS = _SAME | set(_FIXED) | _SHARED | _CALIBRATED
_ANY_TYPE = {"SHAPE"}  # reads only its input's shape


def _samples(dataset, g, in_specs):
    gen = dataset.input_gen if hasattr(dataset, "input_gen") else dataset
    if not callable(gen):
        raise ValueError("`representative_dataset` must be a callable returning an iterable of input lists "
                         f"(a generator function); got {type(gen).__name__}.")
    for k, sample in enumerate(gen()):
        if isinstance(sample, dict):
            try:
                sample = [sample[n] for n in g.input_names]
            except KeyError as e:
                raise ValueError(f"Representative dataset sample {k} has keys {sorted(sample)}; the model's "
                                 f"inputs are {g.input_names}.") from e
        if not isinstance(sample, (list, tuple)):
            sample = [sample]
        if len(sample) != len(g.inputs):
            raise ValueError(f"Representative dataset sample {k} has {len(sample)} inputs; the model takes "
                             f"{len(g.inputs)}.")
        feeds = {}
        for j, (x, (shape, _)) in enumerate(zip(sample, in_specs)):
            x = np.asarray(x)
            if shape is not None and (x.ndim != len(shape) or any(
                    d is not None and d != s for d, s in zip(shape, x.shape))):
                want = "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"
                raise ValueError(f"Representative dataset sample {k}, input {j} ({g.input_names[j]!r}) has shape "
                                 f"{tuple(x.shape)}; the model expects {want}.")
            feeds[g.inputs[j]] = x.astype(g.tensors[g.inputs[j]].dtype)
        yield feeds


def _calibrate(g, dataset, in_specs):
    lo, hi, n = {}, {}, 0
    for feeds in _samples(dataset, g, in_specs):
        with np.errstate(all="ignore"):
            vals = reference.execute(g, feeds)
        n += 1
        for i, v in vals.items():
            t = g.tensors[i]
            if t.data is None and t.dtype == np.float32 and v.size:
                a, b = float(np.min(v)), float(np.max(v))
                lo[i] = min(lo.get(i, a), a)
                hi[i] = max(hi.get(i, b), b)
    if n == 0:
        raise ValueError("The representative dataset yielded no samples.")
    return lo, hi


def _asym(lo, hi, dtype=np.int8):
    """TFLite's asymmetric per-tensor parameters for the range [lo, hi] (widened to include 0)."""
    info = np.iinfo(dtype)
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / (info.max - info.min) if hi > lo else 1.0 / (info.max - info.min)
    zp = int(np.clip(round(info.min - lo / scale), info.min, info.max))
    return {"scale": np.asarray([scale], np.float32), "zero_point": np.asarray([zp], np.int64), "dim": 0}


def _params(scale, zp):
    return {"scale": np.asarray([scale], np.float32), "zero_point": np.asarray([zp], np.int64), "dim": 0}


def full_integer(g, dataset, in_specs, strict, input_type, output_type, per_channel=True, ranges=None):
    """``ranges`` ({tensor index: (lo, hi)}, learned in quantization-aware training) take precedence over the
    representative dataset's, which may then be None."""
    lo, hi = _calibrate(g, dataset, in_specs) if dataset is not None else ({}, {})
    for i, (a, b) in (ranges or {}).items():
        lo[i], hi[i] = float(a), float(b)
    float_ops = [op for op in g.ops if op.code not in INT8_OPS and op.code not in _ANY_TYPE and any(
        g.tensors[i].dtype == np.float32 for i in list(op.inputs) + op.outputs if i >= 0)]
    if strict and float_ops:
        bad = sorted({op.code for op in float_ops})
        raise ConverterError(f"Quantization not yet supported for op: {', '.join(repr(b) for b in bad)}. "
                             "Remove TFLITE_BUILTINS_INT8-only `target_spec.supported_ops` to keep them in float.")
    is_float = lambda i: i >= 0 and g.tensors[i].dtype == np.float32  # noqa: E731
    q_of = {}  # float tensor index -> its int8 twin's index (the tensor itself once rewritten)
    f_of = {}  # int8 tensor index -> its float twin's index
    ops = []

    def calibrated(i):
        if i not in lo:
            raise ConverterError(f"Tensor {g.tensors[i].name!r} was never computed while calibrating.")
        return _asym(lo[i], hi[i])

    def as_int8(i, params=None):
        """The int8 tensor carrying float tensor ``i`` (QUANTIZE inserted when ``i`` is float)."""
        t = g.tensors[i]
        if t.dtype == np.int8:
            if params is None or _same(t.quant, params):
                return i
            key = (i, float(params["scale"][0]), int(params["zero_point"][0]))
            if key not in q_of:
                j = g.add(LTensor(t.name + "_requantized", np.int8, shape=t.shape))
                g.tensors[j].quant, g.tensors[j].sig = params, t.sig
                ops.append(_qop("QUANTIZE", [i], [j]))
                q_of[key] = j
            return q_of[key]
        if i in q_of:
            return q_of[i] if params is None else as_int8(q_of[i], params)
        j = g.add(LTensor("tfl.quantize" if i in g.inputs else t.name + "_quantized", np.int8, shape=t.shape))
        g.tensors[j].quant, g.tensors[j].sig = params or calibrated(i), t.sig
        ops.append(_qop("QUANTIZE", [i], [j]))
        q_of[i] = j
        return j

    def as_float(i):
        t = g.tensors[i]
        if t.dtype == np.float32:
            return i
        if i not in f_of:
            j = g.add(LTensor(t.name + "_dequantized", np.float32, shape=t.shape))
            g.tensors[j].sig = t.sig
            ops.append(_qop("DEQUANTIZE", [i], [j]))
            f_of[i] = j
        return f_of[i]

    # the model's inputs as the caller will feed them
    for i in g.inputs:
        t = g.tensors[i]
        if t.dtype != np.float32 or input_type == np.float32:
            continue
        params = calibrated(i)
        if input_type == np.int8:
            t.dtype, t.quant = np.dtype(np.int8), params
        else:  # uint8 at the edge, int8 inside
            t.dtype = np.dtype(np.uint8)
            t.quant = _params(params["scale"][0], params["zero_point"][0] + 128)
            j = g.add(LTensor("tfl.quantize", np.int8, shape=t.shape))
            g.tensors[j].quant, g.tensors[j].sig = params, t.sig
            ops.append(_qop("QUANTIZE", [i], [j]))
            q_of[i] = j

    int_input = {i for i in g.inputs if g.tensors[i].dtype == np.int8}
    for op in list(g.ops):
        if op.code not in INT8_OPS or not any(is_float(i) or i in int_input or i in q_of or (
                i >= 0 and g.tensors[i].dtype == np.int8) for i in op.inputs):
            # float op (or integer-only bookkeeping such as shapes): float inputs
            op.inputs = [as_float(i) if op.code not in _ANY_TYPE and i >= 0 and g.tensors[i].quant is not None and
                         g.tensors[i].dtype == np.int8 and g.tensors[i].data is None else i for i in op.inputs]
            ops.append(op)
            continue
        _quantize_op(g, op, as_int8, calibrated, per_channel)
        ops.append(op)
    g.ops = ops
    # outputs as the caller will read them
    outs = []
    for i in g.outputs:
        t = g.tensors[i]
        if t.dtype != np.int8 or t.quant is None or output_type == np.int8:
            outs.append(i)
            continue
        name = t.name
        t.name = name + "1"
        if output_type == np.float32:
            j = g.add(LTensor(name, np.float32, shape=t.shape))
            g.ops.append(_qop("DEQUANTIZE", [i], [j]))
        else:
            j = g.add(LTensor(name, np.uint8, shape=t.shape))
            g.tensors[j].quant = _params(t.quant["scale"][0], t.quant["zero_point"][0] + 128)
            g.ops.append(_qop("QUANTIZE", [i], [j]))
        g.tensors[j].sig = t.sig
        outs.append(j)
    g.outputs = outs
    g.prune()


def _same(a, b):
    return a is not None and b is not None and np.allclose(a["scale"], b["scale"]) and np.array_equal(
        a["zero_point"], b["zero_point"])


def _qop(code, ins, outs):
    op = LOp(code, ins, outs)
    op.kind = "int8"
    return op


def _quantize_op(g, op, as_int8, calibrated, per_channel):
    op.kind = "int8"
    code = op.code
    data_inputs = [k for k, i in enumerate(op.inputs) if i >= 0 and g.tensors[i].data is None]
    if code in _WEIGHT_OPS:
        x = as_int8(op.inputs[0])
        op.inputs[0] = x
        w = g.tensors[op.inputs[1]]
        if w.data is None:
            raise ConverterError(f"{code} with a non-constant filter cannot be quantized.")
        axis = _WEIGHT_OPS[code]
        if per_channel:
            w_scale = _quantize_weight(w, axis)
        else:
            q, s = _symmetric(w.data.astype(np.float32).reshape(1, -1), 0)
            w.data, w.dtype = q.reshape(w.data.shape), np.dtype(np.int8)
            w.quant = _params(float(s[0]), 0)
            w_scale = s
        if len(op.inputs) > 2 and op.inputs[2] >= 0:
            b = g.tensors[op.inputs[2]]
            bscale = (g.tensors[x].quant["scale"][0] * w_scale).astype(np.float32)
            b.data = np.clip(np.round(b.data.astype(np.float64) / bscale), -2**31, 2**31 - 1).astype(np.int32)
            b.dtype = np.dtype(np.int32)
            b.quant = {"scale": bscale, "zero_point": np.zeros(bscale.size, np.int64), "dim": 0}
        for o in op.outputs:
            _set_out(g, o, calibrated(o))
        return
    if code in _SHARED:
        out_params = calibrated(op.outputs[0])
        op.inputs = [as_int8(i, out_params) if g.tensors[i].data is None else _const_int8(g, i, out_params)
                     for i in op.inputs]
        _set_out(g, op.outputs[0], out_params)
        return
    for k in range(len(op.inputs)):
        i = op.inputs[k]
        if i < 0:
            continue
        t = g.tensors[i]
        if t.data is None and t.dtype in (np.float32, np.int8):
            op.inputs[k] = as_int8(i)
        elif t.data is not None and t.dtype == np.float32:
            op.inputs[k] = _const_int8(g, i, _asym(float(t.data.min()), float(t.data.max())))
    if code in _SAME:
        params = g.tensors[op.inputs[data_inputs[0]]].quant if data_inputs else None
        for o in op.outputs:
            if g.tensors[o].dtype == np.float32:
                _set_out(g, o, params)
    elif code in _FIXED:
        _set_out(g, op.outputs[0], _params(*_FIXED[code]))
    else:
        for o in op.outputs:
            if g.tensors[o].dtype == np.float32:
                _set_out(g, o, calibrated(o))


def _const_int8(g, i, params):
    t = g.tensors[i]
    if t.dtype != np.float32:
        return i
    j = g.add(LTensor(t.name, np.int8, reference.quantize(t.data, params, np.int8)))
    g.tensors[j].quant = params
    return j


def _set_out(g, o, params):
    t = g.tensors[o]
    if t.dtype == np.float32:
        t.dtype = np.dtype(np.int8)
        t.quant = params
