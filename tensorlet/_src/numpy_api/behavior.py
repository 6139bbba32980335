"""``tnp.experimental_enable_numpy_behavior()``: NumPy's methods on tensors (``t.reshape``, ``t.astype``, ``t.T``,
``t.ravel()``, ...), as TF adds them.  Operator dtype promotion stays TF's (documented difference)."""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.numpy_api import arrays as A
from tensorlet._src.numpy_api.core import _cast, export

_STATE = {"enabled": False, "prefer_float32": False}


def _reshape(self, *shape, order="C"):
    return A.reshape(self, shape[0] if len(shape) == 1 else list(shape), order)


def _astype(self, dtype):
    return _cast(self, _dt.as_dtype(dtype))


_METHODS = {
    "reshape": _reshape, "astype": _astype, "ravel": lambda self: A.ravel(self),
    "flatten": lambda self: A.ravel(self), "transpose": lambda self, *axes: A.transpose(self, list(axes) or None),
    "T": property(lambda self: A.transpose(self)), "clip": lambda self, a_min, a_max: _tf_clip(self, a_min, a_max),
    "sum": lambda self, axis=None, keepdims=None: A.sum(self, axis, keepdims=keepdims),
    "mean": lambda self, axis=None, keepdims=None: A.mean(self, axis, keepdims=keepdims),
    "max": lambda self, axis=None, keepdims=None: A.amax(self, axis, keepdims),
    "min": lambda self, axis=None, keepdims=None: A.amin(self, axis, keepdims),
    "tolist": lambda self: self.numpy().tolist(), "squeeze": lambda self, axis=None: A.squeeze(self, axis),
    "size": property(lambda self: A.size(self)), "ndim": property(lambda self: self.shape.rank),
    "item": lambda self, *args: self.numpy().item(*args),
}


def _tf_clip(x, lo, hi):
    from tensorlet._src.numpy_api.core import clip

    return clip(x, lo, hi)


@export("experimental_enable_numpy_behavior")
def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Give tensors NumPy's methods: ``tf.constant([[1, 2]]).reshape(2, 1)``, ``.astype``, ``.T``, ``.ravel()``."""
    for name, fn in _METHODS.items():
        if name in ("size", "ndim") and "ndim" in Tensor.__dict__:
            continue
        setattr(Tensor, name, fn)
    _STATE["enabled"] = True
    _STATE["prefer_float32"] = bool(prefer_float32)
