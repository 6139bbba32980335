"""``keras.Input`` and ``InputLayer``: the entry points of functional models.

>>> x = tf.keras.Input(shape=(3,), name="features")
>>> x.shape, x.dtype
((None, 3), 'float32')
"""

from __future__ import annotations

import warnings

from tensorlet._src.keras import backend as _backend
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.engine.keras_tensor import KerasTensor
from tensorlet._src.keras.engine.node import Node
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.layers.InputLayer")
class InputLayer(Layer):
    """The layer behind ``keras.Input``: holds one placeholder KerasTensor (``layer.output``)."""

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None,
                 input_tensor=None, optional=False, name=None, **kwargs):
        if "input_shape" in kwargs:
            warnings.warn("Argument `input_shape` is deprecated. Use `shape` instead.", stacklevel=2)
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        user_name = name
        if name is None:
            name = _backend.auto_name("input_layer")
        super().__init__(name=name, **kwargs)
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        if batch_size is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `batch_size` and `batch_shape` at the same time.")
        if shape is None and batch_shape is None and input_tensor is None:
            raise ValueError("You must pass a `shape` argument.")
        if shape is not None:
            if isinstance(shape, int):
                shape = (shape,)
            shape = tuple(shape)
            batch_shape = (batch_size,) + shape
        if input_tensor is not None:
            if not isinstance(input_tensor, KerasTensor):
                raise ValueError(f"Argument `input_tensor` must be a KerasTensor. Received invalid type: "
                                 f"input_tensor={input_tensor} (of type {type(input_tensor)})")
            batch_shape = input_tensor.shape if batch_shape is None else batch_shape
            dtype = input_tensor.dtype if dtype is None else dtype
        self._batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        self._dtype = _backend.standardize_dtype(dtype if dtype is not None else _backend.floatx())
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.optional = optional
        if input_tensor is None:
            input_tensor = KerasTensor(self._batch_shape, dtype=self._dtype, sparse=self.sparse,
                                       ragged=self.ragged, name=user_name)
        self._input_tensor = input_tensor
        Node(self, (), {}, input_tensor)
        self.built = True

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def dtype(self):
        return self._dtype

    def call(self):
        return None

    def get_config(self):
        return {"batch_shape": self._batch_shape, "dtype": self._dtype, "sparse": self.sparse,
                "ragged": self.ragged, "name": self.name, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = config["dtype"].get("config", {}).get("name")
        return cls(**config)


@tf_export("keras.Input", "keras.layers.Input")
def Input(shape=None, batch_size=None, dtype=None, sparse=None, ragged=None, batch_shape=None, name=None,
          tensor=None, optional=False):
    """A symbolic input placeholder: ``inputs = keras.Input(shape=(784,))``.

    >>> tf.keras.Input((28, 28)).shape
    (None, 28, 28)
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse, ragged=ragged,
                       batch_shape=batch_shape, name=name, input_tensor=tensor, optional=optional)
    return layer.output


