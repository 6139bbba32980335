"""The pooling kernels (no ops here; ``nn_pool`` declares them): window geometry, the NumPy forward kernels,
the first-maximum selection shared by the max-pool gradients and argmax, and the gradient kernels.

The NumPy kernels loop over the (few) window positions with whole-array ufuncs on strided
views; the lowerings use ``jax.lax.reduce_window`` (forward) or share the ``xp`` kernels
(gradients, argmax).
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.dtypes import finfo, is_float_np, is_low_float_np

from tensorlet._src.ops.nn_conv_kernels import (
    from_last,
    out_size,
    pad_spatial,
    pads_for,
    positions,
    spatial_axes,
    to_last,
)


def _is_float(dt):
    return is_float_np(dt)


def _lowest(dt):
    """TF's initial value of a max: the lowest finite value of the dtype."""
    dt = np.dtype(dt)
    return dt.type(finfo(dt).min if _is_float(dt) else np.iinfo(dt).min)


def window(x_shape, ksize, strides, padding, explicit_paddings, data_format):
    nd = len(x_shape) - 2
    cf = data_format.startswith("NC")
    ax = spatial_axes(nd, cf)
    sizes = tuple(x_shape[a] for a in ax)
    k = tuple(ksize[a] for a in ax)
    s = tuple(strides[a] for a in ax)
    pads = pads_for(padding, explicit_paddings, sizes, k, s, (1,) * nd, cf)
    osz = tuple(out_size(n, ki, si, 1, lo, hi) for n, ki, si, (lo, hi) in zip(sizes, k, s, pads))
    return cf, sizes, k, s, pads, osz


def _counts(sizes, k, s, pads, osz, cf):
    """How many valid (non-padded) inputs each window covers, shaped to broadcast against the output."""
    c = np.ones(())
    for n, ki, si, (lo, _), o in zip(sizes, k, s, pads, osz):
        start = np.arange(o) * si - lo
        c = np.multiply.outer(c, np.minimum(start + ki, n) - np.maximum(start, 0))
    c = np.maximum(c, 1)
    return c.reshape((1, 1) + osz if cf else (1,) + osz + (1,))


def _full_pads(pads, cf):
    return [(0, 0), (0, 0)] + list(pads) if cf else [(0, 0)] + list(pads) + [(0, 0)]


def _add_at(xp, a, index, v):
    """a[index] += v for an index of strided slices (from ``positions``); dense padding under jax, not a scatter."""
    if xp is np:
        a[index] += v
        return a
    from jax import lax

    cfg = [(0, 0, 0)]
    for sl, n, o in zip(index[1:], a.shape[1:-1], v.shape[1:-1]):
        cfg.append((sl.start, n - (sl.start + (o - 1) * sl.step + 1), sl.step - 1))
    cfg.append((0, 0, 0))
    return a + lax.pad(v.astype(a.dtype), xp.zeros((), a.dtype), cfg)


# --- forward kernels -------------------------------------------------------------------------

