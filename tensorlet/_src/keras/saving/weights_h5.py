"""Keras 3's weights file (``model.weights.h5`` inside ``.keras`` archives, ``*.weights.h5``).

Layout: each layer/optimizer keeps its own variables as datasets ``<path>/vars/0``, ``<path>/vars/1``, ... in a
group whose ``name`` attribute is the object's name. ``<path>`` follows the object graph as Keras walks it:
the model's own variables under ``vars``; ``layers/<snake_case class name>[_N]`` for the layers of a Sequential or
Functional model (numbered per class: ``dense``, ``dense_1``); other sub-layers under the attribute that holds them
(``layers/lstm/cell``, ``layers/bidirectional/forward_layer``, ``dense1`` in a subclassed model), attributes visited
in sorted order with private ones last; lists of layers as containers; the optimizer under ``optimizer``
(``iteration``, ``learning_rate``, then its slots).

Reading is defensive: only hard links are followed, datasets must be plain numeric arrays stored in the file
(no external or virtual storage) whose shape equals the variable's before any data is read.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np

MAX_DATASET_BYTES = 1 << 34  # 16 GiB: no single variable is larger
_H5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def h5py():
    import h5py as _h5py

    return _h5py


# --- safe access ----------------------------------------------------------------------------------------------------
def safe_group(parent, name):
    """The sub-group ``name`` of ``parent`` (hard links only), or a ``ValueError``."""
    h = h5py()
    current = parent
    for part in str(name).split("/"):
        if not part:
            raise ValueError(f"Invalid path in H5 file: {name}")
        if part not in current:
            raise KeyError(name)
        link = current.get(part, getlink=True)
        if not isinstance(link, h.HardLink):
            raise ValueError(f"Not allowed: H5 file with {type(link).__name__} at '{name}'")
        current = current[part]
        if not isinstance(current, h.Group):
            raise ValueError(f"Invalid H5 file: expected a group at '{name}', found {type(current).__name__}")
    return current


def safe_dataset(group, name, expected_shape=None):
    """The dataset ``name`` of ``group`` checked before reading: hard link, stored in this file, numeric, declared
    size below ``MAX_DATASET_BYTES`` and, when given, of shape ``expected_shape``."""
    h = h5py()
    if "/" in name:
        parent, name = name.rsplit("/", 1)
        group = safe_group(group, parent)
    if name not in group:
        raise KeyError(name)
    link = group.get(name, getlink=True)
    if not isinstance(link, h.HardLink):
        raise ValueError(f"Not allowed: H5 file with {type(link).__name__} at '{name}'")
    ds = group[name]
    if not isinstance(ds, h.Dataset):
        raise ValueError(f"Invalid H5 file: expected a dataset at '{name}', found {type(ds).__name__}")
    if ds.external:
        raise ValueError(f"Not allowed: H5 file with external dataset storage at '{name}'")
    if ds.is_virtual:
        raise ValueError(f"Not allowed: H5 file with virtual dataset at '{name}'")
    if ds.dtype.kind not in "biufc" or ds.dtype.fields is not None or ds.dtype.subdtype is not None:
        raise ValueError(f"Invalid H5 file: dataset '{name}' has non-numeric type {ds.dtype}")
    shape = tuple(int(d) for d in (ds.shape or ()))
    if ds.shape is None:
        raise ValueError(f"Invalid H5 file: dataset '{name}' has no shape")
    nbytes = math.prod(shape) * ds.dtype.itemsize
    if nbytes > MAX_DATASET_BYTES:
        raise ValueError(f"Not allowed: H5 dataset '{name}' declares {nbytes} bytes (shape {shape}), more than the "
                         f"limit of {MAX_DATASET_BYTES} bytes")
    if expected_shape is not None and shape != tuple(expected_shape):
        raise ValueError(f"Shape mismatch for dataset '{name}': the file has shape {shape}, the variable expects "
                         f"{tuple(expected_shape)}")
    return ds


def read_dataset(ds):
    value = ds[()]
    value = np.asarray(value)
    if "dtype" in ds.attrs and _attr_str(ds.attrs["dtype"]) == "bfloat16":
        import ml_dtypes

        value = value.astype(ml_dtypes.bfloat16)
    return value


def _attr_str(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return _attr_str(v.item())
    return str(v)


def open_h5_bytes(data, what):
    """An h5py File over in-memory bytes (never a path: nothing outside the archive is touched)."""
    import io

    if not data.startswith(_H5_SIGNATURE):
        raise ValueError(f"Invalid {what}: not an HDF5 file (bad signature)")
    try:
        return h5py().File(io.BytesIO(data), "r")
    except (OSError, ValueError, RuntimeError) as e:
        raise ValueError(f"Invalid {what}: {e}") from e


# --- stores handed to save_own_variables / load_own_variables --------------------------------------------------------
class _WriteStore:
    """What ``save_own_variables(store)`` writes into: ``store["0"] = value`` creates ``<path>/vars/0``."""

    def __init__(self, h5file, path, name):
        self._file = h5file
        self._path = path
        self._group = None
        if name is not None:
            self._make()
            self._group.attrs["name"] = name

    def _make(self):
        if self._group is None:
            self._group = self._file.create_group(f"{self._path}/vars" if self._path else "vars")
        return self._group

    def __setitem__(self, key, value):
        value = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        group = self._make()
        if value.dtype.name == "bfloat16":
            ds = group.create_dataset(key, data=value.astype(np.float32))
            ds.attrs["dtype"] = "bfloat16"
        else:
            group.create_dataset(key, data=value)

    def __len__(self):
        return 0 if self._group is None else len(self._group)

    def keys(self):
        return [] if self._group is None else list(self._group.keys())


class _ReadStore:
    """What ``load_own_variables(store)`` reads: ``store["0"]`` (checked), ``keys()``, ``len(store)``."""

    def __init__(self, group, path):
        self._group = group
        self._path = path
        self._expected = {}

    def expect(self, key, shape):
        self._expected[key] = tuple(shape)

    def keys(self):
        if self._group is None:
            return []
        return sorted(self._group.keys(), key=_numeric_key)

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        return self._group is not None and key in self._group

    def __getitem__(self, key):
        if self._group is None:
            raise KeyError(key)
        ds = safe_dataset(self._group, str(key), self._expected.get(str(key)))
        return read_dataset(ds)


def _numeric_key(k):
    return (0, int(k)) if k.isdigit() else (1, k)


def read_store(h5file, path):
    """The ``_ReadStore`` of ``<path>/vars`` (empty when the file has none)."""
    name = f"{path}/vars" if path else "vars"
    try:
        group = safe_group(h5file, name)
    except KeyError:
        group = None
        if "_layer_checkpoint_dependencies" in h5file and path.startswith("layers"):
            # .keras files of Keras 2.13-2.15 name the layers container `_layer_checkpoint_dependencies`
            legacy = "_layer_checkpoint_dependencies" + name[len("layers"):]
            try:
                group = safe_group(h5file, legacy)
            except KeyError:
                group = None
    return _ReadStore(group, path)


# --- the object graph -------------------------------------------------------------------------------------------------
def _classes():
    from tensorlet._src.keras.engine.base_layer import Layer
    from tensorlet._src.keras.engine.functional import Functional
    from tensorlet._src.keras.engine.sequential import Sequential
    from tensorlet._src.keras.engine.training import Model
    from tensorlet._src.keras.optimizers import legacy
    from tensorlet._src.keras.optimizers.base import Optimizer

    return Layer, Model, Sequential, Functional, (Optimizer, legacy.Optimizer)


_SKIP = {}


def _internal_names():
    """Attribute names of tensorlet's own Layer/Model machinery (never sub-objects of the saved graph)."""
    if "names" not in _SKIP:
        Layer, Model, Sequential, _, _ = _classes()
        probe = Layer(name="_saving_probe")
        names = set(vars(probe)) | set(Layer._KERAS_NOT_TRACKED)
        names |= set(vars(Sequential(name="_saving_probe_model")))
        names |= {"_compile_config", "_compile_loss", "_compile_metrics", "_functional", "_functional_layers",
                  "_initial_epoch", "_inputs_struct", "_outputs_struct", "_is_graph_network", "_jit_compile",
                  "_loss_tracker", "_nodes_by_depth", "_operations", "_run_eagerly", "_run_order", "_stack",
                  "_tracked_cache", "_layers", "_input_layers", "_output_layers", "history", "loss",
                  "train_function", "test_function", "predict_function"}
        names.discard("optimizer")
        _SKIP["names"] = frozenset(names)
    return _SKIP["names"]


