"""``keras.ops`` reductions, statistics, cumulative ops, sorting and searching (also ``keras.ops.numpy.*``).

>>> sum(np.ones((2, 3), "int8")).dtype.name
'int32'
"""

from __future__ import annotations

import builtins

import numpy as np

from tensorlet._src.keras.backend import floatx
from tensorlet._src.keras.ops._dtypes import cast, convert, result_type
from tensorlet._src.keras.ops.numpy_elementwise import _alias, export
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.array_shape import shape as _shape, expand_dims, reshape, transpose
from tensorlet._src.ops.array_select import where as _where
from tensorlet._src.ops.array_blocks import concat
from tensorlet._src.ops.creation import ones_like, range as _range, zeros_like
from tensorlet._src.ops.gather_scatter import gather, scatter_nd
from tensorlet._src.ops.scan_sort import argsort as _argsort, cumprod as _cumprod, cumsum as _cumsum
from tensorlet._src.ops.scan_sort import searchsorted as _searchsorted, sort as _sort, top_k as _top_k


def _axes(axis, ndim):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) % ndim if ndim else int(a) for a in axis)
    return int(axis)


def _ndim(x):
    return x.shape.rank


def _sum_dtype(d):
    if d in ("bool", "int8", "int16"):
        return "int32"
    if d in ("uint8", "uint16"):
        return "uint32"
    return d


@export("sum", "numpy")
def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """Sum over ``axis`` (small integer types and bools accumulate in int32/uint32)."""
    x = convert(x)
    x = cast(x, _sum_dtype(x.dtype.name))
    return rd.reduce_sum(x, axis=_axes(axis, _ndim(x)), keepdims=keepdims)


@export("prod", "numpy")
def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis``."""
    x = convert(x)
    x = cast(x, _sum_dtype(x.dtype.name) if dtype is None else dtype)
    return rd.reduce_prod(x, axis=_axes(axis, _ndim(x)), keepdims=keepdims)


@export("mean", "numpy")
def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (integers give float32; float16 computes in float32)."""
    x = convert(x)
    d = x.dtype.name
    compute = result_type(d, "float32")
    out_d = compute if ("int" in d or d == "bool") else d
    return cast(rd.reduce_mean(cast(x, compute), axis=_axes(axis, _ndim(x)), keepdims=keepdims), out_d)


def _extreme(name, red, bool_red, cmp):
    def fn(x, axis=None, keepdims=False, initial=None):
        x = convert(x)
        ax = _axes(axis, _ndim(x))
        if x.dtype.name == "bool":
            r = bool_red(x, axis=ax, keepdims=keepdims)
            if initial is not None:
                r = cast(cmp(cast(r, "int32"), convert(initial, "int32")), "bool")
            return r
        r = red(x, axis=ax, keepdims=keepdims)
        if initial is not None:
            r = cmp(r, convert(initial, r.dtype))
        return r

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The {name} over ``axis`` (``initial`` joins the reduction)."
    return export(name, "numpy")(fn)


max = _extreme("max", rd.reduce_max, rd.reduce_any, mb.maximum)  # noqa: A001 - Keras's name
min = _extreme("min", rd.reduce_min, rd.reduce_all, mb.minimum)  # noqa: A001 - Keras's name


@export("amax", "numpy")
def amax(x, axis=None, keepdims=False):
    """The maximum over ``axis``."""
    return max(x, axis=axis, keepdims=keepdims)


@export("amin", "numpy")
def amin(x, axis=None, keepdims=False):
    """The minimum over ``axis``."""
    return min(x, axis=axis, keepdims=keepdims)


