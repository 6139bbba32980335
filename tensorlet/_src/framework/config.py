"""``tf.config`` settings beyond devices: threading, the graph optimizer's options, JIT, device policy,
determinism, TF32, synchronous execution, memory statistics and cluster device filters.

They are process-wide settings kept here, read where they apply: the thread counts become XLA's CPU thread
options when the runtime starts (like TF, they cannot change afterwards), ``set_jit`` is what
``tf.function(jit_compile=None)`` consults, ``enable_op_determinism`` makes the random ops that TF refuses without
a seed behave as in TF's deterministic mode.  Values and errors follow TF 2.21 on a CPU-only machine.
"""

from __future__ import annotations

import os

from tensorlet._src.framework import device as _device
from tensorlet._src.framework.api_export import tf_export

__all__ = []

_state = {
    "inter_op": 0, "intra_op": 0, "device_policy": "silent", "synchronous": True, "tf32": True,
    "determinism": False, "mlir_bridge": None, "jit": "", "optimizer": {}, "run_eagerly_hint": False,
}
_OPTIMIZER_OPTIONS = (
    "layout_optimizer", "constant_folding", "shape_optimization", "remapping", "arithmetic_optimization",
    "dependency_optimization", "loop_optimization", "function_optimization", "debug_stripper",
    "disable_model_pruning", "scoped_allocator_optimization", "pin_to_host_optimization",
    "implementation_selector", "auto_mixed_precision", "disable_meta_optimizer", "min_graph_nodes",
    "auto_parallel", "auto_mixed_precision_onednn_bfloat16", "auto_mixed_precision_mkl",
    "use_plugin_optimizers",
)
_POLICIES = (None, "warn", "explicit", "silent", "silent_for_int32")


def _started() -> bool:
    return _device._runtime_started[0]


# --- threading ---------------------------------------------------------------------------------------------------

@tf_export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads():
    """Threads for running independent ops at once (0: the system picks)."""
    return _state["inter_op"]


@tf_export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads):
    if _started() and num_threads != _state["inter_op"]:
        raise RuntimeError("Inter op parallelism cannot be modified after initialization.")
    _state["inter_op"] = int(num_threads)


@tf_export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads():
    """Threads one op may use (0: the system picks)."""
    return _state["intra_op"]


@tf_export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads):
    if _started() and num_threads != _state["intra_op"]:
        raise RuntimeError("Intra op parallelism cannot be modified after initialization.")
    _state["intra_op"] = int(num_threads)
    if num_threads and not _started():  # XLA's CPU backend reads its thread options when it starts
        flags = os.environ.get("XLA_FLAGS", "")
        if num_threads == 1 and "xla_cpu_multi_thread_eigen" not in flags:
            os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()


# --- graph optimizer and JIT ---------------------------------------------------------------------------------------

@tf_export("config.optimizer.get_experimental_options")
def get_experimental_options():
    """The graph optimizer options set so far (TF reports the two pruning switches by default)."""
    out = dict(_state["optimizer"])
    out.setdefault("disable_model_pruning", False)
    out.setdefault("disable_meta_optimizer", False)
    return out


@tf_export("config.optimizer.set_experimental_options")
def set_experimental_options(options):
    """Set graph optimizer options (TF ignores names it does not know, and so does tensorlet)."""
    for k, v in dict(options).items():
        if k in _OPTIMIZER_OPTIONS:
            _state["optimizer"][k] = v


@tf_export("config.optimizer.get_jit")
def get_jit():
    """``'autoclustering'`` when JIT compilation was switched on with ``set_jit``, else ``''``."""
    return _state["jit"]


@tf_export("config.optimizer.set_jit")
def set_jit(enabled):
    """Switch XLA auto-clustering on (``True`` or ``'autoclustering'``) or off."""
    if enabled is True or enabled == "autoclustering":
        _state["jit"] = "autoclustering"
    elif enabled is False or enabled is None or enabled == "":
        _state["jit"] = ""
    else:
        raise ValueError(f"Invalid value for enabled: {enabled!r}; expected a bool or 'autoclustering'")


# --- execution settings ------------------------------------------------------------------------------------------

@tf_export("config.experimental.get_device_policy")
def get_device_policy():
    return _state["device_policy"]


