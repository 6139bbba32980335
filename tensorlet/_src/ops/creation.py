"""Tensor creation: ``zeros``/``ones``/``fill``, ``*_like``, ``eye``, ``range``, ``linspace``, ``meshgrid``.

Creation ops have no tensor inputs besides a fill value, so their shapes and
ranges are attrs (static Python values); every function still goes through
``bind`` so that tracing sees them.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework import tensor
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap, convert_to_tensor
from tensorlet._src.framework.tensor_shape import TensorShape
from tensorlet._src.ops._helpers import mismatch, static, t
from tensorlet._src.ops.registry import NONDIFF, bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, int_tuple, range_from_tf, range_to_tf

D = _dt

# --- shapes given as lists, tuples, TensorShapes or int tensors --------------------------


def _dynamic_dims(shape):
    """While tracing: ``shape`` as one int32 tensor when an entry is a graph value known only at run time."""
    if shape.__class__ in (list, tuple) and all(d.__class__ is int for d in shape):
        return None
    from tensorlet._src.ops.array_shape import _dynamic_shape

    return _dynamic_shape(shape)


def _fill_dyn(dims, value):
    from tensorlet._src.ops.dynamic_shape import FILL_DYN
    from tensorlet._src.ops.math_binary import cast

    return bind(FILL_DYN, cast(dims, D.int32), t(value))


def dims_of(shape, op_name="Fill") -> tuple:
    """A concrete shape as a tuple of ints, with TF's errors (partially known, floats, negative dims)."""
    c = shape.__class__
    if c is list or c is tuple:
        for d in shape:
            if d.__class__ is not int or d < 0:
                break
        else:
            return tuple(shape)
    if c in (list, tuple) and all(d.__class__ is int for d in shape):
        dims = tuple(shape)
    else:
        if isinstance(shape, TensorShape):
            if not shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape {_ts_text(shape)} to a Tensor.")
            dims = tuple(shape.as_list())
        elif isinstance(shape, (Tensor, np.ndarray)) or hasattr(shape, "__tf_tensor__"):
            a = np.asarray(t(shape)._v)
            if a.dtype.kind not in "iu" or a.ndim > 1:
                raise errors.invalid_argument(op_name, f"dims must be a vector of integers, got a {a.dtype} "
                                                       f"tensor of shape {errors.shape_str(a.shape)}")
            dims = tuple(int(d) for d in a.reshape(-1))
        else:
            shape = static(shape)
            if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
                dims = (int(shape),)
            else:
                try:
                    dims = tuple(_int_dim(d) for d in shape)
                except TypeError:
                    raise TypeError(f"Cannot convert {shape!r} to EagerTensor of dtype int32") from None
    for d in dims:
        if d < 0:
            raise errors.invalid_argument(op_name, f"Dimension {d} must be >= 0")
    return dims


def _int_dim(d):
    if d is None:
        raise ValueError("Cannot convert a partially known shape with None to a Tensor.")
    d = static(d)
    if hasattr(d, "value") and not isinstance(d, (int, float)):  # Dimension
        d = d.value
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise TypeError(d)
    return int(d)


def _ts_text(shape: TensorShape) -> str:
    dims = shape.as_list()
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


# --- Fill, zeros, ones ---------------------------------------------------------------------


def _dense(g):
    return g if isinstance(g, Tensor) else tensor.convert_to_tensor(g)


# TF: the value's gradient is the sum of the upstream gradient (the dims are an attr here)
FILL = defop("Fill", lambda xp, value, shape: xp.full(shape, value, dtype=value.dtype),
             grad=lambda g, ans, value, shape: reduce.reduce_sum(_dense(g)),
             tfdef=TFDef(consts=[("shape", 0, "int32")], from_tf=int_tuple("shape")))

_SCALARS: dict = {}  # (dtype, 0 or 1) -> scalar EagerTensor, so zeros()/ones() convert nothing


def _scalar(dtype: _dt.DType, one: bool) -> EagerTensor:
    key = (dtype, one)
    s = _SCALARS.get(key)
    if s is None:
        if dtype is D.string:
            if one:
                raise TypeError("Cannot convert 1 to EagerTensor of dtype string")
            a = np.empty((), object)
            a[()] = b""
        else:
            a = np.ones((), dtype._np) if one else np.zeros((), dtype._np)
        s = _SCALARS[key] = _wrap(a)
    return s


