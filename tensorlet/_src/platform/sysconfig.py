"""``tf.sysconfig``: how to build native extensions against this installation.

tensorlet's native layer is XLA (through jaxlib), so the include directory is XLA's FFI headers
(``jax.ffi.include_dir()``, for custom calls) and the library directory is jaxlib's; the ABI constants are those
jaxlib is built with (C++17, the new libstdc++ ABI, not monolithic).
"""

from __future__ import annotations

import collections
import importlib.util
import os

from tensorlet._src.framework.api_export import export_value, tf_export

__all__ = ["get_include", "get_lib", "get_compile_flags", "get_link_flags", "get_build_info"]

CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0
for _n in ("CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD"):
    export_value("sysconfig." + _n, __name__, _n)


def _jaxlib_dir() -> str:
    spec = importlib.util.find_spec("jaxlib")
    if spec is None or not spec.origin:
        raise ImportError("jaxlib is not installed; tensorlet's native runtime needs it")
    return os.path.dirname(spec.origin)


@tf_export("sysconfig.get_include")
def get_include():
    """The directory of the C headers native extensions compile against (XLA's FFI headers)."""
    return os.path.join(_jaxlib_dir(), "include")


@tf_export("sysconfig.get_lib")
def get_lib():
    """The directory of the native runtime libraries (jaxlib's)."""
    return _jaxlib_dir()


@tf_export("sysconfig.get_compile_flags")
def get_compile_flags():
    return [f"-I{get_include()}", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}", "--std=c++17"]


@tf_export("sysconfig.get_link_flags")
def get_link_flags():
    return [f"-L{get_lib()}"]


@tf_export("sysconfig.get_build_info")
def get_build_info():
    """What this installation can run on: CUDA/ROCm GPU runtimes present, TensorRT (never)."""
    def has(*mods):
        return any(importlib.util.find_spec(m) is not None for m in mods)

    return collections.OrderedDict([("is_cuda_build", has("jax_cuda12_plugin", "jax_cuda13_plugin")),
                                    ("is_rocm_build", has("jax_rocm_plugin", "jax_rocm60_plugin")),
                                    ("is_tensorrt_build", False)])
