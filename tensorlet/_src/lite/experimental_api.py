"""``tf.lite.experimental``: ``load_delegate``, ``authoring.compatible`` (check a tf.function converts to
TFLite builtin ops as it runs) and the quantization debugger's options."""

from __future__ import annotations

import ctypes
import functools
import logging

from tensorlet._src.framework.api_export import tf_export

__all__ = ["load_delegate", "compatible", "QuantizationDebugOptions"]

_log = logging.getLogger("tensorflow")


class Delegate:
    """A loaded TFLite delegate library (``options`` are passed to it when an interpreter uses it)."""

    def __init__(self, library, options=None):
        self._library_path = library
        self._options = dict(options or {})
        self._library = ctypes.CDLL(library)

    def _get_native_delegate_pointer(self):
        create = getattr(self._library, "tflite_plugin_create_delegate", None)
        if create is None:
            raise ValueError(f"{self._library_path} is not a TFLite delegate library "
                             "(no tflite_plugin_create_delegate)")
        return create


@tf_export("lite.experimental.load_delegate")
def load_delegate(library, options=None):
    """Load a TFLite delegate from a shared library (LiteRT's own loader when LiteRT is installed)."""
    ctypes.CDLL(library)  # a library that does not load fails here, with the OSError TF gives
    try:
        from ai_edge_litert.interpreter import load_delegate as litert_load
    except ImportError:
        return Delegate(library, options)
    return litert_load(library, options)


class _Compatible:
    def __init__(self, fn, raise_exception):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._raise = raise_exception
        self._log: list = []
        self._checked: set = set()

    def __call__(self, *args, **kwargs):
        from tensorlet._src.graph.function import Function
        from tensorlet._src.lite.convert import TFLiteConverter

        fn = self._fn if isinstance(self._fn, Function) else Function(self._fn)
        key = tuple((tuple(getattr(a, "shape", ())), str(getattr(a, "dtype", type(a)))) for a in args)
        if key not in self._checked:
            self._checked.add(key)
            try:
                TFLiteConverter.from_concrete_functions([fn.get_concrete_function(*args, **kwargs)]).convert()
            except Exception as e:  # noqa: BLE001  (any conversion failure is an incompatibility to report)
                msg = f"{self.__name__} is not TFLite compatible: {e}"
                self._log.append(msg)
                if self._raise:
                    raise RuntimeError(msg) from e
                _log.warning(msg)
        return fn(*args, **kwargs)

    def get_compatibility_log(self):
        """The incompatibilities found so far (one message per failed signature)."""
        return list(self._log)


@tf_export("lite.experimental.authoring.compatible")
def compatible(target=None, converter_target_spec=None, **kwargs):
    """Decorator: each new input signature of the function is converted to TFLite; failures are logged (or
    raised with ``raise_exception=True``) and listed by ``get_compatibility_log()``."""
    raise_exception = bool(kwargs.pop("raise_exception", False))
    if kwargs:
        raise TypeError(f"Unexpected arguments: {sorted(kwargs)}")
    if target is None:
        return lambda fn: _Compatible(fn, raise_exception)
    return _Compatible(target, raise_exception)


@tf_export("lite.experimental.QuantizationDebugOptions")
class QuantizationDebugOptions:
    """What the quantization debugger measures: per-layer metrics, model metrics, layers to leave in float."""

    def __init__(self, layer_debug_metrics=None, model_debug_metrics=None, layer_direct_compare_metrics=None,
                 denylisted_ops=None, denylisted_nodes=None, fully_quantize=False):
        self.layer_debug_metrics = layer_debug_metrics
        self.model_debug_metrics = model_debug_metrics
        self.layer_direct_compare_metrics = layer_direct_compare_metrics
        keys = set()
        for m in (layer_debug_metrics, model_debug_metrics, layer_direct_compare_metrics):
            if m:
                dup = keys & set(m)
                if dup:
                    raise ValueError(f"Provided metrics have duplicate keys: {sorted(dup)}")
                keys |= set(m)
        self.denylisted_ops = denylisted_ops
        self.denylisted_nodes = denylisted_nodes
        self.fully_quantize = fully_quantize
