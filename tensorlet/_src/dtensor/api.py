"""DTensor values on one client: a ``DTensor`` is a tensor holding the global value plus its ``Layout``.

``pack`` assembles per-device components into the global value, ``unpack`` splits it back (one component per
local device, in the mesh's local-device order), ``relayout`` changes the layout (the value is unchanged, as in
TF), elementwise ops keep their DTensor operand's layout.  Multi-client meshes, TPU systems and SPMD layout
propagation through non-elementwise ops are not implemented: such ops return plain tensors.
"""

from __future__ import annotations

import contextlib
import os
from typing import NamedTuple

import numpy as np

from tensorlet._src.dtensor.mesh_layout import Layout, Mesh
from tensorlet._src.framework import device as _device
from tensorlet._src.framework import errors
from tensorlet._src.framework.api_export import EXPORTS, tf_export
from tensorlet._src.framework.tensor import EagerTensor, convert_to_tensor, numpy_text
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.dispatch import dispatch_for

__all__ = ["DTensor", "pack", "unpack", "fetch_layout", "relayout", "copy_to_mesh", "create_mesh"]

_DEVICE = "/job:localhost/replica:0/task:0/device:CUSTOM:0"


class DTensor(EagerTensor):
    """A tensor with a DTensor layout (its value is the global value)."""

    __slots__ = ("_layout",)

    def __repr__(self):
        comps = unpack(self)
        names = [d.rsplit("/device:", 1)[-1] for d in self._layout.mesh.local_devices()]
        body = ", ".join(f'"{n}": {numpy_text(c._v, False)}' for n, c in zip(names, comps))
        return (f'tf.Tensor({{{body}}}, layout="{self._layout.to_string()}", shape={tuple(self._v.shape)}, '
                f"dtype={self.dtype.name})")

    __str__ = __repr__


def _make(value, layout) -> DTensor:
    v = value._v if isinstance(value, EagerTensor) else convert_to_tensor(value)._v
    t = object.__new__(DTensor)
    t._v = v
    t._layout = layout
    return t


def _check_rank(layout, rank, what):
    if layout.rank != rank:
        raise ValueError(f"{what}: the layout has rank {layout.rank} but the tensor has rank {rank}")


def _shard_slices(layout, shape):
    """The slice of the global value each local device holds."""
    out = []
    for shard in layout.offset_to_shard():
        sl = []
        for dim, (k, n) in enumerate(zip(shard, layout.num_shards_list())):
            size = shape[dim] // n
            sl.append(slice(k * size, (k + 1) * size))
        out.append(tuple(sl))
    return out


@tf_export("experimental.dtensor.pack")
def pack(tensors, layout):
    """A DTensor from one component per local device of ``layout.mesh``."""
    tensors = [convert_to_tensor(t) for t in tensors]
    n = layout.mesh.num_local_devices()
    if len(tensors) != n:
        raise errors.InvalidArgumentError(None, "DTensorPack", f"The dtensor device {_DEVICE} expected {n} inputs "
                                                               f"to DTensorPack, but got {len(tensors)}")
    comps = [t.numpy() for t in tensors]
    _check_rank(layout, comps[0].ndim, "pack")
    counts = layout.num_shards_list()
    gshape = [d * c for d, c in zip(comps[0].shape, counts)]
    out = np.zeros(gshape, comps[0].dtype)
    for c, sl in zip(comps, _shard_slices(layout, gshape)):
        if c.shape != comps[0].shape:
            raise errors.InvalidArgumentError(None, "DTensorPack", "All components must have the same shape, got "
                                                                   f"{comps[0].shape} and {c.shape}")
        out[sl] = c
    return _make(convert_to_tensor(out, tensors[0].dtype), layout)


@tf_export("experimental.dtensor.unpack")
def unpack(tensor):
    """The per-device components of a DTensor (local-device order)."""
    layout = fetch_layout(tensor)
    v = tensor._v if isinstance(tensor, EagerTensor) else tensor.read_value()._v
    shape = list(v.shape)
    for dim, n in enumerate(layout.num_shards_list()):
        if shape[dim] % n:
            raise errors.InvalidArgumentError(None, "DTensorUnpack", f"dimension {dim} of size {shape[dim]} is not "
                                                                     f"divisible by its {n} shards")
    return [convert_to_tensor(np.ascontiguousarray(np.asarray(v)[sl])) for sl in _shard_slices(layout, shape)]