@export("all", "numpy")
def all(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """True where every element along ``axis`` is truthy."""
    x = cast(x, "bool")
    return rd.reduce_all(x, axis=_axes(axis, _ndim(x)), keepdims=keepdims)


@export("any", "numpy")
def any(x, axis=None, keepdims=False):  # noqa: A001 - Keras's name
    """True where some element along ``axis`` is truthy."""
    x = cast(x, "bool")
    return rd.reduce_any(x, axis=_axes(axis, _ndim(x)), keepdims=keepdims)


@export("ptp", "numpy")
def ptp(x, axis=None, keepdims=False):
    """``max - min`` over ``axis``."""
    x = convert(x)
    return mb.subtract(max(x, axis, keepdims), min(x, axis, keepdims))


@export("var", "numpy")
def var(x, axis=None, keepdims=False):
    """Population variance over ``axis``."""
    x = convert(x)
    compute = result_type(x.dtype.name, "float32")
    out = result_type(x.dtype.name, float)
    return cast(rd.reduce_variance(cast(x, compute), axis=_axes(axis, _ndim(x)), keepdims=keepdims), out)


@export("std", "numpy")
def std(x, axis=None, keepdims=False):
    """Population standard deviation over ``axis``."""
    x = convert(x)
    d = x.dtype.name
    if "int" in d or d == "bool":
        x = cast(x, floatx())
    return rd.reduce_std(x, axis=_axes(axis, _ndim(x)), keepdims=keepdims)


def _keep(x, y, axis):
    if axis is None:
        return reshape(y, [1] * _ndim(x))
    return expand_dims(y, axis)


def _arg(name, red):
    def fn(x, axis=None, keepdims=False):
        x = convert(x)
        d = x.dtype.name
        orig = x
        if "float" in d and _ndim(x) > 0:
            x = cast(x, result_type(d, "float32"))
            negzero = mb.logical_and(mb.equal(x, mb.cast(0, x.dtype)), _signbit(x))
            tiny = float(np.finfo(x.dtype.as_numpy_dtype).tiny)
            x = _where(negzero, mb.add(zeros_like(x), mb.cast(-tiny, x.dtype)), x)
        elif d == "bool":
            x = cast(x, "int32")
        flat = reshape(x, [-1]) if axis is None else x
        y = red(flat, axis=0 if axis is None else int(axis), output_type="int32")
        return _keep(orig, y, axis) if keepdims else y

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The index of the {name[3:]} along ``axis`` (int32; flattened when ``axis`` is None)."
    return export(name, "numpy")(fn)


def _signbit(x):
    from tensorlet._src.keras.ops.numpy_elementwise import signbit

    return signbit(x)


argmax = _arg("argmax", rd.argmax)
argmin = _arg("argmin", rd.argmin)


@export("count_nonzero", "numpy")
def count_nonzero(x, axis=None):
    """The number of non-zero values along ``axis`` (int32)."""
    x = convert(x)
    return rd.count_nonzero(x, axis=_axes(axis, _ndim(x)), dtype="int32")


def _cum(name, f):
    def fn(x, axis=None, dtype=None):
        x = convert(x, dtype)
        if x.dtype.name == "bool":
            x = cast(x, "int32")
        if axis is None:
            x, axis = reshape(x, [-1]), 0
        return f(x, axis=int(axis))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Cumulative {name[3:]} along ``axis`` (flattened when None)."
    return export(name, "numpy")(fn)


cumsum = _cum("cumsum", _cumsum)
cumprod = _cum("cumprod", _cumprod)


@export("average", "numpy")
def average(x, axis=None, weights=None):
    """The (weighted) mean along ``axis``."""
    x = convert(x)
    if weights is None:
        x = cast(x, result_type(x.dtype.name, float))
        return rd.reduce_mean(x, axis=_axes(axis, _ndim(x)))
    w = convert(weights)
    dt = result_type(x.dtype.name, w.dtype.name, float)
    x, w = cast(x, dt), cast(w, dt)
    if axis is None or _ndim(x) == _ndim(w):
        return mb.divide(rd.reduce_sum(mb.multiply(x, w), axis=axis), rd.reduce_sum(w, axis=axis))
    ax = int(axis) % _ndim(x)
    shp = [1] * _ndim(x)
    shp[ax] = -1
    return mb.divide(rd.reduce_sum(mb.multiply(x, reshape(w, shp)), axis=ax), rd.reduce_sum(w))


# ---- NaN-aware reductions ----------------------------------------------------------------------------------------


def _nan_fill(x, value):
    return _where(mu.is_nan(x), mb.add(zeros_like(x), mb.cast(value, x.dtype)), x)


@export("nansum", "numpy")
def nansum(x, axis=None, keepdims=False):
    """Sum treating NaN as zero."""
    x = convert(x)
    if x.dtype.is_floating:
        x = _nan_fill(x, 0)
    return sum(x, axis, keepdims)


@export("nanprod", "numpy")
def nanprod(x, axis=None, keepdims=False):
    """Product treating NaN as one."""
    x = convert(x)
    if x.dtype.is_floating:
        x = _nan_fill(x, 1)
    return prod(x, axis, keepdims)


def _nan_extreme(name, fill, red):
    def fn(x, axis=None, keepdims=False):
        x = convert(x)
        if not x.dtype.is_floating:
            return red(x, axis, keepdims)
        r = red(_nan_fill(x, fill), axis, keepdims)
        allnan = all(mu.is_nan(x), axis, keepdims)
        return _where(allnan, mb.add(zeros_like(r), mb.cast(np.nan, r.dtype)), r)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name[3:]}`` ignoring NaN (NaN where a slice is all NaN)."
    return export(name, "numpy")(fn)


