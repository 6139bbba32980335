"""``KerasTensor``: the symbolic shape/dtype placeholder of Keras's functional API (``keras.Input(...)``).

Calling a layer on KerasTensors records a node of the functional graph and returns new KerasTensors.  Python
operators (``x + y``, ``x * 2``, ``x[:, 0]``) record small operation nodes too.  Passing a KerasTensor to a
TensorFlow function raises Keras's ``ValueError``.

>>> x = tf.keras.Input((3,))
>>> x.shape
(None, 3)
"""

from __future__ import annotations

from tensorlet._src.framework.tensor import EagerTensor
from tensorlet._src.keras import backend as _backend
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.util import nest

_TF_FN_MESSAGE = (
    "A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a "
    "shape and dtype, used when constructing Keras Functional models or Keras Functions. You can only use it as "
    "input to a Keras layer or a Keras operation (from the namespaces `keras.layers` and `keras.ops`). You are "
    "likely doing something like:\n\n```\nx = Input(...)\n...\ntf_fn(x)  # Invalid.\n```\n\nWhat you should do "
    "instead is wrap `tf_fn` in a layer:\n\n```\nclass MyLayer(Layer):\n    def call(self, x):\n"
    "        return tf_fn(x)\n\nx = MyLayer()(x)\n```\n")


@tf_export("keras.KerasTensor")
class KerasTensor:
    """A symbolic tensor: a shape (tuple with ``None`` for unknown dims) and a dtype name."""

    __array_priority__ = 200

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, record_history=True, name=None):
        if hasattr(shape, "as_list"):
            shape = shape.as_list() if shape.rank is not None else None
        self._shape = tuple(None if d is None else int(d) for d in shape)
        self._dtype = _backend.standardize_dtype(dtype)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.name = name if name is not None else _backend.auto_name("keras_tensor")
        self._keras_history = None
        self._keras_mask = None

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, value):
        self._shape = tuple(value)

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    def __tf_tensor__(self, dtype=None, name=None):
        raise ValueError(_TF_FN_MESSAGE)

    def __array__(self, *args, **kwargs):
        raise ValueError(_TF_FN_MESSAGE)

    def numpy(self):
        raise ValueError("A KerasTensor is symbolic: it's a placeholder for a shape an a dtype. It doesn't have "
                         "any actual numerical value. You cannot convert it to a NumPy array.")

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a boolean.")

    def __len__(self):
        raise TypeError("A symbolic KerasTensor has no length (`len()` is undefined).")

    def __iter__(self):
        raise NotImplementedError("Iterating over a symbolic KerasTensor is not supported.")

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return (f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse={self.sparse}, "
                f"ragged={self.ragged}, name={self.name}>")

    # --- operators record operation nodes ---------------------------------------------------------------------
    def _op(self, name, fn, *others):
        from tensorlet._src.keras.engine.node import operation

        return operation(name, fn, self, *others)

    def __add__(self, other):
        return self._op("add", lambda a, b: a + b, other)

    def __radd__(self, other):
        return self._op("add", lambda a, b: b + a, other)

    def __sub__(self, other):
        return self._op("subtract", lambda a, b: a - b, other)

    def __rsub__(self, other):
        return self._op("subtract", lambda a, b: b - a, other)

    def __mul__(self, other):
        return self._op("multiply", lambda a, b: a * b, other)

    def __rmul__(self, other):
        return self._op("multiply", lambda a, b: b * a, other)

    def __truediv__(self, other):
        return self._op("true_divide", lambda a, b: a / b, other)

    def __rtruediv__(self, other):
        return self._op("true_divide", lambda a, b: b / a, other)

    def __floordiv__(self, other):
        return self._op("floor_divide", lambda a, b: a // b, other)

    def __pow__(self, other):
        return self._op("power", lambda a, b: a ** b, other)

    def __rpow__(self, other):
        return self._op("power", lambda a, b: b ** a, other)

    def __matmul__(self, other):
        return self._op("matmul", lambda a, b: a @ b, other)

    def __rmatmul__(self, other):
        return self._op("matmul", lambda a, b: b @ a, other)

    def __neg__(self):
        return self._op("negative", lambda a: -a)

    def __abs__(self):
        return self._op("absolute", lambda a: abs(a))

    def __lt__(self, other):
        return self._op("less", lambda a, b: a < b, other)

    def __le__(self, other):
        return self._op("less_equal", lambda a, b: a <= b, other)

    def __gt__(self, other):
        return self._op("greater", lambda a, b: a > b, other)

    def __ge__(self, other):
        return self._op("greater_equal", lambda a, b: a >= b, other)

    def __getitem__(self, key):
        return self._op("get_item", lambda a: a[key])


def any_symbolic(args, kwargs):
    """True when a layer call's arguments contain a KerasTensor (the eager common case is one quick test)."""
    if not kwargs and len(args) == 1 and args[0].__class__ is EagerTensor:
        return False
    for x in nest.flatten([args, kwargs]) if (kwargs or any(isinstance(a, (list, tuple, dict)) for a in args)) \
            else args:
        if isinstance(x, KerasTensor):
            return True
    return False
