"""DTensor's ``Mesh`` and ``Layout``, with TF's string forms (``|x=2|0,1|0,1|/job:.../device:CPU:0,...``)."""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.api_export import export_value, tf_export

__all__ = ["Mesh", "Layout", "UNSHARDED", "MATCH"]

UNSHARDED = "unsharded"
MATCH = "match"
export_value("experimental.dtensor.UNSHARDED", __name__, "UNSHARDED")
export_value("experimental.dtensor.MATCH", __name__, "MATCH")

_JOB = "/job:localhost/replica:0/task:0"


def _full_device(d) -> str:
    """``'CPU:0'`` / ``'/device:CPU:0'`` as TF's full name ``/job:localhost/replica:0/task:0/device:CPU:0``."""
    d = str(d)
    if d.startswith("/job:"):
        return d
    d = d.lstrip("/")
    d = d[len("device:"):] if d.startswith("device:") else d
    kind, _, idx = d.partition(":")
    return f"{_JOB}/device:{kind.upper()}:{idx or 0}"


@tf_export("experimental.dtensor.Mesh")
class Mesh:
    """An n-d array of devices with named dimensions (``dim_names``), over ``global_device_ids``."""

    def __init__(self, dim_names, global_device_ids, local_device_ids, local_devices, mesh_name="",
                 global_devices=None, use_xla_spmd=False):
        if not isinstance(global_device_ids, np.ndarray):
            raise ValueError("Variable global_device_ids must be an ndarray.")
        if global_device_ids.size == 0:
            raise ValueError("Variable global_device_ids must be non-empty.")
        if global_device_ids.ndim != len(dim_names):
            raise ValueError(f"Number of mesh dimensions does not match the rank of global_device_ids: "
                             f"{len(dim_names)} vs {global_device_ids.ndim}")
        if len(set(dim_names)) != len(dim_names):
            raise ValueError(f"Mesh dimension names must be unique, got {list(dim_names)}")
        if len(local_device_ids) != len(local_devices):
            raise ValueError("Variables local_device_ids and local_devices must have the same length.")
        self._dim_names = list(dim_names)
        self._ids = np.asarray(global_device_ids, dtype=np.int64)
        self._local_ids = [int(i) for i in local_device_ids]
        self._local_devices = [_full_device(d) for d in local_devices]
        self._global_devices = [_full_device(d) for d in global_devices] if global_devices else None
        self._name = mesh_name
        self._use_xla_spmd = bool(use_xla_spmd)
        types = {d.rsplit("/device:", 1)[-1].split(":")[0] for d in self._local_devices}
        if len(types) > 1:
            raise ValueError(f"Devices containing multiple device_types : {sorted(types)}")
        self._device_type = types.pop() if types else "CPU"

    dim_names = property(lambda self: list(self._dim_names))
    name = property(lambda self: self._name)
    size = property(lambda self: int(self._ids.size))
    strides = property(lambda self: [int(np.prod(self._ids.shape[i + 1:])) for i in range(self._ids.ndim)])

    def shape(self):
        return list(self._ids.shape)

    def dim_size(self, dim_name):
        if dim_name not in self._dim_names:
            raise ValueError(f"{dim_name} not in mesh dimensions {self._dim_names}")
        return int(self._ids.shape[self._dim_names.index(dim_name)])

    def __getitem__(self, dim_name):
        return self.dim_size(dim_name)

    def device_type(self):
        return self._device_type

    def use_xla_spmd(self):
        return self._use_xla_spmd

    def global_device_ids(self):
        return self._ids.copy()

    def local_device_ids(self):
        return list(self._local_ids)

    def local_devices(self):
        return list(self._local_devices)

    def num_local_devices(self):
        return len(self._local_devices)

    def is_remote(self):
        return not self._local_ids

    def is_single_device(self):
        return False

    def host_mesh(self):
        if self._device_type == "CPU":
            return self
        devs = [d.rsplit("/device:", 1)[0] + f"/device:CPU:{i}" for i, d in enumerate(self._local_devices)]
        return Mesh(self._dim_names, self._ids, self._local_ids, devs, self._name + "_host")

    def coords(self, device_idx):
        """The mesh coordinates of global device id ``device_idx``."""
        pos = np.argwhere(self._ids == device_idx)
        if not len(pos):
            raise ValueError(f"device {device_idx} is not in the mesh")
        return pos[0].tolist()

    def to_string(self):
        dims = ",".join(f"{n}={s}" for n, s in zip(self._dim_names, self._ids.shape))
        ids = ",".join(str(i) for i in self._ids.reshape(-1))
        local = ",".join(str(i) for i in self._local_ids)
        out = f"{self._name}|{dims}|{ids}|{local}|{','.join(self._local_devices)}"
        if self._global_devices:
            out += "|" + ",".join(self._global_devices)
        if self._use_xla_spmd:
            out += "|use_xla_spmd"
        return out

    @staticmethod
    def from_string(mesh_str):
        parts = mesh_str.split("|")
        if len(parts) < 5:
            raise ValueError(f"Invalid mesh string {mesh_str!r}")
        name, dims, ids, local, devs = parts[:5]
        extra = parts[5:]
        names, sizes = [], []
        for d in dims.split(",") if dims else []:
            n, s = d.split("=")
            names.append(n)
            sizes.append(int(s))
        gids = np.array([int(i) for i in ids.split(",")], dtype=np.int64).reshape(sizes)
        lids = [int(i) for i in local.split(",")] if local else []
        ldevs = devs.split(",") if devs else []
        gdevs = [e for e in extra if e and e != "use_xla_spmd"]
        return Mesh(names, gids, lids, ldevs, name, gdevs[0].split(",") if gdevs else None, "use_xla_spmd" in extra)

    def as_proto(self):
        return self.to_string()

    def __eq__(self, other):
        return isinstance(other, Mesh) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"Mesh.from_string({self.to_string()})"

    __str__ = __repr__