nanmax = _nan_extreme("nanmax", -np.inf, max)
nanmin = _nan_extreme("nanmin", np.inf, min)


@export("nanmean", "numpy")
def nanmean(x, axis=None, keepdims=False):
    """Mean ignoring NaN."""
    x = convert(x)
    if not x.dtype.is_floating:
        return mean(x, axis, keepdims)
    dt = result_type(x.dtype.name, float)
    n = sum(cast(mb.logical_not(mu.is_nan(x)), dt), axis, keepdims)
    return mb.divide(cast(nansum(x, axis, keepdims), dt), n)


@export("nanvar", "numpy")
def nanvar(x, axis=None, keepdims=False):
    """Variance ignoring NaN."""
    x = convert(x)
    if not x.dtype.is_floating:
        return var(x, axis, keepdims)
    dt = result_type(x.dtype.name, float)
    x = cast(x, dt)
    m = nanmean(x, axis, True)
    return nanmean(mu.square(mb.subtract(x, m)), axis, keepdims)


@export("nanstd", "numpy")
def nanstd(x, axis=None, keepdims=False):
    """Standard deviation ignoring NaN."""
    return mu.sqrt(nanvar(x, axis, keepdims))


def _nanarg(name, fill, red):
    def fn(x, axis=None, keepdims=False):
        x = convert(x)
        if not x.dtype.is_floating:
            return red(x, axis, keepdims)
        r = red(_nan_fill(x, fill), axis, keepdims)
        allnan = all(mu.is_nan(x), axis, keepdims)
        return _where(allnan, mb.add(zeros_like(r), -1), r)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name[3:]}`` ignoring NaN (-1 where a slice is all NaN)."
    return export(name, "numpy")(fn)


nanargmax = _nanarg("nanargmax", -np.inf, argmax)
nanargmin = _nanarg("nanargmin", np.inf, argmin)
nancumsum = _alias("nancumsum", lambda x, axis=None, dtype=None: cumsum(nan_to_zero(x), axis, dtype))
nancumprod = _alias("nancumprod", lambda x, axis=None, dtype=None: cumprod(nan_to_one(x), axis, dtype))


def nan_to_zero(x):
    x = convert(x)
    return _nan_fill(x, 0) if x.dtype.is_floating else x


def nan_to_one(x):
    x = convert(x)
    return _nan_fill(x, 1) if x.dtype.is_floating else x


# ---- quantiles ---------------------------------------------------------------------------------------------------


