"""``keras.ops`` array creation, shape manipulation, joining/splitting, indexing and products (also
``keras.ops.numpy.*``).

>>> concatenate([np.ones(2, "int8"), np.ones(1, "float16")]).dtype.name
'float16'
"""

from __future__ import annotations

import builtins

import numpy as np

from tensorlet._src.keras.backend import floatx, standardize_dtype
from tensorlet._src.keras.ops._dtypes import cast, convert, dtype_of, result_type
from tensorlet._src.keras.ops.numpy_elementwise import _alias, export
from tensorlet._src.ops import array_blocks, array_select, array_shape
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.array_shape import shape as _shape
from tensorlet._src.ops.array_select import where as _where
from tensorlet._src.ops.creation import eye as _eye, ones as _ones, range as _range
from tensorlet._src.ops.creation import linspace as _linspace, meshgrid as _meshgrid
from tensorlet._src.ops.creation import ones_like as _ones_like, zeros as _zeros, zeros_like as _zeros_like
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.linalg import diag as _diag, diag_part
from tensorlet._src.ops.segment import unique_with_counts as _unique_counts


def _nd(x):
    return x.shape.rank


def _shape_list(shape):
    if isinstance(shape, int):
        return [shape]
    return [int(s) if isinstance(s, (int, np.integer)) else s for s in shape]


# ---- creation ----------------------------------------------------------------------------------------------------


@export("zeros", "numpy")
def zeros(shape, dtype=None):
    """A tensor of zeros (floatx by default)."""
    return _zeros(_shape_list(shape), dtype=standardize_dtype(dtype or floatx()))


@export("ones", "numpy")
def ones(shape, dtype=None):
    """A tensor of ones (floatx by default)."""
    return _ones(_shape_list(shape), dtype=standardize_dtype(dtype or floatx()))


@export("empty", "numpy")
def empty(shape, dtype=None):
    """An (all-zero) tensor of ``shape``."""
    return zeros(shape, dtype)


@export("full", "numpy")
def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value``."""
    dtype = standardize_dtype(dtype or floatx())
    v = convert(fill_value, dtype)
    return array_shape.broadcast_to(v, _shape_list(shape))


@export("zeros_like", "numpy")
def zeros_like(x, dtype=None):
    """Zeros of ``x``'s shape (and dtype)."""
    return _zeros_like(convert(x), dtype=None if dtype is None else standardize_dtype(dtype))


@export("ones_like", "numpy")
def ones_like(x, dtype=None):
    """Ones of ``x``'s shape (and dtype)."""
    return _ones_like(convert(x), dtype=None if dtype is None else standardize_dtype(dtype))


empty_like = _alias("empty_like", zeros_like)


@export("full_like", "numpy")
def full_like(x, fill_value, dtype=None):
    """``fill_value`` in ``x``'s shape (and dtype)."""
    x = convert(x)
    dtype = result_type(dtype or x.dtype.name)
    return mb.add(_zeros_like(x, dtype=dtype), convert(fill_value, dtype))


@export("array", "numpy")
def array(x, dtype=None):
    """``convert_to_tensor(x, dtype)``."""
    return convert(x, dtype)


@export("arange", "numpy")
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``; the dtype follows the arguments' promotion."""
    if dtype is None:
        dts = [dtype_of(start)] + [dtype_of(v) for v in (stop, step) if v is not None]
        dtype = result_type(*dts)
    dtype = standardize_dtype(dtype)
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    if dtype in ("int8", "int16", "uint8", "uint16", "uint32", "bool", "float16", "bfloat16"):
        return cast(_range(cast(start, "float32"), cast(stop, "float32"), cast(step, "float32"), dtype="float32"),
                    dtype)
    return _range(convert(start, dtype), convert(stop, dtype), convert(step, dtype), dtype=dtype)


@export("linspace", "numpy")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    if num < 0:
        raise ValueError(f"`num` must be a non-negative integer. Received: num={num}")
    if dtype is None:
        dtype = result_type(dtype_of(start), dtype_of(stop), float)
    dtype = standardize_dtype(dtype)
    compute = dtype if dtype in ("float32", "float64") else "float64" if dtype == "int64" else "float32"
    a, b = convert(start, compute), convert(stop, compute)
    step = mb.divide(mb.subtract(b, a), mb.cast(builtins.max(num - (1 if endpoint else 0), 1), compute))
    if num == 0:
        out = _zeros([0], dtype=compute)
    elif endpoint:
        out = _linspace(a, b, num, axis=axis)
    else:
        out = _linspace(a, mb.subtract(b, step), num, axis=axis)
    out = cast(out, dtype)
    if retstep:
        return out, cast(step, dtype) if num > 1 or (num > 0 and not endpoint) else convert(np.nan)
    return out