@tf_export("fill")
def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with ``value`` (dtype from ``value``).

    >>> fill([2], 3).numpy()
    array([3, 3], dtype=int32)
    """
    value = t(value)
    if value.ndim != 0:
        raise errors.invalid_argument("Fill", f"value must represent a scalar, got shape "
                                              f"{errors.shape_str(value.shape)}")
    dyn = _dynamic_dims(dims)
    if dyn is not None:
        return _fill_dyn(dyn, value)
    return bind(FILL, value, shape=dims_of(dims, "Fill"))


@tf_export("zeros")
def zeros(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of zeros (``b""`` for strings).

    >>> zeros([2, 3]).shape
    TensorShape([2, 3])
    """
    dtype = dtype if dtype.__class__ is _dt.DType else _dt.as_dtype(dtype)
    dyn = _dynamic_dims(shape)
    if dyn is not None:
        return _fill_dyn(dyn, _scalar(dtype, False))
    return bind(FILL, _scalar(dtype, False), shape=dims_of(shape, "Fill"))


@tf_export("ones")
def ones(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ones (``True`` for bool).

    >>> ones([2], "int32").numpy()
    array([1, 1], dtype=int32)
    """
    dtype = dtype if dtype.__class__ is _dt.DType else _dt.as_dtype(dtype)
    dyn = _dynamic_dims(shape)
    if dyn is not None:
        return _fill_dyn(dyn, _scalar(dtype, True))
    return bind(FILL, _scalar(dtype, True), shape=dims_of(shape, "Fill"))


def _zeros_like_kernel(xp, x):
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return xp.zeros_like(x)


ZEROS_LIKE = defop("ZerosLike", _zeros_like_kernel, grad=NONDIFF)
ONES_LIKE = defop("OnesLike", lambda xp, x: xp.ones(x.shape, x.dtype), grad=NONDIFF,
                  dtypes=(D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.uint8, D.int16, D.uint16, D.int32,
                          D.uint32, D.int64, D.uint64, D.complex64, D.complex128, D.bool))


def _like(op, input, dtype, one):  # noqa: A002 - TF's argument name
    x = t(input)
    if dtype is None:
        return bind(op, x)
    dtype = _dt.as_dtype(dtype)
    if dtype is x.dtype:
        return bind(op, x)
    if x.shape.is_fully_defined():
        return bind(FILL, _scalar(dtype, one), shape=tuple(x.shape.as_list()))
    from tensorlet._src.ops.math_binary import cast

    return cast(bind(op, x), dtype)


@tf_export("zeros_like")
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002 - TF's argument name
    """Zeros with the shape (and, unless ``dtype`` is given, the dtype) of ``input``.

    >>> zeros_like([1, 2]).numpy()
    array([0, 0], dtype=int32)
    """
    return _like(ZEROS_LIKE, input, dtype, False)


@tf_export("ones_like")
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002 - TF's argument name
    """Ones with the shape (and, unless ``dtype`` is given, the dtype) of ``input``.

    >>> ones_like([1.5]).numpy()
    array([1.], dtype=float32)
    """
    return _like(ONES_LIKE, input, dtype, True)


# --- eye -------------------------------------------------------------------------------------


@tf_export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=D.float32, name=None):
    """Identity matrices of shape ``batch_shape + [num_rows, num_columns]``.

    >>> eye(2).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    from tensorlet._src.ops.math_binary import cast, equal

    dtype = _dt.as_dtype(dtype)
    if dtype is D.string:
        raise TypeError("Cannot convert 1 to EagerTensor of dtype string")
    n = int(static(num_rows))
    m = n if num_columns is None else int(static(num_columns))
    batch = () if batch_shape is None else dims_of(batch_shape, "Fill")
    for d in (n, m):
        if d < 0:
            raise errors.invalid_argument("Fill", f"Dimension {d} must be >= 0")
    out = cast(equal(range(0, n)[:, None], range(0, m)), dtype)
    if batch:
        from tensorlet._src.ops.array_shape import broadcast_to

        out = broadcast_to(out, batch + (n, m))
    return out


# --- range -------------------------------------------------------------------------------------

# TF's order for inferring range's dtype from its arguments.
_RANGE_ORDER = (D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64)
RANGE_TYPES = (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.int16, D.int32, D.int64,
               D.uint16, D.uint32, D.uint64)


def _num_text(v) -> str:
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def range_size(start, limit, delta, dtype) -> int:
    """Number of elements of ``range(start, limit, delta)``, computed as TF does in ``dtype``."""
    if delta == 0:
        raise errors.invalid_argument("Range", f"Requires delta != 0: {_num_text(delta)}")
    if delta > 0 and start > limit:
        raise errors.invalid_argument(
            "Range", f"Requires start <= limit when delta > 0: {_num_text(start)}/{_num_text(limit)}")
    if delta < 0 and start < limit:
        raise errors.invalid_argument(
            "Range", f"Requires start >= limit when delta < 0: {_num_text(start)}/{_num_text(limit)}")
    if np.dtype(dtype).kind in "iu":
        start, limit, delta = int(start), int(limit), int(delta)
        return (abs(limit - start) + abs(delta) - 1) // abs(delta)
    d = np.dtype(dtype)
    with np.errstate(all="ignore"):
        return int(np.ceil(np.abs((d.type(limit) - d.type(start)) / d.type(delta))))


def _range_kernel(xp, start, limit, delta, dtype):
    d = np.dtype(dtype)
    if d.kind in "iu":
        return xp.arange(start, limit, delta, dtype=d)
    n = range_size(start, limit, delta, dtype)
    return xp.arange(n, dtype=d) * d.type(delta) + d.type(start)


RANGE = defop("Range", _range_kernel, grad=NONDIFF,
              tfdef=TFDef(consts=[("start", 0, None), ("limit", 1, None), ("delta", 2, None)], to_tf=range_to_tf,
                          from_tf=range_from_tf))
_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1
_I32, _I64 = np.dtype(np.int32), np.dtype(np.int64)


def _range_arg(v, dtype):
    if dtype is not None:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            v = t(v)
            if v.dtype is not dtype:
                from tensorlet._src.ops.math_binary import cast

                v = cast(v, dtype)
            return v
        return convert_to_tensor(v, dtype=dtype)
    return t(v)


@tf_export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """Numbers from ``start`` up to (not including) ``limit`` in steps of ``delta``.

    Integers give int32 (int64 for large values or int64 arguments), floats give float32.

    >>> range(1, 7, 2).numpy()
    array([1, 3, 5], dtype=int32)
    """
    if limit is None:
        start, limit = 0, start
    if dtype is None and start.__class__ is int and limit.__class__ is int and delta.__class__ is int:
        big = not (_I32_MIN <= start <= _I32_MAX and _I32_MIN <= limit <= _I32_MAX and _I32_MIN <= delta <= _I32_MAX)
        if delta > 0 and start <= limit or delta < 0 and start >= limit:
            return bind(RANGE, start=start, limit=limit, delta=delta, dtype=_I64 if big else _I32)
    dtype = None if dtype is None else _dt.as_dtype(dtype)
    args = [_range_arg(v, dtype) for v in (start, limit, delta)]
    if dtype is None:
        for a in args:
            if a.dtype not in _RANGE_ORDER:
                raise TypeError(f"range arguments must be int32, int64 or float, got {a.dtype.name}")
        dtype = max((a.dtype for a in args), key=_RANGE_ORDER.index)
    if dtype not in RANGE_TYPES:
        raise errors.invalid_argument("Range", f"Value for attr 'Tidx' of {dtype.name} is not in the list of "
                                               f"allowed values: bfloat16, half, float, double, int8, int16, int32, "
                                               f"int64, uint16, uint32, uint64")
    if any(not isinstance(a, EagerTensor) and getattr(a, "_const", None) is None for a in args):
        from tensorlet._src.ops.dynamic_shape import DYNAMIC_RANGE  # a range over values known only at run time

        from tensorlet._src.ops.math_binary import cast

        return bind(DYNAMIC_RANGE, *[a if a.dtype is dtype else cast(a, dtype) for a in args])
    vals = []
    for a in args:
        v = a._v if isinstance(a, EagerTensor) else np.asarray(a)
        if np.ndim(v) != 0:
            raise errors.invalid_argument("Range", f"start, limit and delta must be scalars, got shape "
                                                   f"{errors.shape_str(np.shape(v))}")
        v = v.astype(dtype._np) if v.dtype != dtype._np else v
        vals.append(v.item() if dtype._kind in "iu" else float(v))
    s, lim, dl = vals
    range_size(s, lim, dl, dtype._np)  # TF's argument errors, before binding
    return bind(RANGE, start=s, limit=lim, delta=dl, dtype=dtype._np)


# --- linspace ----------------------------------------------------------------------------------


def _linspace_kernel(xp, start, stop, num, axis):
    start, stop = xp.broadcast_arrays(start, stop)
    a, b = start[..., None], stop[..., None]
    if num == 0:
        out = xp.zeros(start.shape + (0,), start.dtype)
    elif num == 1:
        out = a
    else:
        step = (b - a) / xp.asarray(num - 1, dtype=start.dtype)
        mid = a + xp.arange(1, num - 1).astype(start.dtype) * step
        out = xp.concatenate([a, mid.astype(start.dtype), b], axis=-1)
    return xp.moveaxis(out, -1, axis)


def _linspace_grad(g, ans, start, stop, num, axis):
    """``out_i = start * (1 - t_i) + stop * t_i`` with ``t_i = i / (num - 1)`` (``t = [0]`` when num == 1).

    TF's ``LinSpace`` op has no gradient, but ``tf.linspace`` (a composite in TF 2) is differentiable in
    ``start`` and ``stop``; this is that gradient.
    """
    g = _dense(g)
    t_np = np.arange(num, dtype=np.float64) / max(num - 1, 1)
    shape = [1] * len(_shape_of(g))
    shape[axis] = num
    w = convert_to_tensor(t_np.astype(start.dtype._np).reshape(shape))
    g_stop = reduce.reduce_sum(g * w, axis=axis)
    g_start = reduce.reduce_sum(g, axis=axis) - g_stop
    return unbroadcast(g_start, start), unbroadcast(g_stop, stop)


def _shape_of(x) -> tuple:
    v = getattr(x, "_v", None)
    return np.shape(v) if v is not None else tuple(x.shape.as_list())


LINSPACE = defop("LinSpace", _linspace_kernel, dtypes=(D.bfloat16, D.float16, D.float32, D.float64,
                                                       D.complex64, D.complex128), grad=_linspace_grad)


@tf_export("linspace")
def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive, along a new ``axis``.

    >>> linspace(0., 1., 3).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    from tensorlet._src.ops.math_binary import cast

    start = t(start)
    if start.dtype._kind in "iu":
        start = cast(start, D.float64)
    try:
        stop = convert_to_tensor(stop, dtype=start.dtype) if not isinstance(stop, Tensor) or \
            stop.dtype._kind not in "iu" else cast(stop, start.dtype)
    except (TypeError, ValueError) as e:
        raise ValueError(f"stop: {e}") from None
    num = int(static(num))
    if num < 0:
        raise errors.invalid_argument("Range", f"Requires start <= limit when delta > 0: 1/{num}")
    rank = len(np.broadcast_shapes(tuple(start.shape.as_list()), tuple(stop.shape.as_list())))
    axis = int(static(axis))
    if not -(rank + 1) <= axis <= rank:
        raise errors.invalid_argument("ExpandDims", f"Tried to expand dim index {axis} for tensor with "
                                                    f"{rank} dimensions.")
    return bind(LINSPACE, start, stop, num=num, axis=axis % (rank + 1))


# --- meshgrid ----------------------------------------------------------------------------------


@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D inputs; ``indexing="xy"`` (default) swaps the first two axes.

    >>> [g.shape for g in meshgrid([1, 2, 3], [4, 5])]
    [TensorShape([2, 3]), TensorShape([2, 3])]
    """
    from tensorlet._src.ops.array_shape import broadcast_to, reshape

    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    xs = [t(a) for a in args]
    n = len(xs)
    for x in xs[1:]:
        if x.dtype is not xs[0].dtype:
            raise mismatch("Mul", 1, x.dtype, xs[0].dtype)
    sizes = [int(np.prod(x.shape.as_list())) for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and n > 1 and i < 2:
            pos = 1 - i
        shape = [1] * n
        shape[pos] = -1
        out.append(broadcast_to(reshape(x, shape), sizes))
    return out


# sibling families used inside functions (gradients, composites): imported last, so that any family can
# load first without meeting a partly defined module
from tensorlet._src.ops import reduce  # noqa: E402
from tensorlet._src.ops.grad_utils import unbroadcast  # noqa: E402