def snake_case(name):
    s = re.sub(r"\W+", "", name)
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", s)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _name_key(name):
    return "~" + name if name.startswith("_") else name


def is_saveable(obj):
    Layer, _, _, _, optimizers = _classes()
    return isinstance(obj, (Layer,) + optimizers)


def _children(obj):
    """(attribute name, value) pairs in Keras's visiting order."""
    Layer, Model, Sequential, Functional, _ = _classes()
    attrs = dict(vars(obj))
    if isinstance(obj, (Sequential, Functional)):
        yield "layers", obj.layers
    elif isinstance(obj, Model):
        attrs["layers"] = obj.layers
    skip = _internal_names() if isinstance(obj, Layer) else frozenset()
    for name in sorted(attrs, key=_name_key):
        if name.startswith("__") or name in skip:
            continue
        value = attrs[name]
        if isinstance(value, (list, tuple, dict)) or is_saveable(value):
            yield name, value


def own_variables(obj):
    """A layer's own variables in Keras's order (trainable first); an optimizer's ``variables``."""
    Layer, _, _, _, _ = _classes()
    if isinstance(obj, Layer):
        own = obj._tracked()[0]
        return [v for v in own if v.trainable] + [v for v in own if not v.trainable]
    return list(obj.variables)


def _join(path, name):
    return f"{path}/{name}" if path else name


