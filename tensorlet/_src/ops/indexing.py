"""``tensor[...]`` and ``tf.strided_slice``: ints, slices (negative steps too), ``tf.newaxis``, ``...``.

Both build one normalized key (a tuple of ints, slices, ``None`` and ``Ellipsis``)
and bind the ``StridedSlice`` op, whose kernel is plain array indexing in NumPy and
in jax alike.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.ops._helpers import static, t
from tensorlet._src.ops.registry import bind, defop, tf_export
from tensorlet._src.ops.tfdef import TFDef, strided_slice_from_tf, strided_slice_to_tf


def _check_key(x, key):
    shape = np.shape(x._v) if hasattr(x, "_v") else tuple(x.shape)
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > len(shape):
        raise errors.invalid_argument("StridedSlice", f"Index out of range using input dim {len(shape)}; input "
                                                      f"has only {len(shape)} dims")
    dim = 0
    for k in key:
        if k is Ellipsis:
            dim = len(shape) - sum(1 for j in key[key.index(k) + 1:] if j is not None)
            continue
        if k is None:
            continue
        if isinstance(k, int):
            n = shape[dim]
            if n is not None and not -n <= k < n:
                raise errors.invalid_argument("StridedSlice", f"slice index {k} of dimension {dim} out of bounds.")
        dim += 1


# ``shape`` is the sliced input's static shape; where it is only known at run time (a traced input with None
# dims) the input itself is passed as a second argument and gives it
def _slice_grad_np(xp, g, *like, shape, key):
    z = xp.zeros(shape if shape is not None else like[0].shape, g.dtype)
    z[key] = g  # z is a fresh buffer: writing into it mutates nothing the user can see
    return z


def _slice_grad_jax(xp, g, *like, shape, key):
    return xp.zeros(shape if shape is not None else like[0].shape, g.dtype).at[key].set(g)


STRIDED_SLICE_GRAD = defop(
    "StridedSliceGrad", _slice_grad_np, jax_impl=_slice_grad_jax,
    grad=lambda g, ans, dy, *like, shape, key: bind(STRIDED_SLICE, g, key=key))
def _slice_kernel(xp, x, key):
    r = x[key]
    # an element of a string (object) array comes back as a Python bytes: keep tensors' values arrays
    return np.asarray(r, dtype=object) if r.__class__ is bytes else r


STRIDED_SLICE = defop(
    "StridedSlice", _slice_kernel, check=_check_key,
    grad=lambda g, ans, x, key: bind(STRIDED_SLICE_GRAD, g, shape=tuple(x.shape), key=key)
    if x.shape.is_fully_defined() else bind(STRIDED_SLICE_GRAD, g, x, shape=None, key=key),
    tfdef=TFDef(consts=[("begin", 1, "int32"), ("end", 2, "int32"), ("strides", 3, "int32")],
                to_tf=strided_slice_to_tf, from_tf=strided_slice_from_tf))


def _norm(k):
    if k is None or k is Ellipsis:
        return k
    if isinstance(k, slice):
        return slice(_int_or_none(k.start), _int_or_none(k.stop), _int_or_none(k.step))
    if isinstance(k, bool):
        raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                        "tf.int32/tf.int64 tensors are valid indices, got True/False")
    if isinstance(k, Tensor) or isinstance(k, (np.ndarray, np.generic)):
        v = static(k)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                        f"tf.int32/tf.int64 tensors are valid indices, got {k!r}")
    if hasattr(k, "__index__"):
        return k.__index__()
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                    f"tf.int32/tf.int64 tensors are valid indices, got {k!r}")


def _int_or_none(v):
    if v is None:
        return None
    v = static(v)
    if isinstance(v, int):
        return v
    if hasattr(v, "__index__"):
        return v.__index__()
    raise TypeError(f"slice indices must be integers or None, got {v!r}")


def getitem(tensor, key):
    """``tensor[key]`` with TF's rules (a Python list key acts as a tuple, as in TF)."""
    if not isinstance(key, (tuple, list)):
        key = (key,)
    dynamic = [i for i, k in enumerate(key) if _is_dynamic_index(k)]
    if dynamic:
        return _dynamic_getitem(t(tensor), key, dynamic)
    key = tuple(_norm(k) for k in key)
    return bind(STRIDED_SLICE, t(tensor), key=key)


def _is_dynamic_index(k):
    """A scalar integer tensor whose value is known only when the graph runs (``x[i]`` in a loop)."""
    if not isinstance(k, Tensor) or getattr(k, "_const", None) is not None or hasattr(k, "_v"):
        return False
    return k.shape.rank == 0 and k.dtype.is_integer


def _dynamic_getitem(x, key, dynamic):
    """``x[..., i, ...]`` with traced scalar indices: the static part of the key as a strided slice keeping
    those axes, then one gather per traced index (negative indices count from the end, as in TF)."""
    from tensorlet._src.ops import array_shape, gather_scatter, math_binary

    static_key = tuple(slice(None) if i in dynamic else _norm(k) for i, k in enumerate(key))
    rank = x.shape.rank
    if Ellipsis in static_key and rank is None:
        raise TypeError("tensorlet: indexing with `...` and a traced index needs a tensor of known rank")
    n_real = sum(1 for k in static_key if k is not None and k is not Ellipsis)
    out_axis, axes = 0, {}
    in_axis = 0
    for i, k in enumerate(static_key):
        if k is Ellipsis:
            span = rank - n_real
            out_axis += span
            in_axis += span
        elif k is None:
            out_axis += 1
        elif isinstance(k, slice):
            if i in dynamic:
                axes[i] = (out_axis, in_axis)
            out_axis += 1
            in_axis += 1
        else:
            in_axis += 1
    r = bind(STRIDED_SLICE, x, key=static_key) if any(k != slice(None) for k in static_key) else x
    for i in sorted(dynamic, reverse=True):
        out_ax, in_ax = axes[i]
        idx = key[i]
        dim = array_shape.shape(x, out_type=idx.dtype)[in_ax]
        idx = math_binary.add(idx, math_binary.multiply(dim, math_binary.cast(math_binary.less(idx, 0), idx.dtype)))
        r = gather_scatter.gather(r, idx, axis=out_ax)
    return r


@tf_export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """TF's strided slice with its bit masks, expressed as one indexing key."""
    begin, end = list(static(begin)), list(static(end))
    strides = [1] * len(begin) if strides is None else list(static(strides))
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(int(b))
        else:
            key.append(slice(None if begin_mask & bit else int(b), None if end_mask & bit else int(e), int(s)))
    return bind(STRIDED_SLICE, t(input_), key=tuple(key))


newaxis = None  # tf.newaxis
