"""Resampling kernels of ``tf.image.resize``: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic,
ResizeArea and ScaleAndTranslate (lanczos, gaussian, mitchellcubic and every antialiased resize).

All of them are separable: for static input and output sizes each axis gets a weight matrix
(``out x in``, float32), computed once in NumPy with TF's conventions (half-pixel centers, TF's
bicubic coefficient table, area overlaps, scale-and-translate spans).  The kernels then are two
``einsum`` calls, identical under NumPy and ``jax.numpy``.  Nearest neighbour gathers by index.

The gradients are TF's ``*Grad`` ops: each resize is linear in the image, so its gradient op
applies the transposed weight matrices (nearest neighbour: one-hot matrices, i.e. a scatter-add),
and the gradient of a gradient op is the resize itself.  ``ResizeArea`` has no gradient in TF.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops.registry import NO_GRADIENT, bind, defop

D = _dt
F32 = np.float32
# TF's allowed 'T' of the resize ops, in TF's order
RESIZE_TYPES = (D.int8, D.uint8, D.int16, D.uint16, D.int32, D.int64, D.bfloat16, D.float16, D.float32, D.float64)
_FLT_MIN = 1.1754943508222875e-38  # FLT_MIN


def _readonly(w):
    w.flags.writeable = False
    return w


@functools.lru_cache(maxsize=256)
def bilinear_weights(n_in, n_out):
    scale = F32(n_in) / F32(n_out)
    pos = (np.arange(n_out, dtype=F32) + F32(0.5)) * scale - F32(0.5)
    floor = np.floor(pos)
    lerp = pos - floor
    lo = np.maximum(floor.astype(np.int64), 0)
    hi = np.minimum(np.ceil(pos).astype(np.int64), n_in - 1)
    w = np.zeros((n_out, n_in), F32)
    rows = np.arange(n_out)
    np.add.at(w, (rows, lo), F32(1) - lerp)
    np.add.at(w, (rows, hi), lerp)
    return _readonly(w)


@functools.lru_cache(maxsize=256)
def nearest_indices(n_in, n_out):
    scale = F32(n_in) / F32(n_out)
    idx = np.floor((np.arange(n_out, dtype=F32) + F32(0.5)) * scale).astype(np.int64)
    return _readonly(np.clip(idx, 0, n_in - 1))


_TABLE = 1024


@functools.lru_cache(maxsize=1)
def _keys_table():
    a = F32(-0.5)
    x = (np.arange(_TABLE + 1) / _TABLE).astype(F32)
    near = ((a + F32(2)) * x - (a + F32(3))) * x * x + F32(1)
    x1 = x + F32(1)
    far = ((a * x1 - F32(5) * a) * x1 + F32(8) * a) * x1 - F32(4) * a
    return near, far


@functools.lru_cache(maxsize=256)
def bicubic_weights(n_in, n_out):
    """Keys cubic (a = -0.5) from TF's 1024-entry table; taps outside the image get weight 0, then renormalized."""
    near, far = _keys_table()
    scale = F32(n_in) / F32(n_out)
    w = np.zeros((n_out, n_in), F32)
    for o in range(n_out):
        pos = (F32(o) + F32(0.5)) * scale - F32(0.5)
        base = int(np.floor(pos))
        off = int(np.rint((pos - F32(base)) * F32(_TABLE)))
        taps = [far[off], near[off], near[_TABLE - off], far[_TABLE - off]]
        idx = [base - 1, base, base + 1, base + 2]
        vals = np.array([v if 0 <= i < n_in else 0 for v, i in zip(taps, idx)], F32)
        total = F32(vals.sum(dtype=F32))
        if abs(total) >= 1000 * _FLT_MIN:
            vals = vals * (F32(1) / total)
        for i, v in zip(idx, vals):
            w[o, min(max(i, 0), n_in - 1)] += v
    return _readonly(w)