@tf_export("experimental.dtensor.is_dtensor")
def is_dtensor(tensor):
    return isinstance(tensor, DTensor) or isinstance(tensor, DVariable)


@tf_export("experimental.dtensor.fetch_layout")
def fetch_layout(tensor):
    """The layout of a DTensor (or DVariable)."""
    if isinstance(tensor, (DTensor, DVariable)):
        return tensor._layout
    raise errors.InvalidArgumentError(None, "FetchLayout", "FetchLayout expects a tensor placed on the layout "
                                                           "device.")


@tf_export("experimental.dtensor.check_layout")
def check_layout(tensor, layout):
    got = fetch_layout(tensor)
    if got != layout:
        raise ValueError(f"Layout of tensor: {got!r}, did not match expected layout: {layout!r}")


@tf_export("experimental.dtensor.relayout")
def relayout(tensor, layout, name=None):
    """The same value with another layout of the same mesh and rank."""
    src = fetch_layout(tensor) if is_dtensor(tensor) else None
    t = convert_to_tensor(tensor)
    _check_rank(layout, t.shape.rank, "relayout")
    specs = layout.sharding_specs
    if "match" in specs:
        if src is None:
            raise ValueError("a MATCH sharding spec needs a DTensor input")
        specs = [s if s != "match" else src.sharding_specs[i] for i, s in enumerate(specs)]
        layout = Layout(specs, layout.mesh)
    return _make(t, layout)


@tf_export("experimental.dtensor.relayout_like")
def relayout_like(tensor, layout_tensor, name=None):
    return relayout(tensor, fetch_layout(layout_tensor), name)


@tf_export("experimental.dtensor.copy_to_mesh")
def copy_to_mesh(tensor, layout, source_layout=None):
    """A (regular) tensor as a DTensor with ``layout``."""
    t = convert_to_tensor(tensor)
    _check_rank(layout, t.shape.rank, "copy_to_mesh")
    return _make(t, layout)


@tf_export("experimental.dtensor.call_with_layout")
def call_with_layout(fn, layout, *args, **kwargs):
    """``fn(*args, **kwargs)`` with its result laid out as ``layout`` (``None``: the default mesh's)."""
    out = fn(*args, **kwargs)
    if layout is None:
        return out
    return relayout(out, layout)


# --- elementwise ops keep the layout ---------------------------------------------------------------------------

def _plain(x):
    if isinstance(x, DTensor):
        t = object.__new__(EagerTensor)
        t._v = x._v
        return t
    return x


def _elementwise(fn):
    def handler(*args, **kwargs):
        lay = next((a._layout for a in args if isinstance(a, DTensor)), None)
        out = fn(*[_plain(a) for a in args], **{k: _plain(v) for k, v in kwargs.items()})
        return _make(out, lay) if lay is not None and isinstance(out, EagerTensor) and \
            out.shape.rank == lay.rank else out

    return handler


def _register():
    import importlib

    from tensorlet._src.ops.ragged.ragged_ops import BINARY, UNARY

    seen = set()
    for n in UNARY + BINARY:
        if n not in EXPORTS:
            continue
        mod, attr = EXPORTS[n]
        fn = getattr(importlib.import_module(mod), attr)
        fn = getattr(fn, "__wrapped__", fn)
        if fn in seen:
            continue
        seen.add(fn)
        dispatch_for(fn, DTensor)(_elementwise(fn))


_register()


def _op(name):
    def method(self, *other):
        plain = [_plain(o) for o in other]
        out = getattr(EagerTensor, name)(_plain(self), *plain)
        return _make(out, self._layout) if isinstance(out, EagerTensor) and out.shape.rank == self._layout.rank \
            else out

    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__neg__", "__pow__", "__abs__"):
    if hasattr(EagerTensor, _name):
        setattr(DTensor, _name, _op(_name))


# --- DVariable ---------------------------------------------------------------------------------------------------

@tf_export("experimental.dtensor.DVariable")
class DVariable(Variable):
    """A variable whose value has a layout (taken from its initial DTensor value, or ``layout=``)."""

    def __init__(self, initial_value, *args, dtype=None, name=None, layout=None, **kwargs):
        init = initial_value() if callable(initial_value) else initial_value
        lay = layout if layout is not None else (fetch_layout(init) if is_dtensor(init) else None)
        if lay is None:
            raise ValueError("DVariable's initial value must be a DTensor or a layout must be given")
        super().__init__(_plain(convert_to_tensor(init)), *args, dtype=dtype, name=name, **kwargs)
        self._layout = lay

    @property
    def layout(self):
        return self._layout

    def read_value(self):
        return _make(super().read_value(), self._layout)