def max_kernel(xp, x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    cf, _, k, s, pads, osz = window(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    xl = to_last(np, x, cf)
    low = _lowest(x.dtype)
    xpad = pad_spatial(np, xl, pads, low)
    out = np.full((x.shape[0],) + osz + (xl.shape[-1],), low, x.dtype)
    if out.size:
        for sl in positions(k, s, (1,) * len(k), osz):
            np.fmax(out, xpad[sl], out=out)  # fmax: NaN never wins (TF's comparison-based max)
    return from_last(np, out, cf)


def jax_max(xp, x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    from jax import lax

    cf, _, _, _, pads, _ = window(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    low = _lowest(x.dtype)
    if _is_float(x.dtype):
        x = xp.where(xp.isnan(x), low, x)
    kk, st = [1] * x.ndim, [1] * x.ndim
    for a in spatial_axes(x.ndim - 2, cf):
        kk[a], st[a] = ksize[a], strides[a]
    return lax.reduce_window(x, xp.asarray(low, x.dtype), lax.max, tuple(kk), tuple(st), _full_pads(pads, cf))


def avg_kernel(xp, x, ksize, strides, padding, data_format="NHWC"):
    cf, sizes, k, s, pads, osz = window(x.shape, ksize, strides, padding, (), data_format)
    work = np.float32 if is_low_float_np(x.dtype) else x.dtype
    xpad = pad_spatial(np, to_last(np, x, cf).astype(work, copy=False), pads)
    acc = np.zeros((x.shape[0],) + osz + (xpad.shape[-1],), work)
    if acc.size:
        for sl in positions(k, s, (1,) * len(k), osz):
            acc += xpad[sl]
    out = acc / _counts(sizes, k, s, pads, osz, False).astype(work)
    return from_last(np, out.astype(x.dtype, copy=False), cf)


def jax_avg(xp, x, ksize, strides, padding, data_format="NHWC"):
    from jax import lax

    cf, sizes, k, s, pads, osz = window(x.shape, ksize, strides, padding, (), data_format)
    work = np.float32 if is_low_float_np(x.dtype) else x.dtype
    kk, st = [1] * x.ndim, [1] * x.ndim
    for a, ki, si in zip(spatial_axes(len(k), cf), k, s):
        kk[a], st[a] = ki, si
    acc = lax.reduce_window(x.astype(work), xp.asarray(0, work), lax.add, tuple(kk), tuple(st), _full_pads(pads, cf))
    return (acc / _counts(sizes, k, s, pads, osz, cf).astype(work)).astype(x.dtype)


# --- selection (max pool gradient and argmax), shared by NumPy and jax --------------------------

def _select(xp, xl, sizes, k, s, pads, osz):
    """Per window: the first (row-major) maximal valid element -- its value and kernel-position index."""
    nd = len(k)
    low = -np.inf if _is_float(xl.dtype) else _lowest(xl.dtype)
    xpad = pad_spatial(xp, xl, pads, low)
    valid = _valid_mask(sizes, pads)
    pos = positions(k, s, (1,) * nd, osz)
    best, bvalid = xpad[pos[0]], valid[pos[0]]
    idx = xp.zeros(best.shape, np.int32)
    for i in range(1, len(pos)):
        v, vv = xpad[pos[i]], valid[pos[i]]
        better = (v > best) | (vv & ~bvalid)
        best = xp.where(better, v, best)
        idx = xp.where(better, np.int32(i), idx)
        bvalid = bvalid | vv
    return best, idx, pos


def max_grad_kernel(xp, x, y, g, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    cf, sizes, k, s, pads, osz = window(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    xl, gl = to_last(xp, x, cf), to_last(xp, g, cf)
    psz = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    dxp = xp.zeros((x.shape[0],) + psz + (xl.shape[-1],), g.dtype)
    if gl.size:
        _, idx, pos = _select(xp, xl, sizes, k, s, pads, osz)
        zero = xp.zeros((), g.dtype)
        for i, sl in enumerate(pos):
            dxp = _add_at(xp, dxp, sl, xp.where(idx == i, gl, zero))
    crop = (slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))
    return from_last(xp, dxp[crop], cf)


def avg_grad_kernel(xp, g, orig_input_shape, ksize, strides, padding, data_format="NHWC"):
    cf, sizes, k, s, pads, osz = window(tuple(orig_input_shape), ksize, strides, padding, (), data_format)
    work = np.float32 if is_low_float_np(g.dtype) else g.dtype
    q = to_last(xp, g, cf).astype(work) / _counts(sizes, k, s, pads, osz, False).astype(work)
    psz = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    c = orig_input_shape[1 if cf else -1]
    dxp = xp.zeros((orig_input_shape[0],) + psz + (c,), work)
    if q.size:
        for sl in positions(k, s, (1,) * len(k), osz):
            dxp = _add_at(xp, dxp, sl, q)
    crop = (slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))
    return from_last(xp, dxp[crop].astype(g.dtype), cf)


def argmax_kernel(xp, x, ksize, strides, padding, Targmax=np.int64, include_batch_in_index=False):  # noqa: N803
    _, sizes, k, s, pads, osz = window(x.shape, ksize, strides, padding, (), "NHWC")
    n_b, c = x.shape[0], x.shape[-1]
    out_shape = (n_b,) + osz + (c,)
    if 0 in out_shape:
        return xp.zeros(out_shape, x.dtype), xp.zeros(out_shape, Targmax)
    best, idx, pos = _select(xp, x, sizes, k, s, pads, osz)
    mult = [int(np.prod(sizes[j + 1:])) for j in range(len(sizes))]  # flat strides of the spatial dims
    lin = np.zeros((1,) + osz + (1,), np.int64)
    for j, (o, sj, (lo, _)) in enumerate(zip(osz, s, pads)):
        shape = [1] * (len(osz) + 2)
        shape[j + 1] = o
        lin = lin + ((np.arange(o) * sj - lo) * mult[j]).reshape(shape)
    koff = np.array([sum(int(sl[j + 1].start) * mult[j] for j in range(len(sizes))) for sl in pos], np.int64)
    flat = (lin + xp.take(xp.asarray(koff), idx)) * c + np.arange(c, dtype=np.int64)
    if include_batch_in_index:
        flat = flat + (np.arange(n_b, dtype=np.int64) * (int(np.prod(sizes)) * c)).reshape((n_b,) + (1,) * (x.ndim - 1))
    return best, flat.astype(Targmax)


# --- gradients of the gradients (and the argmax gradient) -------------------------------------

def _valid_mask(sizes, pads):
    """True at the non-padded positions of the padded (channels-last) input, shaped [1, *padded, 1]."""
    return np.pad(np.ones((1,) + sizes + (1,), bool), _full_pads(pads, False))


def max3d_grad_kernel(xp, x, y, g, ksize, strides, padding, data_format="NDHWC"):
    """TF's CPU MaxPool3DGrad: every valid element within 1e-5 of its window's orig_output gets the gradient."""
    cf, sizes, k, s, pads, osz = window(x.shape, ksize, strides, padding, (), data_format)
    xl, yl, gl = to_last(xp, x, cf), to_last(xp, y, cf), to_last(xp, g, cf)
    psz = tuple(n + lo + hi for n, (lo, hi) in zip(sizes, pads))
    dxp = xp.zeros((x.shape[0],) + psz + (xl.shape[-1],), g.dtype)
    if gl.size:
        xpad, valid = pad_spatial(xp, xl, pads), _valid_mask(sizes, pads)
        tol, zero = np.asarray(1e-5, x.dtype), xp.zeros((), g.dtype)
        for sl in positions(k, s, (1,) * len(k), osz):
            hit = valid[sl] & (xp.abs(xpad[sl] - yl) < tol)
            dxp = _add_at(xp, dxp, sl, xp.where(hit, gl, zero))
    crop = (slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(sizes, pads))
    return from_last(xp, dxp[crop], cf)


def max_grad_grad_kernel(xp, x, y, g, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    """MaxPool{,3D}GradGrad: per window, g at the first valid element (row-major) equal to orig_output, else 0."""
    cf, sizes, k, s, pads, osz = window(x.shape, ksize, strides, padding, explicit_paddings, data_format)
    xl, yl, gl = to_last(xp, x, cf), to_last(xp, y, cf), to_last(xp, g, cf)
    out = xp.zeros(yl.shape, g.dtype)
    if out.size:
        xpad, gpad, valid = pad_spatial(xp, xl, pads), pad_spatial(xp, gl, pads), _valid_mask(sizes, pads)
        found = xp.zeros(yl.shape, bool)
        for sl in positions(k, s, (1,) * len(k), osz):
            hit = (xpad[sl] == yl) & valid[sl] & ~found
            out = xp.where(hit, gpad[sl], out)
            found = found | hit
    return from_last(xp, out, cf)


def _argmax_flat(x, argmax, include_batch_in_index):
    """The argmax indices into x flattened (TF leaves the batch offset out unless include_batch_in_index)."""
    idx = argmax.astype(np.int64)
    if not include_batch_in_index and x.shape[0]:
        n = x.shape[0]
        idx = idx + (np.arange(n, dtype=np.int64) * (x.size // n)).reshape((n,) + (1,) * (idx.ndim - 1))
    return idx.reshape(-1)


def argmax_grad_kernel(xp, x, g, argmax, ksize, strides, padding, include_batch_in_index=False):
    """MaxPoolGradWithArgmax: scatter-add each gradient to the input element its argmax names."""
    idx = _argmax_flat(x, argmax, include_batch_in_index)
    if _is_float(g.dtype):
        flat = np.bincount(idx, weights=g.reshape(-1).astype(np.float64), minlength=x.size).astype(g.dtype)
    else:
        flat = np.zeros(x.size, g.dtype)
        np.add.at(flat, idx, g.reshape(-1))
    return flat.reshape(x.shape)


def jax_argmax_grad(xp, x, g, argmax, ksize, strides, padding, include_batch_in_index=False):
    idx = _argmax_flat(x, argmax, include_batch_in_index)
    return xp.zeros(x.size, g.dtype).at[idx].add(g.reshape(-1)).reshape(x.shape)


def argmax_grad_grad_kernel(xp, x, g, argmax, ksize, strides, padding, include_batch_in_index=False):
    """MaxPoolGradGradWithArgmax: gather g (shaped like the input) at each window's argmax."""
    return xp.take(g.reshape(-1), _argmax_flat(x, argmax, include_batch_in_index)).reshape(argmax.shape)
