"""``tf.types.experimental``: the protocol/alias names code uses in annotations and ``isinstance`` checks."""

from __future__ import annotations

import abc
import typing

import numpy as np

from tensorlet._src.framework.api_export import export_value, tf_export
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.graph import function_type as _function_type

__all__ = ["TensorLike", "Callable", "AtomicFunction", "SupportsTracingProtocol"]

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


@tf_export("types.experimental.AtomicFunction")
class AtomicFunction(Callable, metaclass=abc.ABCMeta):
    """A function run as one graph call with a value for every parameter of its ``function_type`` (TF's base of
    a concrete function's ``_inference_function``); subclasses define ``function_type``."""

    @property
    @abc.abstractmethod
    def function_type(self):
        ...

    def call_with_captures(self, args, kwargs, captures):
        """Call with ``args``/``kwargs`` bound to ``function_type`` and the captured values ``captures``."""
        raise TypeError(f"{type(self).__name__} does not define call_with_captures")


AtomicFunction.register(_function_type.InferenceFunction)


@tf_export("types.experimental.SupportsTracingProtocol")
@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """An object that gives ``tf.function`` its own trace type (``__tf_tracing_type__(context)``)."""

    def __tf_tracing_type__(self, context):
        ...
