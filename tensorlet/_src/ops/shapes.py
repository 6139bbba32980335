"""Shape/dtype rules used while tracing (eager execution lets the kernel decide).

A rule takes input specs (objects with ``.shape`` -- a TensorShape -- and ``.dtype``)
plus the op's attrs, and returns a ``Spec`` (or a tuple of them).  Ops without a
rule are given one by abstract evaluation of their lowering when traced.
"""

from __future__ import annotations

from typing import NamedTuple

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor_shape import TensorShape


class Spec(NamedTuple):
    shape: TensorShape
    dtype: _dt.DType


def same(x, *others, **attrs) -> Spec:
    """Elementwise: output has the first input's shape and dtype (also for ``XGrad(y, dy)`` ops)."""
    return Spec(x.shape, x.dtype)


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"Incompatible shapes: {a} vs. {b}")
    return TensorShape(out)


def broadcast(x, y, **attrs) -> Spec:
    """Elementwise binary with broadcasting; dtype of the first input."""
    return Spec(broadcast_shapes(x.shape, y.shape), x.dtype)


def broadcast_bool(x, y, **attrs) -> Spec:
    """Comparisons: broadcast shape, bool dtype."""
    return Spec(broadcast_shapes(x.shape, y.shape), _dt.bool)


def with_dtype(dtype):
    """Unary rule with a fixed output dtype (``is_nan`` -> bool)."""
    def rule(x, *others, **attrs):
        return Spec(x.shape, dtype)
    return rule
