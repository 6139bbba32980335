"""``tf.train.experimental.PythonState``: Python state saved in checkpoints as a string (``py_state``)."""

from __future__ import annotations

import abc

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import convert_to_tensor

__all__ = ["PythonState"]


@tf_export("train.experimental.PythonState")
class PythonState(abc.ABC):
    """Subclasses define ``serialize() -> str`` and ``deserialize(string)``; a checkpoint stores the string under
    the object's ``py_state`` attribute, as TF does."""

    @abc.abstractmethod
    def serialize(self):
        """The state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value):
        """Restore the state from ``serialize``'s string."""

    def _serialize_to_tensors(self):
        value = self.serialize()
        return {"py_state": convert_to_tensor(value.encode() if isinstance(value, str) else value, _dt.string)}

    def _restore_from_tensors(self, restored_tensors):
        raw = restored_tensors["py_state"]
        raw = raw.numpy() if hasattr(raw, "numpy") else raw
        if hasattr(raw, "item"):
            raw = raw.item()
        self.deserialize(raw)  # bytes, as TF passes them
