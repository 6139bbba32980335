"""Elementwise math that keeps ``tf.IndexedSlices`` gradients sparse the way Keras 3's TensorFlow backend does.

Unary ops map the slice values (duplicates stay separate); ``slices * dense`` gathers the dense rows
(intersection); ``slices +/- dense`` and ``maximum`` densify; ``slices / dense`` divides by the gathered rows.
Everything else is the plain tensor op, so update steps written with these run dense or sparse unchanged.
"""

from __future__ import annotations

from tensorlet._src.ops import math_binary
from tensorlet._src.ops import math_unary
from tensorlet._src.ops.array_shape import expand_dims
from tensorlet._src.ops.gather_scatter import (
    gather, tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update,
)
from tensorlet._src.ops.math_binary import subtract
from tensorlet._src.ops.indexed_slices import IndexedSlices


def is_sparse(x):
    return isinstance(x, IndexedSlices)


def dense(x):
    return x._dense() if isinstance(x, IndexedSlices) else x


def _with(x, values):
    return IndexedSlices(values, x.indices, x.dense_shape)


def _with_indices(values, indices, like):
    """IndexedSlices ``values`` at ``indices`` of a tensor shaped like ``like`` (a static Python shape)."""
    return IndexedSlices(values, indices, tuple(int(d) for d in like.shape))


def with_static_shape(grad, variable):
    """``grad`` with the variable's static shape as ``dense_shape`` (densifying then works inside tf.function)."""
    if isinstance(grad, IndexedSlices) and variable.shape.is_fully_defined():
        return IndexedSlices(grad.values, grad.indices, tuple(int(d) for d in variable.shape))
    return grad


def _scalar(x):
    return not hasattr(x, "shape") or len(x.shape) == 0


def cast(x, dtype):
    if isinstance(x, IndexedSlices):
        return _with(x, math_binary.cast(x.values, dtype)) if x.values.dtype != dtype else x
    return math_binary.cast(x, dtype)


def unary(fn, x):
    return _with(x, fn(x.values)) if isinstance(x, IndexedSlices) else fn(x)


def square(x):
    return unary(math_unary.square, x)


def sqrt(x):
    return unary(math_unary.sqrt, x)


def sign(x):
    return unary(math_unary.sign, x)


def abs(x):  # noqa: A001
    return unary(math_unary.abs, x)


def negative(x):
    return unary(math_unary.negative, x)


def _union(op, x1, x2):
    if isinstance(x1, IndexedSlices) and isinstance(x2, IndexedSlices) and x1.indices is x2.indices:
        return _with(x1, op(x1.values, x2.values))
    return op(dense(x1), dense(x2))


def add(x1, x2):
    return _union(math_binary.add, x1, x2)


def sub(x1, x2):
    return _union(subtract, x1, x2)


def maximum(x1, x2):
    return math_binary.maximum(dense(x1), dense(x2))


def mul(x1, x2):
    s1, s2 = isinstance(x1, IndexedSlices), isinstance(x2, IndexedSlices)
    if s1 and s2:
        if x1.indices is x2.indices:
            return _with(x1, x1.values * x2.values)
        return dense(x1) * dense(x2)
    if s1:
        return _with(x1, x1.values * (x2 if _scalar(x2) else gather(x2, x1.indices)))
    if s2:
        return _with(x2, (x1 if _scalar(x1) else gather(x1, x2.indices)) * x2.values)
    return x1 * x2


def div(x1, x2):
    if isinstance(x2, IndexedSlices):
        return dense(x1) / dense(x2)
    if isinstance(x1, IndexedSlices):
        return _with(x1, x1.values / (x2 if _scalar(x2) else gather(x2, x1.indices)))
    return x1 / x2


def scatter(variable, slices, mode):
    """``variable[indices] (=|+=|-=) values`` for IndexedSlices (duplicates applied in order), as TF's scatter ops."""
    idx = expand_dims(math_binary.cast(slices.indices, "int64"), -1)
    values = math_binary.cast(slices.values, variable.dtype)
    current = variable.value() if hasattr(variable, "value") else variable
    fn = {"update": tensor_scatter_nd_update, "add": tensor_scatter_nd_add,
          "sub": tensor_scatter_nd_sub}[mode]
    variable.assign(fn(current, idx, values))