@export("logspace", "numpy")
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop)``."""
    r = linspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis)
    return mb.pow(mb.cast(base, r.dtype), r)


@export("geomspace", "numpy")
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop``."""
    from tensorlet._src.ops import math_unary as mu

    d = standardize_dtype(dtype or floatx())
    a = mu.log(cast(mu.abs(convert(start)) if not isinstance(start, (int, float)) else builtins.abs(start), d))
    b = mu.log(cast(mu.abs(convert(stop)) if not isinstance(stop, (int, float)) else builtins.abs(stop), d))
    lb = mu.log(mb.cast(10.0, a.dtype))
    r = logspace(mb.divide(a, lb), mb.divide(b, lb), num, endpoint=endpoint, base=10.0, dtype=d, axis=axis)
    sign = mu.sign(cast(start, d))
    return mb.multiply(r, sign)


@export("eye", "numpy")
def eye(N, M=None, k=0, dtype=None):
    """A 2-D tensor with ones on the ``k``-th diagonal."""
    dtype = standardize_dtype(dtype or floatx())
    M = N if M is None else M
    if k == 0:
        return _eye(N, M, dtype=dtype)
    r = _range(N)[:, None]
    c = _range(M)[None, :]
    m = mb.equal(mb.subtract(c, r), k)
    return cast(m, dtype)


@export("identity", "numpy")
def identity(n, dtype=None):
    """The ``n x n`` identity matrix."""
    return eye(n, n, dtype=dtype)


@export("tri", "numpy")
def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal."""
    M = N if M is None else M
    dtype = standardize_dtype(dtype or floatx())
    r = _range(N)[:, None]
    c = _range(M)[None, :]
    return cast(mb.less_equal(mb.subtract(c, r), k), dtype)


def _band(x, k, keep):
    x = convert(x)
    n, m = x.shape[-2], x.shape[-1]
    return _where(keep(mb.subtract(_range(m)[None, :], _range(n)[:, None]), k), x, _zeros_like(x))


@export("tril", "numpy")
def tril(x, k=0):
    """``x`` with the elements above the ``k``-th diagonal zeroed."""
    return _band(x, k, mb.less_equal)


@export("triu", "numpy")
def triu(x, k=0):
    """``x`` with the elements below the ``k``-th diagonal zeroed."""
    return _band(x, k, mb.greater_equal)


@export("meshgrid", "numpy")
def meshgrid(*x, indexing="xy"):
    """Coordinate matrices from coordinate vectors."""
    return _meshgrid(*[convert(v) for v in x], indexing=indexing)


@export("vander", "numpy")
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``."""
    x = convert(x)
    rd_t = result_type(x.dtype.name)
    N = x.shape[0] if N is None else N
    powers = _range(N) if increasing else _range(N - 1, -1, -1)
    ct = result_type(x.dtype.name, "float32")
    return cast(mb.pow(cast(x, ct)[:, None], cast(powers, ct)), rd_t)


@export("diag", "numpy")
def diag(x, k=0):
    """A 2-D tensor from a 1-D diagonal, or the ``k``-th diagonal of a 2-D tensor."""
    x = convert(x)
    if _nd(x) == 1:
        return _diag(x, k=k)
    if _nd(x) == 2:
        return diagonal(x, offset=k)
    raise ValueError(f"`x` must be 1d or 2d. Received: x.shape={x.shape}")


@export("diagflat", "numpy")
def diagflat(x, k=0):
    """A 2-D tensor with the flattened ``x`` on the ``k``-th diagonal."""
    return diag(array_shape.reshape(convert(x), [-1]), k)


