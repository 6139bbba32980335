"""DTensor checkpoints and datasets on one client.

``DTensorCheckpoint`` is ``tf.train.Checkpoint`` over a mesh (DVariables are saved with their global values, in
TF's TensorBundle format); ``name_based_save`` / ``name_based_restore`` / ``sharded_save`` write and read bundles
keyed by name; ``DTensorDataset`` batches a dataset globally and lays each element out on the mesh.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.dtensor import api
from tensorlet._src.dtensor.mesh_layout import Mesh
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.train import tf_bundle
from tensorlet._src.train.checkpoint import Checkpoint
from tensorlet._src.util import nest

__all__ = ["DTensorCheckpoint", "DTensorDataset", "name_based_save", "name_based_restore", "sharded_save"]


def _check_mesh(mesh):
    if not isinstance(mesh, Mesh):
        raise ValueError(f"Expect `mesh` to be `Mesh`, got {type(mesh)}")


def _value(t):
    v = t.read_value() if hasattr(t, "read_value") else convert_to_tensor(t)
    arr = np.asarray(v.numpy())
    if id(t) in api._bf16_vars:
        arr = arr.astype(_dt.bfloat16.as_numpy_dtype)
    return arr


@tf_export("experimental.dtensor.DTensorCheckpoint")
class DTensorCheckpoint(Checkpoint):
    """``tf.train.Checkpoint`` for DTensor programs on ``mesh``."""

    def __init__(self, mesh, root=None, **kwargs):
        _check_mesh(mesh)
        super().__init__(root=root, **kwargs)
        object.__setattr__(self, "_mesh", mesh)


@tf_export("experimental.dtensor.sharded_save")
def sharded_save(mesh, file_prefix, tensor_names, shape_and_slices, tensors):
    """Save ``tensors`` under ``tensor_names`` at ``file_prefix`` (whole tensors: ``shape_and_slices`` must be
    empty strings, as DTensor writes them)."""
    _check_mesh(mesh)
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in
             (tensor_names.numpy().tolist() if hasattr(tensor_names, "numpy") else tensor_names)]
    slices = shape_and_slices.numpy().tolist() if hasattr(shape_and_slices, "numpy") else list(shape_and_slices)
    if any(s not in ("", b"") for s in slices):
        raise ValueError("tensorlet's sharded_save writes whole tensors; shape_and_slices must be empty strings")
    if len(names) != len(tensors):
        raise ValueError(f"Got {len(names)} tensor names for {len(tensors)} tensors")
    tf_bundle.write_bundle(file_prefix, {n: _value(t) for n, t in zip(names, tensors)})


@tf_export("experimental.dtensor.name_based_save")
def name_based_save(mesh, checkpoint_prefix, name_tensor_dict):
    """Save ``{name: tensor}`` at ``checkpoint_prefix``."""
    names = sorted(name_tensor_dict)
    sharded_save(mesh, checkpoint_prefix, names, [""] * len(names), [name_tensor_dict[n] for n in names])


@tf_export("experimental.dtensor.name_based_restore")
def name_based_restore(mesh, checkpoint_prefix, name_tensor_dict):
    """Restore ``{name: variable or layout-carrying tensor}`` from ``checkpoint_prefix``; returns
    ``{name: restored DTensor}`` (variables are assigned too)."""
    _check_mesh(mesh)
    reader = tf_bundle.read_bundle(checkpoint_prefix)
    out = {}
    for name, target in name_tensor_dict.items():
        arr = reader.get(name)
        layout = api.fetch_layout(target) if api.is_dtensor(target) else None
        value = convert_to_tensor(np.asarray(arr).astype(target.dtype.as_numpy_dtype))
        if hasattr(target, "assign"):
            target.assign(value)
        out[name] = api.copy_to_mesh(value, layout) if layout is not None else value
    return out


@tf_export("experimental.dtensor.DTensorDataset")
class DTensorDataset:
    """Iterates ``dataset`` in global batches of ``global_batch_size``, each element laid out with ``layouts``
    (a nest matching the element, batch dimension first)."""

    def __init__(self, dataset, *, mesh, layouts, global_batch_size, dataset_already_batched=False,
                 batch_dim=None, prefetch=None, tf_data_service_config=None):
        _check_mesh(mesh)
        if global_batch_size < 1:
            raise ValueError(f"global_batch_size must be positive, got {global_batch_size}")
        flat = nest.flatten(layouts)
        for lay in flat:
            if lay.mesh != mesh:
                raise ValueError("Each layout must be on the dataset's mesh")
            if batch_dim is not None and lay.sharding_specs[0] not in (batch_dim, "unsharded"):
                raise ValueError(f"The first dimension of each layout must be sharded on {batch_dim!r} or unsharded")
        self._ds = dataset if dataset_already_batched else dataset.batch(global_batch_size, drop_remainder=True)
        self._mesh, self._layouts = mesh, layouts
        self._global_batch_size = global_batch_size

    @property
    def element_spec(self):
        return self._ds.element_spec

    def __iter__(self):
        for elem in self._ds:
            yield nest.map_structure(lambda t, lay: api.copy_to_mesh(t, lay), elem, self._layouts)