def _move_last(x, axis):
    """``x`` with the reduced axes flattened into one last axis, and the kept dims' shape."""
    nd = _ndim(x)
    if axis is None:
        return reshape(x, [-1]), [], list(range(nd))
    axes = sorted({int(a) % nd for a in (axis if isinstance(axis, (list, tuple)) else [axis])})
    keep = [i for i in range(nd) if i not in axes]
    xt = transpose(x, keep + axes)
    shape = [x.shape[i] for i in keep]
    return reshape(xt, [(-1 if s is None else s) for s in shape] + [-1]), shape, axes


def _quantile(x, q, axis, method, keepdims, nan_aware=False):
    x = convert(x)
    q = convert(q)
    x = cast(x, result_type(x.dtype.name, float))
    nd = _ndim(x)
    flat, kshape, axes = _move_last(x, axis)
    if nan_aware:
        isn = mu.is_nan(flat)
        flat = _where(isn, mb.add(zeros_like(flat), mb.cast(np.inf, flat.dtype)), flat)
        n = rd.reduce_sum(cast(mb.logical_not(isn), "float64"), axis=-1)
    else:
        n = rd.reduce_sum(ones_like(flat, dtype="float64"), axis=-1)
    s = _sort(flat, axis=-1)
    scalar_q = q.shape.rank == 0
    qv = reshape(cast(q, "float64"), [-1])
    pos = mb.multiply(expand_dims(mb.subtract(n, 1.0), -1), qv)  # kept dims + [nq]
    lo, hi = mu.floor(pos), mu.ceil(pos)
    if method == "lower":
        idx_lo = idx_hi = lo
    elif method == "higher":
        idx_lo = idx_hi = hi
    elif method == "nearest":
        idx_lo = idx_hi = mu.round(pos)
    elif method in ("linear", "midpoint"):
        idx_lo, idx_hi = lo, hi
    else:
        raise ValueError(f"Invalid value for argument `method`: {method}")
    bd = _ndim(s) - 1
    g_lo = gather(s, cast(mb.maximum(idx_lo, 0.0), "int32"), axis=-1, batch_dims=bd)
    g_hi = gather(s, cast(mb.maximum(idx_hi, 0.0), "int32"), axis=-1, batch_dims=bd)
    if method == "linear":
        r = mb.add(g_lo, mb.multiply(mb.subtract(g_hi, g_lo), cast(mb.subtract(pos, lo), s.dtype)))
    elif method == "midpoint":
        r = mb.multiply(mb.add(g_lo, g_hi), mb.cast(0.5, s.dtype))
    else:
        r = g_lo
    if nan_aware:
        empty = mb.equal(expand_dims(n, -1), 0.0)
        r = _where(empty, mb.add(zeros_like(r), mb.cast(np.nan, r.dtype)), r)
    rn = _ndim(r)
    r = transpose(r, [rn - 1] + list(builtins.range(rn - 1)))  # [nq] + kept dims
    if keepdims:
        shp = [-1] + [(-1 if x.shape[i] is None else x.shape[i]) if i not in axes else 1 for i in builtins.range(nd)]
        r = reshape(r, shp)
    if scalar_q:
        r = r[0]
    return r


@export("quantile", "numpy")
def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantile(s) along ``axis`` (methods linear, lower, higher, midpoint, nearest)."""
    return _quantile(x, q, axis, method, keepdims)


@export("percentile", "numpy")
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th percentile(s) (``quantile`` of ``q / 100``)."""
    return _quantile(x, mb.divide(convert(q, floatx()), mb.cast(100.0, floatx())), axis, method, keepdims)


@export("median", "numpy")
def median(x, axis=None, keepdims=False):
    """The median along ``axis``."""
    return _quantile(x, 0.5, axis, "linear", keepdims)


