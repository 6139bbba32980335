"""``tf.quantization.quantize`` / ``dequantize`` / ``quantized_concat``: float32 <-> TF's quantized dtypes.

A quantized tensor holds a NumPy structured array over its storage integer (``qint8`` is ``[("qint8", int8)]``,
as TF's ``as_numpy_dtype``); kernels compute on the storage integers and view the result back.  The arithmetic is
TF's CPU kernels' (quantize_op.cc, dequantize_op.cc, quantization_utils.h): float32 throughout, ``round`` half
away from zero unless ``HALF_TO_EVEN``, MIN_FIRST through TF's Eigen formulas (x86 has no gemmlowp "meta" path).
TF registers no gradient for these ops: ``tape.gradient`` through them raises LookupError, as in TF.
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop, tf_export

F32 = np.float32
MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_QUANTIZE_T = (D.qint8, D.quint8, D.qint16, D.quint16, D.qint32)
_NO_XLA = "TF's quantized dtypes have no XLA form"


def storage(np_dtype):
    """The storage integer of a quantized NumPy dtype (``int8`` for qint8)."""
    return np_dtype[0] if np_dtype.names else np_dtype


def _limits(np_dtype):
    info = np.iinfo(storage(np_dtype))
    return int(info.min), int(info.max), storage(np_dtype).itemsize * 8


def _round(v, half_even):
    """TF's rounding in float32: ``rint`` (HALF_TO_EVEN) or std::round (half away from zero, exact)."""
    v = np.asarray(v, F32)
    if half_even:
        return np.rint(v)
    r = np.trunc(v)
    return (r + np.where(np.abs(v - r) >= F32(0.5), np.sign(v), F32(0.0))).astype(F32)


def _to_q(values_f32, np_dtype):
    """float32 values already inside the storage range -> the quantized structured array (via int32, as TF)."""
    return values_f32.astype(np.int32).astype(storage(np_dtype)).view(np_dtype)


def _f2q_eigen(x, lo_r, hi_r, np_dtype):
    """QUANTIZE_WITH_EIGEN (FloatToQuantizedStruct): MIN_FIRST quantization and requantization."""
    lowest, highest, bits = _limits(np_dtype)
    steps = float(1 << bits)
    scale = F32(0.0 if hi_r == lo_r else (steps - 1.0) / (float(hi_r) - float(lo_r)))
    min_scaled = _round(F32(lo_r) * scale, False)
    lower = max(F32(lowest), F32(-2.147483648e9))
    upper = min(F32(highest), F32(2.147483520e9))
    q = _round(x.astype(F32) * scale, False) - (min_scaled - F32(lowest))
    return _to_q(np.clip(q, lower, upper).astype(F32), np_dtype)


def _q2f_eigen(q, lo_r, hi_r, np_dtype):
    """DEQUANTIZE_WITH_EIGEN (QuantizedToFloatStruct)."""
    lowest, _, bits = _limits(np_dtype)
    steps = float(1 << bits)
    scale = F32((float(hi_r) - float(lo_r)) / (steps - 1.0))
    lo_r = F32(lo_r)
    rounded = lo_r if hi_r == lo_r else F32(_round(lo_r / scale, False) * scale)
    return (rounded - F32(lowest) * scale) + q.view(storage(np_dtype)).astype(F32) * scale


# --- QuantizeV2 -------------------------------------------------------------------------------

def _quantize_slice(x, in_lo, in_hi, np_dtype, mode, half_even, narrow_range, ensure_minimum_range):
    lowest, highest, _ = _limits(np_dtype)
    in_lo, in_hi = F32(in_lo), F32(in_hi)
    lo = min(F32(0.0), in_lo)
    eps = F32(max(F32(1.0), max(abs(in_lo), abs(in_hi))) * F32(ensure_minimum_range))
    hi = max(F32(0.0), max(in_hi, F32(lo + eps)))
    if mode == "MIN_FIRST":
        return _f2q_eigen(x, lo, hi, np_dtype), lo, hi
    if mode == "MIN_COMBINED":
        scale = F32((float(highest) - float(lowest)) / float(hi - lo))
        c = (np.clip(x, lo, hi) - lo) * scale
        if lowest < 0:
            half = F32((float(highest) - float(lowest) + 1) / 2.0)
            q = _round((c - half).astype(F32), False)
        else:
            q = np.trunc(c + F32(0.5))
        return _to_q(q.astype(F32), np_dtype), lo, hi
    min_out = lowest + (1 if narrow_range else 0)
    big = np.finfo(F32).max
    s_lo = F32(min_out) / lo if min_out * lo > 0 else big
    s_hi = F32(highest) / hi if highest * hi > 0 else big
    scale = F32(min(s_lo, s_hi))
    lo, hi = F32(F32(min_out) / scale), F32(F32(highest) / scale)
    q = _round((np.clip(x, lo, hi) * scale).astype(F32), half_even)
    return _to_q(q.astype(F32), np_dtype), lo, hi