@tf_export("config.experimental.set_device_policy")
def set_device_policy(device_policy):
    """How eager ops treat inputs on another device (tensorlet copies silently, which is TF's default)."""
    if device_policy not in _POLICIES:
        raise ValueError(f"Invalid argument `device_policy`: {device_policy!r}. Please refer to "
                         "https://www.tensorflow.org/api_docs/python/tf/config/experimental/set_device_policy for "
                         "valid `device_policy` arguments.")
    _state["device_policy"] = "silent" if device_policy is None else device_policy


@tf_export("config.experimental.get_synchronous_execution")
def get_synchronous_execution():
    return _state["synchronous"]


@tf_export("config.experimental.set_synchronous_execution")
def set_synchronous_execution(enable):
    """Eager ops run synchronously in tensorlet; the flag is kept for programs that read it back."""
    _state["synchronous"] = bool(enable)


@tf_export("config.experimental.tensor_float_32_execution_enabled")
def tensor_float_32_execution_enabled():
    return _state["tf32"]


@tf_export("config.experimental.enable_tensor_float_32_execution")
def enable_tensor_float_32_execution(enabled):
    """Allow TF32 matmuls/convolutions on GPUs that have them (XLA's default precision there)."""
    _state["tf32"] = bool(enabled)
    if _started():
        from tensorlet._src.framework import jax_runtime

        jax_runtime.load()[0].config.update("jax_default_matmul_precision", None if enabled else "highest")


def tf32_enabled() -> bool:
    return _state["tf32"]


@tf_export("config.experimental.enable_op_determinism")
def enable_op_determinism():
    """Make ops deterministic (tensorlet's CPU kernels already are; the flag is visible to code that checks)."""
    _state["determinism"] = True


def op_determinism_enabled() -> bool:
    return _state["determinism"]


@tf_export("config.experimental.enable_mlir_bridge")
def enable_mlir_bridge():
    _state["mlir_bridge"] = True


@tf_export("config.experimental.disable_mlir_bridge")
def disable_mlir_bridge():
    _state["mlir_bridge"] = False


@tf_export("config.experimental.get_device_details")
def get_device_details(device):
    """Details of a physical device: ``{}`` for the CPU, name and compute capability of a GPU."""
    if device.device_type != "GPU":
        return {}
    gpus = _device._accelerators("GPU")
    idx = int(device.name.rsplit(":", 1)[-1])
    if idx >= len(gpus):
        return {}
    d = gpus[idx]
    out = {"device_name": getattr(d, "device_kind", "GPU")}
    cc = getattr(d, "compute_capability", None)
    if cc:
        out["compute_capability"] = tuple(int(x) for x in str(cc).split("."))
    return out


def _memory_kind(device) -> str:
    name = device if isinstance(device, str) else device.name
    return name.rsplit(":", 2)[-2].rsplit("/", 1)[-1].upper() if ":" in name else name.upper()


@tf_export("config.experimental.get_memory_usage")
def get_memory_usage(device):
    """Bytes in use on ``device`` (deprecated in TF for ``get_memory_info(device)['current']``); 0 on the host."""
    if _memory_kind(device) == "CPU":
        return 0
    return _device.get_memory_info(device)["current"]


@tf_export("config.experimental.reset_memory_stats")
def reset_memory_stats(device):
    """Reset the peak memory figure of ``device`` (the host keeps none; accelerators report jax's stats)."""
    if _memory_kind(device) != "CPU":
        _device.get_memory_info(device)  # the same errors for a device that does not exist


@tf_export("config.experimental.ClusterDeviceFilters")
class ClusterDeviceFilters:
    """Which devices each task of a cluster may see (``set_device_filters(job, task, filters)``)."""

    def __init__(self):
        self._filters: dict = {}

    def set_device_filters(self, job_name, task_index, device_filters):
        if not isinstance(job_name, str):
            raise TypeError(f"job_name must be a string, got {job_name!r}")
        if not isinstance(task_index, int):
            raise TypeError(f"task_index must be an int, got {task_index!r}")
        self._filters.setdefault(job_name, {})[task_index] = [str(f) for f in device_filters]

    def _as_cluster_device_filters(self):
        """The filters as ``{job: {task: [filters]}}`` (TF's ClusterDeviceFilters proto, as a dict)."""
        return {j: dict(t) for j, t in self._filters.items()}

    def __repr__(self):
        return f"ClusterDeviceFilters({self._as_cluster_device_filters()})"
