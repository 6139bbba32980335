"""Devices: ``tf.device`` scopes and ``tf.config`` device listing.

Eager tensors live on the host CPU (NumPy).  Accelerators are reached through jax;
they are only looked for when asked (``list_physical_devices('GPU')``), so that
``import tensorlet`` never imports jax.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
from typing import NamedTuple

from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.context import ctx


class PhysicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    name: str
    device_type: str


_SPEC = re.compile(r"^(/job:[^/]+)?(/replica:\d+)?(/task:\d+)?(/(device:)?(?P<type>[A-Za-z_]+):(?P<idx>\d+|\*))?$")


def canonical_device(name: str) -> str:
    """``'/gpu:0'`` -> ``'/job:localhost/replica:0/task:0/device:GPU:0'``; raises ValueError on bad specs."""
    if not name:
        return ""
    m = _SPEC.match(name.strip())
    if m is None:
        if re.fullmatch(r"[A-Za-z_]+:\d+", name.strip()):
            kind, idx = name.strip().split(":")
            return f"/job:localhost/replica:0/task:0/device:{kind.upper()}:{idx}"
        raise ValueError(f"Unknown attribute: '{name}' in '{name}'")
    kind = (m.group("type") or "CPU").upper()
    return f"/job:localhost/replica:0/task:0/device:{kind}:{m.group('idx') or 0}"


@contextlib.contextmanager
def device(device_name):
    """``with tf.device('/CPU:0'):`` -- a placement scope.  Ops run on the host until accelerator
    tensors land; the scope is kept so that placement-aware code sees what it set."""
    name = canonical_device(device_name) if isinstance(device_name, str) else device_name
    ctx.device_stack.append(name)
    try:
        yield
    finally:
        ctx.device_stack.pop()


_accel_cache: dict[str, list] = {}


def _accelerators(kind: str) -> list:
    if kind in _accel_cache:
        return _accel_cache[kind]
    found = []
    plugins = {"GPU": ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm_plugin"), "TPU": ("libtpu",)}
    if any(importlib.util.find_spec(p) for p in plugins.get(kind, ())):
        try:
            import jax

            found = [d for d in jax.devices() if d.platform.upper() in (kind, "CUDA" if kind == "GPU" else kind)]
        except Exception:  # no usable accelerator runtime: behave as TF does without one
            found = []
    _accel_cache[kind] = found
    return found


def list_physical_devices(device_type=None):
    out = []
    if device_type is None or device_type.upper() == "CPU":
        out.append(PhysicalDevice("/physical_device:CPU:0", "CPU"))
    for kind in ("GPU", "TPU"):
        if device_type is None or device_type.upper() == kind:
            out += [PhysicalDevice(f"/physical_device:{kind}:{i}", kind) for i, _ in enumerate(_accelerators(kind))]
    return out


class LogicalDeviceConfiguration(NamedTuple):
    """``tf.config.LogicalDeviceConfiguration``: one logical device carved out of a physical one."""

    memory_limit: int | None = None
    experimental_priority: int | None = None
    experimental_device_ordinal: int | None = None


# Logical devices per physical device, set before the device runtime (jax) starts.  The CPU may be split into
# several logical devices, as in TF, so that multi-replica strategies run on a CPU-only machine; the environment
# variable TENSORLET_NUM_CPU_DEVICES sets the same before the program starts.
_logical_config: dict[str, list] = {}
_runtime_started = [False]


def mark_runtime_started() -> None:
    """Called by the device runtime when it initialises: from then on logical devices are fixed (as in TF)."""
    _runtime_started[0] = True


def num_cpu_devices() -> int:
    """How many logical CPU devices the runtime is to create."""
    conf = _logical_config.get("/physical_device:CPU:0")
    if conf is not None:
        return len(conf)
    env = os.environ.get("TENSORLET_NUM_CPU_DEVICES", "")
    return int(env) if env.strip().isdigit() and int(env) > 0 else 1


def set_logical_device_configuration(device, logical_devices):
    """Split a physical device into logical devices (``tf.config.set_logical_device_configuration``).

    Must run before the runtime is initialised, as in TF; on the CPU each entry is one more CPU device (jax's
    ``jax_num_cpu_devices``); memory limits are accepted and not enforced on the host.
    """
    name = device.name if isinstance(device, PhysicalDevice) else str(device)
    if not logical_devices:
        _logical_config.pop(name, None)
        return
    conf = list(logical_devices)
    for c in conf:
        if not isinstance(c, LogicalDeviceConfiguration):
            raise ValueError(f"logical_devices must be a list of tf.config.LogicalDeviceConfiguration, got {c!r}")
    if _runtime_started[0] and _logical_config.get(name, [None]) != conf:
        if name.endswith("CPU:0") and len(conf) == num_cpu_devices():
            _logical_config[name] = conf
            return
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _logical_config[name] = conf


def get_logical_device_configuration(device):
    name = device.name if isinstance(device, PhysicalDevice) else str(device)
    conf = _logical_config.get(name)
    return list(conf) if conf is not None else None


def list_logical_devices(device_type=None):
    out = []
    for d in list_physical_devices(device_type):
        base = d.name.replace("/physical_device:", "/device:")
        if d.device_type == "CPU":
            out += [LogicalDevice(f"/device:CPU:{i}", "CPU") for i in range(num_cpu_devices())]
        else:
            out.append(LogicalDevice(base, d.device_type))
    return out


def get_visible_devices(device_type=None):
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Accepted for compatibility; host execution ignores device visibility."""
    return None


