"""Convolutions: ``tf.nn.conv1d/2d/3d``, ``convolution``, the transposed convolutions, depthwise and separable.

Filters use TF's layout ``[*spatial, in_channels / groups, out_channels]`` (HWIO).  The
primitives are TF's ops (``Conv2D``, ``Conv3D``, ``DepthwiseConv2dNative`` and their
``Backprop{Input,Filter}`` ops, which are also the transposed convolutions and the
gradients).  Their attrs mirror TF's: full-rank ``strides``/``dilations``, ``padding`` of
``"SAME"``, ``"VALID"`` or ``"EXPLICIT"`` with ``explicit_paddings``, and ``data_format``;
``input_sizes``/``filter_sizes`` (tensors in TF) are static attrs here.

The NumPy kernels work channels-last: one BLAS matmul per kernel position on strided
views (no im2col copy), or one im2col matmul when there are few input channels.  The
lowerings use ``jax.lax.conv_general_dilated``.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.ops._helpers import same_dtype, static, t
from tensorlet._src.ops.registry import bind, defop, tf_export

D = _dt
CONV_TYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.int32)
FLOAT_TYPES = (D.float16, D.bfloat16, D.float32, D.float64)
_LOW = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
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

def _np_conv(x, w, s, d, pads, groups):
    nd = len(s)
    x = pad_spatial(np, x, pads)
    ks, cg, o_ch = w.shape[:nd], w.shape[-2], w.shape[-1]
    c = x.shape[-1]
    osz = tuple(out_size(x.shape[1 + i], ks[i], s[i], d[i], 0, 0) for i in range(nd))
    out_shape = (x.shape[0],) + osz + (o_ch,)
    if 0 in out_shape or c == 0 or 0 in ks:
        return np.zeros(out_shape, x.dtype)
    pos = positions(ks, s, d, osz)
    nk = len(pos)
    if groups == 1:
        if c < _IM2COL_BELOW:
            cols = np.empty(out_shape[:-1] + (nk, c), x.dtype)
            for i, sl in enumerate(pos):
                cols[..., i, :] = x[sl]
            # batched (rows of the last spatial dim) rather than one tall matmul: BLAS threading stays sane
            return (cols.reshape(-1, osz[-1], nk * c) @ w.reshape(nk * c, o_ch)).reshape(out_shape)
        wk = w.reshape(nk, c, o_ch)
        out = np.matmul(x[pos[0]], wk[0])
        for i in range(1, nk):
            out += np.matmul(x[pos[i]], wk[i])
        return out
    if cg == 1:  # depthwise: out[..., c, m] = sum_k x[..., c] * w[k, c, m]
        wk = w.reshape(nk, c, o_ch // c)
        out = x[pos[0]][..., None] * wk[0]
        for i in range(1, nk):
            out += x[pos[i]][..., None] * wk[i]
        return out.reshape(out_shape)
    og, zero = o_ch // groups, ((0, 0),) * nd
    return np.concatenate([_np_conv(x[..., g * cg:(g + 1) * cg], w[..., g * og:(g + 1) * og], s, d, zero, 1)
                           for g in range(groups)], axis=-1)


def _np_conv_input(dy, w, in_sizes, s, d, pads, groups):
    """Gradient of the convolution with respect to its input (= the transposed convolution)."""
    nd = len(s)
    ks, cg, o_ch = w.shape[:nd], w.shape[-2], w.shape[-1]
    c = cg * groups
    if groups > 1 and cg > 1:
        og = o_ch // groups
        return np.concatenate([_np_conv_input(dy[..., g * og:(g + 1) * og], w[..., g * og:(g + 1) * og],
                                              in_sizes, s, d, pads, 1) for g in range(groups)], axis=-1)
    psz = tuple(n + lo + hi for n, (lo, hi) in zip(in_sizes, pads))
    dxp = np.zeros((dy.shape[0],) + psz + (c,), dy.dtype)
    osz = dy.shape[1:-1]
    if dy.size and c and 0 not in ks:
        pos = positions(ks, s, d, osz)
        nk = len(pos)
        if groups == 1 and o_ch < _IM2COL_BELOW:
            cols = (dy.reshape(-1, osz[-1], o_ch) @ w.reshape(nk * c, o_ch).T).reshape(dy.shape[:-1] + (nk, c))
            for i, sl in enumerate(pos):
                dxp[sl] += cols[..., i, :]
        elif groups == 1:
            wk = np.ascontiguousarray(np.swapaxes(w.reshape(nk, c, o_ch), 1, 2))
            for i, sl in enumerate(pos):
                dxp[sl] += dy @ wk[i]
        else:
            m = o_ch // c
            wk = w.reshape(nk, c, m)
            dy5 = dy.reshape(dy.shape[:-1] + (c, m))
            for i, sl in enumerate(pos):
                dxp[sl] += (dy5 * wk[i]).sum(-1) if m > 1 else dy5[..., 0] * wk[i, :, 0]
    crop = (slice(None),) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(in_sizes, pads)) + (slice(None),)
    return dxp[crop]


def _np_conv_filter(x, dy, kshape, s, d, pads, groups):
    """Gradient of the convolution with respect to its filter."""
    nd = len(s)
    ks, cg, o_ch = tuple(kshape[:nd]), kshape[-2], kshape[-1]
    if groups > 1 and cg > 1:
        og = o_ch // groups
        return np.concatenate([_np_conv_filter(x[..., g * cg:(g + 1) * cg], dy[..., g * og:(g + 1) * og],
                                               ks + (cg, og), s, d, pads, 1) for g in range(groups)], axis=-1)
    x = pad_spatial(np, x, pads)
    c = x.shape[-1]
    if dy.size == 0 or x.size == 0 or 0 in ks:
        return np.zeros(kshape, dy.dtype)
    pos = positions(ks, s, d, dy.shape[1:-1])
    nk = len(pos)
    if groups == 1:  # per-example matmuls summed over the batch (one tall matmul threads badly in OpenBLAS)
        n = x.shape[0]
        dy3 = dy.reshape(n, -1, o_ch)
        if c < _IM2COL_BELOW:
            cols = np.empty(dy.shape[:-1] + (nk, c), x.dtype)
            for i, sl in enumerate(pos):
                cols[..., i, :] = x[sl]
            return (np.swapaxes(cols.reshape(n, -1, nk * c), 1, 2) @ dy3).sum(0).reshape(kshape)
        return np.stack([(np.swapaxes(x[sl].reshape(n, -1, c), 1, 2) @ dy3).sum(0) for sl in pos]).reshape(kshape)
    dy3 = dy.reshape(-1, c, o_ch // c)
    return np.stack([np.einsum("nc,ncm->cm", x[sl].reshape(-1, c), dy3) for sl in pos]).reshape(kshape)


def _low_precision(fn):
    """Run a NumPy kernel in float32 for float16/bfloat16 (no BLAS for them) and cast back."""
    def run(*arrays, **kw):
        dt = arrays[0].dtype
        if dt in _LOW:
            return fn(*[a.astype(np.float32) for a in arrays], **kw).astype(dt)
        return fn(*arrays, **kw)
    return run


_conv_np = _low_precision(_np_conv)
_conv_input_np = _low_precision(_np_conv_input)
_conv_filter_np = _low_precision(_np_conv_filter)


# --- attrs -> geometry -----------------------------------------------------------------------

def _geom(x_shape, k_sizes, strides, padding, explicit_paddings, data_format, dilations):
    nd = len(k_sizes)
    cf = data_format.startswith("NC")
    ax = spatial_axes(nd, cf)
    sizes = tuple(x_shape[a] for a in ax)
    s = tuple(strides[a] for a in ax)
    d = tuple(dilations[a] for a in ax) if dilations else (1,) * nd
    return cf, sizes, s, d, pads_for(padding, explicit_paddings, sizes, k_sizes, s, d, cf)


def _conv_kernel(xp, x, w, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=None):
    nd = w.ndim - 2
    cf, _, s, d, pads = _geom(x.shape, w.shape[:nd], strides, padding, explicit_paddings, data_format, dilations)
    xl = to_last(np, x, cf)
    return from_last(np, _conv_np(xl, w, s=s, d=d, pads=pads, groups=xl.shape[-1] // w.shape[-2]), cf)


def _conv_input_kernel(xp, w, dy, input_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                       dilations=None):
    nd = w.ndim - 2
    cf, sizes, s, d, pads = _geom(input_sizes, w.shape[:nd], strides, padding, explicit_paddings, data_format,
                                  dilations)
    c = input_sizes[1 if cf else -1]
    out = _conv_input_np(to_last(np, dy, cf), w, in_sizes=sizes, s=s, d=d, pads=pads, groups=c // w.shape[-2])
    return from_last(np, out, cf)


def _conv_filter_kernel(xp, x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                        dilations=None):
    nd = len(filter_sizes) - 2
    cf, _, s, d, pads = _geom(x.shape, filter_sizes[:nd], strides, padding, explicit_paddings, data_format,
                              dilations)
    xl = to_last(np, x, cf)
    return _conv_filter_np(xl, to_last(np, dy, cf), kshape=tuple(filter_sizes), s=s, d=d, pads=pads,
                           groups=xl.shape[-1] // filter_sizes[-2])


# --- JAX lowerings ---------------------------------------------------------------------------

def jit_lowering(kernel):
    """Wrap a multi-op lowering in jax.jit per attr set: one XLA computation when run eagerly (inlined under jit)."""
    cache = {}

    def lowering(xp, *arrays, **attrs):
        if xp is np:
            return kernel(xp, *arrays, **attrs)
        key = tuple(sorted(attrs.items()))
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


def _jax_conv(xp, x, w, strides, padding, explicit_paddings=(), data_format="NHWC", dilations=None):
    from jax import lax

    nd = w.ndim - 2
    cf, _, s, d, pads = _geom(x.shape, w.shape[:nd], strides, padding, explicit_paddings, data_format, dilations)
    groups = x.shape[1 if cf else -1] // w.shape[-2]
    return lax.conv_general_dilated(x, w, s, pads, rhs_dilation=d, dimension_numbers=_dn(nd, cf),
                                    feature_group_count=groups)


def _jax_conv_input(xp, w, dy, input_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                    dilations=None):
    from jax import lax

    nd = w.ndim - 2
    ks, cg, o_ch = w.shape[:nd], w.shape[-2], w.shape[-1]
    cf, sizes, s, d, pads = _geom(input_sizes, ks, strides, padding, explicit_paddings, data_format, dilations)
    groups = input_sizes[1 if cf else -1] // cg
    osz = tuple(dy.shape[a] for a in spatial_axes(nd, cf))
    # dx = correlation of the stride-dilated dy with the flipped filter, in/out channels swapped per group.
    wt = xp.flip(w, axis=tuple(range(nd))).reshape(ks + (cg, groups, o_ch // groups))
    wt = xp.transpose(wt, tuple(range(nd)) + (nd + 2, nd + 1, nd)).reshape(ks + (o_ch // groups, groups * cg))
    padding = [((k - 1) * di - lo, n + lo - (o - 1) * si - 1)
               for k, di, si, (lo, _), n, o in zip(ks, d, s, pads, sizes, osz)]
    return lax.conv_general_dilated(dy, wt, (1,) * nd, padding, lhs_dilation=s, rhs_dilation=d,
                                    dimension_numbers=_dn(nd, cf), feature_group_count=groups)


def _jax_conv_filter(xp, x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format="NHWC",
                     dilations=None):
    import jax

    spec = jax.ShapeDtypeStruct(tuple(filter_sizes), x.dtype)
    attrs = dict(strides=strides, padding=padding, explicit_paddings=explicit_paddings, data_format=data_format,
                 dilations=dilations)
    return jax.linear_transpose(lambda w: _jax_conv(xp, x, w, **attrs), spec)(dy)[0]


# Depthwise: a grouped convolution with one input channel per group; filter [H, W, C, M] -> [H, W, 1, C*M].

def _dw(w):
    return w.reshape(w.shape[:-2] + (1, w.shape[-2] * w.shape[-1]))


def _dw_kernel(xp, x, w, **attrs):
    return _conv_kernel(xp, x, _dw(w), **attrs)


def _jax_dw(xp, x, w, **attrs):
    return _jax_conv(xp, x, _dw(w), **attrs)


def _dw_input_kernel(xp, w, dy, **attrs):
    return _conv_input_kernel(xp, _dw(w), dy, **attrs)


def _jax_dw_input(xp, w, dy, **attrs):
    return _jax_conv_input(xp, _dw(w), dy, **attrs)


def _dw_filter_kernel(xp, x, dy, filter_sizes, **attrs):
    fs = tuple(filter_sizes)
    return _conv_filter_kernel(xp, x, dy, fs[:-2] + (1, fs[-2] * fs[-1]), **attrs).reshape(fs)


def _jax_dw_filter(xp, x, dy, filter_sizes, **attrs):
    fs = tuple(filter_sizes)
    return _jax_conv_filter(xp, x, dy, fs[:-2] + (1, fs[-2] * fs[-1]), **attrs).reshape(fs)


# --- checks (TF's errors) --------------------------------------------------------------------

def _bad_attr(op, attr, value, allowed):
    listed = ", ".join(f'"{a}"' for a in allowed)
    return errors.invalid_argument(op, f'Value for attr \'{attr}\' of "{value}" is not in the list of allowed '
                                       f"values: {listed}")


def check_attrs(op, nd, strides, padding, explicit_paddings, data_format, dilations, formats, paddings,
                what="strides"):
    """Validate TF's window attrs (shared with pooling); ``what`` names the stride-like attr."""
    if padding not in paddings:
        raise _bad_attr(op, "padding", padding, paddings)
    if data_format not in formats:
        raise _bad_attr(op, "data_format", data_format, formats)
    n = nd + 2
    cf = data_format.startswith("NC")
    c_ax = 1 if cf else n - 1
    for name, v in ((what, strides), ("dilations", dilations)):
        if v is None:
            continue
        if len(v) != n:
            raise errors.invalid_argument(op, f"Sliding window {name} field must specify {n} dimensions")
        if v[0] != 1 or v[c_ax] != 1:
            kind = "strides" if name == what else "dilations"
            raise errors.op_error(errors.UnimplementedError, op, f"Current implementation does not yet support "
                                                                 f"{kind} in the batch and depth dimensions.")
        if any(v[a] <= 0 for a in spatial_axes(nd, cf)):
            msg = "Row and column strides should be larger than 0." if name == what else \
                "Dilated rates should be larger than 0."
            raise errors.invalid_argument(op, msg)
    if padding == "EXPLICIT":
        ep = explicit_paddings
        if len(ep) != 2 * n:
            raise errors.invalid_argument(op, f"explicit_paddings attribute must contain {2 * n} values, but "
                                              f"got: {len(ep)}")
        if any(p < 0 for p in ep):
            raise errors.invalid_argument(op, "All elements of explicit_paddings must be nonnegative")
        if ep[0] or ep[1] or ep[2 * c_ax] or ep[2 * c_ax + 1]:
            raise errors.invalid_argument(op, "Nonzero explicit padding in the batch or depth dimensions is not "
                                              "supported")


