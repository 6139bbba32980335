"""``tf.experimental`` odds and ends: the narrow dtypes, async execution scopes, strict mode, file-system plugins."""

from __future__ import annotations

import contextlib
import os

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import export_value, tf_export

__all__ = ["async_scope", "async_clear_error", "function_executor_type", "enable_strict_mode",
           "register_filesystem_plugin"]

for _d in _dt.EXPERIMENTAL:  # tf.experimental.float8_e4m3fn is tf.dtypes.experimental.float8_e4m3fn
    export_value("experimental." + _d.name, "tensorlet._src.framework.dtypes", _d.name)

_strict = [False]


@tf_export("experimental.async_scope")
@contextlib.contextmanager
def async_scope():
    """Run the block's ops asynchronously where the runtime can (eager host ops here are synchronous already;
    errors surface at the op, which is what TF's scope reports at its end)."""
    try:
        yield
    finally:
        async_clear_error()


@tf_export("experimental.async_clear_error")
def async_clear_error():
    """Clear pending errors of asynchronous execution (synchronous host execution leaves none)."""
    return None


@tf_export("experimental.function_executor_type")
@contextlib.contextmanager
def function_executor_type(executor_type):
    """Choose the executor of functions called in the block (tensorlet picks XLA or its NumPy executor per
    function; the name is accepted for TF programs that set it)."""
    if executor_type is not None and not isinstance(executor_type, str):
        raise TypeError(f"executor_type must be a string, got {type(executor_type).__name__}")
    yield


@tf_export("experimental.enable_strict_mode")
def enable_strict_mode():
    """Turn deprecation warnings into errors for the rest of the program (TF's strict mode)."""
    import warnings

    _strict[0] = True
    warnings.simplefilter("error", DeprecationWarning)


def strict_mode() -> bool:
    return _strict[0]


@tf_export("experimental.register_filesystem_plugin")
def register_filesystem_plugin(plugin_location):
    """Load a TF file-system plugin (a shared library implementing TF's C file-system API)."""
    path = os.fspath(plugin_location)
    if not os.path.exists(path):
        raise FileNotFoundError(f"[Errno 2] The file to load file system plugin from does not exist.: {path!r}")
    raise errors.UnimplementedError(None, None, f"{path}: tensorlet's file I/O does not load TF's C file-system "
                                                "plugins; use a path on a mounted or local file system")
