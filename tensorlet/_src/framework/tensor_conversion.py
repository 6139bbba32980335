"""``tf.register_tensor_conversion_function``: teach ``tf.convert_to_tensor`` (and so every op) a new type."""

from __future__ import annotations

import numbers

import numpy as np

from tensorlet._src.framework import tensor as _tensor
from tensorlet._src.framework.api_export import export_value

_TABLE: list = []  # (priority, order, base_type, fn)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers ``conversion_func(value, dtype=None, name=None, as_ref=False)`` for values of ``base_type``
    (a type or tuple of types); lower ``priority`` runs first; returning ``NotImplemented`` passes on.

    >>> class Meters:
    ...     def __init__(self, v):
    ...         self.v = v
    >>> tf.register_tensor_conversion_function(Meters, lambda x, dtype=None, name=None, as_ref=False:
    ...                                        tf.constant(x.v, dtype=dtype))
    >>> float(tf.add(Meters(2.), 1.))
    3.0
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    for ty in types:
        if not isinstance(ty, type):
            raise TypeError(f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}")
        if issubclass(ty, (numbers.Number, np.ndarray, np.generic, str, bytes)) or ty in (list, tuple):
            raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError("Argument `conversion_func` must be callable. Received {conversion_func}.")
    _TABLE.append((priority, len(_TABLE), types, conversion_func))
    _TABLE.sort(key=lambda r: (r[0], r[1]))
    _tensor.CONVERSIONS[:] = [(tys, fn) for _, _, tys, fn in _TABLE]


export_value("register_tensor_conversion_function", __name__, "register_tensor_conversion_function")