@functools.lru_cache(maxsize=256)
def area_weights(n_in, n_out):
    """Box filter: each output cell averages the input cells it overlaps, weighted by the overlap."""
    scale = F32(n_in) / F32(n_out)
    w = np.zeros((n_out, n_in), F32)
    for o in range(n_out):
        lo = F32(o) * scale
        hi = F32(o + 1) * scale
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            if i < lo:
                s = scale if i + 1 > hi else F32(i + 1) - lo
            else:
                s = hi - F32(i) if i + 1 > hi else F32(1)
            w[o, min(i, n_in - 1)] += s
    return _readonly(w * (F32(1) / scale))


# The kernels evaluate in float32, as TF's do.
def _lanczos(radius):
    r = F32(radius)
    pi = F32(3.14159265359)

    def k(x):
        if x > r:
            return F32(0)
        if x <= F32(1e-3):
            return F32(1)
        return r * np.sin(pi * x) * np.sin(pi * x / r) / (pi * pi * x * x)
    return k, float(radius)


def _gaussian(x):
    sigma = F32(0.5)
    return F32(0) if x >= F32(1.5) else np.exp(-x * x / (F32(2) * sigma * sigma))


def _triangle(x):
    return F32(1) - x if x < F32(1) else F32(0)


def _keys_cubic(x):
    if x >= F32(2):
        return F32(0)
    if x >= F32(1):
        return ((F32(-0.5) * x + F32(2.5)) * x - F32(4)) * x + F32(2)
    return ((F32(1.5) * x - F32(2.5)) * x) * x + F32(1)


def _mitchell(x):
    if x >= F32(2):
        return F32(0)
    if x >= F32(1):
        return (((F32(-7) / F32(18)) * x + F32(2)) * x - F32(10) / F32(3)) * x + F32(16) / F32(9)
    return (((F32(7) / F32(6)) * x - F32(2)) * x) * x + F32(8) / F32(9)


KERNELS = {
    "lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5), "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell, 2.0),
}


@functools.lru_cache(maxsize=256)
def scale_and_translate_weights(n_in, n_out, kernel_type, antialias):
    """TF's ScaleAndTranslate spans (no translation): when antialiasing a downscale, the kernel is widened."""
    kernel, radius = KERNELS[kernel_type]
    scale = F32(n_out) / F32(n_in)
    inv_scale = F32(1.0 / float(scale))
    kscale = max(inv_scale, F32(1)) if antialias else F32(1)
    inv_kscale = F32(1) / kscale
    reach = F32(radius) * kscale
    w = np.zeros((n_out, n_in), F32)
    for o in range(n_out):
        sample = (F32(o) + F32(0.5)) * inv_scale
        if sample < 0 or sample > n_in:
            continue
        start = min(max(int(math.ceil(sample - reach - F32(0.5))), 0), n_in - 1)
        end = min(max(int(math.floor(sample + reach - F32(0.5))), 0), n_in - 1) + 1
        vals = np.array([kernel(abs((F32(s) + F32(0.5) - sample) * inv_kscale)) for s in range(start, end)], F32)
        total = F32(vals.sum(dtype=F32))
        if abs(total) >= 1000 * _FLT_MIN:
            vals = vals * (F32(1) / total)
        w[o, start:end] = vals
    return _readonly(w)


def _separable(xp, x, wh, ww):
    y = xp.einsum("oh,...hwc->...owc", wh, x.astype(F32))
    return xp.einsum("pw,...owc->...opc", ww, y)


def _bilinear(xp, x, size):
    return _separable(xp, x, bilinear_weights(x.shape[-3], size[0]), bilinear_weights(x.shape[-2], size[1]))


def _nearest(xp, x, size):
    rows = nearest_indices(x.shape[-3], size[0])
    cols = nearest_indices(x.shape[-2], size[1])
    return xp.take(xp.take(x, rows, axis=-3), cols, axis=-2)


