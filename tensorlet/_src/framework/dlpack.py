"""DLPack: zero-copy exchange of tensors with NumPy, JAX, PyTorch, CuPy...

``np.from_dlpack(t)``, ``torch.from_dlpack(t)`` and ``jax.dlpack.from_dlpack(t)`` read a tensor's buffer in
place (``EagerTensor.__dlpack__`` / ``__dlpack_device__`` hand out the NumPy array's); ``tf.experimental.dlpack``
has TF's capsule functions.  Tensors are immutable, so a consumer must not write into the shared buffer.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import EagerTensor, Tensor, _wrap, convert_to_tensor

_CPU = 1  # kDLCPU


def _dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    kw = {}
    if max_version is not None:
        kw["max_version"] = max_version
    if dl_device is not None:
        kw["dl_device"] = dl_device
    if copy is not None:
        kw["copy"] = copy
    v = np.ascontiguousarray(self._v)
    try:
        return v.__dlpack__(stream=stream, **kw)
    except TypeError:  # an older consumer protocol: no versioned keywords
        return v.__dlpack__(stream=stream)


def _dlpack_device(self):
    return (_CPU, 0)


EagerTensor.__dlpack__ = _dlpack
EagerTensor.__dlpack_device__ = _dlpack_device


class _Capsule:
    """Adapts a bare DLPack capsule to the ``__dlpack__`` protocol NumPy's ``from_dlpack`` reads."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kw):
        return self._capsule

    def __dlpack_device__(self):
        return (_CPU, 0)


@tf_export("experimental.dlpack.to_dlpack")
def to_dlpack(tf_tensor):
    """A DLPack capsule sharing ``tf_tensor``'s memory (consumed once by a ``from_dlpack``)."""
    t = tf_tensor.value() if hasattr(tf_tensor, "value") and not isinstance(tf_tensor, Tensor) else tf_tensor
    t = convert_to_tensor(t)
    if t.__class__ is not EagerTensor:
        raise ValueError("to_dlpack needs an eager tensor (not one inside tf.function)")
    return _dlpack(t)


@tf_export("experimental.dlpack.from_dlpack")
def from_dlpack(dlcapsule):
    """A tensor over the memory of a DLPack capsule or of any object with ``__dlpack__`` (torch/jax/NumPy arrays)."""
    src = dlcapsule if hasattr(dlcapsule, "__dlpack__") else _Capsule(dlcapsule)
    try:
        arr = np.from_dlpack(src)
    except (BufferError, RuntimeError, TypeError) as e:
        raise ValueError(f"from_dlpack: cannot import the buffer on the CPU ({e})") from None
    return _wrap(arr)