@export("nanquantile", "numpy")
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` ignoring NaN."""
    return _quantile(x, q, axis, method, keepdims, nan_aware=True)


@export("nanpercentile", "numpy")
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """``percentile`` ignoring NaN."""
    return _quantile(x, mb.divide(convert(q, floatx()), mb.cast(100.0, floatx())), axis, method, keepdims, True)


@export("nanmedian", "numpy")
def nanmedian(x, axis=None, keepdims=False):
    """``median`` ignoring NaN."""
    return _quantile(x, 0.5, axis, "linear", keepdims, nan_aware=True)


# ---- sorting and searching ---------------------------------------------------------------------------------------


@export("sort", "numpy")
def sort(x, axis=-1):
    """Sorted values along ``axis`` (flattened when None)."""
    x = convert(x)
    d = x.dtype.name
    if d == "bool":
        x = cast(x, "uint8")
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    r = _sort(x, axis=int(axis))
    return cast(r, "bool") if d == "bool" else r


@export("argsort", "numpy")
def argsort(x, axis=-1):
    """Indices that sort ``x`` along ``axis`` (stable; int32)."""
    x = convert(x)
    if x.dtype.name == "bool":
        x = cast(x, "uint8")
    if _ndim(x) == 0:
        return convert([0], "int32")
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    return _argsort(x, axis=int(axis), stable=True)


@export("argpartition", "numpy")
def argpartition(x, kth, axis=-1):
    """Indices partitioning ``x`` around its ``kth`` smallest element: the ``kth + 1`` smallest first (in
    ``top_k`` order), then the others (values compared as int32, as Keras's TF backend does)."""
    x = convert(x, "int32")
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    nd = _ndim(x)
    axis = int(axis) % nd
    perm = [i for i in builtins.range(nd) if i != axis] + [axis]
    xt = transpose(x, perm)
    n = xt.shape[-1]
    kth = builtins.min(builtins.max(int(kth), 0), n - 1)
    _, bottom = _top_k(mu.negative(xt), k=kth + 1)
    hit = rd.reduce_any(mb.equal(expand_dims(bottom, -1), _range(n)), axis=-2)
    _, top = _top_k(_where(hit, zeros_like(xt), xt), k=n - kth - 1)
    out = concat([bottom, top], -1)
    return transpose(out, [perm.index(i) for i in builtins.range(nd)])


@export("searchsorted", "numpy")
def searchsorted(sorted_sequence, values, side="left"):
    """Insertion indices of ``values`` into the 1-D ``sorted_sequence`` (int32)."""
    a = convert(sorted_sequence)
    v = convert(values)
    if _ndim(a) != 1:
        raise ValueError(f"`searchsorted` only supports 1-D sorted sequences. Received: "
                         f"sorted_sequence.shape={a.shape}")
    dt = result_type(a.dtype.name, v.dtype.name)
    a, v = cast(a, dt), cast(v, dt)
    out = _searchsorted(a, reshape(v, [-1]), side=side, out_type="int32")
    return reshape(out, _shape(v))


@export("digitize", "numpy")
def digitize(x, bins):
    """The bucket index of each value (``bins`` increasing; int32)."""
    x = convert(x)
    b = convert([float(v) for v in np.asarray(bins).reshape(-1)], "float64")
    out = _searchsorted(b, reshape(cast(x, "float64"), [-1]), side="right", out_type="int32")
    return reshape(out, _shape(x))


@export("bincount", "numpy")
def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative int; the last axis of 2-D inputs is counted per row."""
    x = convert(x)
    if sparse:
        raise ValueError("keras.ops.bincount: sparse=True needs sparse tensors, which tensorlet does not have yet")
    xs = [x.dtype.name]
    if weights is not None:
        w = convert(weights)
        xs.append(w.dtype.name)
        dt = result_type(*xs)
    else:
        dt = "int32" if x.dtype.name not in ("int64",) else x.dtype.name
        dt = result_type(x.dtype.name) if x.dtype.name not in ("int32", "int64") else x.dtype.name
        if dt not in ("int32", "int64"):
            dt = "int32" if "int" in dt or dt == "bool" else dt
        w = None
    xi = cast(x, "int32")
    length = builtins.max(int(minlength), int(np.asarray(rd.reduce_max(xi)) + 1) if _size(xi) else 0)
    oh = mb.equal(expand_dims(xi, -1), _range(length))
    vals = cast(oh, dt)
    if w is not None:
        vals = mb.multiply(vals, expand_dims(cast(w, dt), -1))
    return rd.reduce_sum(vals, axis=-2)


def _size(x):
    return int(np.prod([d for d in x.shape]))


@export("histogram", "numpy")
def histogram(x, bins=10, range=None):  # noqa: A002 - Keras's name
    """``(counts, bin_edges)`` of a 1-D tensor over ``bins`` equal-width bins."""
    from tensorlet._src.ops.creation import linspace
    from tensorlet._src.ops.gather_scatter import boolean_mask

    x = convert(x)
    if range is None:
        lo, hi = rd.reduce_min(x), rd.reduce_max(x)
    else:
        lo, hi = convert(range[0], x.dtype), convert(range[1], x.dtype)
    x = boolean_mask(x, mb.logical_and(mb.greater_equal(x, lo), mb.less_equal(x, hi)))
    edges = cast(linspace(cast(lo, "float32") if not x.dtype.is_floating else lo,
                          cast(hi, "float32") if not x.dtype.is_floating else hi, bins + 1), x.dtype)
    idx = _searchsorted(edges[1:-1], x, side="right", out_type="int32")
    counts = scatter_nd(expand_dims(idx, -1), ones_like(idx, dtype=x.dtype), [bins])
    return counts, edges


@export("trapezoid", "numpy")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` by the trapezoidal rule along ``axis``."""
    y = convert(y)
    y = cast(y, result_type(y.dtype.name, float))
    nd = _ndim(y)
    axis = int(axis) % nd
    sl1 = [slice(None)] * nd
    sl2 = [slice(None)] * nd
    sl1[axis] = slice(1, None)
    sl2[axis] = slice(None, -1)
    if x is None:
        d = mb.cast(dx, y.dtype)
    else:
        x = cast(x, y.dtype)
        d = mb.subtract(x[tuple(sl1)] if _ndim(x) == nd else x[1:], x[tuple(sl2)] if _ndim(x) == nd else x[:-1])
        if _ndim(x) == 1 and nd > 1:
            shp = [1] * nd
            shp[axis] = -1
            d = reshape(d, shp)
    return rd.reduce_sum(mb.multiply(d, mb.multiply(mb.add(y[tuple(sl1)], y[tuple(sl2)]), mb.cast(0.5, y.dtype))),
                         axis=axis)


@export("diff", "numpy")
def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis``."""
    a = convert(a)
    nd = _ndim(a)
    axis = int(axis) % nd
    for _ in builtins.range(n):
        s1 = [slice(None)] * nd
        s2 = [slice(None)] * nd
        s1[axis] = slice(1, None)
        s2[axis] = slice(None, -1)
        if a.dtype.name == "bool":
            a = mb.not_equal(a[tuple(s1)], a[tuple(s2)])
        else:
            a = mb.subtract(a[tuple(s1)], a[tuple(s2)])
    return a


@export("corrcoef", "numpy")
def corrcoef(x):
    """Pearson correlation coefficients of the rows of ``x``."""
    x = convert(x)
    d = x.dtype.name
    x = cast(x, floatx() if ("int" in d or d == "bool") else d)
    xc = mb.subtract(x, rd.reduce_mean(x, axis=-1, keepdims=True))
    from tensorlet._src.ops.matmul import matmul

    cov = matmul(xc, transpose(xc))
    dd = mu.sqrt(_diag_part(cov))
    r = mb.divide(mb.divide(cov, expand_dims(dd, 0)), expand_dims(dd, 1))
    return _clip_unit(r)


def _diag_part(m):
    from tensorlet._src.ops.linalg import diag_part

    return diag_part(m)


def _clip_unit(r):
    one = mb.cast(1.0, r.dtype)
    return mb.minimum(mb.maximum(r, mu.negative(one)), one)