# --- meshes and the client --------------------------------------------------------------------------------------

_default_mesh: list = []
_initialized: list = [None]


@tf_export("experimental.dtensor.default_mesh")
@contextlib.contextmanager
def default_mesh(mesh):
    """Make ``mesh`` the default mesh inside the block."""
    if not isinstance(mesh, Mesh):
        raise ValueError(f"Expect `mesh` to be `Mesh`, got {type(mesh)}")
    _default_mesh.append(mesh)
    try:
        yield mesh
    finally:
        _default_mesh.pop()


@tf_export("experimental.dtensor.run_on")
@contextlib.contextmanager
def run_on(mesh):
    """Run the ops of the block on ``mesh`` (the default mesh for layouts created inside)."""
    with default_mesh(mesh):
        yield mesh


@tf_export("experimental.dtensor.get_default_mesh")
def get_default_mesh():
    return _default_mesh[-1] if _default_mesh else None


@tf_export("experimental.dtensor.client_id")
def client_id():
    return int(os.environ.get("DTENSOR_CLIENT_ID", "0"))


@tf_export("experimental.dtensor.num_clients")
def num_clients():
    return int(os.environ.get("DTENSOR_NUM_CLIENTS", "1"))


@tf_export("experimental.dtensor.job_name")
def job_name():
    return os.environ.get("DTENSOR_JOB_NAME", "localhost" if num_clients() == 1 else "worker")


@tf_export("experimental.dtensor.jobs")
def jobs():
    d = os.environ.get("DTENSOR_JOBS")
    return d.split(",") if d else []


@tf_export("experimental.dtensor.full_job_name")
def full_job_name(task_id=None):
    if task_id is None:
        task_id = client_id()
    if num_clients() == 1 and task_id != 0:
        raise ValueError(f"Unexpected task ID {task_id} in local runs")
    return f"{job_name()}/replica:0/task:{task_id}"


@tf_export("experimental.dtensor.heartbeat_enabled")
def heartbeat_enabled():
    return os.environ.get("DTENSOR_ENABLE_HEARTBEAT", "true").lower() in ("true", "1")


@tf_export("experimental.dtensor.preferred_device_type")
def preferred_device_type():
    for kind in ("TPU", "GPU"):
        if _device._accelerators(kind):
            return kind
    return "CPU"


class DeviceSpec(NamedTuple):
    """TF's DeviceSpec fields for a local device."""

    job: str
    replica: int
    task: int
    device_type: str
    device_index: int

    def to_string(self):
        return f"/job:{self.job}/replica:{self.replica}/task:{self.task}/device:{self.device_type}:{self.device_index}"

    def __repr__(self):
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, device_type="
                f"{self.device_type}, device_index={self.device_index})>")


@tf_export("experimental.dtensor.local_devices")
def local_devices(device_type, for_client_id=None):
    """This client's devices of ``device_type`` (logical CPU devices count one each)."""
    kind = device_type.upper()
    n = len(_device.list_logical_devices(kind))
    return [DeviceSpec(job_name(), 0, client_id() if for_client_id is None else for_client_id, kind, i)
            for i in range(n)]


@tf_export("experimental.dtensor.num_local_devices")
def num_local_devices(device_type):
    return len(local_devices(device_type))


@tf_export("experimental.dtensor.num_global_devices")
def num_global_devices(device_type):
    return num_local_devices(device_type) * num_clients()


@tf_export("experimental.dtensor.device_name")
def device_name():
    return _DEVICE


@tf_export("experimental.dtensor.create_mesh")
def create_mesh(mesh_dims=None, mesh_name="", devices=None, device_type=None, use_xla_spmd=False):
    """A mesh over this client's devices: ``create_mesh([("batch", 2)], device_type="CPU")``."""
    if devices is None:
        kind = (device_type or preferred_device_type()).upper()
        devices = [d.to_string() for d in local_devices(kind)]
    else:
        devices = [str(d) for d in devices]
    if mesh_dims is None:
        mesh_dims = [("x", len(devices))]
    names = [n for n, _ in mesh_dims]
    sizes = [int(s) for _, s in mesh_dims]
    if int(np.prod(sizes)) != len(devices):
        raise ValueError(f"length of devices ({len(devices)}) must be equal to total size of the mesh of shape "
                         f"{sizes}")
    ids = np.arange(len(devices)).reshape(sizes)
    return Mesh(names, ids, list(range(len(devices))), devices, mesh_name, use_xla_spmd=use_xla_spmd)