def _quantize_kernel(xp, x, lo, hi, T, mode="MIN_COMBINED", round_mode="HALF_AWAY_FROM_ZERO",  # noqa: N803
                     narrow_range=False, axis=-1, ensure_minimum_range=0.01):
    x = np.asarray(x, F32)
    half_even = round_mode == "HALF_TO_EVEN"
    if axis == -1 or x.shape[axis] == 1:
        q, a, b = _quantize_slice(x, lo.reshape(-1)[0], hi.reshape(-1)[0], T, mode, half_even, narrow_range,
                                  ensure_minimum_range)
        return q, np.asarray(a, F32), np.asarray(b, F32)
    out = np.empty(x.shape, T)
    los, his = np.empty(lo.shape, F32), np.empty(hi.shape, F32)
    for i in range(x.shape[axis]):
        sl = (slice(None),) * axis + (i,)
        out[sl], los.reshape(-1)[i], his.reshape(-1)[i] = _quantize_slice(
            x[sl], lo.reshape(-1)[i], hi.reshape(-1)[i], T, mode, half_even, narrow_range, ensure_minimum_range)
    return out, los, his


def _quantize_check(x, lo, hi, T, mode="MIN_COMBINED", round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False,  # noqa: N803
                    axis=-1, ensure_minimum_range=0.01):
    lv, hv = getattr(lo, "_v", None), getattr(hi, "_v", None)
    if lv is not None and hv is not None and np.any(np.asarray(hv) < np.asarray(lv)):
        raise errors.invalid_argument("QuantizeV2", "input_max_range must be larger than input_min_range.")


QUANTIZE_V2 = defop("QuantizeV2", _quantize_kernel, n_out=3, dtypes=(D.float32,), check=_quantize_check,
                    grad=NO_GRADIENT, no_lowering=True, no_lowering_reason=_NO_XLA)

QuantizeV2Result = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])


def _axis(x, axis):
    if axis is None:
        return -1
    axis = int(axis)
    if axis < 0:
        if x.shape.rank is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= x.shape.rank
    return axis


def _range_inputs(op_name, x, min_range, max_range, axis):
    lo, hi = t(min_range, dtype=D.float32), t(max_range, dtype=D.float32)
    n = 1 if axis == -1 else x.shape[axis]
    if axis != -1 and axis >= (x.shape.rank or 0):
        raise errors.invalid_argument(op_name, f"Axis must be less than input dimension({x.shape.rank}), got "
                                               f"{axis}")
    for v, nm in ((lo, "min"), (hi, "max")):
        if axis == -1 and v.shape.rank not in (0, None) and op_name == "QuantizeV2":
            raise errors.invalid_argument(op_name, f"Shape must be rank 0 but is rank {v.shape.rank} for "
                                                   f"'input_{nm}'")
        if v.shape.num_elements() is not None and n is not None and v.shape.num_elements() != n:
            what = "quantization" if op_name == "QuantizeV2" else "dequantization"
            raise errors.invalid_argument(op_name, f"input_{nm}_tensor must have as many elements as input on the "
                                                   f"{what} axis ({axis}), got {v.shape.num_elements()}, expected {n}")
    return lo, hi


_Q_NAMES = "qint8, quint8, qint32, qint16, quint16"


def _attr_error(op_name, attr, value, allowed):
    return errors.invalid_argument(op_name, f"Value for attr '{attr}' of {value} is not in the list of allowed "
                                            f"values: {allowed}")


def _mode_checks(op_name, mode, axis):
    if mode not in MODES:
        raise _attr_error(op_name, "mode", f'"{mode}"', '"MIN_COMBINED", "MIN_FIRST", "SCALED"')
    if mode == "MIN_FIRST" and axis != -1:
        raise errors.op_error(errors.UnimplementedError, op_name, f"MIN_FIRST mode is not implemented for "
                                                                  f"{op_name.rstrip('V2')} with axis != -1.")


