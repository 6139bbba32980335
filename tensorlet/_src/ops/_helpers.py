"""Small helpers shared by the op families: argument conversion with TF's dtype rules."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _new, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.registry import bind2

_TYPE_WORD = {"float32": "float", "float64": "double", "float16": "half"}


def t(x, dtype=None, hint=None) -> Tensor:
    """``convert_to_tensor`` with an optional dtype or hint."""
    if x.__class__ is EagerTensor and dtype is None:
        return x
    return convert_to_tensor(x, dtype=dtype, dtype_hint=hint)


def _word(d: _dt.DType) -> str:
    return _TYPE_WORD.get(d.name, d.name)


def mismatch(op_name: str, index: int, expected: _dt.DType, got: _dt.DType):
    return errors.invalid_argument(
        op_name, f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
                 f"{_word(expected)} tensor but is a {_word(got)} tensor")


def same_dtype(op_name: str, *xs):
    """Convert ``xs`` to tensors of one dtype, Python scalars adopting the tensors' dtype (TF's rule)."""
    converted = [t(x) if isinstance(x, Tensor) or hasattr(x, "__tf_tensor__") else None for x in xs]
    first = next((c for c in converted if c is not None), None)
    out = []
    for i, (x, tx) in enumerate(zip(xs, converted)):
        if tx is None:
            if first is None:
                tx = first = t(x)
            else:
                try:
                    tx = convert_to_tensor(x, dtype_hint=first.dtype)
                except TypeError:
                    tx = None
                if tx is None or tx.dtype is not first.dtype:
                    got = tx.dtype if tx is not None else convert_to_tensor(x).dtype
                    raise mismatch(op_name, i, first.dtype, got)
        if tx.dtype is not first.dtype:
            raise mismatch(op_name, i, first.dtype, tx.dtype)
        out.append(tx)
    return out


def scalar_like(v, d):
    """Fast path of TF's rule "a Python scalar adopts the tensor's dtype" (or None to take the slow path)."""
    tv = v.__class__
    k = d.kind
    if (tv is float and k in "fc") or (tv is int and (k in "fc" or (k == "i" and -2147483648 <= v <= 2147483647))):
        r = _new(EagerTensor)
        r._v = np.asarray(v, d)
        return r
    return None


def binary(op, x, y):
    """Bind a binary elementwise op after TF's dtype matching."""
    cx = x.__class__
    cy = y.__class__
    if cx is Variable:  # read once (the read is what a tape watches)
        x = x.value()
        cx = x.__class__  # EagerTensor, or a graph tensor while tracing
    if cy is Variable:
        y = y.value()
        cy = y.__class__
    if cx is EagerTensor:
        if cy is EagerTensor:
            if x._v.dtype is y._v.dtype:
                return bind2(op, x, y)
        elif cy is float or cy is int:
            ys = scalar_like(y, x._v.dtype)
            if ys is not None:
                return bind2(op, x, ys)
    elif cy is EagerTensor and (cx is float or cx is int):
        xs = scalar_like(x, y._v.dtype)
        if xs is not None:
            return bind2(op, xs, y)
    x, y = same_dtype(op.name, x, y)
    return bind2(op, x, y)


def static(v, what="value"):
    """A Python value from an attr that may be a tensor (axis=tf.constant(1))."""
    if isinstance(v, EagerTensor):
        a = v._v
        return a.item() if a.ndim == 0 else a.tolist()
    if isinstance(v, np.ndarray):
        return v.item() if v.ndim == 0 else v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, Tensor):  # a graph tensor: usable only when its value is known while tracing
        c = getattr(v, "_const", None)
        if c is None:
            raise TypeError(
                f"The {what} must be known when the function is traced, but {v.name} depends on the function's "
                "inputs. Pass a Python value or a tensor computed from constants or static shapes.")
        return c.item() if c.ndim == 0 else c.tolist()
    return v


def static_axis(axis):
    """Normalize an axis attr: None, an int, or a tuple of ints."""
    axis = static(axis)
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return int(axis)


def to_shape_tuple(shape, op_name="shape") -> tuple:
    """A concrete shape (list, tuple, TensorShape or 1-D int tensor) as a tuple of ints."""
    shape = static(shape)
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, int):
        shape = (shape,)
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise errors.invalid_argument(op_name, f"shape must be a vector of integers, got {shape!r}") from None


def is_tensor_like(v) -> bool:
    """A tensor, or a value that converts to one through ``__tf_tensor__``."""
    return isinstance(v, Tensor) or hasattr(v, "__tf_tensor__")


def of_dtype(v, dtype, op_name, index):
    """``v`` as a tensor of ``dtype``: Python values are converted to it (TypeError if they cannot be), tensors of
    another dtype are TF's InvalidArgumentError."""
    if is_tensor_like(v):
        v = t(v)
        if v.dtype is not dtype:
            raise mismatch(op_name, index, dtype, v.dtype)
        return v
    return t(v, dtype=dtype)


def broadcast_static(op_name, *xs):
    """The broadcast static shape of ``xs``; TF's InvalidArgumentError naming every shape when they do not agree."""
    from tensorlet._src.ops.shapes import broadcast_shapes

    out = xs[0].shape
    try:
        for x in xs[1:]:
            out = broadcast_shapes(out, x.shape)
    except ValueError:
        text = " vs. ".join(errors.shape_str(x.shape.as_list()) for x in xs if x.shape.rank != 0)
        raise errors.invalid_argument(op_name, f"Incompatible shapes: {text}") from None
    return out