@tf_export("experimental.dtensor.create_distributed_mesh")
def create_distributed_mesh(mesh_dims, mesh_name="", local_devices=None, device_type=None, use_xla_spmd=False):
    """A mesh over every client's devices (one client here: this client's devices)."""
    if num_clients() != 1:
        raise errors.UnimplementedError(None, None, "tensorlet's DTensor runs on one client; "
                                                    f"DTENSOR_NUM_CLIENTS={num_clients()}")
    return create_mesh(mesh_dims, mesh_name, local_devices, device_type, use_xla_spmd)


@tf_export("experimental.dtensor.create_tpu_mesh")
def create_tpu_mesh(mesh_dim_names, mesh_shape, mesh_name, ring_dims=None, ring_axes=None, ring_bounds=None,
                    can_split_host_across_rings=True, build_ring_across_rings=False, rotate_ring_across_rings=False,
                    use_xla_spmd=False):
    """A mesh laid out on a TPU topology (needs an initialized TPU system, as in TF)."""
    if not _device._accelerators("TPU") or _initialized[0] != "TPU":
        raise ValueError("Invalid TPU topology, run dtensor.initialize_tpu_system() first")
    return create_mesh(list(zip(mesh_dim_names, mesh_shape)), mesh_name, device_type="TPU",
                       use_xla_spmd=use_xla_spmd)


@tf_export("experimental.dtensor.initialize_accelerator_system")
def initialize_accelerator_system(device_type=None, enable_coordination_service=True, num_logical_cpu_devices=None,
                                  experimental_reset_context=False, experimental_enable_megcore=False):
    """Set up the devices DTensor runs on (before the runtime starts, as in TF); returns the device type."""
    if _device._runtime_started[0] and not experimental_reset_context:
        raise ValueError("TensorFlow has already been initialized. tf.experimental.dtensor."
                         "initialize_accelerator_system() must be called before TensorFlow is initialized.")
    kind = (device_type or preferred_device_type()).upper()
    if kind in ("GPU", "TPU") and not _device._accelerators(kind):
        raise ValueError(f"No {kind} devices found; cannot initialize the {kind} system")
    if num_logical_cpu_devices:
        cpu = _device.list_physical_devices("CPU")[0]
        _device.set_logical_device_configuration(cpu, [_device.LogicalDeviceConfiguration()] *
                                                 int(num_logical_cpu_devices))
    _initialized[0] = kind
    return kind


@tf_export("experimental.dtensor.initialize_tpu_system")
def initialize_tpu_system(use_megacore=False):
    return initialize_accelerator_system("TPU", experimental_enable_megcore=use_megacore)


@tf_export("experimental.dtensor.shutdown_accelerator_system")
def shutdown_accelerator_system():
    if _initialized[0] is None:
        raise ValueError("Accelerator system has not been initialized.")
    _initialized[0] = None


@tf_export("experimental.dtensor.shutdown_tpu_system")
def shutdown_tpu_system():
    if _initialized[0] != "TPU":
        raise ValueError("TPU system has not been initialized.")
    _initialized[0] = None


@tf_export("experimental.dtensor.initialize_multi_client")
def initialize_multi_client(enable_coordination_service=True):
    """Deprecated alias of ``initialize_accelerator_system`` (one client here)."""
    return initialize_accelerator_system(enable_coordination_service=enable_coordination_service)


@tf_export("experimental.dtensor.barrier")
def barrier(mesh, barrier_name=None, timeout_in_ms=None):
    """Wait until every device of ``mesh`` (and every client) reached this point: one client with synchronous
    host execution has nothing to wait for beyond queued device work."""
    if not isinstance(mesh, Mesh):
        raise ValueError(f"Expect `mesh` to be `Mesh`, got {type(mesh)}")
    import sys

    if "jax" in sys.modules:
        sys.modules["jax"].effects_barrier()


_bf16_vars: set = set()


@tf_export("experimental.dtensor.enable_save_as_bf16")
def enable_save_as_bf16(variables):
    """Save these float32 variables as bfloat16 in DTensor checkpoints (halves their size)."""
    for v in variables:
        if getattr(v, "dtype", None) is not None and v.dtype.name == "float32":
            _bf16_vars.add(id(v))
