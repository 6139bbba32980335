"""The convolution kernels: window geometry, the NumPy engine and the jax lowerings (no ops here).

Filters use TF's layout ``[*spatial, in_channels / groups, out_channels]`` (HWIO).  The
NumPy kernels work channels-last: one BLAS matmul per kernel position on strided views
(no im2col copy), or one im2col matmul when there are few input channels; big ones run as
XLA kernels (nn_conv_xla).  A static rule picks among these per shape, and the autotuner
(nn_conv_autotune) replaces its pick with the measured fastest for hot shapes.  The lowerings
use ``jax.lax.conv_general_dilated``.  The ops themselves are declared in ``nn_conv``; the
geometry helpers are shared with ``nn_pool``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from tensorlet._src.framework import config as _config
from tensorlet._src.framework.dtypes import is_low_float_np
from tensorlet._src.ops import nn_conv_autotune as autotune
from tensorlet._src.ops import nn_conv_lowering as gemm
from tensorlet._src.ops import nn_conv_xla

_IM2COL_BELOW = 8  # channels per group under which one im2col matmul beats per-position matmuls


# --- geometry (shared with nn_pool) ------------------------------------------------------------

def out_size(n, k, s, d, lo, hi):
    """Output length of a window of size ``k`` (dilation ``d``) sliding by ``s`` over ``lo + n + hi``."""
    span = n + lo + hi - ((k - 1) * d + 1)
    return span // s + 1 if span >= 0 else 0


def same_pads(n, k, s, d=1):
    """TF's SAME padding: (before, after), the odd element after."""
    total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def spatial_axes(nd, channels_first):
    return tuple(range(2, 2 + nd)) if channels_first else tuple(range(1, 1 + nd))


def pads_for(padding, explicit_paddings, sizes, ksizes, s, d, channels_first):
    """Per spatial dim (before, after) for SAME / VALID / EXPLICIT."""
    nd = len(sizes)
    if padding == "VALID":
        return ((0, 0),) * nd
    if padding == "SAME":
        return tuple(same_pads(n, k, si, di) for n, k, si, di in zip(sizes, ksizes, s, d))
    return tuple((explicit_paddings[2 * a], explicit_paddings[2 * a + 1]) for a in spatial_axes(nd, channels_first))


def positions(ksizes, s, d, osz):
    """For each kernel position (row-major), the index selecting the inputs it meets: [:, *strided slices]."""
    out = []
    for k in itertools.product(*[range(n) for n in ksizes]):
        out.append((slice(None),) + tuple(slice(ki * di, ki * di + si * (oi - 1) + 1, si)
                                          for ki, si, di, oi in zip(k, s, d, osz)))
    return out


def pad_spatial(xp, x, pads, value=0):
    if not any(lo or hi for lo, hi in pads):
        return x
    return xp.pad(x, ((0, 0),) + tuple(pads) + ((0, 0),), constant_values=value)


def to_last(xp, x, channels_first):
    return xp.moveaxis(x, 1, -1) if channels_first else x


def from_last(xp, x, channels_first):
    if not channels_first:
        return x
    return np.ascontiguousarray(np.moveaxis(x, -1, 1)) if xp is np else xp.moveaxis(x, -1, 1)


def shape_of(x):
    """A tensor's shape as a tuple of ints (None for dims unknown while tracing)."""
    v = getattr(x, "_v", None)
    if v is not None:
        return tuple(np.shape(v))
    return tuple(x.shape.as_list())


def known(*shapes):
    """True when every dim of every shape is known (shape checks are skipped otherwise)."""
    return all(d is not None for sh in shapes for d in sh)


# --- NumPy engine (channels-last: x [N, *S, C], w [*K, C/groups, O]) -------------------------------
# With one group a convolution (and each of its two backprops) has several formulations that compute the same
# sums in different orders: XLA's compiled kernels (nn_conv_xla), one im2col GEMM over prod(ks) * c patch columns,
# or one GEMM per kernel position on strided views.  ``_pick`` runs the static rule's choice, or, for convolutions
# big enough to be worth measuring, what the autotuner (nn_conv_autotune) measured fastest for the key.

TUNE_MIN_MACS = 250_000  # smaller convolutions keep the static rule (their trials could not pay for themselves)
IM2COL_LIMIT = 1 << 23  # patch-matrix elements an im2col candidate may allocate (32 MiB of float32)
_TUNED = (np.dtype(np.float32), np.dtype(np.float64))


