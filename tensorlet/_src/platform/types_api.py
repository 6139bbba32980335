"""``tf.types.experimental``: the protocol/alias names code uses in annotations and ``isinstance`` checks."""

from __future__ import annotations

import typing

import numpy as np

from tensorlet._src.framework.api_export import export_value, tf_export
from tensorlet._src.framework.tensor import Tensor

__all__ = ["TensorLike", "Callable", "SupportsTracingProtocol"]

# What TF accepts where a tensor is expected
TensorLike = Tensor | int | float | bool | str | bytes | complex | tuple | list | np.ndarray | np.generic
export_value("types.experimental.TensorLike", __name__, "TensorLike")
export_value("types.experimental.ConcreteFunction", "tensorlet._src.graph.concrete", "ConcreteFunction")
export_value("types.experimental.distributed.PerReplica", "tensorlet._src.distribute.values", "PerReplica")
export_value("types.experimental.distributed.Mirrored", "tensorlet._src.distribute.values", "Mirrored")


@tf_export("types.experimental.Callable")
class Callable:
    """Base type of TF's callables (``tf.function`` objects, concrete functions): ``function_type`` and
    ``__call__``."""

    @property
    def function_type(self):
        return None

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is abstract: subclasses define __call__")


@tf_export("types.experimental.SupportsTracingProtocol")
@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """An object that gives ``tf.function`` its own trace type (``__tf_tracing_type__(context)``)."""

    def __tf_tracing_type__(self, context):
        ...