def _bicubic(xp, x, size):
    return _separable(xp, x, bicubic_weights(x.shape[-3], size[0]), bicubic_weights(x.shape[-2], size[1]))


def _area(xp, x, size):
    return _separable(xp, x, area_weights(x.shape[-3], size[0]), area_weights(x.shape[-2], size[1]))


def _scale_and_translate(xp, x, size, kernel_type="lanczos3", antialias=True):
    return _separable(xp, x, scale_and_translate_weights(x.shape[-3], size[0], kernel_type, antialias),
                      scale_and_translate_weights(x.shape[-2], size[1], kernel_type, antialias))


@functools.lru_cache(maxsize=256)
def nearest_matrix(n_in, n_out):
    """The one-hot ``out x in`` matrix of the nearest-neighbour gather along one axis."""
    return _readonly((nearest_indices(n_in, n_out)[:, None] == np.arange(n_in)[None, :]).astype(F32))


# --- gradients: the transposed weights ------------------------------------------------------------

def _separable_t(xp, g, wh, ww, dtype):
    """``_separable``'s transpose: grads ``[..., oh, ow, c]`` -> ``[..., h, w, c]`` in ``dtype``.

    Computed in float32 as TF does (float64 for a float64 image), then cast to the image dtype.
    """
    ct = np.float64 if dtype == np.float64 else F32
    y = xp.einsum("pw,...opc->...owc", ww.astype(ct), g.astype(ct))
    return xp.einsum("oh,...owc->...hwc", wh.astype(ct), y).astype(dtype)


def _grad_sizes(g, x):
    return (x.shape[-3], g.shape[-3]), (x.shape[-2], g.shape[-2])


def _bilinear_grad(xp, g, x):
    (h, oh), (w, ow) = _grad_sizes(g, x)
    return _separable_t(xp, g, bilinear_weights(h, oh), bilinear_weights(w, ow), x.dtype)


def _bicubic_grad(xp, g, x):
    (h, oh), (w, ow) = _grad_sizes(g, x)
    return _separable_t(xp, g, bicubic_weights(h, oh), bicubic_weights(w, ow), x.dtype)


def _scale_and_translate_grad(xp, g, x, kernel_type="lanczos3", antialias=True):
    (h, oh), (w, ow) = _grad_sizes(g, x)
    return _separable_t(xp, g, scale_and_translate_weights(h, oh, kernel_type, antialias),
                        scale_and_translate_weights(w, ow, kernel_type, antialias), x.dtype)


def _nearest_grad(xp, g, size):
    """Scatter-add of each output pixel's gradient onto the input pixel it was copied from."""
    mh = nearest_matrix(size[0], g.shape[-3])
    mw = nearest_matrix(size[1], g.shape[-2])
    ct = F32 if g.dtype.itemsize == 2 and g.dtype.kind in "fV" else g.dtype  # half, bfloat16: sum in float32
    y = xp.einsum("pw,...opc->...owc", mw.astype(ct), g.astype(ct))
    return xp.einsum("oh,...owc->...hwc", mh.astype(ct), y).astype(g.dtype)


_GRAD_TYPES = (D.float32, D.bfloat16, D.float16, D.float64)  # TF's 'T' of ResizeBilinearGrad, in TF's order
_BICUBIC_GRAD_TYPES = (D.float32, D.float64)


_TF_NAMES = {"float16": "half", "float32": "float", "float64": "double"}


def _tf_name(d):
    return _TF_NAMES.get(d.name, d.name)


def _grad_check(op_name, allowed):
    """TF's checks: ``grads`` is float32, and the 'T' attr comes from ``original_image`` (input 1)."""
    names = ", ".join(_tf_name(d) for d in allowed)

    def check(g, x, **attrs):
        if g.dtype != D.float32:
            raise errors.invalid_argument(op_name, f"cannot compute {op_name} as input #0(zero-based) was expected "
                                                   f"to be a float tensor but is a {_tf_name(g.dtype)} tensor")
        if x.dtype not in allowed:
            raise errors.invalid_argument(op_name, f"Value for attr 'T' of {_tf_name(x.dtype)} is not in the list "
                                                   f"of allowed values: {names}")
    return check


