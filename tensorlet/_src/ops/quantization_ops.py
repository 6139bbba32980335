"""``tf.quantization``: fake quantization (simulated ``num_bits`` rounding with a straight-through gradient inside
the range) and quantize-and-dequantize.

The kernels follow TF's: the range is first "nudged" so that zero is exactly representable, then values are
clamped, scaled, rounded half up and scaled back; all in float32, as TF's kernels compute.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as D
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export

F32 = (D.float32,)
QDQ_TYPES = (D.bfloat16, D.float16, D.float32, D.float64)


def _nudge(xp, lo, hi, num_bits, narrow_range):
    qmin = 1.0 if narrow_range else 0.0
    qmax = float((1 << num_bits) - 1)
    lo = xp.asarray(lo, np.float32)
    hi = xp.asarray(hi, np.float32)
    scale = (hi - lo) / np.float32(qmax - qmin)
    zp = np.float32(qmin) - lo / scale
    rounded = xp.sign(zp) * xp.floor(xp.abs(zp) + np.float32(0.5))  # std::round: half away from zero
    nudged_zp = xp.where(zp < qmin, np.float32(qmin), xp.where(zp > qmax, np.float32(qmax), rounded))
    nmin = (np.float32(qmin) - nudged_zp) * scale
    nmax = (np.float32(qmax) - nudged_zp) * scale
    return nmin, nmax, scale


def _fake_quant(xp, x, lo, hi, num_bits, narrow_range):
    nmin, nmax, scale = _nudge(xp, lo, hi, num_bits, narrow_range)
    clamped = xp.minimum(xp.maximum(x, nmin), nmax)
    inv = np.float32(1.0) / scale
    return (xp.floor((clamped - nmin) * inv + np.float32(0.5)) * scale + nmin).astype(np.float32)


def _check_bits(op_name, num_bits):
    if not 2 <= num_bits <= 16:
        raise errors.invalid_argument(op_name, f"num_bits is out of range, expected between 2 and 16, was: "
                                               f"{num_bits}")


# --- FakeQuantWithMinMaxArgs ------------------------------------------------------------------

def _args_kernel(xp, x, min=-6.0, max=6.0, num_bits=8, narrow_range=False):  # noqa: A002 - TF's attr names
    return _fake_quant(xp, x, min, max, num_bits, narrow_range)


def _args_mask(xp, x, lo, hi, num_bits, narrow_range):
    nmin, nmax, _ = _nudge(xp, lo, hi, num_bits, narrow_range)
    return (x >= nmin) & (x <= nmax)


def _args_grad_kernel(xp, g, x, min=-6.0, max=6.0, num_bits=8, narrow_range=False):  # noqa: A002
    return xp.where(_args_mask(xp, x, min, max, num_bits, narrow_range), g, xp.zeros_like(g)).astype(np.float32)


FAKE_QUANT_ARGS_GRADIENT = defop("FakeQuantWithMinMaxArgsGradient", _args_grad_kernel, dtypes=F32, grad=NONDIFF)
FAKE_QUANT_ARGS = defop("FakeQuantWithMinMaxArgs", _args_kernel, dtypes=F32,
                        grad=lambda g, ans, x, **a: bind(FAKE_QUANT_ARGS_GRADIENT, g, x, **a))


def _args_attrs(op_name, min, max, num_bits, narrow_range):  # noqa: A002 - TF's names
    _check_bits(op_name, int(num_bits))
    if not float(min) < float(max):
        raise errors.invalid_argument(op_name, f"min has to be smaller than max, was: {float(min)} >= {float(max)}")
    return dict(min=float(min), max=float(max), num_bits=int(num_bits), narrow_range=bool(narrow_range))


@tf_export("quantization.fake_quant_with_min_max_args")
def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8, narrow_range=False,  # noqa: A002
                                 name=None):
    """Simulates ``num_bits`` quantization of float32 ``inputs`` over the fixed range ``[min, max]``.

    >>> tf.quantization.fake_quant_with_min_max_args([0.3, 7.], min=0., max=1., num_bits=2).numpy()
    array([0.33333334, 1.        ], dtype=float32)
    """
    a = _args_attrs("FakeQuantWithMinMaxArgs", min, max, num_bits, narrow_range)
    return bind(FAKE_QUANT_ARGS, t(inputs), **a)


@tf_export("quantization.fake_quant_with_min_max_args_gradient")
def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None):
    """The gradient of ``fake_quant_with_min_max_args``: ``gradients`` where ``inputs`` is inside the range."""
    a = _args_attrs("FakeQuantWithMinMaxArgsGradient", min, max, num_bits, narrow_range)
    return bind(FAKE_QUANT_ARGS_GRADIENT, t(gradients), t(inputs), **a)


# --- FakeQuantWithMinMaxVars (and per channel) ------------------------------------------------

def _vars_kernel(xp, x, lo, hi, num_bits=8, narrow_range=False):
    return _fake_quant(xp, x, lo, hi, num_bits, narrow_range)


def _vars_grad_kernel(xp, g, x, lo, hi, num_bits=8, narrow_range=False):
    nmin, nmax, _ = _nudge(xp, lo, hi, num_bits, narrow_range)
    inside = (x >= nmin) & (x <= nmax)
    zero = xp.zeros_like(g)
    dx = xp.where(inside, g, zero)
    axes = tuple(range(x.ndim - lo.ndim)) if lo.ndim else tuple(range(x.ndim))
    dmin = xp.sum(xp.where(x < nmin, g, zero), axis=axes)
    dmax = xp.sum(xp.where(x > nmax, g, zero), axis=axes)
    return dx.astype(np.float32), dmin.astype(np.float32), dmax.astype(np.float32)


def _vars_grad(gop):
    def grad(g, ans, x, lo, hi, **a):
        return bind(gop, g, x, lo, hi, **a)
    return grad


FAKE_QUANT_VARS_GRADIENT = defop("FakeQuantWithMinMaxVarsGradient", _vars_grad_kernel, n_out=3, dtypes=F32,
                                 grad=NONDIFF)
FAKE_QUANT_VARS = defop("FakeQuantWithMinMaxVars", _vars_kernel, dtypes=F32,
                        grad=_vars_grad(FAKE_QUANT_VARS_GRADIENT))
FAKE_QUANT_VARS_PER_CHANNEL_GRADIENT = defop("FakeQuantWithMinMaxVarsPerChannelGradient", _vars_grad_kernel,
                                             n_out=3, dtypes=F32, grad=NONDIFF)
FAKE_QUANT_VARS_PER_CHANNEL = defop("FakeQuantWithMinMaxVarsPerChannel", _vars_kernel, dtypes=F32,
                                    grad=_vars_grad(FAKE_QUANT_VARS_PER_CHANNEL_GRADIENT))


def _vars_inputs(op_name, x, lo, hi, num_bits, per_channel):
    _check_bits(op_name, int(num_bits))
    x = t(x, dtype=D.float32)
    lo, hi = t(lo, dtype=D.float32), t(hi, dtype=D.float32)
    if per_channel:
        d = x.shape[-1] if x.shape.rank else None
        for v, nm in ((lo, "min"), (hi, "max")):
            if v.shape.rank != 1 or (d is not None and v.shape[0] != d):
                raise errors.invalid_argument(op_name, f"{nm} has incorrect size, expected {d} was "
                                                       f"{v.shape[0] if v.shape.rank else 'a scalar'}")
    else:
        for v, nm in ((lo, "min"), (hi, "max")):
            if v.shape.rank != 0:
                raise errors.invalid_argument(op_name, f"Shape must be rank 0 but is rank {v.shape.rank} for "
                                                       f"'{nm}'")
    return x, lo, hi


@tf_export("quantization.fake_quant_with_min_max_vars")
def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """Simulated quantization over a range given by (trainable) scalars ``min``/``max``; they get gradients from
    the values clamped below / above the range.

    >>> tf.quantization.fake_quant_with_min_max_vars([0.3, 7.], 0., 1., num_bits=2).numpy()
    array([0.33333334, 1.        ], dtype=float32)
    """
    x, lo, hi = _vars_inputs("FakeQuantWithMinMaxVars", inputs, min, max, num_bits, False)
    return bind(FAKE_QUANT_VARS, x, lo, hi, num_bits=int(num_bits), narrow_range=bool(narrow_range))


@tf_export("quantization.fake_quant_with_min_max_vars_gradient")
def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                          name=None):
    """``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)`` of ``fake_quant_with_min_max_vars``."""
    x, lo, hi = _vars_inputs("FakeQuantWithMinMaxVarsGradient", inputs, min, max, num_bits, False)
    return tuple(bind(FAKE_QUANT_VARS_GRADIENT, t(gradients, dtype=D.float32), x, lo, hi, num_bits=int(num_bits),
                      narrow_range=bool(narrow_range)))


@tf_export("quantization.fake_quant_with_min_max_vars_per_channel")
def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                             name=None):
    """Simulated quantization with one ``[min, max]`` range per channel (the last dimension).

    >>> tf.quantization.fake_quant_with_min_max_vars_per_channel([[0.3, 0.3]], [0., 0.], [1., 3.],
    ...                                                          num_bits=2).numpy()
    array([[0.33333334, 0.        ]], dtype=float32)
    """
    x, lo, hi = _vars_inputs("FakeQuantWithMinMaxVarsPerChannel", inputs, min, max, num_bits, True)
    return bind(FAKE_QUANT_VARS_PER_CHANNEL, x, lo, hi, num_bits=int(num_bits), narrow_range=bool(narrow_range))


@tf_export("quantization.fake_quant_with_min_max_vars_per_channel_gradient")
def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False, name=None):
    """``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)`` of the per-channel fake quantization."""
    x, lo, hi = _vars_inputs("FakeQuantWithMinMaxVarsPerChannelGradient", inputs, min, max, num_bits, True)
    return tuple(bind(FAKE_QUANT_VARS_PER_CHANNEL_GRADIENT, t(gradients, dtype=D.float32), x, lo, hi,
                      num_bits=int(num_bits), narrow_range=bool(narrow_range)))


# --- QuantizeAndDequantize ---------------------------------------------------------------------

def _qdq_kernel(xp, x, lo, hi, signed_input=True, num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                narrow_range=False, axis=-1):
    d = x.dtype
    xf = x.astype(np.float32) if d.itemsize == 2 else x
    if axis == -1:
        red = None
        shape = ()
    else:
        red = tuple(i for i in range(x.ndim) if i != axis)
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        shape = tuple(shape)
    if range_given:
        mn = xp.asarray(lo, xf.dtype).reshape(shape)
        mx = xp.asarray(hi, xf.dtype).reshape(shape)
    else:
        mn = xp.min(xf, axis=red).reshape(shape) if xf.size else xp.zeros(shape, xf.dtype)
        mx = xp.max(xf, axis=red).reshape(shape) if xf.size else xp.zeros(shape, xf.dtype)
    if signed_input:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    big = np.finfo(xf.dtype).max
    s_min = xp.where(qmin * mn > 0, qmin / xp.where(mn == 0, 1, mn), big)
    s_max = xp.where(qmax * mx > 0, qmax / xp.where(mx == 0, 1, mx), big)
    use_min = s_min < s_max
    scale = xp.where(use_min, s_min, s_max)
    inv = xp.where(use_min, mn / qmin if qmin != 0 else mn * 0, mx / qmax)
    mx_eff = xp.where(use_min, qmax * inv, mx)
    mn_eff = xp.where(use_min, mn, qmin * inv)
    clamped = xp.minimum(xp.maximum(xf, mn_eff), mx_eff)
    v = clamped * scale
    r = xp.round(v) if round_mode == "HALF_TO_EVEN" else xp.floor(v + 0.5)
    return (r * inv).astype(d)


def _qdq_mask_grad(g, ans, x, lo, hi, range_given=False, axis=-1, **a):
    if not range_given:
        return g, None, None
    if axis != -1:
        shape = [1] * x.shape.rank
        shape[axis] = -1
        lo, hi = array_shape.reshape(lo, shape), array_shape.reshape(hi, shape)
    inside = math_binary.logical_and(math_binary.greater_equal(x, lo), math_binary.less_equal(x, hi))
    return array_select.where(inside, g, creation.zeros_like(g)), None, None


# TF: QuantizeAndDequantizeV2's gradient is the identity; V4's passes only values inside a given range
QDQ_V2 = defop("QuantizeAndDequantizeV2", _qdq_kernel, dtypes=QDQ_TYPES, grad=lambda g, ans, x, lo, hi, **a: (
    g, None, None))
QDQ_V4 = defop("QuantizeAndDequantizeV4", _qdq_kernel, dtypes=QDQ_TYPES, grad=_qdq_mask_grad)


def _qdq(op, input, input_min, input_max, signed_input, num_bits, range_given, round_mode, narrow_range,  # noqa: A002
         axis):
    x = t(input)
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise errors.invalid_argument(op.name, f"Round mode string must be 'HALF_UP' or 'HALF_TO_EVEN', is '"
                                               f"{round_mode}'")
    nbits = int(num_bits)
    if not (0 < nbits <= (62 if x.dtype is D.float64 else 30)) or (signed_input and nbits < 2 and narrow_range):
        raise errors.invalid_argument(op.name, f"num_bits is out of range: {nbits} with signed_input={signed_input}")
    ax = -1 if axis is None else int(axis)
    if ax < -1:
        ax += x.shape.rank
    lo, hi = t(input_min, dtype=x.dtype), t(input_max, dtype=x.dtype)
    if range_given and lo.shape.rank != 0:  # TF 2.21's kernels refuse a given per-axis range
        raise errors.invalid_argument(op.name, "input_min must be a scalar.")
    if ax != -1 and (lo.shape.rank != 1 or lo.shape[0] != x.shape[ax]):
        raise errors.invalid_argument(op.name, f"input_min should be a vector of length {x.shape[ax]}")
    if range_given:
        lv, hv = getattr(lo, "_v", None), getattr(hi, "_v", None)
        if lv is not None and hv is not None and np.any(np.asarray(lv, np.float64) > np.asarray(hv, np.float64)):
            raise errors.invalid_argument(op.name, f"Invalid range: input_min {np.asarray(lv).tolist()} > "
                                                   f"input_max {np.asarray(hv).tolist()}")
    return bind(op, x, lo, hi, signed_input=bool(signed_input), num_bits=nbits, range_given=bool(range_given),
                round_mode=round_mode, narrow_range=bool(narrow_range), axis=ax)


@tf_export("quantization.quantize_and_dequantize")
def quantize_and_dequantize(input, input_min, input_max, signed_input=True, num_bits=8,  # noqa: A002
                            range_given=False, round_mode="HALF_TO_EVEN", name=None, narrow_range=False,
                            axis=None):
    """Quantizes ``input`` to ``num_bits`` and back (range from the data unless ``range_given``); the gradient
    passes straight through.

    >>> tf.quantization.quantize_and_dequantize([-1., 0.3, 1.], -1., 1., num_bits=3).numpy()
    array([-1.        ,  0.33333334,  1.        ], dtype=float32)
    """
    return _qdq(QDQ_V2, input, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                narrow_range, axis)


@tf_export("quantization.quantize_and_dequantize_v2")
def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True, num_bits=8,  # noqa: A002
                               range_given=False, round_mode="HALF_TO_EVEN", name=None, narrow_range=False,
                               axis=None):
    """As ``quantize_and_dequantize``; the gradient passes only where ``input`` is inside a given range.

    >>> tf.quantization.quantize_and_dequantize_v2([-1., 0.3, 1.], -1., 1., num_bits=3).numpy()
    array([-1.        ,  0.33333334,  1.        ], dtype=float32)
    """
    return _qdq(QDQ_V4, input, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                narrow_range, axis)


from tensorlet._src.ops import array_select, array_shape, creation, math_binary  # noqa: E402