@tf_export("experimental.dtensor.Layout")
class Layout:
    """How a tensor is split over a mesh: one sharding spec per tensor dimension (a mesh dimension name, or
    ``UNSHARDED``)."""

    def __init__(self, sharding_specs, mesh):
        if not isinstance(mesh, Mesh):
            raise ValueError(f"mesh is not a valid Mesh object: {mesh!r}")
        used = [s for s in sharding_specs if s not in (UNSHARDED, MATCH)]
        for s in used:
            if s not in mesh.dim_names:
                raise ValueError(f"{s} is not a dimension of mesh {mesh.dim_names}")
        if len(set(used)) != len(used):
            raise ValueError(f"Mesh dimensions may shard at most one tensor dimension: {list(sharding_specs)}")
        self._specs = list(sharding_specs)
        self._mesh = mesh

    sharding_specs = property(lambda self: list(self._specs))
    mesh = property(lambda self: self._mesh)
    rank = property(lambda self: len(self._specs))
    shape = property(lambda self: [self.num_shards(i) for i in range(self.rank)])
    type = property(lambda self: "STATIC")

    @staticmethod
    def replicated(mesh, rank):
        return Layout([UNSHARDED] * rank, mesh)

    @staticmethod
    def batch_sharded(mesh, batch_dim, rank, axis=0):
        specs = [UNSHARDED] * rank
        specs[axis] = batch_dim
        return Layout(specs, mesh)

    @staticmethod
    def inner_sharded(mesh, inner_dim, rank):
        return Layout.batch_sharded(mesh, inner_dim, rank, axis=rank - 1)

    def num_shards(self, idx):
        s = self._specs[idx]
        return 1 if s in (UNSHARDED, MATCH) else self._mesh.dim_size(s)

    def num_shards_list(self):
        return [self.num_shards(i) for i in range(self.rank)]

    def is_fully_replicated(self):
        return all(s == UNSHARDED for s in self._specs)

    def is_single_device(self):
        return False

    def delete(self, dims):
        return Layout([s for i, s in enumerate(self._specs) if i not in set(dims)], self._mesh)

    def offset_to_shard(self):
        """Which shard (per tensor dimension) each local device holds, in local-device order."""
        out = []
        for gid in self._mesh.local_device_ids():
            c = self._mesh.coords(gid)
            out.append([0 if s in (UNSHARDED, MATCH) else c[self._mesh.dim_names.index(s)] for s in self._specs])
        return out

    def to_string(self):
        return f"sharding_specs:{','.join(self._specs)}, mesh:{self._mesh.to_string()}"

    @staticmethod
    def from_string(layout_str):
        head, _, mesh = layout_str.partition(" mesh:")
        specs = head[len("sharding_specs:"):].rstrip(",").rstrip()
        specs = [s for s in specs.split(",") if s] if specs else []
        return Layout(specs, Mesh.from_string(mesh))

    def as_proto(self):
        return self.to_string()

    def __eq__(self, other):
        return isinstance(other, Layout) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"Layout.from_string({self.to_string()})"

    __str__ = __repr__