def _big(x_shape, dtype, ks, s, d, pads, c, o_ch, groups, im2col=False):
    """Whether the static rule runs the convolution as a compiled XLA kernel (nn_conv_xla) rather than on NumPy.

    ``im2col``: the NumPy kernel has a one-GEMM path over ``prod(ks) * c`` patch columns (forward, dx).
    """
    osz = [out_size(n, k, si, di, lo, hi) for n, k, si, di, (lo, hi) in zip(x_shape[1:-1], ks, s, d, pads)]
    return min(osz, default=1) > 0 and nn_conv_xla.eligible(dtype, x_shape[0] * math.prod(osz), ks, c, o_ch, groups,
                                                            im2col)


def _pick(kind, default, cands, key, patch, o_ch, dtype, *args):
    """Run ``cands[default]``, or the tuned choice among the applicable candidates when the key is worth tuning.

    ``patch``: the elements of the im2col patch matrix (output rows x kernel positions x input channels; times
    ``o_ch`` output channels, the multiply-adds).  ``cands``: name -> function, XLA ones named ``xla*`` and im2col
    ones ``im2col*`` (offered to the tuner when big enough for XLA's dispatch, resp. when the patch matrix is small
    enough).  Under ``tf.config.experimental.enable_op_determinism`` the static rule decides, as with the tuner off.
    """
    macs = patch * o_ch
    tuner = autotune.TUNER
    if not tuner.enabled or macs < TUNE_MIN_MACS or dtype not in _TUNED or _config.op_determinism_enabled():
        return cands[default](*args)  # (determinism: a timing-dependent choice would differ from run to run)
    xla_ok, cols_ok = macs * 4 >= nn_conv_xla.MIN_MACS, patch <= IM2COL_LIMIT
    ok = {n: f for n, f in cands.items()
          if n == default or ((xla_ok or not n.startswith("xla")) and (cols_ok or not n.startswith("im2col")))}
    return tuner.run((kind, default) + key, default, ok, *args)


def _key(a, b, s, d, pads):
    """What a tuning key holds beyond the kind: shapes, dtype, memory layout (a channels-first view), geometry."""
    return (a.shape, b.shape, a.dtype.char, a.flags.c_contiguous, b.flags.c_contiguous, s, d, pads)


def _cols(x, pos, lead, c):
    """The im2col patch matrix [*lead, kernel positions, c] of the padded input."""
    cols = np.empty(lead + (len(pos), c), x.dtype)
    for i, sl in enumerate(pos):
        cols[..., i, :] = x[sl]
    return cols


def _fwd_geom(x, w, s, d, pads):
    nd = len(s)
    x = pad_spatial(np, x, pads)
    osz = tuple(out_size(x.shape[1 + i], w.shape[i], s[i], d[i], 0, 0) for i in range(nd))
    return x, osz, positions(w.shape[:nd], s, d, osz)


def _fwd_im2col(x, w, s, d, pads):
    x, osz, pos = _fwd_geom(x, w, s, d, pads)
    kc, o_ch = len(pos) * x.shape[-1], w.shape[-1]
    cols = _cols(x, pos, (x.shape[0],) + osz, x.shape[-1])
    # batched (rows of the last spatial dim) rather than one tall matmul: BLAS threading stays sane
    return (cols.reshape(-1, osz[-1], kc) @ w.reshape(kc, o_ch)).reshape((x.shape[0],) + osz + (o_ch,))


def _fwd_positions(x, w, s, d, pads):
    x, _, pos = _fwd_geom(x, w, s, d, pads)
    wk = w.reshape(len(pos), x.shape[-1], w.shape[-1])
    out = np.matmul(x[pos[0]], wk[0])
    for i in range(1, len(pos)):
        out += np.matmul(x[pos[i]], wk[i])
    return out


_FWD = {"xla": nn_conv_xla.conv, "im2col": _fwd_im2col, "positions": _fwd_positions}