def _spatial(x):
    return (int(x.shape[-3]), int(x.shape[-2]))


# TF's gradient functions (image_grad.py): each resize op's gradient is its *Grad op on the upstream
# gradient; the Grad ops' own gradients are the resize ops (TF leaves them undifferentiable, which
# silently drops second-order terms; tensorlet differentiates them exactly).

def _float_image(x):
    return x.dtype.is_floating


RESIZE_BILINEAR_GRAD = defop(
    "ResizeBilinearGrad", _bilinear_grad, check=_grad_check("ResizeBilinearGrad", _GRAD_TYPES),
    grad=lambda gg, ans, g, x: (bind(RESIZE_BILINEAR, gg, size=_spatial(g)), None))

RESIZE_BICUBIC_GRAD = defop(
    "ResizeBicubicGrad", _bicubic_grad, check=_grad_check("ResizeBicubicGrad", _BICUBIC_GRAD_TYPES),
    grad=lambda gg, ans, g, x: (bind(RESIZE_BICUBIC, gg, size=_spatial(g)), None))

# TF allows only float32 images here (a float64 image raises in TF's backward pass); tensorlet accepts
# every float image dtype and returns the gradient in it.
SCALE_AND_TRANSLATE_GRAD = defop(
    "ScaleAndTranslateGrad", _scale_and_translate_grad, check=_grad_check("ScaleAndTranslateGrad", _GRAD_TYPES),
    grad=lambda gg, ans, g, x, kernel_type="lanczos3", antialias=True: (
        bind(SCALE_AND_TRANSLATE, gg, size=_spatial(g), kernel_type=kernel_type, antialias=antialias), None))

RESIZE_NEAREST_GRAD = defop(
    "ResizeNearestNeighborGrad", _nearest_grad,
    dtypes=(D.uint8, D.int8, D.int32, D.float16, D.float32, D.float64, D.bfloat16),
    grad=lambda gg, ans, g, size: bind(RESIZE_NEAREST, gg, size=_spatial(g)))


RESIZE_BILINEAR = defop(
    "ResizeBilinear", _bilinear, dtypes=RESIZE_TYPES,
    grad=lambda g, ans, x, size: (bind(RESIZE_BILINEAR_GRAD, g, x) if _float_image(x) else None))
RESIZE_NEAREST = defop(
    "ResizeNearestNeighbor", _nearest, dtypes=RESIZE_TYPES,
    grad=lambda g, ans, x, size: (bind(RESIZE_NEAREST_GRAD, g, size=_spatial(x)) if _float_image(x) else None))
# TF's gradient of ResizeBicubic is None for images other than float32/float64 (e.g. float16).
RESIZE_BICUBIC = defop(
    "ResizeBicubic", _bicubic, dtypes=RESIZE_TYPES,
    grad=lambda g, ans, x, size: (bind(RESIZE_BICUBIC_GRAD, g, x) if x.dtype in _BICUBIC_GRAD_TYPES else None))
# TF registers no gradient for ResizeArea: tape.gradient raises LookupError, as in TF.
RESIZE_AREA = defop("ResizeArea", _area, dtypes=RESIZE_TYPES, grad=NO_GRADIENT)  # TF has no gradient for it
SCALE_AND_TRANSLATE = defop(
    "ScaleAndTranslate", _scale_and_translate, dtypes=RESIZE_TYPES,
    grad=lambda g, ans, x, size, kernel_type="lanczos3", antialias=True: (
        bind(SCALE_AND_TRANSLATE_GRAD, g, x, kernel_type=kernel_type, antialias=antialias)
        if _float_image(x) else None))