_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
_PAD2 = ("SAME", "VALID", "EXPLICIT")
_PAD3 = ("SAME", "VALID")


def _rank_error(op, nd, what, shape):
    n = nd + 2
    if nd == 2:
        return errors.invalid_argument(op, f"convolution {what} must be {n}-dimensional: {errors.shape_str(shape)}")
    return errors.invalid_argument(op, f"{what} must be {n}-dimensional: {errors.shape_str(shape)}")


def _channels(op, data_format, x_shape, k_shape, depthwise=False):
    cf = data_format.startswith("NC")
    c = x_shape[1 if cf else -1]
    ci, co = k_shape[-2], k_shape[-1]
    if None in (c, ci, co):
        return
    if depthwise:
        if c != ci:
            raise errors.invalid_argument(op, f"input and filter must have the same depth: {c} vs {ci}")
        return
    word = "Input" if op.startswith("Conv3D") else "input"
    if ci == 0 or c % ci:
        raise errors.invalid_argument(op, f"{word} depth must be evenly divisible by filter depth: {c} vs {ci}")
    groups = c // ci
    if co % groups:
        raise errors.invalid_argument(op, f"output depth must be evenly divisible by number of groups: "
                                          f"{co} vs {groups}")


def _conv_check(op, nd, depthwise=False):
    pads = _PAD2 if nd == 2 else _PAD3

    def check(x, w, strides, padding, explicit_paddings=(), data_format=None, dilations=None):
        xs, ws = shape_of(x), shape_of(w)
        if len(xs) != nd + 2:
            raise _rank_error(op, nd, "input", xs)
        if len(ws) != nd + 2:
            raise _rank_error(op, nd, "filter", ws)
        check_attrs(op, nd, strides, padding, explicit_paddings, data_format, dilations, _FORMATS[nd], pads)
        _channels(op, data_format, xs, ws, depthwise)
    return check