@export("diagonal", "numpy")
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal over ``axis1``/``axis2`` (moved to the last axis)."""
    x = convert(x)
    x = moveaxis(x, [axis1, axis2], [-2, -1])
    n, m = x.shape[-2], x.shape[-1]
    if offset <= -n or offset >= m:
        return _zeros(list(x.shape[:-2]) + [0], dtype=x.dtype)
    return diag_part(x, k=offset)


@export("trace", "numpy")
def trace(x, offset=0, axis1=0, axis2=1):
    """The sum along the ``offset`` diagonal."""
    x = convert(x)
    d = x.dtype.name
    d = "int32" if d in ("bool", "int8", "int16") else "uint32" if d in ("uint8", "uint16") else d
    return rd.reduce_sum(diagonal(cast(x, d), offset, axis1, axis2), axis=-1)


# ---- shape manipulation ------------------------------------------------------------------------------------------


@export("reshape", "numpy")
def reshape(x, newshape):
    """``x`` with a new shape (one dim may be -1)."""
    return array_shape.reshape(convert(x), _shape_list(newshape))


@export("ravel", "numpy")
def ravel(x):
    """``x`` flattened to 1-D."""
    return array_shape.reshape(convert(x), [-1])


@export("transpose", "numpy")
def transpose(x, axes=None):
    """``x`` with its axes permuted (reversed by default)."""
    return array_shape.transpose(convert(x), perm=None if axes is None else list(axes))


@export("expand_dims", "numpy")
def expand_dims(x, axis):
    """``x`` with new size-1 axes at ``axis`` (an int or a tuple)."""
    x = convert(x)
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out_nd = _nd(x) + len(axes)
    for a in sorted(int(a) % out_nd for a in axes):
        x = array_shape.expand_dims(x, a)
    return x


@export("squeeze", "numpy")
def squeeze(x, axis=None):
    """``x`` without size-1 axes (or just ``axis``)."""
    x = convert(x)
    if axis is None:
        return array_shape.squeeze(x)
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if x.shape[a] is not None and x.shape[a] != 1:
            raise ValueError(f"Cannot squeeze axis {a}, because the dimension is not 1.")
    return array_shape.squeeze(x, axis=axes)


@export("moveaxis", "numpy")
def moveaxis(x, source, destination):
    """``x`` with axes moved from ``source`` to ``destination``."""
    x = convert(x)
    nd = _nd(x)
    src = [int(s) % nd for s in (source if isinstance(source, (list, tuple)) else [source])]
    dst = [int(d) % nd for d in (destination if isinstance(destination, (list, tuple)) else [destination])]
    order = [i for i in builtins.range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return array_shape.transpose(x, order)


@export("swapaxes", "numpy")
def swapaxes(x, axis1, axis2):
    """``x`` with two axes swapped."""
    x = convert(x)
    nd = _nd(x)
    perm = list(builtins.range(nd))
    a, b = int(axis1) % nd, int(axis2) % nd
    perm[a], perm[b] = perm[b], perm[a]
    return array_shape.transpose(x, perm)


@export("broadcast_to", "numpy")
def broadcast_to(x, shape):
    """``x`` broadcast to ``shape``."""
    return array_shape.broadcast_to(convert(x), _shape_list(shape))


@export("tile", "numpy")
def tile(x, repeats):
    """``x`` repeated ``repeats`` times along each axis."""
    x = convert(x)
    reps = [repeats] if isinstance(repeats, int) else [int(r) for r in repeats]
    reps = [1] * (_nd(x) - len(reps)) + reps
    while len(reps) > _nd(x):
        x = array_shape.expand_dims(x, 0)
    return array_shape.tile(x, reps)


@export("repeat", "numpy")
def repeat(x, repeats, axis=None):
    """Each element repeated ``repeats`` times (flattened when ``axis`` is None)."""
    return array_shape.repeat(convert(x), repeats, axis=axis)


@export("flip", "numpy")
def flip(x, axis=None):
    """``x`` reversed along ``axis`` (all axes by default)."""
    x = convert(x)
    axes = list(builtins.range(_nd(x))) if axis is None else (list(axis) if isinstance(axis, (list, tuple))
                                                                else [axis])
    return array_select.reverse(x, axes)


@export("fliplr", "numpy")
def fliplr(x):
    """``x`` reversed along axis 1."""
    return flip(x, 1)


@export("flipud", "numpy")
def flipud(x):
    """``x`` reversed along axis 0."""
    return flip(x, 0)


@export("rot90", "numpy")
def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by 90 degrees ``k`` times in the plane of ``axes``, computed as Keras's TF backend does
    (its ``k == 2`` result differs from NumPy's for non-square planes, and so does this one)."""
    x = convert(array)
    if _nd(x) < 2:
        raise ValueError(f"Input array must have at least 2 dimensions. Received: array.ndim={_nd(x)}")
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"Invalid axes: {axes}. Axes must be a tuple of two different dimensions.")
    k = k % 4
    if k == 0:
        return x
    nd = _nd(x)
    axes = tuple(a % nd for a in axes)
    perm = [i for i in builtins.range(nd) if i not in axes] + list(axes)
    x = array_shape.transpose(x, perm)
    lead = [(-1 if d is None else d) for d in x.shape[:-2]]
    h, w = x.shape[-2], x.shape[-1]
    a = array_shape.transpose(array_select.reverse(array_shape.reshape(x, [-1, h, w]), [2]), [0, 2, 1])
    fh, fw = (w, h) if k % 2 else (h, w)
    if k > 1:
        a = array_shape.reshape(a, [-1, fh, fw])
        for _ in builtins.range(k - 1):
            a = array_shape.transpose(array_select.reverse(a, [2]), [0, 2, 1])
    a = array_shape.reshape(a, lead + [fh, fw])
    return array_shape.transpose(a, [perm.index(i) for i in builtins.range(nd)])


