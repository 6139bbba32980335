"""``tf.keras.backend`` basics: float type, epsilon, image data format, name uids and ``clear_session``.

>>> tf.keras.backend.floatx()
'float32'
"""

from __future__ import annotations

import collections
import re
import threading

from tensorlet._src.ops.registry import tf_export

_STATE = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}
_UIDS = collections.defaultdict(int)
_local = threading.local()


@tf_export("keras.backend.floatx", "keras.config.floatx")
def floatx():
    """The default float type as a string (``"float32"``)."""
    return _STATE["floatx"]


@tf_export("keras.backend.set_floatx", "keras.config.set_floatx")
def set_floatx(value):
    """Sets the default float type: ``set_floatx("float64")``."""
    accepted = {"bfloat16", "float16", "float32", "float64"}
    value = str(getattr(value, "name", value))
    if value not in accepted:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {accepted}")
    _STATE["floatx"] = value


@tf_export("keras.backend.epsilon", "keras.config.epsilon")
def epsilon():
    """The fuzz factor used in numeric expressions (``1e-07``)."""
    return _STATE["epsilon"]


@tf_export("keras.backend.set_epsilon", "keras.config.set_epsilon")
def set_epsilon(value):
    """Sets the fuzz factor: ``set_epsilon(1e-5)``."""
    _STATE["epsilon"] = float(value)


@tf_export("keras.backend.image_data_format", "keras.config.image_data_format")
def image_data_format():
    """``"channels_last"`` (default) or ``"channels_first"``."""
    return _STATE["image_data_format"]


@tf_export("keras.backend.set_image_data_format", "keras.config.set_image_data_format")
def set_image_data_format(data_format):
    """Sets the default image data format."""
    data_format = str(data_format).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    _STATE["image_data_format"] = data_format


def standardize_data_format(data_format):
    if data_format is None:
        return image_data_format()
    data_format = str(data_format).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    return data_format


@tf_export("keras.backend.get_uid")
def get_uid(prefix=""):
    """1, 2, 3, ... per prefix: the counter behind automatic layer names (reset by ``clear_session``)."""
    _UIDS[prefix] += 1
    return _UIDS[prefix]


def to_snake_case(name):
    """Keras's object-name rule: ``"Conv2D"`` -> ``"conv2d"``, ``"MaxPooling2D"`` -> ``"max_pooling2d"``,
    ``"MeanIoU"`` -> ``"mean_io_u"``, ``"AUC"`` -> ``"auc"``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def auto_name(prefix):
    """Keras's unique object name: ``dense``, then ``dense_1``, ``dense_2``, ..."""
    n = get_uid(prefix)
    return prefix if n == 1 else f"{prefix}_{n - 1}"


@tf_export("keras.backend.clear_session", "keras.utils.clear_session")
def clear_session(free_memory=True):
    """Resets Keras's global state (automatic names start again at ``dense``)."""
    _UIDS.clear()
    for hook in list(_CLEAR_HOOKS):
        hook()


_CLEAR_HOOKS = []


@tf_export("keras.backend.is_keras_tensor", "keras.utils.is_keras_tensor")
def is_keras_tensor(x):
    """True for the symbolic placeholders of the functional API (``keras.Input(...)``)."""
    from tensorlet._src.keras.engine.keras_tensor import KerasTensor

    return isinstance(x, KerasTensor)


@tf_export("keras.backend.int_shape")
def int_shape(x):
    """The shape as a tuple of ints/None."""
    return tuple(x.shape)


@tf_export("keras.backend.standardize_dtype", "keras.utils.standardize_dtype")
def standardize_dtype(dtype):
    """A dtype name string: ``standardize_dtype(tf.float32) == "float32"``."""
    if dtype is None:
        return floatx()
    if isinstance(dtype, str):
        from tensorlet._src.framework import dtypes as D

        return D.as_dtype(dtype).name
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    from tensorlet._src.framework import dtypes as D

    return D.as_dtype(dtype).name


def is_float_dtype(dtype):
    return standardize_dtype(dtype) in ("float16", "bfloat16", "float32", "float64")


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        from tensorlet._src.framework.variables import Variable as _V

        return isinstance(obj, _V) and hasattr(obj, "path")


@tf_export("keras.Variable")
class Variable(metaclass=_VariableMeta):
    """``keras.Variable(initializer, shape=None, dtype=None, trainable=True, name=None)``: a ``tf.Variable`` with
    Keras 3's ``name``/``path`` (``isinstance(v, keras.Variable)`` holds for layer weights)."""

    def __new__(cls, initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation="none",
                synchronization="auto", name=None, **kwargs):
        from tensorlet._src.framework.context import init_scope
        from tensorlet._src.framework.variables import Variable as _V

        if name is None:
            name = auto_name("variable")
        if callable(initializer) or isinstance(initializer, str):
            if isinstance(initializer, str):
                from tensorlet._src.keras import initializers

                initializer = initializers.get(initializer)
            if shape is None:
                raise ValueError("When creating a Variable from an initializer, the `shape` argument should be "
                                 f"specified. Received: initializer={initializer} and shape={shape}")
            value = lambda: initializer(tuple(shape), dtype=dtype or floatx())  # noqa: E731
        else:
            value = initializer
            if dtype is None and not hasattr(value, "dtype"):
                import numpy as _np

                if _np.asarray(value).dtype.kind == "f":
                    dtype = floatx()
        with init_scope():
            v = _V(value, trainable=trainable, dtype=dtype, name=name)
        v._name = name
        v.path = name
        v.autocast = autocast
        v.regularizer = None
        return v