@tf_export("quantization.quantize")
def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002, N803 - TF's names
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01):
    """Quantizes float32 ``input`` over ``[min_range, max_range]`` to the quantized dtype ``T``; returns
    ``(output, output_min, output_max)``, the range actually used.

    >>> q = tf.quantization.quantize([-1.0, 0.0, 0.5, 2.0], -1.0, 2.0, tf.quint8)
    >>> q.output.numpy(), float(q.output_min), float(q.output_max)
    (array([  0,  85, 128, 255], dtype=uint8), -1.0, 2.0)
    """
    T = D.as_dtype(T)  # noqa: N806
    x = t(input, dtype=D.float32)
    if T not in _QUANTIZE_T:
        raise _attr_error("QuantizeV2", "T", T.name, _Q_NAMES)
    ax = _axis(x, axis)
    _mode_checks("QuantizeV2", mode, ax)
    if round_mode not in ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"):
        raise _attr_error("QuantizeV2", "round_mode", f'"{round_mode}"', '"HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"')
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise errors.invalid_argument("QuantizeV2", f"Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', "
                                                    f"but mode is '{mode}'.")
    lo, hi = _range_inputs("QuantizeV2", x, min_range, max_range, ax)
    out = bind(QUANTIZE_V2, x, lo, hi, T=T._np, mode=mode, round_mode=round_mode, narrow_range=bool(narrow_range),
               axis=ax, ensure_minimum_range=float(ensure_minimum_range))
    return QuantizeV2Result(*out)


@tf_export("compat.v1.quantize_v2")
def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None,  # noqa: A002, N803
                round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=None, ensure_minimum_range=0.01):
    """TF1's name (and argument order) of ``tf.quantization.quantize``."""
    return quantize(input, min_range, max_range, T, mode=mode, round_mode=round_mode, narrow_range=narrow_range,
                    axis=axis, ensure_minimum_range=ensure_minimum_range)


# --- Dequantize -------------------------------------------------------------------------------

def _dequantize_slice(q, lo, hi, mode, narrow_range):
    lowest, highest, _ = _limits(q.dtype)
    lo, hi = F32(lo), F32(hi)
    if mode == "MIN_FIRST":
        return _q2f_eigen(q, lo, hi, q.dtype)
    v = q.view(storage(q.dtype)).astype(F32)
    if mode == "MIN_COMBINED":
        half = F32(0.0) if lowest == 0 else F32((float(highest) - lowest + 1) / 2.0)
        scale = F32((hi - lo) / (F32(highest) - F32(lowest)))
        return (v + half) * scale + lo
    min_out = lowest + (1 if narrow_range else 0)
    scale = F32(hi / F32(highest)) if lowest == 0 else max(F32(lo / F32(min_out)), F32(hi / F32(highest)))
    return v * scale


def _dequantize_kernel(xp, q, lo, hi, mode="MIN_COMBINED", narrow_range=False, axis=-1, dtype=np.float32):
    if axis == -1 or q.shape[axis] == 1:
        out = _dequantize_slice(q, lo.reshape(-1)[0], hi.reshape(-1)[0], mode, narrow_range)
    else:
        out = np.empty(q.shape, F32)
        for i in range(q.shape[axis]):
            sl = (slice(None),) * axis + (i,)
            out[sl] = _dequantize_slice(q[sl], lo.reshape(-1)[i], hi.reshape(-1)[i], mode, narrow_range)
    return np.asarray(out, F32).astype(dtype)


DEQUANTIZE = defop("Dequantize", _dequantize_kernel, dtypes=_QUANTIZE_T, grad=NO_GRADIENT, no_lowering=True,
                   no_lowering_reason=_NO_XLA)


@tf_export("quantization.dequantize")
def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None, axis=None,  # noqa: A002
               narrow_range=False, dtype=D.float32):
    """Maps a quantized tensor back to ``dtype`` (float32, or bfloat16 with MIN_COMBINED) over its range.

    >>> q = tf.quantization.quantize([-1.0, 0.5, 2.0], -1.0, 2.0, tf.quint8)
    >>> [round(float(v), 4) for v in tf.quantization.dequantize(q.output, q.output_min, q.output_max)]
    [-1.0, 0.5059, 2.0]
    """
    x = t(input)
    dtype = D.as_dtype(dtype)
    if x.dtype not in _QUANTIZE_T:
        raise _attr_error("Dequantize", "T", x.dtype.name, _Q_NAMES)
    if dtype not in (D.float32, D.bfloat16):
        raise _attr_error("Dequantize", "dtype", dtype.name, "bfloat16, float")
    ax = _axis(x, axis)
    if mode not in MODES:
        raise _attr_error("Dequantize", "mode", f'"{mode}"', '"MIN_COMBINED", "MIN_FIRST", "SCALED"')
    if dtype is D.bfloat16 and mode != "MIN_COMBINED":
        raise errors.invalid_argument("Dequantize", f"When output type is bfloat16, Mode string must be "
                                                    f"'MIN_COMBINED', is '{mode}'")
    lo, hi = _range_inputs("Dequantize", x, min_range, max_range, ax)
    _mode_checks("Dequantize", mode, ax)
    return bind(DEQUANTIZE, x, lo, hi, mode=mode, narrow_range=bool(narrow_range), axis=ax, dtype=dtype._np)