def walk(root, visit):
    """Calls ``visit(obj, path)`` for every layer/optimizer reachable from ``root``, in Keras's order and with
    Keras's paths (each object once)."""
    visited = set()

    def state(obj, path):
        if id(obj) in visited:
            return
        visit(obj, path)
        visited.add(id(obj))
        for name, child in _children(obj):
            if is_saveable(child):
                state(child, _join(path, name))
            else:
                container(child, _join(path, name), set())

    def container(items, path, seen):
        if id(items) in seen:
            return
        seen.add(id(items))
        used = {}
        values = list(items.values()) if isinstance(items, dict) else list(items)
        for item in values:
            if is_saveable(item):
                state(item, _join(path, _unique(snake_case(type(item).__name__), used)))
            elif isinstance(item, (list, tuple, dict)):
                container(item, _join(path, _unique("container", used)), seen)

    state(root, "")


def _unique(name, used):
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


# --- save / load ------------------------------------------------------------------------------------------------------
def save_weights_to_h5(model, h5file):
    """Writes every layer's and the optimizer's variables into an open (writable) h5py File."""

    def visit(obj, path):
        name = getattr(obj, "name", None)
        store = _WriteStore(h5file, path, name if isinstance(name, str) else None)
        custom = _custom_method(obj, "save_own_variables")
        if custom is not None:
            custom(store)
        else:
            for i, v in enumerate(own_variables(obj)):
                store[str(i)] = v

    walk(model, visit)


def _custom_method(obj, name):
    """A user/layer-defined ``save_own_variables``/``load_own_variables`` (not the optimizer's generic one)."""
    _, _, _, _, optimizers = _classes()
    method = getattr(obj, name, None)
    if method is None or isinstance(obj, optimizers):
        return None
    return method


