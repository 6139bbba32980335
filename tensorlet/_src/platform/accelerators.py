"""``tf.experimental.tensorrt`` and ``tf.xla.experimental`` as TF 2.21 behaves on a CPU-only machine.

TF-TRT needs a TensorFlow built with TensorRT: ``ConversionParams`` is a plain config, and ``Converter`` raises
the RuntimeError TF raises without it.  ``xla.experimental.compile`` runs the computation compiled with XLA (as
``tf.function(jit_compile=True)``); ``jit_scope`` is, as in TF, only usable while building a graph.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.context import executing_eagerly

__all__ = ["ConversionParams", "Converter", "compile", "jit_scope"]


@tf_export("experimental.tensorrt.ConversionParams")
class ConversionParams(NamedTuple):
    """TF-TRT conversion options."""

    max_workspace_size_bytes: int = 1 << 30
    precision_mode: str = "FP32"
    minimum_segment_size: int = 3
    maximum_cached_engines: int = 1
    use_calibration: bool = True
    allow_build_at_runtime: bool = True

    def __repr__(self):
        body = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields)
        return f"TrtConversionParams({body})"


@tf_export("experimental.tensorrt.Converter")
class Converter:
    """TF-TRT's SavedModel converter: unavailable, as in a TensorFlow built without TensorRT."""

    def __init__(self, input_saved_model_dir=None, input_saved_model_tags=None,
                 input_saved_model_signature_key=None, use_dynamic_shape=None, dynamic_shape_profile_strategy=None,
                 max_workspace_size_bytes=None, precision_mode=None, minimum_segment_size=None,
                 maximum_cached_engines=None, use_calibration=None, allow_build_at_runtime=None,
                 conversion_params=None):
        from tensorlet._src.framework.context import get_logger

        get_logger().error("Tensorflow needs to be built with TensorRT support enabled to allow TF-TRT to operate.")
        raise RuntimeError("Tensorflow has not been built with TensorRT support.")


@tf_export("xla.experimental.compile")
def compile(computation, inputs=None):  # noqa: A001 - TF's name
    """Run ``computation(*inputs)`` compiled with XLA; returns its outputs as a list (TF's convention)."""
    from tensorlet._src.graph.function import function

    out = function(computation, jit_compile=True)(*(inputs or []))
    if out is None:
        return []
    return list(out) if isinstance(out, (list, tuple)) else [out]


@tf_export("xla.experimental.jit_scope")
@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """Mark ops built inside for XLA compilation (graph building only, as in TF; tensorlet's compiled functions
    are XLA programs already)."""
    if executing_eagerly():
        raise RuntimeError("xla.experimental.jit_scope is not supported when eager execution is enabled. Try use "
                           "it inside tf.function.")
    yield