def _np_conv(x, w, s, d, pads, groups):
    nd = len(s)
    ks, cg, o_ch = w.shape[:nd], w.shape[-2], w.shape[-1]
    c = x.shape[-1]
    osz = tuple(out_size(x.shape[1 + i], ks[i], s[i], d[i], *pads[i]) for i in range(nd))
    out_shape = (x.shape[0],) + osz + (o_ch,)
    if 0 in out_shape or c == 0 or 0 in ks:
        return np.zeros(out_shape, x.dtype)
    if groups == 1:
        rows = x.shape[0] * math.prod(osz)
        default = "xla" if _big(x.shape, x.dtype, ks, s, d, pads, c, o_ch, 1, im2col=True) else \
            "im2col" if c < _IM2COL_BELOW else "positions"
        return _pick("fwd", default, _FWD, _key(x, w, s, d, pads), rows * math.prod(ks) * c, o_ch, x.dtype,
                     x, w, s, d, pads)
    x = pad_spatial(np, x, pads)
    pos = positions(ks, s, d, osz)
    nk = len(pos)
    if cg == 1:  # depthwise: out[..., c, m] = sum_k x[..., c] * w[k, c, m]
        wk = w.reshape(nk, c, o_ch // c)
        out = x[pos[0]][..., None] * wk[0]
        for i in range(1, nk):
            out += x[pos[i]][..., None] * wk[i]
        return out.reshape(out_shape)
    og, zero = o_ch // groups, ((0, 0),) * nd
    return np.concatenate([_np_conv(x[..., g * cg:(g + 1) * cg], w[..., g * og:(g + 1) * og], s, d, zero, 1)
                           for g in range(groups)], axis=-1)


def _dx_geom(dy, c, in_sizes, pads):
    """The zero padded input gradient and the crop back to the input."""
    psz = tuple(n + lo + hi for n, (lo, hi) in zip(in_sizes, pads))
    crop = (slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(in_sizes, pads)) + (slice(None),)
    return np.zeros((dy.shape[0],) + psz + (c,), dy.dtype), crop


def _dx_im2col(dy, w, in_sizes, s, d, pads):
    """One GEMM into patch columns, then col2im."""
    dxp, crop = _dx_geom(dy, w.shape[-2], in_sizes, pads)
    pos = positions(w.shape[:len(s)], s, d, dy.shape[1:-1])
    c, o_ch = w.shape[-2:]
    cols = (dy.reshape(-1, dy.shape[-2], o_ch) @ w.reshape(len(pos) * c, o_ch).T).reshape(dy.shape[:-1]
                                                                                        + (len(pos), c))
    for i, sl in enumerate(pos):
        dxp[sl] += cols[..., i, :]
    return dxp[crop]


def _dx_positions(dy, w, in_sizes, s, d, pads):
    dxp, crop = _dx_geom(dy, w.shape[-2], in_sizes, pads)
    pos = positions(w.shape[:len(s)], s, d, dy.shape[1:-1])
    c, o_ch = w.shape[-2:]
    wk = np.ascontiguousarray(np.swapaxes(w.reshape(len(pos), c, o_ch), 1, 2))
    for i, sl in enumerate(pos):
        dxp[sl] += dy @ wk[i]
    return dxp[crop]


_DX = {"xla": nn_conv_xla.conv_input, "im2col": _dx_im2col, "positions": _dx_positions}


def _np_conv_input(dy, w, in_sizes, s, d, pads, groups):
    """Gradient of the convolution with respect to its input (= the transposed convolution)."""
    nd = len(s)
    ks, cg, o_ch = w.shape[:nd], w.shape[-2], w.shape[-1]
    c = cg * groups
    in_sizes = tuple(in_sizes)
    if groups > 1 and cg > 1:
        og = o_ch // groups
        return np.concatenate([_np_conv_input(dy[..., g * og:(g + 1) * og], w[..., g * og:(g + 1) * og],
                                              in_sizes, s, d, pads, 1) for g in range(groups)], axis=-1)
    if not (dy.size and c and 0 not in ks):
        return np.zeros((dy.shape[0],) + in_sizes + (c,), dy.dtype)
    if groups == 1:
        rows = dy.size // o_ch
        default = "xla" if _big((dy.shape[0],) + in_sizes + (c,), dy.dtype, ks, s, d, pads, c, o_ch, 1,
                                im2col=True) else "im2col" if min(o_ch, c) < _IM2COL_BELOW else "positions"
        return _pick("dx", default, _DX, _key(dy, w, s, d, pads) + (in_sizes,), rows * math.prod(ks) * c, o_ch,
                     dy.dtype, dy, w, in_sizes, s, d, pads)
    dxp, crop = _dx_geom(dy, c, in_sizes, pads)  # depthwise
    pos = positions(ks, s, d, dy.shape[1:-1])
    m = o_ch // c
    wk = w.reshape(len(pos), c, m)
    dy5 = dy.reshape(dy.shape[:-1] + (c, m))
    for i, sl in enumerate(pos):
        dxp[sl] += (dy5 * wk[i]).sum(-1) if m > 1 else dy5[..., 0] * wk[i, :, 0]
    return dxp[crop]


def _dw_im2col(x, dy, kshape, s, d, pads):
    """Per-example im2col GEMMs summed over the batch (one tall matmul threads badly in OpenBLAS)."""
    x = pad_spatial(np, x, pads)
    pos = positions(kshape[:len(s)], s, d, dy.shape[1:-1])
    n, c = x.shape[0], x.shape[-1]
    cols = _cols(x, pos, dy.shape[:-1], c)
    return (np.swapaxes(cols.reshape(n, -1, len(pos) * c), 1, 2) @ dy.reshape(n, -1, dy.shape[-1])).sum(0) \
        .reshape(kshape)


def _dw_positions(x, dy, kshape, s, d, pads):
    x = pad_spatial(np, x, pads)
    n, c = x.shape[0], x.shape[-1]
    dy3 = dy.reshape(n, -1, dy.shape[-1])
    return np.stack([(np.swapaxes(x[sl].reshape(n, -1, c), 1, 2) @ dy3).sum(0)
                     for sl in positions(kshape[:len(s)], s, d, dy.shape[1:-1])]).reshape(kshape)


def _dw_xla(by_conv):
    return lambda x, dy, kshape, s, d, pads: nn_conv_xla.conv_filter(x, dy, kshape[:len(s)], s, d, pads, by_conv)


_DW = {"xla_gemm": _dw_xla(False), "xla_by_conv": _dw_xla(True), "im2col": _dw_im2col, "positions": _dw_positions}


def _np_conv_filter(x, dy, kshape, s, d, pads, groups):
    """Gradient of the convolution with respect to its filter."""
    nd = len(s)
    ks, cg, o_ch = tuple(kshape[:nd]), kshape[-2], kshape[-1]
    kshape = tuple(kshape)
    if groups > 1 and cg > 1:
        og = o_ch // groups
        return np.concatenate([_np_conv_filter(x[..., g * cg:(g + 1) * cg], dy[..., g * og:(g + 1) * og],
                                               ks + (cg, og), s, d, pads, 1) for g in range(groups)], axis=-1)
    c = x.shape[-1]
    if dy.size == 0 or x.size == 0 or 0 in ks:
        return np.zeros(kshape, dy.dtype)
    if groups == 1:
        rows = dy.size // o_ch
        default = ("xla_by_conv" if c < nn_conv_xla.FILTER_CONV_BELOW else "xla_gemm") \
            if _big(x.shape, x.dtype, ks, s, d, pads, c, o_ch, 1) else "im2col" if c < _IM2COL_BELOW else "positions"
        return _pick("dw", default, _DW, _key(x, dy, s, d, pads) + (ks,), rows * math.prod(ks) * c, o_ch,
                     x.dtype, x, dy, kshape, s, d, pads)
    x = pad_spatial(np, x, pads)  # depthwise
    dy3 = dy.reshape(-1, c, o_ch // c)
    return np.stack([np.einsum("nc,ncm->cm", x[sl].reshape(-1, c), dy3)
                     for sl in positions(ks, s, d, dy.shape[1:-1])]).reshape(kshape)


def _low_precision(fn):
    """Run a NumPy kernel in float32 for float16/bfloat16 (no BLAS for them) and cast back."""
    def run(*arrays, **kw):
        dt = arrays[0].dtype
        if is_low_float_np(dt):
            return fn(*[a.astype(np.float32) for a in arrays], **kw).astype(dt)
        return fn(*arrays, **kw)
    return run


_conv_np = _low_precision(_np_conv)
_conv_input_np = _low_precision(_np_conv_input)
_conv_filter_np = _low_precision(_np_conv_filter)


# --- attrs -> geometry -----------------------------------------------------------------------

def geom(x_shape, k_sizes, strides, padding, explicit_paddings, data_format, dilations):
    nd = len(k_sizes)
    cf = data_format.startswith("NC")
    ax = spatial_axes(nd, cf)
    sizes = tuple(x_shape[a] for a in ax)
    s = tuple(strides[a] for a in ax)
    d = tuple(dilations[a] for a in ax) if dilations else (1,) * nd
    return cf, sizes, s, d, pads_for(padding, explicit_paddings, sizes, k_sizes, s, d, cf)


def window_out_dims(x_dims, k_sizes, channels, strides, padding, explicit_paddings, data_format, dilations):
    """Static output dims of a window (convolution or pooling) over ``x_dims``' spatial dims: None where an input
    or window size is unknown; the channel dim becomes ``channels``.  What tracing records as the op's shape."""
    nd = len(k_sizes)
    filled = tuple(1 if n is None else n for n in x_dims)
    ks = tuple(1 if k is None else k for k in k_sizes)
    cf, _, s, d, pads = geom(filled, ks, strides, padding, explicit_paddings, data_format, dilations)
    out = list(x_dims)
    for i, a in enumerate(spatial_axes(nd, cf)):
        known_i = x_dims[a] is not None and k_sizes[i] is not None
        out[a] = out_size(x_dims[a], ks[i], s[i], d[i], *pads[i]) if known_i else None
    out[1 if cf else nd + 1] = channels
    return out


def conv_kernel(xp, x, w, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=None):
    nd = w.ndim - 2
    cf, _, s, d, pads = geom(x.shape, w.shape[:nd], strides, padding, explicit_paddings, data_format, dilations)
    xl = to_last(np, x, cf)
    return from_last(np, _conv_np(xl, w, s=s, d=d, pads=pads, groups=xl.shape[-1] // w.shape[-2]), cf)


def conv_input_kernel(xp, w, dy, input_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                       dilations=None):
    nd = w.ndim - 2
    cf, sizes, s, d, pads = geom(input_sizes, w.shape[:nd], strides, padding, explicit_paddings, data_format,
                                  dilations)
    c = input_sizes[1 if cf else -1]
    out = _conv_input_np(to_last(np, dy, cf), w, in_sizes=sizes, s=s, d=d, pads=pads, groups=c // w.shape[-2])
    return from_last(np, out, cf)


def conv_filter_kernel(xp, x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                        dilations=None):
    nd = len(filter_sizes) - 2
    cf, _, s, d, pads = geom(x.shape, filter_sizes[:nd], strides, padding, explicit_paddings, data_format,
                              dilations)
    xl = to_last(np, x, cf)
    return _conv_filter_np(xl, to_last(np, dy, cf), kshape=tuple(filter_sizes), s=s, d=d, pads=pads,
                           groups=xl.shape[-1] // filter_sizes[-2])


# --- JAX lowerings ---------------------------------------------------------------------------

def jit_lowering(kernel):
    """Wrap a multi-op lowering in jax.jit per attr set: one XLA computation when run eagerly (inlined under jit).
    Keyed on the loop state too: jit reuses its trace for equal arguments, and a loop body's convolutions take
    the GEMM form (:func:`nn_conv_lowering.chosen`) where a straight-line program's take XLA's."""
    cache = {}

    def lowering(xp, *arrays, **attrs):
        if xp is np:
            return kernel(xp, *arrays, **attrs)
        key = (gemm.in_loop_body(), *sorted(attrs.items()))
        f = cache.get(key)
        if f is None:
            import jax

            f = cache[key] = jax.jit(lambda *a: kernel(xp, *a, **attrs))
        return f(*arrays)

    lowering.__wrapped__ = kernel
    return lowering


_SPECS = {1: "W", 2: "HW", 3: "DHW"}


def _dn(nd, cf):
    sp = _SPECS[nd]
    lhs = "NC" + sp if cf else "N" + sp + "C"
    return lhs, sp + "IO", lhs


def jax_conv(xp, x, w, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=None):
    from jax import lax

    nd = w.ndim - 2
    cf, _, s, d, pads = geom(x.shape, w.shape[:nd], strides, padding, explicit_paddings, data_format, dilations)
    groups = x.shape[1 if cf else -1] // w.shape[-2]
    osz = tuple(out_size(x.shape[a], k, si, di, *p) for a, k, si, di, p in zip(spatial_axes(nd, cf), w.shape[:nd], s,
                                                                                d, pads))
    if gemm.chosen(nd, cf, groups, x.dtype, x.shape[0], osz, w.shape[:nd], w.shape[-2], w.shape[-1]):
        return gemm.conv(x, w, s, d, pads, osz)
    return lax.conv_general_dilated(x, w, s, pads, rhs_dilation=d, dimension_numbers=_dn(nd, cf),
                                    feature_group_count=groups)


def jax_conv_input(xp, w, dy, input_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                    dilations=None):
    from jax import lax

    nd = w.ndim - 2
    ks, cg, o_ch = w.shape[:nd], w.shape[-2], w.shape[-1]
    cf, sizes, s, d, pads = geom(input_sizes, ks, strides, padding, explicit_paddings, data_format, dilations)
    groups = input_sizes[1 if cf else -1] // cg
    osz = tuple(dy.shape[a] for a in spatial_axes(nd, cf))
    if gemm.chosen(nd, cf, groups, dy.dtype, dy.shape[0], osz, ks, cg, o_ch):
        return gemm.conv_input(w, dy, tuple(input_sizes), s, d, pads)
    # dx = correlation of the stride-dilated dy with the flipped filter, in/out channels swapped per group.
    wt = xp.flip(w, axis=tuple(range(nd))).reshape(ks + (cg, groups, o_ch // groups))
    wt = xp.transpose(wt, tuple(range(nd)) + (nd + 2, nd + 1, nd)).reshape(ks + (o_ch // groups, groups * cg))
    padding = [((k - 1) * di - lo, n + lo - (o - 1) * si - 1)
               for k, di, si, (lo, _), n, o in zip(ks, d, s, pads, sizes, osz)]
    return lax.conv_general_dilated(dy, wt, (1,) * nd, padding, lhs_dilation=s, rhs_dilation=d,
                                    dimension_numbers=_dn(nd, cf), feature_group_count=groups)


def jax_conv_filter(xp, x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                     dilations=None):
    import jax

    nd = len(filter_sizes) - 2
    ks = tuple(filter_sizes[:nd])
    cf, _, s, d, pads = geom(x.shape, ks, strides, padding, explicit_paddings, data_format, dilations)
    groups = x.shape[1 if cf else -1] // filter_sizes[-2]
    osz = tuple(dy.shape[a] for a in spatial_axes(nd, cf))
    if gemm.chosen(nd, cf, groups, x.dtype, x.shape[0], osz, ks, filter_sizes[-2], filter_sizes[-1]):
        return gemm.conv_filter(x, dy, ks, s, d, pads)
    spec = jax.ShapeDtypeStruct(tuple(filter_sizes), x.dtype)
    attrs = dict(strides=strides, padding=padding, explicit_paddings=explicit_paddings, data_format=data_format,
                 dilations=dilations)
    return jax.linear_transpose(lambda w: jax_conv(xp, x, w, **attrs), spec)(dy)[0]


# Depthwise: a grouped convolution with one input channel per group; filter [H, W, C, M] -> [H, W, 1, C*M].

def _dw(w):
    return w.reshape(w.shape[:-2] + (1, w.shape[-2] * w.shape[-1]))


def dw_kernel(xp, x, w, **attrs):
    return conv_kernel(xp, x, _dw(w), **attrs)


def jax_dw(xp, x, w, **attrs):
    return jax_conv(xp, x, _dw(w), **attrs)


def dw_input_kernel(xp, w, dy, **attrs):
    return conv_input_kernel(xp, _dw(w), dy, **attrs)


def jax_dw_input(xp, w, dy, **attrs):
    return jax_conv_input(xp, _dw(w), dy, **attrs)


def dw_filter_kernel(xp, x, dy, filter_sizes, **attrs):
    fs = tuple(filter_sizes)
    return conv_filter_kernel(xp, x, dy, fs[:-2] + (1, fs[-2] * fs[-1]), **attrs).reshape(fs)


def jax_dw_filter(xp, x, dy, filter_sizes, **attrs):
    fs = tuple(filter_sizes)
    return jax_conv_filter(xp, x, dy, fs[:-2] + (1, fs[-2] * fs[-1]), **attrs).reshape(fs)
