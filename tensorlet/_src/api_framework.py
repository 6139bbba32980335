"""Public names of the framework layer (dtypes, shapes, tensors, variables, devices, errors)."""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors as _errors
from tensorlet._src.framework import dlpack  # noqa: F401  (__dlpack__, tf.experimental.dlpack)
from tensorlet._src.framework import versions  # noqa: F401  (tf.__version__, tf.version.*)
from tensorlet._src.framework import device_spec  # noqa: F401  (tf.DeviceSpec)
from tensorlet._src.framework import tensor_conversion  # noqa: F401  (tf.register_tensor_conversion_function)
from tensorlet._src.framework import config  # noqa: F401  (tf.config.threading, .optimizer, .experimental)
from tensorlet._src.framework.api_export import export_value

_F = "tensorlet._src.framework."

for _d in _dt.ALL:
    for _ns in ("", "dtypes."):
        export_value(_ns + _d.name, _F + "dtypes", _d.name)
for _d in _dt.QUANTIZED:
    for _ns in ("", "dtypes."):
        export_value(_ns + _d.name, _F + "dtypes", _d.name)
export_value("dtypes.QUANTIZED_DTYPES", _F + "dtypes", "QUANTIZED_DTYPES")
for _d in _dt.EXPERIMENTAL:
    export_value("dtypes.experimental." + _d.name, _F + "dtypes", _d.name)
for _n in ("half", "double"):
    for _ns in ("", "dtypes."):
        export_value(_ns + _n, _F + "dtypes", _n)
for _n in ("DType", "as_dtype"):
    export_value(_n, _F + "dtypes", _n)
    export_value("dtypes." + _n, _F + "dtypes", _n)

for _n in ("TensorShape", "Dimension", "dimension_value", "as_shape", "unknown_shape"):
    export_value(("compat.v1." if _n in ("Dimension", "dimension_value") else "") + _n, _F + "tensor_shape", _n)

export_value("newaxis", "tensorlet._src.ops.indexing", "newaxis")
for _n in ("Tensor", "convert_to_tensor", "constant", "is_tensor"):
    export_value(_n, _F + "tensor", _n)
export_value("experimental.numpy.ndarray", _F + "tensor", "Tensor")
for _n in ("Variable", "VariableSynchronization", "VariableAggregation"):
    export_value(_n, _F + "variables", _n)
export_value("variable_creator_scope", _F + "variables", "variable_creator_scope")
export_value("executing_eagerly", _F + "context", "executing_eagerly")
export_value("name_scope", _F + "context", "name_scope")
export_value("get_current_name_scope", _F + "context", "get_current_name_scope")
export_value("get_logger", _F + "context", "get_logger")
export_value("init_scope", _F + "context", "init_scope")
export_value("device", _F + "device", "device")
for _n in ("list_physical_devices", "list_logical_devices", "get_visible_devices", "set_visible_devices"):
    export_value("config." + _n, _F + "device", _n)
    export_value("config.experimental." + _n, _F + "device", _n)
for _n in ("set_logical_device_configuration", "get_logical_device_configuration", "LogicalDeviceConfiguration"):
    export_value("config." + _n, _F + "device", _n)
export_value("config.experimental.set_virtual_device_configuration", _F + "device",
             "set_logical_device_configuration")
export_value("config.experimental.get_virtual_device_configuration", _F + "device",
             "get_logical_device_configuration")
export_value("config.experimental.VirtualDeviceConfiguration", _F + "device", "LogicalDeviceConfiguration")
for _n in ("set_memory_growth", "get_memory_growth", "get_memory_info"):
    export_value("config.experimental." + _n, _F + "device", _n)
for _n in ("set_soft_device_placement", "get_soft_device_placement"):
    export_value("config." + _n, _F + "device", _n)
for _n in ("PhysicalDevice", "LogicalDevice"):
    export_value("config." + _n, _F + "device", _n)

for _n in dir(_errors):
    _obj = getattr(_errors, _n)
    if (isinstance(_obj, type) and issubclass(_obj, Exception)) or (_n.isupper() and isinstance(_obj, int)):
        export_value("errors." + _n, _F + "errors", _n)
for _n in ("exception_type_from_error_code", "error_code_from_exception_type"):
    export_value("errors." + _n, _F + "errors", _n)
export_value("Module", _F + "module", "Module")