def _mismatch(op, prefix, dim, actual, computed, n, k, o, s, d):
    return errors.invalid_argument(op, f"{prefix}Size of out_backprop doesn't match computed: actual = {actual}, "
                                       f"computed = {computed} spatial_dim: {dim} input: {n} filter: {k} "
                                       f"output: {o} stride: {s} dilation: {d}")


def _check_backprop(op, prefix, nd, x_shape, k_shape, dy_shape, strides, padding, explicit_paddings, data_format,
                    dilations, depthwise):
    pads = _PAD2 if nd == 2 else _PAD3
    if len(x_shape) != nd + 2:
        raise errors.invalid_argument(op, f"input_sizes must be {nd + 2}-dimensional, got: {len(x_shape)}")
    if len(k_shape) != nd + 2:
        raise errors.invalid_argument(op, f"{prefix}filter must be {nd + 2}-dimensional")
    if len(dy_shape) != nd + 2:
        raise errors.invalid_argument(op, f"{prefix}out_backprop must be {nd + 2}-dimensional")
    check_attrs(op, nd, strides, padding, explicit_paddings, data_format, dilations, _FORMATS[nd], pads)
    if not known(x_shape, k_shape, dy_shape):
        return
    cf = data_format.startswith("NC")
    c_ax = 1 if cf else nd + 1
    if x_shape[0] != dy_shape[0]:
        raise errors.invalid_argument(op, f"{prefix}input and out_backprop must have the same batch size. Input "
                                          f"batch: {x_shape[0]}, outbackprop batch: {dy_shape[0]}, batch_dim: 0")
    co = k_shape[-1] * (k_shape[-2] if depthwise else 1)
    if co != dy_shape[c_ax]:
        raise errors.invalid_argument(op, f"{prefix}filter and out_backprop must have the same out_depth")
    c, ci = x_shape[c_ax], k_shape[-2]
    if depthwise and c != ci:
        raise errors.invalid_argument(op, f"{prefix}input and filter must have the same depth: {c} vs {ci}")
    if not depthwise and (ci == 0 or c % ci or co % (c // ci)):
        raise errors.invalid_argument(op, f"{prefix}input depth must be evenly divisible by filter depth")
    _, sizes, s, d, pd = _geom(x_shape, tuple(k_shape[:nd]), strides, padding, explicit_paddings, data_format,
                               dilations)
    for i, a in enumerate(spatial_axes(nd, cf)):
        o = out_size(sizes[i], k_shape[i], s[i], d[i], *pd[i])
        if o != dy_shape[a]:
            raise _mismatch(op, prefix, a, dy_shape[a], o, sizes[i], k_shape[i], dy_shape[a], s[i], d[i])


def _input_check(op, prefix, nd, depthwise=False):
    def check(w, dy, input_sizes, strides, padding, explicit_paddings=(), data_format=None, dilations=None):
        _check_backprop(op, prefix, nd, tuple(input_sizes), shape_of(w), shape_of(dy), strides, padding,
                        explicit_paddings, data_format, dilations, depthwise)
    return check


def _filter_check(op, prefix, nd, depthwise=False):
    def check(x, dy, filter_sizes, strides, padding, explicit_paddings=(), data_format=None, dilations=None):
        xs = shape_of(x)
        if len(xs) != nd + 2:
            raise errors.invalid_argument(op, f"{prefix}input must be {nd + 2}-dimensional")
        _check_backprop(op, prefix, nd, xs, tuple(filter_sizes), shape_of(dy), strides, padding,
                        explicit_paddings, data_format, dilations, depthwise)
    return check


# --- the primitives --------------------------------------------------------------------------

J = jit_lowering

CONV2D = defop("Conv2D", _conv_kernel, jax_impl=_jax_conv, dtypes=CONV_TYPES, check=_conv_check("Conv2D", 2))
CONV2D_INPUT = defop("Conv2DBackpropInput", _conv_input_kernel, jax_impl=J(_jax_conv_input), dtypes=CONV_TYPES,
                     check=_input_check("Conv2DBackpropInput", "Conv2DCustomBackpropInput: ", 2))
CONV2D_FILTER = defop("Conv2DBackpropFilter", _conv_filter_kernel, jax_impl=J(_jax_conv_filter), dtypes=FLOAT_TYPES,
                      check=_filter_check("Conv2DBackpropFilter", "Conv2DCustomBackpropFilter: ", 2))
CONV3D = defop("Conv3D", _conv_kernel, jax_impl=_jax_conv, dtypes=FLOAT_TYPES, check=_conv_check("Conv3D", 3))
CONV3D_INPUT = defop("Conv3DBackpropInputV2", _conv_input_kernel, jax_impl=J(_jax_conv_input), dtypes=FLOAT_TYPES,
                     check=_input_check("Conv3DBackpropInputV2", "Conv3DBackpropInputOp: ", 3))
CONV3D_FILTER = defop("Conv3DBackpropFilterV2", _conv_filter_kernel, jax_impl=J(_jax_conv_filter), dtypes=FLOAT_TYPES,
                      check=_filter_check("Conv3DBackpropFilterV2", "Conv3DBackpropFilterOp: ", 3))
DEPTHWISE = defop("DepthwiseConv2dNative", _dw_kernel, jax_impl=J(_jax_dw), dtypes=FLOAT_TYPES,
                  check=_conv_check("DepthwiseConv2dNative", 2, depthwise=True))
DEPTHWISE_INPUT = defop("DepthwiseConv2dNativeBackpropInput", _dw_input_kernel, jax_impl=J(_jax_dw_input),
                        dtypes=FLOAT_TYPES,
                        check=_input_check("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2DBackpropInput: ",
                                           2, depthwise=True))
DEPTHWISE_FILTER = defop("DepthwiseConv2dNativeBackpropFilter", _dw_filter_kernel, jax_impl=J(_jax_dw_filter),
                         dtypes=FLOAT_TYPES,
                         check=_filter_check("DepthwiseConv2dNativeBackpropFilter",
                                             "DepthwiseConv2DBackpropFilter: ", 2, depthwise=True))


# --- argument normalization (TF's python layer) -------------------------------------------------

def _as_list(v):
    v = static(v)
    if isinstance(v, (list, tuple)):
        return [int(static(e)) for e in v]
    return [int(v)]


def full_seq(v, nd, name, channels_first, default=1):
    """TF's _get_sequence: an int or a list of 1, nd or nd+2 values -> a list of nd+2 values."""
    if v is None:
        v = default
    vals = _as_list(v)
    n = len(vals)
    if n == nd + 2:
        return tuple(vals)
    if n == 1:
        vals = vals * nd
    elif n != nd:
        raise ValueError(f"{name} should be of length 1, {nd} or {nd + 2}. Received: {name}={static(v)} of "
                         f"length {n}")
    out = [1] * (nd + 2)
    for a, e in zip(spatial_axes(nd, channels_first), vals):
        out[a] = e
    return tuple(out)


def padding_arg(padding, nd, allow_explicit=True):
    """(padding string, explicit_paddings) from TF's ``padding`` argument (a string or a list of pairs)."""
    if isinstance(padding, str):
        if padding == "EXPLICIT":
            raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` "
                             "must be a list.")
        return padding, ()
    if isinstance(padding, bytes):
        return padding_arg(padding.decode(), nd, allow_explicit)
    if not allow_explicit:
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    pairs = static(padding)
    if len(pairs) != nd + 2:
        raise ValueError(f"When padding is a list, it must be of size {nd + 2}. Received: padding={pairs} of size "
                         f"{len(pairs)}")
    flat = []
    for p in pairs:
        p = _as_list(p)
        if len(p) != 2:
            raise ValueError(f"Each element of padding must be a list/tuple of size 2. Received: padding={pairs}")
        flat += p
    return "EXPLICIT", tuple(flat)


def _reshape(x, shape):
    from tensorlet._src.ops import array_ops

    return array_ops.reshape(x, shape)


def _conv_nd(op, x, w, nd, strides, padding, data_format, dilations):
    """Bind a forward conv op; input ranks above nd+2 fold the extra leading dims into the batch (TF)."""
    cf = data_format.startswith("NC") if isinstance(data_format, str) else False
    s = full_seq(strides, nd, "strides", cf)
    d = full_seq(dilations, nd, "dilations", cf)
    pad, ep = padding_arg(padding, nd, allow_explicit=nd == 2)
    attrs = dict(strides=s, padding=pad, explicit_paddings=ep, data_format=data_format, dilations=d)
    xs = shape_of(x)
    if len(xs) > nd + 2 and None not in xs:
        inner = xs[-(nd + 1):]
        out = bind(op, _reshape(x, (-1,) + inner), w, **attrs)
        return _reshape(out, xs[:-(nd + 1)] + shape_of(out)[1:])
    return bind(op, x, w, **attrs)


# --- public: forward convolutions ------------------------------------------------------------

@tf_export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution with filters [height, width, in_channels, out_channels].

    >>> conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "VALID").shape
    TensorShape([1, 2, 2, 1])
    """
    x, w = same_dtype("Conv2D", input, filters)
    return _conv_nd(CONV2D, x, w, 2, strides, padding, data_format or "NHWC", dilations)


@tf_export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution with filters [depth, height, width, in_channels, out_channels] (strides: a list of 5).

    >>> conv3d(tf.ones([1, 3, 3, 3, 1]), tf.ones([2, 2, 2, 1, 1]), [1, 1, 1, 1, 1], "VALID").shape
    TensorShape([1, 2, 2, 2, 1])
    """
    x, w = same_dtype("Conv3D", input, filters)
    for name_, v in (("strides", strides), ("dilations", dilations)):
        if v is not None and not isinstance(static(v), (list, tuple)):
            raise TypeError(f"Expected list for '{name_}' argument to 'conv3d' Op, not {v!r}.")
    s = _as_list(strides)
    if len(s) < 5:
        raise errors.invalid_argument("Conv3D", f"Length for attr 'strides' of {len(s)} must be at least minimum 5")
    if not isinstance(padding, (str, bytes)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return _conv_nd(CONV3D, x, w, 3, s, padding, data_format or "NDHWC", dilations)


def _conv1d_format(data_format):
    if data_format is None or data_format in ("NWC", "NHWC"):
        return "NWC"
    if data_format in ("NCW", "NCHW"):
        return "NCW"
    raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")


def _seq1(v, name, cf):
    vals = _as_list(1 if v is None else v)
    if len(vals) == 3:
        return vals[2] if cf else vals[1]
    if len(vals) != 1:
        raise ValueError(f"{name} should be of length 1, 1 or 3. Received: {name}={static(v)} of length "
                         f"{len(vals)}")
    return vals[0]


@tf_export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution with filters [width, in_channels, out_channels]; runs as Conv2D over a unit height.

    >>> conv1d(tf.ones([1, 5, 1]), tf.ones([3, 1, 2]), 1, "SAME").shape
    TensorShape([1, 5, 2])
    """
    from tensorlet._src.ops.indexing import getitem

    fmt = _conv1d_format(data_format)
    cf = fmt == "NCW"
    x, w = same_dtype("Conv2D", input, filters)
    if not isinstance(padding, (str, bytes)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    s, d = _seq1(stride, "stride", cf), _seq1(dilations, "dilations", cf)
    # [..., W, C] -> [..., 1, W, C] (NWC) or [..., C, W] -> [..., C, 1, W] (NCW); filter [1, K, C, O]
    x2 = getitem(x, (Ellipsis, None, slice(None)) if cf else (Ellipsis, None, slice(None), slice(None)))
    w2 = getitem(w, (None,))
    out = _conv_nd(CONV2D, x2, w2, 2, [1, s], padding, "NCHW" if cf else "NHWC", [1, d])
    return getitem(out, (Ellipsis, 0, slice(None)) if cf else (Ellipsis, 0, slice(None), slice(None)))


@tf_export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """N-D convolution (N = rank(filters) - 2, 1 to 3): conv1d, conv2d or conv3d.

    >>> convolution(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 2]), padding="SAME").shape
    TensorShape([1, 5, 5, 2])
    """
    x, w = t(input), t(filters)
    nd = w.ndim - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={nd}.")
    if not isinstance(padding, (str, bytes)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    cf = data_format is not None and data_format.startswith("NC")
    s = full_seq(strides, nd, "strides", cf)
    d = full_seq(dilations, nd, "dilations", cf)
    sp = spatial_axes(nd, cf)
    if any(s[a] > 1 for a in sp) and any(d[a] > 1 for a in sp):
        ss = " ".join(str(s[a]) for a in sp)
        ds = " ".join(str(d[a]) for a in sp)
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides=[{ss}] and dilation_rate=[{ds}]")
    fmt = data_format or {1: "NWC", 2: "NHWC", 3: "NDHWC"}[nd]
    if nd == 1:
        return conv1d(x, w, s, padding, fmt, d)
    if nd == 2:
        return conv2d(x, w, s, padding, fmt, d)
    return conv3d(x, w, list(s), padding, fmt, list(d))


@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with dilation ``rate`` (NHWC)."""
    if int(static(rate)) < 1:
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate=[{rate} {rate}]")
    return conv2d(value, filters, 1, padding, dilations=int(static(rate)))


# --- public: transposed convolutions ------------------------------------------------------------

def _output_shape(output_shape):
    from tensorlet._src.ops._helpers import to_shape_tuple

    return to_shape_tuple(output_shape)


def _transpose_nd(op, x, w, nd, output_shape, strides, padding, data_format, dilations, allow_explicit):
    cf = data_format.startswith("NC")
    s = full_seq(strides, nd, "strides", cf)
    d = full_seq(dilations, nd, "dilations", cf)
    pad, ep = padding_arg(padding, nd, allow_explicit)
    sizes = _output_shape(output_shape)
    if len(sizes) == nd:  # spatial sizes only (TF accepts 2 values for Conv2DBackpropInput)
        full = [shape_of(x)[0]] + [None] * (nd + 1)
        for a, n in zip(spatial_axes(nd, cf), sizes):
            full[a] = n
        full[1 if cf else -1] = shape_of(w)[-2]
        sizes = tuple(full)
    elif len(sizes) != nd + 2:
        raise errors.invalid_argument(op.name, f"{op.name} requires input_sizes to contain {nd + 2} values or "
                                               f"{nd} values, but got: {len(sizes)}")
    return bind(op, w, x, input_sizes=sizes, strides=s, padding=pad, explicit_paddings=ep, data_format=data_format,
                dilations=d)


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose (input gradient) of conv2d; filters are [height, width, out_channels, in_channels].

    >>> conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 4, 1]), [1, 4, 4, 4], 2).shape
    TensorShape([1, 4, 4, 4])
    """
    w, x = same_dtype("Conv2DBackpropInput", filters, input)
    return _transpose_nd(CONV2D_INPUT, x, w, 2, output_shape, strides, padding, data_format or "NHWC", dilations,
                         True)


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv3d; filters are [depth, height, width, out_channels, in_channels]."""
    w, x = same_dtype("Conv3DBackpropInputV2", filters, input)
    return _transpose_nd(CONV3D_INPUT, x, w, 3, output_shape, strides, padding, data_format or "NDHWC", dilations,
                         False)


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv1d; filters are [width, out_channels, in_channels]."""
    from tensorlet._src.ops.indexing import getitem

    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    cf = data_format == "NCW"
    w, x = same_dtype("Conv2DBackpropInput", filters, input)
    s, d = _seq1(strides, "strides", cf), _seq1(dilations, "dilations", cf)
    sizes = list(_output_shape(output_shape))
    if len(sizes) != 3:
        raise ValueError(f"`output_shape` must be of length 3. Received: output_shape={sizes}")
    sizes.insert(2 if cf else 1, 1)
    x2 = getitem(x, (Ellipsis, None, slice(None)) if cf else (Ellipsis, None, slice(None), slice(None)))
    out = _transpose_nd(CONV2D_INPUT, x2, getitem(w, (None,)), 2, sizes, [1, s], padding,
                        "NCHW" if cf else "NHWC", [1, d], False)
    return getitem(out, (Ellipsis, 0, slice(None)) if cf else (Ellipsis, 0, slice(None), slice(None)))


@tf_export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """N-D transposed convolution (N from the length of ``output_shape``: 3, 4 or 5)."""
    sizes = _output_shape(output_shape)
    n = len(sizes)
    if n not in (3, 4, 5):
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={list(sizes)} of "
                         f"length {n}.")
    fn = {3: conv1d_transpose, 4: conv2d_transpose, 5: conv3d_transpose}[n]
    fmt = data_format or {3: "NWC", 4: "NHWC", 5: "NDHWC"}[n]
    return fn(input, filters, sizes, 1 if strides is None else strides, padding, fmt, dilations)


@tf_export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d (NHWC)."""
    if int(static(rate)) < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    return conv2d_transpose(value, filters, output_shape, 1, padding, dilations=int(static(rate)))


# --- public: depthwise and separable -----------------------------------------------------------

def _depthwise_attrs(strides, padding, data_format, dilations):
    v = static(strides)
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides!r}.")
    s = tuple(_as_list(v))
    fmt = data_format or "NHWC"
    cf = fmt.startswith("NC")
    d = full_seq(dilations, 2, "dilations", cf)
    pad, ep = padding_arg(padding, 2)
    return dict(strides=s, padding=pad, explicit_paddings=ep, data_format=fmt, dilations=d)


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution: filter [height, width, in_channels, multiplier] -> in_channels * multiplier outputs.

    >>> depthwise_conv2d(tf.ones([1, 4, 4, 2]), tf.ones([3, 3, 2, 3]), [1, 1, 1, 1], "SAME").shape
    TensorShape([1, 4, 4, 6])
    """
    x, w = same_dtype("DepthwiseConv2dNative", input, filter)
    return bind(DEPTHWISE, x, w, **_depthwise_attrs(strides, padding, data_format, dilations))


@tf_export("nn.depthwise_conv2d_backprop_input")
def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of depthwise_conv2d with respect to its input."""
    w, dy = same_dtype("DepthwiseConv2dNativeBackpropInput", filter, out_backprop)
    sizes = _output_shape(input_sizes)
    return bind(DEPTHWISE_INPUT, w, dy, input_sizes=sizes,
                **_depthwise_attrs(strides, padding, data_format, dilations))


@tf_export("nn.depthwise_conv2d_backprop_filter")
def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """Gradient of depthwise_conv2d with respect to its filter."""
    x, dy = same_dtype("DepthwiseConv2dNativeBackpropFilter", input, out_backprop)
    return bind(DEPTHWISE_FILTER, x, dy, filter_sizes=_output_shape(filter_sizes),
                **_depthwise_attrs(strides, padding, data_format, dilations))


@tf_export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """depthwise_conv2d followed by a 1x1 conv2d with pointwise_filter [1, 1, in*multiplier, out]."""
    pw = t(pointwise_filter)
    ps = shape_of(pw)
    if len(ps) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(ps)}")
    for i in (0, 1):
        if ps[i] != 1:
            raise ValueError(f"Dimensions {ps[i]} and 1 are not compatible")
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(y, pw, 1, "VALID", data_format or "NHWC")
