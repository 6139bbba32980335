"""Python operators on tensors (``+ - * / // % ** @``, comparisons, ``& | ^ ~``, indexing).

Installed on ``Tensor`` so that every tensor kind (eager, symbolic) shares them; each
operator is the public op, so dtype rules and errors are the same as ``tf.add`` & co.
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import math_unary as mu
from tensorlet._src.ops.indexing import getitem
from tensorlet._src.ops.matmul import matmul


def _is_bool(x):
    return x.dtype is _dt.bool


def _and(x, y):
    return mb.logical_and(x, y) if _is_bool(x) else mb.bitwise_and(x, y)


def _or(x, y):
    return mb.logical_or(x, y) if _is_bool(x) else mb.bitwise_or(x, y)


def _xor(x, y):
    return mb.logical_xor(x, y) if _is_bool(x) else mb.bitwise_xor(x, y)


def _invert(x):
    return mb.logical_not(x) if _is_bool(x) else mb.invert(x)


def _strict_other(x, y):
    """``tensor == 'a'`` is a TypeError in TF (the other side must convert to the tensor's dtype)."""
    if isinstance(y, (str, bytes)) and x.dtype is not _dt.string:
        raise TypeError(f"Cannot convert {y!r} to EagerTensor of dtype {x.dtype.name}")


def _eq(x, y):
    if y is None:
        return False
    _strict_other(x, y)
    try:
        return mb.equal(x, y)
    except errors.InvalidArgumentError as e:
        if "Incompatible shapes" in str(e):
            return False
        raise


def _ne(x, y):
    if y is None:
        return True
    _strict_other(x, y)
    try:
        return mb.not_equal(x, y)
    except errors.InvalidArgumentError as e:
        if "Incompatible shapes" in str(e):
            return True
        raise


def _swap(f):
    def r(x, y):
        return f(y, x)
    return r


_OPS = {
    "__add__": mb.add, "__radd__": _swap(mb.add),
    "__sub__": mb.subtract, "__rsub__": _swap(mb.subtract),
    "__mul__": mb.multiply, "__rmul__": _swap(mb.multiply),
    "__truediv__": mb.truediv, "__rtruediv__": _swap(mb.truediv),
    "__floordiv__": mb.floordiv, "__rfloordiv__": _swap(mb.floordiv),
    "__mod__": mb.floormod, "__rmod__": _swap(mb.floormod),
    "__pow__": mb.pow, "__rpow__": _swap(mb.pow),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__and__": _and, "__rand__": _swap(_and),
    "__or__": _or, "__ror__": _swap(_or),
    "__xor__": _xor, "__rxor__": _swap(_xor),
    "__lt__": mb.less, "__le__": mb.less_equal, "__gt__": mb.greater, "__ge__": mb.greater_equal,
    "__eq__": _eq, "__ne__": _ne,
    "__neg__": mu.negative, "__abs__": mu.abs, "__invert__": _invert,
    "__getitem__": getitem,
}


def install(cls) -> None:
    """Give ``cls`` (a tensor or variable class) TF's Python operators."""
    for name, fn in _OPS.items():
        setattr(cls, name, fn)
    cls.__pos__ = lambda self: self


install(Tensor)
install(Variable)

from tensorlet._src.ops import variable_methods  # noqa: E402  (scatter/slice methods; after install)

variable_methods.install()
