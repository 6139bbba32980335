"""``keras.utils.to_categorical`` and ``keras.utils.normalize`` (Keras 3: NumPy in, NumPy out; tensors in,
tensors out)."""

from __future__ import annotations

import numpy as np

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops import linalg
from tensorlet._src.ops.array_select import one_hot
from tensorlet._src.ops.array_shape import expand_dims, reshape
from tensorlet._src.ops.math_binary import cast, maximum, minimum
from tensorlet._src.ops.math_unary import rsqrt, square
from tensorlet._src.ops.reduce import reduce_sum


def _is_tensor(x):
    from tensorlet._src.framework.tensor import Tensor
    from tensorlet._src.framework.variables import Variable

    return isinstance(x, (Tensor, Variable))


@tf_export("keras.utils.to_categorical")
def to_categorical(x, num_classes=None):
    """One-hot encodes integer class labels (a trailing dim of 1 is dropped first).

    >>> tf.keras.utils.to_categorical([0, 2, 1], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]])
    """
    if _is_tensor(x):
        shape = x.shape
        if shape.rank is not None and shape.rank > 1 and shape[-1] == 1:
            x = reshape(x, [-1 if d is None else d for d in shape.as_list()[:-1]])
        if num_classes is None:
            num_classes = int(np.max(np.asarray(x))) + 1
        return one_hot(cast(x, "int64"), num_classes)
    x = np.array(x, dtype="int64")
    input_shape = x.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    x = x.reshape(-1)
    if not num_classes:
        num_classes = np.max(x) + 1
    batch_size = x.shape[0]
    categorical = np.zeros((batch_size, num_classes))
    categorical[np.arange(batch_size), x] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


@tf_export("keras.utils.normalize")
def normalize(x, axis=-1, order=2):
    """Scales ``x`` to unit ``order``-norm along ``axis`` (zero vectors stay zero).

    >>> tf.keras.utils.normalize(np.array([[3.0, 4.0]]))
    array([[0.6, 0.8]])
    """
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        axis = axis or -1
        return x / np.expand_dims(norm, axis)
    from tensorlet._src.keras.metrics.base import epsilon, to_tensor

    if not isinstance(order, int) or order < 1:
        raise ValueError(f"Argument `order` must be an int >= 1. Received: order={order}")
    x = to_tensor(x)
    if x.shape.rank == 0:
        x = expand_dims(x, 0)
    if order == 2:
        inv_norm = rsqrt(reduce_sum(square(x), axis=axis, keepdims=True))
        return x * minimum(inv_norm, cast(1.0 / epsilon(), x.dtype))
    norm = linalg.norm(x, ord=order, axis=axis, keepdims=True)
    return x / maximum(norm, cast(epsilon(), x.dtype))