_memory_growth: dict[str, bool] = {}


def set_memory_growth(device, enable):
    """GPU memory allocated as needed instead of up front (jax: ``XLA_PYTHON_CLIENT_PREALLOCATE=false``);
    must be set before the runtime starts, as in TF."""
    if getattr(device, "device_type", None) != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    if _runtime_started[0]:
        raise RuntimeError("Physical devices cannot be modified after being initialized")
    _memory_growth[device.name] = bool(enable)
    if any(_memory_growth.values()):
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"


def get_memory_growth(device):
    if device.name not in _memory_growth and getattr(device, "device_type", None) != "GPU":
        raise KeyError(device)
    return _memory_growth.get(device.name, False)


def get_memory_info(device):
    """``{"current": bytes, "peak": bytes}`` of an accelerator (jax's memory stats); zeros for the host CPU, as
    TF 2.21 gives (its CPU allocator keeps no stats)."""
    name = device if isinstance(device, str) else device.name
    kind, _, idx = name.rpartition(":")
    kind = kind.rsplit(":", 1)[-1].rsplit("/", 1)[-1].upper()
    devices = _accelerators(kind) if kind in ("GPU", "TPU") else []
    if kind == "CPU" and idx in ("0", ""):
        return {"current": 0, "peak": 0}
    if not idx.isdigit() or int(idx) >= len(devices):
        raise ValueError(f"No matching devices found for '{name}'")
    stats = devices[int(idx)].memory_stats() or {}
    return {"current": int(stats.get("bytes_in_use", 0)), "peak": int(stats.get("peak_bytes_in_use", 0))}


_soft_placement = [True]


def set_soft_device_placement(enabled):
    """Whether ops may fall back to another device (TF's default: True).  Host execution always can."""
    _soft_placement[0] = bool(enabled)


def get_soft_device_placement():
    return _soft_placement[0]


@tf_export("check_pinned")
def check_pinned(tensor, name=None):
    """Checks that ``tensor`` is in host memory pinned for a GPU (TF's ``CheckPinned`` op).

    tensorlet's host tensors are NumPy arrays and its accelerator values are device buffers, so nothing is ever
    in pinned host memory: like TF built without CUDA, this raises ``FailedPreconditionError``.
    """
    from tensorlet._src.framework import errors
    from tensorlet._src.framework.tensor import convert_to_tensor

    tensor = convert_to_tensor(tensor)
    raise errors.FailedPreconditionError(
        None, "CheckPinned", f"to check pinnedness, must be built with `--config=cuda` (tensorlet keeps no "
                             f"{tensor.dtype.name} tensor in pinned host memory) [Op:CheckPinned]")