# --- QuantizedConcat --------------------------------------------------------------------------

def _qconcat_kernel(xp, *arrays, axis=0, n=1):
    values, mins, maxes = arrays[:n], arrays[n:2 * n], arrays[2 * n:]
    ranges = [(F32(a.reshape(-1)[0]), F32(b.reshape(-1)[0])) for a, b in zip(mins, maxes)]
    out_lo = min(r[0] for r in ranges)
    out_hi = max(r[1] for r in ranges)
    if _limits(values[0].dtype)[0] < 0:  # signed: a range symmetric around zero
        out_hi = max(abs(out_lo), abs(out_hi))
        out_lo = -out_hi
    parts = []
    for v, (lo, hi) in zip(values, ranges):
        if lo == out_lo and hi == out_hi:
            parts.append(v)
        else:
            parts.append(_f2q_eigen(_q2f_eigen(v, lo, hi, v.dtype), out_lo, out_hi, v.dtype))
    return np.concatenate(parts, axis=axis), np.asarray(out_lo, F32), np.asarray(out_hi, F32)


QUANTIZED_CONCAT = defop("QuantizedConcat", _qconcat_kernel, n_out=3, grad=NO_GRADIENT, no_lowering=True,
                         no_lowering_reason=_NO_XLA)

QuantizedConcatResult = collections.namedtuple("QuantizedConcat", ["output", "output_min", "output_max"])


@tf_export("quantization.quantized_concat")
def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """Concatenates quantized tensors along ``concat_dim``, requantizing each into the combined range.

    >>> a = tf.quantization.quantize([0.0, 1.0], 0.0, 1.0, tf.quint8)
    >>> b = tf.quantization.quantize([2.0], 0.0, 2.0, tf.quint8)
    >>> tf.quantization.quantized_concat(0, [a.output, b.output], [a.output_min, b.output_min],
    ...                                  [a.output_max, b.output_max]).output.numpy()
    array([  0, 128, 255], dtype=uint8)
    """
    vals = [t(v) for v in values]
    mins = [t(v, dtype=D.float32) for v in input_mins]
    maxes = [t(v, dtype=D.float32) for v in input_maxes]
    n = len(vals)
    for what, lst in (("mins", mins), ("maxes", maxes)):
        if len(lst) != n:
            raise ValueError(f"List argument 'input_{what}' to 'QuantizedConcat' Op with length {len(lst)} must "
                             f"match length {n} of argument 'values'.")
    if n < 2:
        raise ValueError(f"List argument 'values' to 'QuantizedConcat' Op with length {n} shorter than minimum "
                         "length 2.")
    d = vals[0].dtype
    for v in vals[1:]:
        if v.dtype is not d:
            raise TypeError(f"Input 'values' of 'QuantizedConcat' Op has type {v.dtype.name} that does not match "
                            f"type {d.name} of argument 'values'.")
    if d not in (D.quint8, D.qint32):  # TF registers kernels for these two only
        raise errors.op_error(errors.NotFoundError, "QuantizedConcat", f"Could not find device for node: {{{{node "
                              f"QuantizedConcat}}}} = QuantizedConcat[N={n}, T=DT_{d.name.upper()}]\nAll kernels "
                              "registered for op QuantizedConcat:\n  device='CPU'; T in [DT_QINT32]\n  "
                              "device='CPU'; T in [DT_QUINT8]\n")
    axis = int(t(concat_dim, dtype=D.int32)._v) if not isinstance(concat_dim, int) else concat_dim
    rank = vals[0].shape.rank
    if not 0 <= axis < (rank or 0):
        raise errors.invalid_argument("QuantizedConcat", f"ConcatOp : Expected concatenating dimensions in the range "
                                                         f"[0, {rank}), but got {axis}")
    s0 = vals[0].shape
    for i, v in enumerate(vals):
        if v.shape.rank != rank:
            raise errors.invalid_argument("QuantizedConcat", f"ConcatOp : Ranks of all input tensors should match: "
                                                             f"shape[0] = {s0.as_list()} vs. shape[{i}] = "
                                                             f"{v.shape.as_list()}")
        if any(j != axis and v.shape[j] != s0[j] for j in range(rank)):
            raise errors.invalid_argument("QuantizedConcat", f"ConcatOp : Dimensions of inputs should match: "
                                                             f"shape[0] = {s0.as_list()} vs. shape[{i}] = "
                                                             f"{v.shape.as_list()}")
    return QuantizedConcatResult(*bind(QUANTIZED_CONCAT, *vals, *mins, *maxes, axis=axis, n=n))
