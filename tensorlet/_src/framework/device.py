"""Devices: ``tf.device`` scopes and ``tf.config`` device listing.

Eager tensors live on the host CPU (NumPy).  Accelerators are reached through jax;
they are only looked for when asked (``list_physical_devices('GPU')``), so that
``import tensorlet`` never imports jax.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
from typing import NamedTuple

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


def list_logical_devices(device_type=None):
    return [LogicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
            for d in list_physical_devices(device_type)]


def get_visible_devices(device_type=None):
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Accepted for compatibility; host execution ignores device visibility."""
    return None


_soft_placement = [True]


def set_soft_device_placement(enabled):
    """Whether ops may fall back to another device (TF's default: True).  Host execution always can."""
    _soft_placement[0] = bool(enabled)


def get_soft_device_placement():
    return _soft_placement[0]