@export("roll", "numpy")
def roll(x, shift, axis=None):
    """Elements shifted cyclically along ``axis`` (of the flattened ``x`` when None)."""
    x = convert(x)
    if axis is None:
        return array_shape.reshape(array_select.roll(array_shape.reshape(x, [-1]), shift, 0), _shape(x))
    return array_select.roll(x, shift, axis)


@export("pad", "numpy")
def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (``constant``, ``reflect`` or ``symmetric``)."""
    x = convert(x)
    if constant_values is not None and mode != "constant":
        raise ValueError("Argument `constant_values` can only be provided when `mode == 'constant'`. "
                         f"Received: mode={mode}")
    pw = np.asarray(pad_width, dtype=np.int64)
    if pw.ndim == 0:
        pw = np.full((_nd(x), 2), int(pw))
    elif pw.ndim == 1:
        pw = np.tile(pw.reshape(1, -1) if pw.size == 2 else pw.reshape(-1, 1), (_nd(x), 1) if pw.size == 2 else (1, 2))
    elif pw.shape[0] == 1 and _nd(x) > 1:
        pw = np.tile(pw, (_nd(x), 1))
    kwargs = {} if constant_values is None else {"constant_values": constant_values}
    return array_blocks.pad(x, pw.tolist(), mode.upper(), **kwargs)


# ---- joining and splitting ---------------------------------------------------------------------------------------


def _same(xs, weak=False):
    xs = [convert(v) if not isinstance(v, (int, float)) else v for v in xs]
    dts = {dtype_of(v, weak) for v in xs}
    if len(dts) > 1:
        dt = result_type(*dts)
        return [convert(v, dt) for v in xs]
    return [convert(v) for v in xs]


@export("concatenate", "numpy")
def concatenate(xs, axis=0):
    """The tensors joined along ``axis`` (promoted to one dtype)."""
    xs = _same(xs)
    if axis is None:
        return array_blocks.concat([array_shape.reshape(v, [-1]) for v in xs], 0)
    return array_blocks.concat(xs, axis)


@export("append", "numpy")
def append(x1, x2, axis=None):
    """``x2`` appended to ``x1`` (flattened when ``axis`` is None)."""
    return concatenate([x1, x2], axis=axis)


@export("stack", "numpy")
def stack(x, axis=0):
    """The tensors stacked along a new ``axis``."""
    return array_blocks.stack(_same(x, weak=True), axis=axis)


@export("hstack", "numpy")
def hstack(xs):
    """Stacked horizontally (axis 1, or 0 for 1-D)."""
    xs = _same(xs, weak=True)
    return array_blocks.concat(xs, 0 if _nd(xs[0]) == 1 else 1)


@export("vstack", "numpy")
def vstack(xs):
    """Concatenated along axis 0 (1-D inputs too, as Keras's TF backend does)."""
    return array_blocks.concat(_same(xs, weak=True), 0)


@export("dstack", "numpy")
def dstack(xs):
    """Stacked along the third axis."""
    out = []
    for v in _same(xs):
        if _nd(v) == 0:
            v = array_shape.reshape(v, [1, 1, 1])
        elif _nd(v) == 1:
            v = array_shape.reshape(v, [1, -1, 1])
        elif _nd(v) == 2:
            v = array_shape.expand_dims(v, -1)
        out.append(v)
    return array_blocks.concat(out, 2)


@export("split", "numpy")
def split(x, indices_or_sections, axis=0):
    """``x`` split into equal sections, or at the given indices."""
    x = convert(x)
    if isinstance(indices_or_sections, int):
        return array_blocks.split(x, indices_or_sections, axis=axis)
    total = x.shape[axis]
    idx = [int(i) for i in indices_or_sections]
    bounds = [0] + idx + [total]
    return array_blocks.split(x, [bounds[i + 1] - bounds[i] for i in builtins.range(len(bounds) - 1)], axis=axis)


@export("array_split", "numpy")
def array_split(x, indices_or_sections, axis=0):
    """``x`` split into ``indices_or_sections`` nearly equal parts (the first ones one longer)."""
    x = convert(x)
    total = x.shape[axis]
    n = int(indices_or_sections)
    avg, rem = divmod(total, n)
    return array_blocks.split(x, [avg + 1] * rem + [avg] * (n - rem), axis=axis)


def _split_along(axis, min_rank):
    def fn(x, indices_or_sections):
        x = convert(x)
        if _nd(x) < min_rank:
            raise ValueError(f"split only works on arrays of {min_rank} or more dimensions")
        ax = 0 if (axis == 1 and _nd(x) == 1) else axis
        return split(x, indices_or_sections, axis=ax)

    return fn


hsplit = _alias("hsplit", _split_along(1, 1))
vsplit = _alias("vsplit", _split_along(0, 2))
dsplit = _alias("dsplit", _split_along(2, 3))


@export("unstack", "numpy")
def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis`` as a list."""
    return array_blocks.unstack(convert(x), num=num, axis=axis)


# ---- indexing ----------------------------------------------------------------------------------------------------


@export("take", "numpy")
def take(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (negative indices count from the end)."""
    x = convert(x)
    if axis is None:
        x, axis = array_shape.reshape(x, [-1]), 0
    idx = convert(indices)
    if not idx.dtype.is_integer:
        idx = cast(idx, "int32")
    n = _shape(x, out_type=idx.dtype)[axis]
    idx = _where(mb.less(idx, mb.cast(0, idx.dtype)), mb.add(idx, n), idx)
    return gather(x, idx, axis=axis)


@export("take_along_axis", "numpy")
def take_along_axis(x, indices, axis=None):
    """``x`` gathered with ``indices`` broadcast against it along ``axis``."""
    x = convert(x)
    idx = convert(indices)
    if not idx.dtype.is_integer:
        idx = cast(idx, "int32")
    if axis is None:
        return take_along_axis(array_shape.reshape(x, [-1]), idx, 0)
    nd = _nd(x)
    axis = int(axis) % nd
    xs, is_ = list(x.shape), list(idx.shape)
    bshape = [builtins.max(a, b) if i != axis else None for i, (a, b) in enumerate(zip(xs, is_))]
    xb = array_shape.broadcast_to(x, [xs[i] if i == axis else bshape[i] for i in builtins.range(nd)])
    ib = array_shape.broadcast_to(idx, [is_[i] if i == axis else bshape[i] for i in builtins.range(nd)])
    n = mb.cast(xs[axis], ib.dtype)
    ib = _where(mb.less(ib, mb.cast(0, ib.dtype)), mb.add(ib, n), ib)
    perm = [i for i in builtins.range(nd) if i != axis] + [axis]
    out = gather(array_shape.transpose(xb, perm), array_shape.transpose(ib, perm), axis=-1, batch_dims=nd - 1)
    return array_shape.transpose(out, [perm.index(i) for i in builtins.range(nd)])


@export("where", "numpy")
def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` else ``x2`` (promoted); with one argument, the indices of true elements."""
    c = cast(condition, "bool")
    if x1 is not None and x2 is not None:
        dt = result_type(dtype_of(x1), dtype_of(x2))
        return _where(c, convert(x1, dt), convert(x2, dt))
    if x1 is None and x2 is None:
        return nonzero(c)
    raise ValueError("`x1` and `x2` either both should be `None` or both should have non-None value.")


@export("nonzero", "numpy")
def nonzero(x):
    """A tuple of index tensors, one per axis, of the non-zero elements (int32)."""
    x = cast(x, "bool")
    idx = cast(_where(x), "int32")
    return tuple(array_blocks.unstack(idx, num=_nd(x), axis=1))


@export("select", "numpy")
def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, elementwise (``default`` elsewhere)."""
    choices = _same(list(choicelist) + [default])
    out = choices[-1]
    for c, v in reversed(list(zip(condlist, choices[:-1]))):
        out = _where(cast(c, "bool"), v, out)
    return out


@export("isin", "numpy")
def isin(x1, x2, assume_unique=False, invert=False):
    """True where elements of ``x1`` are in ``x2``."""
    a, b = convert(x1), convert(x2)
    dt = result_type(a.dtype.name, b.dtype.name)
    a, b = cast(a, dt), cast(b, dt)
    hit = rd.reduce_any(mb.equal(array_shape.reshape(a, [-1, 1]), array_shape.reshape(b, [1, -1])), axis=1)
    if invert:
        hit = mb.logical_not(hit)
    return array_shape.reshape(hit, _shape(a))


@export("unravel_index", "numpy")
def unravel_index(indices, shape):
    """A tuple of coordinate tensors for flat ``indices`` into ``shape``."""
    idx = convert(indices)
    dt = idx.dtype.name if idx.dtype.is_integer else "int32"
    idx = cast(idx, dt)
    out = []
    rem = idx
    for dim in reversed(list(shape)):
        out.append(mb.floormod(rem, mb.cast(dim, dt)))
        rem = mb.floordiv(rem, mb.cast(dim, dt))
    return tuple(reversed(out))


@export("unique", "numpy")
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,  # noqa: A002
           axis=None, size=None, fill_value=None):
    """The unique elements of the flattened ``x`` (sorted), optionally with first indices, inverse and counts."""
    x = convert(x)
    if axis is not None:
        raise NotImplementedError("keras.ops.unique(axis=...) is not supported by tensorlet yet")
    flat = array_shape.reshape(x, [-1])
    y, inv, counts = _unique_counts(flat)
    if sorted:
        order = _argsort_stable(y)
        y = gather(y, order)
        counts = gather(counts, order)
        rank = _argsort_stable(order)
        inv = gather(rank, inv)
    if size is not None:
        n = y.shape[0]
        if n < size:
            fv = y[0] if fill_value is None else convert(fill_value, y.dtype)
            y = array_blocks.concat([y, mb.add(_zeros([size - n], dtype=y.dtype), fv)], 0)
            counts = array_blocks.concat([counts, _zeros([size - n], dtype=counts.dtype)], 0)
        else:
            y, counts = y[:size], counts[:size]
    out = [y]
    if return_index:
        from tensorlet._src.ops.segment import unsorted_segment_min

        first = unsorted_segment_min(_range(flat.shape[0]), inv, y.shape[0])
        out.append(first)
    if return_inverse:
        out.append(array_shape.reshape(inv, _shape(x)))
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def _argsort_stable(v):
    from tensorlet._src.ops.scan_sort import argsort

    return argsort(v, stable=True)


@export("get_item", "numpy")
def get_item(x, key):
    """``x[key]``."""
    return convert(x)[key]


@export("ndim", "numpy")
def ndim(x):
    """The number of dimensions."""
    return _nd(convert(x))


@export("size", "numpy")
def size(x):
    """The number of elements (an int32 tensor)."""
    from tensorlet._src.ops.array_shape import size as _size

    return _size(convert(x), out_type="int32")


@export("copy", "numpy")
def copy(x):
    """A copy of ``x``."""
    from tensorlet._src.ops.array_identity import identity

    return identity(convert(x))


@export("view", "numpy")
def view(x, dtype=None):
    """``x``'s bytes reinterpreted as ``dtype`` (the last axis rescaled by the size ratio)."""
    x = convert(x)
    if dtype is None:
        return x
    new = standardize_dtype(dtype)
    old_size = np.dtype(x.dtype.as_numpy_dtype).itemsize
    new_size = np.dtype(_np_dtype(new)).itemsize
    if old_size == new_size:
        return mb.bitcast(x, new)
    if old_size > new_size:
        r = mb.bitcast(x, new)
        shp = list(x.shape[:-1]) + [x.shape[-1] * (old_size // new_size)] if _nd(x) else [old_size // new_size]
        return array_shape.reshape(r, shp)
    ratio = new_size // old_size
    shp = list(x.shape[:-1]) + [x.shape[-1] // ratio, ratio]
    return mb.bitcast(array_shape.reshape(x, shp), new)


def _np_dtype(name):
    from tensorlet._src.framework import dtypes as D

    return D.as_dtype(name).as_numpy_dtype

