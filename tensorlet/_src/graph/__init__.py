"""Graphs: tracing Python into tensorlet's IR, passes, the NumPy executor, and XLA lowering (``tf.function``)."""

from tensorlet._src.framework import variables as _variables
from tensorlet._src.graph import control_flow, functional_ops, function_type, tensor_array, tensor_array_spec  # noqa: F401
from tensorlet._src.graph import function as _function

_variables.creation_hook = _function.on_variable_created
from tensorlet._src.graph import py_func  # noqa: F401, E402
from tensorlet._src.graph import autograph_api  # noqa: F401, E402  (tf.autograph.*)