def load_weights_from_h5(model, h5file, skip_mismatch=False, objects_to_skip=None):
    """Reads the variables of every layer and of the optimizer from an open h5py File (Keras 3 layout)."""
    _, _, _, _, optimizers = _classes()
    errors = []
    skip_ids = {id(o) for o in (objects_to_skip or ())}

    def visit(obj, path):
        if id(obj) in skip_ids:
            return
        store = read_store(h5file, path)
        try:
            if isinstance(obj, optimizers):
                _load_optimizer(obj, store)
            else:
                custom = _custom_method(obj, "load_own_variables")
                if custom is not None:
                    custom(store)
                else:
                    _load_layer(obj, store)
        except (ValueError, KeyError, TypeError) as e:
            if isinstance(e, KeyError):
                e = ValueError(f"Missing dataset {e} for '{getattr(obj, 'name', obj)}'")
            errors.append((obj, e))

    walk(model, visit)
    if errors:
        obj, err = errors[0]
        msg = (f"A total of {len(errors)} objects could not be loaded. Example error message for object {obj}:\n\n"
               f"{err}\n\nList of objects that could not be loaded:\n{[o for o, _ in errors]}")
        if skip_mismatch:
            warnings.warn(msg, stacklevel=3)
        else:
            raise ValueError(msg) from err


def load_keras_assets(model, assets):
    """Hands each layer the asset files Keras saved under its path (``{file name: bytes}``): tensorlet layers that
    read them define ``_load_keras_assets`` (the lookup layers' ``vocabulary.txt``)."""

    def visit(obj, path):
        reader = getattr(obj, "_load_keras_assets", None)
        if reader is None:
            return
        prefix = f"{path}/" if path else ""
        files = {k[len(prefix):]: v for k, v in assets.items() if k.startswith(prefix) and "/" not in k[len(prefix):]}
        if files:
            reader(files)

    walk(model, visit)


def _load_layer(layer, store):
    variables = own_variables(layer)
    keys = store.keys()
    if len(keys) != len(variables):
        if not variables and not layer.built:
            raise ValueError(f"Layer '{layer.name}' was never built and thus it doesn't have any variables. However "
                             f"the weights file lists {len(keys)} variables for this layer.")
        raise ValueError(f"Layer '{layer.name}' expected {len(variables)} variables, but received {len(keys)} "
                         f"variables during loading. Expected: {[v.name for v in variables]}")
    values = []
    for i, v in enumerate(variables):
        store.expect(str(i), tuple(int(d) for d in v.shape))
        values.append(store[str(i)])
    for v, value in zip(variables, values):
        v.assign(np.asarray(value).astype(v.dtype.as_numpy_dtype, copy=False))


def _load_optimizer(opt, store):
    variables = list(opt.variables)
    keys = store.keys()
    if len(keys) != len(variables):
        msg = (f"Skipping variable loading for optimizer '{opt.name}', because it has {len(variables)} variables "
               f"whereas the saved optimizer has {len(keys)} variables. ")
        if len(variables) <= 2:
            msg += "This is likely because the optimizer has not been called/built yet."
        warnings.warn(msg, stacklevel=4)
        return
    values = []
    for i, v in enumerate(variables):
        store.expect(str(i), tuple(int(d) for d in v.shape))
        values.append(store[str(i)])
    for v, value in zip(variables, values):
        v.assign(np.asarray(value).astype(v.dtype.as_numpy_dtype, copy=False))


def saved_optimizer_size(h5file):
    """How many variables the file holds for the model's optimizer (0 when none)."""
    try:
        return len(read_store(h5file, "optimizer").keys())
    except ValueError:
        return 0


def layout(h5file):
    """``{path: (shape, dtype) or {"name": ...}}`` of every group/dataset: the structure tests compare."""
    h = h5py()
    out = {}

    def visit(name, obj):
        if isinstance(obj, h.Dataset):
            out[name] = [list(obj.shape), str(obj.dtype)]
        else:
            out[name] = {k: _attr_str(v) for k, v in obj.attrs.items()}

    h5file.visititems(visit)
    return out
