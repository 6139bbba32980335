"""``tf.experimental.numpy``: array creation, shape manipulation, reductions, sorting, linear algebra and
``tnp.random`` -- composites of tensorlet's public ops with NumPy's argument conventions and dtypes."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.numpy_api.core import _axis, _cast, _floaty, _promoted, _tf, asarray, export, result_dtype


def _dtype(dtype, default=np.float64):
    return _dt.as_dtype(dtype if dtype is not None else default)


def _shape(shape):
    if isinstance(shape, Tensor):
        return shape
    return [int(shape)] if np.ndim(shape) == 0 else [int(d) for d in shape]


# --- creation ---------------------------------------------------------------------------

@export("zeros")
def zeros(shape, dtype=float):
    return _tf("zeros")(_shape(shape), _dtype(np.dtype(dtype) if dtype is not None else None))


@export("ones")
def ones(shape, dtype=float):
    return _tf("ones")(_shape(shape), _dtype(np.dtype(dtype) if dtype is not None else None))


@export("empty")
def empty(shape, dtype=float):
    return zeros(shape, dtype)


@export("full")
def full(shape, fill_value, dtype=None):
    v = asarray(fill_value, dtype)
    return _tf("broadcast_to")(v, _shape(shape))


def _like(a, dtype):
    a = asarray(a)
    return a, (_dt.as_dtype(dtype) if dtype is not None else a.dtype)


@export("zeros_like")
def zeros_like(a, dtype=None):
    a, d = _like(a, dtype)
    return _tf("zeros_like")(a, dtype=d)


@export("ones_like")
def ones_like(a, dtype=None):
    a, d = _like(a, dtype)
    return _tf("ones_like")(a, dtype=d)


@export("empty_like")
def empty_like(a, dtype=None):
    return zeros_like(a, dtype)


@export("full_like")
def full_like(a, fill_value, dtype=None):
    a, d = _like(a, dtype)
    return _tf("broadcast_to")(asarray(fill_value, d), _tf("shape")(a))


@export("copy")
def copy(a):
    return _tf("identity")(asarray(a))


@export("arange")
def arange(start, stop=None, step=1, dtype=None):
    if stop is None:
        start, stop = 0, start
    d = _dt.as_dtype(dtype) if dtype is not None else _dt.as_dtype(result_dtype(start, stop, step))
    n = int(np.ceil((float(stop) - float(start)) / float(step)))
    return _cast(_tf("range")(0, max(n, 0), dtype=_dt.float64) * float(step) + float(start), d) \
        if d.is_floating else _tf("range")(start, stop, step, dtype=d)


@export("linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    d = _dtype(np.dtype(dtype) if dtype is not None else None)
    num = int(num)
    div = (num - 1) if endpoint else num
    step = (float(stop) - float(start)) / div if div > 0 else float("nan")
    vals = _cast(_tf("range")(num, dtype=_dt.float64) * step + float(start), d) if num else \
        _tf("zeros")([0], d)
    if endpoint and num > 1:
        vals = _tf("concat")([vals[:-1], _cast(_tf("reshape")(float(stop), [1]), d)], 0)
    return (vals, step) if retstep else vals


@export("logspace")
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=float, axis=0):
    e = linspace(start, stop, num, endpoint, dtype=np.float64)
    return _cast(_tf("math.pow")(_cast(base, _dt.float64), e), _dtype(np.dtype(dtype)))


@export("geomspace")
def geomspace(start, stop, num=50, endpoint=True, dtype=float, axis=0):
    return logspace(np.log10(start), np.log10(stop), num, endpoint, 10.0, dtype)


@export("eye")
def eye(N, M=None, k=0, dtype=float):  # noqa: N803 - NumPy's names
    M = N if M is None else M  # noqa: N806
    return convert_to_tensor(np.eye(N, M, k, dtype=np.dtype(dtype)))


@export("identity")
def identity(n, dtype=float):
    return eye(n, dtype=dtype)


@export("tri")
def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    return convert_to_tensor(np.tri(N, M, k, dtype=np.dtype(dtype) if dtype is not None else np.float64))


def _band(m, k, lower):
    m = asarray(m)
    r, c = m.shape.as_list()[-2:]
    mask = np.tri(r, c, k, dtype=bool) if lower else ~np.tri(r, c, k - 1, dtype=bool)
    return _tf("where")(convert_to_tensor(mask), m, _tf("zeros_like")(m))


@export("tril")
def tril(m, k=0):
    return _band(m, k, True)


@export("triu")
def triu(m, k=0):
    return _band(m, k, False)


@export("diag")
def diag(v, k=0):
    v = asarray(v)
    if v.shape.rank == 1:
        return _tf("linalg.diag")(v, k=k)
    return diagonal(v, offset=k)


@export("diagflat")
def diagflat(v, k=0):
    return diag(_tf("reshape")(asarray(v), [-1]), k)


@export("diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    a = asarray(a)
    rank = a.shape.rank
    axis1, axis2 = axis1 % rank, axis2 % rank
    perm = [i for i in range(rank) if i not in (axis1, axis2)] + [axis1, axis2]
    return _tf("linalg.diag_part")(_tf("transpose")(a, perm), k=offset)


@export("diag_indices")
def diag_indices(n, ndim=2):
    i = _tf("range")(n, dtype=_dt.int64)
    return (i,) * ndim


@export("vander")
def vander(x, N=None, increasing=False):  # noqa: N803
    x = asarray(x)
    n = x.shape[0] if N is None else N
    powers = _tf("range")(n, dtype=x.dtype)
    if not increasing:
        powers = _tf("reverse")(powers, [0])
    return _tf("math.pow")(_tf("expand_dims")(x, 1), powers)


@export("meshgrid")
def meshgrid(*xi, **kwargs):
    indexing = kwargs.get("indexing", "xy")
    return _tf("meshgrid")(*[asarray(x) for x in xi], indexing=indexing)


@export("ix_")
def ix_(*args):
    out = []
    n = len(args)
    for i, a in enumerate(args):
        a = asarray(a)
        out.append(_tf("reshape")(a, [1] * i + [-1] + [1] * (n - i - 1)))
    return out


# --- shape manipulation ----------------------------------------------------------------------

@export("shape")
def shape(a):
    return tuple(asarray(a).shape.as_list())


@export("ndim")
def ndim(a):
    return asarray(a).shape.rank


@export("size")
def size(x, axis=None):
    s = asarray(x).shape.as_list()
    return int(np.prod(s)) if axis is None else s[axis]


@export("reshape")
def reshape(a, newshape, order="C"):
    if order != "C":
        raise ValueError(f"tnp.reshape supports order='C' only, got {order!r}")
    return _tf("reshape")(asarray(a), _shape(newshape))


@export("ravel", "flatten")
def ravel(a):
    return _tf("reshape")(asarray(a), [-1])


@export("transpose")
def transpose(a, axes=None):
    return _tf("transpose")(asarray(a), axes)


@export("swapaxes")
def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.shape.rank))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _tf("transpose")(a, perm)


@export("moveaxis")
def moveaxis(a, source, destination):
    a = asarray(a)
    rank = a.shape.rank
    src = [s % rank for s in np.atleast_1d(source)]
    dst = [d % rank for d in np.atleast_1d(destination)]
    order = [i for i in range(rank) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _tf("transpose")(a, order)


@export("expand_dims")
def expand_dims(a, axis):
    return _tf("expand_dims")(asarray(a), axis)


@export("squeeze")
def squeeze(a, axis=None):
    return _tf("squeeze")(asarray(a), axis)


@export("atleast_1d")
def atleast_1d(*arys):
    out = [_tf("reshape")(asarray(a), [-1]) if asarray(a).shape.rank == 0 else asarray(a) for a in arys]
    return out[0] if len(out) == 1 else out


@export("atleast_2d")
def atleast_2d(*arys):
    out = []
    for a in arys:
        a = asarray(a)
        while a.shape.rank < 2:
            a = _tf("expand_dims")(a, 0)
        out.append(a)
    return out[0] if len(out) == 1 else out


@export("atleast_3d")
def atleast_3d(*arys):
    out = []
    for a in arys:
        a = asarray(a)
        r = a.shape.rank
        if r == 0:
            a = _tf("reshape")(a, [1, 1, 1])
        elif r == 1:
            a = _tf("reshape")(a, [1, -1, 1])
        elif r == 2:
            a = _tf("expand_dims")(a, -1)
        out.append(a)
    return out[0] if len(out) == 1 else out


def _same(arrays):
    arrays = list(arrays)
    ts, _d = _promoted(*arrays)
    return ts


@export("concatenate")
def concatenate(arys, axis=0):
    ts = _same(arys)
    if axis is None:
        return _tf("concat")([_tf("reshape")(t, [-1]) for t in ts], 0)
    return _tf("concat")(ts, axis)


@export("append")
def append(arr, values, axis=None):
    return concatenate([arr, values], axis)


@export("stack")
def stack(arrays, axis=0):
    return _tf("stack")(_same(arrays), axis)


@export("hstack")
def hstack(tup):
    ts = [atleast_1d(t) for t in _same(tup)]
    return _tf("concat")(ts, 0 if ts[0].shape.rank == 1 else 1)


@export("vstack")
def vstack(tup):
    return _tf("concat")([atleast_2d(t) for t in _same(tup)], 0)


@export("dstack")
def dstack(tup):
    return _tf("concat")([atleast_3d(t) for t in _same(tup)], 2)


def _split(ary, indices_or_sections, axis):
    a = asarray(ary)
    n = a.shape[axis]
    if np.ndim(indices_or_sections) == 0:
        k = int(indices_or_sections)
        if n % k:
            raise ValueError("array split does not result in an equal division")
        sizes = [n // k] * k
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
        sizes = [max(b - a_, 0) for a_, b in zip(bounds[:-1], bounds[1:])]
    return _tf("split")(a, sizes, axis=axis)


@export("split")
def split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis)


@export("hsplit")
def hsplit(ary, indices_or_sections):
    return _split(ary, indices_or_sections, 1 if asarray(ary).shape.rank > 1 else 0)


@export("vsplit")
def vsplit(ary, indices_or_sections):
    return _split(ary, indices_or_sections, 0)


@export("dsplit")
def dsplit(ary, indices_or_sections):
    return _split(ary, indices_or_sections, 2)


@export("broadcast_to")
def broadcast_to(array, shape):
    return _tf("broadcast_to")(asarray(array), _shape(shape))


@export("broadcast_arrays")
def broadcast_arrays(*args, **kwargs):
    ts = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*[tuple(t.shape.as_list()) for t in ts])
    return [_tf("broadcast_to")(t, list(shape)) for t in ts]


@export("tile")
def tile(a, reps):
    a = asarray(a)
    reps = [int(r) for r in np.atleast_1d(reps)]
    while a.shape.rank < len(reps):
        a = _tf("expand_dims")(a, 0)
    reps = [1] * (a.shape.rank - len(reps)) + reps
    return _tf("tile")(a, reps)


@export("repeat")
def repeat(a, repeats, axis=None):
    return _tf("repeat")(asarray(a), repeats, axis=axis)


@export("flip")
def flip(m, axis=None):
    m = asarray(m)
    axes = list(range(m.shape.rank)) if axis is None else [int(a) for a in np.atleast_1d(axis)]
    return _tf("reverse")(m, axes)


@export("fliplr")
def fliplr(m):
    return flip(m, 1)


@export("flipud")
def flipud(m):
    return flip(m, 0)


@export("rot90")
def rot90(m, k=1, axes=(0, 1)):
    m = asarray(m)
    k %= 4
    a0, a1 = axes
    for _ in range(k):
        m = swapaxes(flip(m, a1), a0, a1)
    return m


@export("roll")
def roll(a, shift, axis=None):
    a = asarray(a)
    if axis is None:
        return _tf("reshape")(_tf("roll")(_tf("reshape")(a, [-1]), shift, 0), _tf("shape")(a))
    return _tf("roll")(a, shift, axis)


@export("pad")
def pad(array, pad_width, mode="constant", **kwargs):
    a = asarray(array)
    pw = np.broadcast_to(np.asarray(pad_width), (a.shape.rank, 2)).tolist()
    if mode == "constant":
        return _tf("pad")(a, pw, constant_values=kwargs.get("constant_values", 0))
    if mode in ("reflect", "symmetric"):
        return _tf("pad")(a, pw, mode=mode.upper())
    raise ValueError(f"Unsupported padding mode: {mode}")


@export("take")
def take(a, indices, axis=None, out=None, mode="clip"):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    idx = asarray(indices)
    n = a.shape[axis]
    if mode == "clip":
        idx = _tf("clip_by_value")(idx, _cast(0, idx.dtype), _cast(n - 1, idx.dtype))
    elif mode == "wrap":
        idx = _tf("math.floormod")(idx, _cast(n, idx.dtype))
    return _tf("gather")(a, idx, axis=axis)


@export("take_along_axis")
def take_along_axis(arr, indices, axis):
    arr, idx = asarray(arr), asarray(indices)
    rank = arr.shape.rank
    axis %= rank
    grids = np.meshgrid(*[np.arange(d) for d in idx.shape.as_list()], indexing="ij")
    full = [convert_to_tensor(g.astype(np.int64)) for g in grids]
    full[axis] = _cast(idx, _dt.int64)
    return _tf("gather_nd")(arr, _tf("stack")(full, -1))


@export("compress")
def compress(condition, a, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    cond = _cast(asarray(condition), _dt.bool)
    return _tf("boolean_mask")(a, cond, axis=axis)


@export("where")
def where(condition, x=None, y=None):
    cond = _cast(asarray(condition), _dt.bool)
    if x is None and y is None:
        return nonzero(cond)
    (x, y), _d = _promoted(x, y)
    return _tf("where")(cond, x, y)


@export("select")
def select(condlist, choicelist, default=0):
    ts = _same(list(choicelist) + [default])
    out = ts[-1]
    for c, v in reversed(list(zip(condlist, ts[:-1]))):
        out = _tf("where")(_cast(asarray(c), _dt.bool), v, out)
    return out


@export("nonzero")
def nonzero(a):
    a = asarray(a)
    idx = _tf("where")(_tf("math.not_equal")(a, _tf("zeros_like")(a)))
    return tuple(idx[:, i] for i in range(a.shape.rank))


# --- reductions ------------------------------------------------------------------------------------

def _reduce(tf_name, a, axis, keepdims, dtype=None, promote_int=False):
    a = asarray(a)
    if dtype is not None:
        a = _cast(a, _dt.as_dtype(dtype))
    elif promote_int and (a.dtype is _dt.bool or (a.dtype.is_integer and a.dtype.size < 8)):
        a = _cast(a, _dt.uint64 if a.dtype.is_unsigned else _dt.int64)
    return _tf(tf_name)(a, axis=_axis(axis), keepdims=bool(keepdims))


@export("sum")
def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001 - NumPy's name
    return _reduce("reduce_sum", a, axis, keepdims, dtype, promote_int=True)


@export("prod")
def prod(a, axis=None, dtype=None, keepdims=None):
    return _reduce("reduce_prod", a, axis, keepdims, dtype, promote_int=True)


@export("amax", "max")
def amax(a, axis=None, keepdims=None):
    return _reduce("reduce_max", a, axis, keepdims)


@export("amin", "min")
def amin(a, axis=None, keepdims=None):
    return _reduce("reduce_min", a, axis, keepdims)


@export("all")
def all(a, axis=None, keepdims=None):  # noqa: A001
    return _tf("reduce_all")(_cast(asarray(a), _dt.bool), axis=_axis(axis), keepdims=bool(keepdims))


@export("any")
def any(a, axis=None, keepdims=None):  # noqa: A001
    return _tf("reduce_any")(_cast(asarray(a), _dt.bool), axis=_axis(axis), keepdims=bool(keepdims))


@export("mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    a = asarray(a) if dtype is None else asarray(a, dtype)
    return _tf("reduce_mean")(_floaty(a), axis=_axis(axis), keepdims=bool(keepdims))


@export("var")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    a = _floaty(asarray(a) if dtype is None else asarray(a, dtype))
    m = _tf("reduce_mean")(a, axis=_axis(axis), keepdims=True)
    d = _tf("math.abs")(a - m) if a.dtype.is_complex else a - m
    sq = _tf("math.square")(d)
    n = np.prod(a.shape.as_list()) if axis is None else np.prod([a.shape[i] for i in np.atleast_1d(axis)])
    return _tf("reduce_sum")(sq, axis=_axis(axis), keepdims=bool(keepdims)) / _cast(n - ddof, sq.dtype)


@export("std")
def std(a, axis=None, keepdims=None):
    return _tf("math.sqrt")(var(a, axis=axis, keepdims=keepdims))


@export("average")
def average(a, axis=None, weights=None, returned=False):
    a = _floaty(a)
    if weights is None:
        avg = _tf("reduce_mean")(a, axis=_axis(axis))
        cnt = _cast(np.prod(a.shape.as_list()) / np.prod(avg.shape.as_list() or [1]), avg.dtype) + 0 * avg
    else:
        (a, w), _d = _promoted(a, weights)
        if w.shape.rank != a.shape.rank and axis is not None:
            w = _tf("reshape")(w, [-1 if i == axis % a.shape.rank else 1 for i in range(a.shape.rank)])
        cnt = _tf("reduce_sum")(w + 0 * a, axis=_axis(axis))
        avg = _tf("reduce_sum")(a * w, axis=_axis(axis)) / cnt
    return (avg, cnt) if returned else avg


@export("ptp")
def ptp(a, axis=None, keepdims=None):
    return amax(a, axis, keepdims) - amin(a, axis, keepdims)


@export("count_nonzero")
def count_nonzero(a, axis=None):
    a = asarray(a)
    return _tf("reduce_sum")(_cast(_tf("math.not_equal")(a, _tf("zeros_like")(a)), _dt.int64),
                             axis=_axis(axis))


def _nan_to(a, v):
    a = _floaty(a)
    return _tf("where")(_tf("math.is_nan")(a), _tf("zeros_like")(a) + v, a)


@export("nansum")
def nansum(a, axis=None, dtype=None, keepdims=False):
    return _tf("reduce_sum")(_nan_to(a, 0), axis=_axis(axis), keepdims=bool(keepdims))


@export("nanprod")
def nanprod(a, axis=None, dtype=None, keepdims=False):
    return _tf("reduce_prod")(_nan_to(a, 1), axis=_axis(axis), keepdims=bool(keepdims))


@export("nanmean")
def nanmean(a, axis=None, dtype=None, keepdims=None):
    a = _floaty(a)
    ok = _cast(_tf("math.logical_not")(_tf("math.is_nan")(a)), a.dtype)
    return nansum(a, axis, keepdims=bool(keepdims)) / _tf("reduce_sum")(ok, axis=_axis(axis), keepdims=bool(keepdims))


@export("cumsum")
def cumsum(a, axis=None, dtype=None):
    a = asarray(a) if dtype is None else asarray(a, dtype)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    if a.dtype is _dt.bool or (a.dtype.is_integer and a.dtype.size < 8 and dtype is None):
        a = _cast(a, _dt.int64)
    return _tf("math.cumsum")(a, axis=axis)


@export("cumprod")
def cumprod(a, axis=None, dtype=None):
    a = asarray(a) if dtype is None else asarray(a, dtype)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    if a.dtype is _dt.bool or (a.dtype.is_integer and a.dtype.size < 8 and dtype is None):
        a = _cast(a, _dt.int64)
    return _tf("math.cumprod")(a, axis=axis)


@export("diff")
def diff(a, n=1, axis=-1):
    a = asarray(a)
    for _ in range(n):
        rank = a.shape.rank
        ax = axis % rank
        hi = [slice(None)] * rank
        lo = [slice(None)] * rank
        hi[ax], lo[ax] = slice(1, None), slice(None, -1)
        a = a[tuple(hi)] - a[tuple(lo)]
    return a


@export("argmax")
def argmax(a, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    return _tf("argmax")(a, axis=axis, output_type=_dt.int64)


@export("argmin")
def argmin(a, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    return _tf("argmin")(a, axis=axis, output_type=_dt.int64)


@export("sort")
def sort(a, axis=-1, kind="quicksort", order=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    return _tf("sort")(a, axis=axis)


@export("argsort")
def argsort(a, axis=-1, kind="quicksort", order=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    return _cast(_tf("argsort")(a, axis=axis, stable=kind in ("stable", "mergesort")), _dt.int64)


# --- linear algebra --------------------------------------------------------------------------------

@export("matmul")
def matmul(x1, x2):
    (a, b), _d = _promoted(x1, x2)
    return _tf("matmul")(a, b)


@export("dot")
def dot(a, b):
    (a, b), _d = _promoted(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    if b.shape.rank == 1:
        return _tf("tensordot")(a, b, [[a.shape.rank - 1], [0]])
    return _tf("tensordot")(a, b, [[a.shape.rank - 1], [b.shape.rank - 2]])


@export("vdot")
def vdot(a, b):
    (a, b), _d = _promoted(a, b)
    a = _tf("reshape")(a, [-1])
    if a.dtype.is_complex:
        a = _tf("math.conj")(a)
    return _tf("reduce_sum")(a * _tf("reshape")(b, [-1]))


@export("inner")
def inner(a, b):
    (a, b), _d = _promoted(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    return _tf("tensordot")(a, b, [[a.shape.rank - 1], [b.shape.rank - 1]])


@export("outer")
def outer(a, b):
    (a, b), _d = _promoted(a, b)
    return _tf("reshape")(a, [-1, 1]) * _tf("reshape")(b, [1, -1])


@export("kron")
def kron(a, b):
    (a, b), _d = _promoted(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    r = max(ra, rb)
    a = _tf("reshape")(a, [1] * (r - ra) + a.shape.as_list())
    b = _tf("reshape")(b, [1] * (r - rb) + b.shape.as_list())
    sa, sb = a.shape.as_list(), b.shape.as_list()
    ai = _tf("reshape")(a, [x for d in sa for x in (d, 1)])
    bi = _tf("reshape")(b, [x for d in sb for x in (1, d)])
    return _tf("reshape")(ai * bi, [x * y for x, y in zip(sa, sb)])


@export("tensordot")
def tensordot(a, b, axes=2):
    (a, b), _d = _promoted(a, b)
    return _tf("tensordot")(a, b, axes)


@export("einsum")
def einsum(subscripts, *operands, **kwargs):
    ts = _same(operands)
    return _tf("einsum")(subscripts, *ts)


@export("trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    d = diagonal(a, offset, axis1, axis2)
    return sum(d, axis=-1, dtype=dtype)


@export("cross")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    (a, b), _d = _promoted(a, b)
    if a.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return _tf("linalg.cross")(a, b)


@export("polyval")
def polyval(p, x):
    (p, x), _d = _promoted(p, x)
    out = _tf("zeros_like")(x)
    for i in range(p.shape[0]):
        out = out * x + p[i]
    return out
