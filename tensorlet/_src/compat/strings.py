"""``tf.compat``'s string and number helpers: ``as_bytes``, ``as_text``/``as_str``, ``as_str_any``, ``path_to_str``,
``path_to_bytes`` and the type tuples, with TF's errors (TensorBoard and TF tooling call them through ``tf.compat``)."""

from __future__ import annotations

import numbers

import numpy as np

from tensorlet._src.framework.api_export import export_value, tf_export

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
for _name in ("bytes_or_text_types", "integral_types", "real_types", "complex_types"):
    export_value(f"compat.{_name}", __name__, _name)


@tf_export("compat.as_bytes")
def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes`` of a ``str`` (encoded), ``bytes`` or ``bytearray``; TypeError for anything else, as TF.

    >>> tf.compat.as_bytes("héllo")
    b'h\\xc3\\xa9llo'
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@tf_export("compat.as_text", "compat.as_str")
def as_text(bytes_or_text, encoding="utf-8"):
    """``str`` of ``bytes`` (decoded) or ``str``; TypeError for anything else, as TF.

    >>> tf.compat.as_text(b"abc")
    'abc'
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@tf_export("compat.as_str_any")
def as_str_any(value, encoding="utf-8"):
    """``as_str`` for ``bytes``, ``str(value)`` for anything else.

    >>> tf.compat.as_str_any(3)
    '3'
    """
    if isinstance(value, bytes):
        return as_text(value, encoding)
    return str(value)


@tf_export("compat.path_to_str")
def path_to_str(path):
    """A path-like object's ``str`` (``os.fspath``); anything else unchanged, as TF."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


@tf_export("compat.path_to_bytes")
def path_to_bytes(path):
    """A path-like object's or a string's ``bytes``, as TF."""
    if hasattr(path, "__fspath__"):
        path = path.__fspath__()
    return as_bytes(path)
