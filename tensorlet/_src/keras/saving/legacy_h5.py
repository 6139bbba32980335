"""Keras's legacy HDF5 model file (``model.save("m.h5")``), as Keras 3 writes it and as tf.keras 2.x wrote it.

Root attributes ``model_config`` (JSON ``{"class_name", "config"}`` with module-less layer entries),
``training_config`` (compile arguments plus ``optimizer_config``), ``keras_version`` and ``backend``; group
``model_weights`` (attribute ``layer_names``; one group per layer with attribute ``weight_names`` and a dataset per
weight, at the weight's path: ``d1/sequential/d1/kernel`` from Keras 3, ``dense/dense/kernel:0`` from tf.keras 2.x);
group ``optimizer_weights``. Weights load by order (layers with weights, in ``model.layers`` order; each layer's
``trainable_weights + non_trainable_weights``) or, with ``by_name=True``, by layer name.

Loading checks the config with safe mode (a ``Lambda`` carrying marshalled bytecode is refused: CVE-2025-9905) and
reads datasets only after their shape matched the variable they are loaded into.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from tensorlet._src.keras.saving import safe_mode as _safe
from tensorlet._src.keras.saving import weights_h5 as _w

HDF5_OBJECT_HEADER_LIMIT = 64512
MAX_ATTR_JSON_BYTES = 1 << 28


# --- attributes -------------------------------------------------------------------------------------------------------
def _decode(v):
    """A str attribute value (h5py hands undecodable bytes over with surrogate escapes: those are refused)."""
    if isinstance(v, (bytes, np.bytes_)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"Invalid H5 file: an attribute is not valid UTF-8 ({e})") from e
    if isinstance(v, np.ndarray) and v.shape == ():
        return _decode(v.item())
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"Invalid H5 file: an attribute is not valid UTF-8 ({e.reason})") from e
    return v


def save_attributes(group, name, data):
    """``group.attrs[name] = data`` split into ``name0``, ``name1``, ... when over HDF5's header limit."""
    bad = [x for x in data if len(x) > HDF5_OBJECT_HEADER_LIMIT]
    if bad:
        raise RuntimeError(f"The following attributes cannot be saved to HDF5 file because they are larger than "
                           f"{HDF5_OBJECT_HEADER_LIMIT} bytes: {bad}")
    data_npy = np.asarray(data)
    chunks = 1
    parts = np.array_split(data_npy, chunks)
    while any(x.nbytes > HDF5_OBJECT_HEADER_LIMIT for x in parts):
        chunks += 1
        parts = np.array_split(data_npy, chunks)
    if chunks > 1:
        for i, part in enumerate(parts):
            group.attrs[f"{name}{i}"] = part
    else:
        group.attrs[name] = data


def load_attributes(group, name):
    """The list of strings stored by ``save_attributes`` (chunked or not)."""
    def items(raw):
        raw = np.asarray(raw)
        if raw.dtype.kind not in "SUO":
            if raw.size == 0:
                return []
            raise ValueError(f"Invalid H5 file: attribute '{name}' is not a list of names")
        out = [_decode(x) for x in raw.reshape(-1)]
        if not all(isinstance(x, str) for x in out):
            raise ValueError(f"Invalid H5 file: attribute '{name}' is not a list of names")
        return out

    if name in group.attrs:
        return items(group.attrs[name])
    data = []
    i = 0
    while f"{name}{i}" in group.attrs:
        data.extend(items(group.attrs[f"{name}{i}"]))
        i += 1
    return data


def _json_attr(f, name, required):
    if name not in f.attrs:
        if required:
            raise ValueError(f"No model config found in the file at {getattr(f, 'filename', 'the file')}.")
        return None
    raw = f.attrs[name]
    raw = _decode(raw)
    if not isinstance(raw, str):
        raise ValueError(f"Invalid H5 file: attribute '{name}' is not a JSON string")
    if len(raw) > MAX_ATTR_JSON_BYTES:
        raise ValueError(f"Invalid H5 file: attribute '{name}' is too large")
    from tensorlet._src.keras.saving.keras_zip import parse_json

    return parse_json(raw.encode("utf-8"), f"`{name}` of the H5 file")


# --- legacy config ----------------------------------------------------------------------------------------------------
def legacy_model_config(model):
    """``{"class_name", "config"}`` of ``model`` in the legacy (module-less layer entries) form Keras writes."""
    from tensorlet._src.keras.saving.saving_api import keras_compatible
    from tensorlet._src.keras.saving.serialization import serialize_keras_object

    return _legacy_entry(keras_compatible(serialize_keras_object(model)))


def _legacy_entry(entry):
    name = entry.get("registered_name") or entry["class_name"]
    if name == "function":
        name = entry["class_name"]
    out = {"class_name": name, "config": entry.get("config")}
    inner = out["config"]
    if isinstance(inner, dict) and isinstance(inner.get("layers"), list):
        inner = dict(inner)
        inner["layers"] = [_legacy_layer(e) for e in inner["layers"]]
        out["config"] = inner
    return out


def _legacy_layer(entry):
    if not isinstance(entry, dict) or "class_name" not in entry:
        return entry
    out = _legacy_entry(entry)
    for k in ("name", "inbound_nodes"):
        if k in entry:
            out[k] = entry[k]
    return out


def from_keras2_config(config):
    """Rewrites the tf.keras 2.x parts Keras 3 reads differently (recursively through nested models)."""
    if not isinstance(config, dict):
        return config
    config = dict(config)
    inner = config.get("config")
    if isinstance(inner, dict):
        inner = dict(inner)
        if "batch_input_shape" in inner and config.get("class_name") == "InputLayer":
            inner["batch_shape"] = inner.pop("batch_input_shape")
        axis = inner.get("axis")
        if isinstance(axis, list) and len(axis) == 1 and isinstance(axis[0], int) and \
                config.get("class_name") in ("BatchNormalization", "LayerNormalization"):
            inner["axis"] = axis[0]
        if isinstance(inner.get("layers"), list):
            inner["layers"] = [_from_keras2_layer(e) for e in inner["layers"]]
        for key in ("input_layers", "output_layers"):  # tf.keras 2.x wrapped a single input/output in a list
            refs = inner.get(key)
            if isinstance(refs, list) and len(refs) == 1 and _is_ref(refs[0]) and len(refs[0]) == 3:
                inner[key] = refs[0]
        config["config"] = inner
    return config


def _from_keras2_layer(entry):
    entry = from_keras2_config(entry)
    if isinstance(entry, dict) and isinstance(entry.get("inbound_nodes"), list):
        entry["inbound_nodes"] = [_node_from_keras2(n) for n in entry["inbound_nodes"]]
    return entry


def _kt(ref):
    return {"class_name": "__keras_tensor__", "config": {"shape": None, "dtype": None,
                                                         "keras_history": [ref[0], ref[1], ref[2]]}}


def _is_ref(x):
    return isinstance(x, list) and len(x) in (3, 4) and isinstance(x[0], str) and isinstance(x[1], int) and \
        isinstance(x[2], int)


def _node_from_keras2(node):
    """``[["dense", 0, 0, {}], ...]`` (tf.keras 2.x) as ``{"args": [...], "kwargs": {...}}`` (Keras 3)."""
    if isinstance(node, dict):
        return node
    if not isinstance(node, list) or not all(_is_ref(r) for r in node):
        raise ValueError(f"Invalid model config: cannot read the inbound node {_safe._short(node)}")
    kwargs = node[0][3] if node and len(node[0]) == 4 and isinstance(node[0][3], dict) else {}
    kwargs = {k: (_kt(v) if _is_ref(v) else v) for k, v in kwargs.items()}
    if len(node) == 1:
        return {"args": [_kt(node[0])], "kwargs": kwargs}
    return {"args": [[_kt(r) for r in node]], "kwargs": kwargs}


# --- save -------------------------------------------------------------------------------------------------------------
def legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _weight_name(v):
    return str(getattr(v, "path", None) or v.name)


def _save_subset(group, weights):
    names = [_weight_name(w).encode("utf8") for w in weights]
    save_attributes(group, "weight_names", names)
    for name, w in zip(names, weights):
        val = np.asarray(w.numpy())
        ds = group.create_dataset(name.decode("utf8"), val.shape, dtype=val.dtype)
        if not val.shape:
            ds[()] = val
        else:
            ds[:] = val


def save_weights_to_group(group, model):
    from tensorlet._src.keras.saving.saving_api import KERAS_VERSION

    save_attributes(group, "layer_names", [layer.name.encode("utf8") for layer in model.layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in sorted(model.layers, key=lambda x: x.name):
        _save_subset(group.create_group(layer.name), legacy_weights(layer))
    top = [v for v in _w.own_variables(model)]
    _save_subset(group.create_group("top_level_model_weights"), top)


def training_config(model):
    compile_config = model.get_compile_config() if hasattr(model, "get_compile_config") else None
    if not compile_config or getattr(model, "optimizer", None) is None:
        return None
    from tensorlet._src.keras.saving.serialization import get_registered_name

    config = {k: v for k, v in compile_config.items() if k != "optimizer"}
    config["optimizer_config"] = {"class_name": get_registered_name(type(model.optimizer)),
                                  "config": model.optimizer.get_config()}
    return config


def save_model_to_h5(model, f, include_optimizer=True):
    """Writes ``model`` into the open (writable) h5py File ``f``."""
    from tensorlet._src.keras.models import _default
    from tensorlet._src.keras.saving.saving_api import KERAS_VERSION

    f.attrs["keras_version"] = KERAS_VERSION
    f.attrs["backend"] = "tensorflow"
    f.attrs["model_config"] = json.dumps(legacy_model_config(model), default=_default).encode("utf8")
    tc = training_config(model) if include_optimizer else None
    if tc is not None:
        f.attrs["training_config"] = json.dumps(tc, default=_default).encode("utf8")
    save_weights_to_group(f.create_group("model_weights"), model)
    if include_optimizer and getattr(model, "optimizer", None) is not None and model.optimizer.variables:
        og = f.create_group("optimizer_weights")
        variables = list(model.optimizer.variables)
        names = [_weight_name(v).encode("utf8") for v in variables]
        save_attributes(og, "weight_names", names)
        for name, v in zip(names, variables):
            val = np.asarray(v.numpy())
            ds = og.create_dataset(name.decode("utf8"), val.shape, dtype=val.dtype)
            if not val.shape:
                ds[()] = val
            else:
                ds[:] = val


# --- load -------------------------------------------------------------------------------------------------------------
def _read_subset(group, symbolic, skip_mismatch, label):
    """Reads the datasets of ``group`` into ``symbolic`` (order-based, shapes checked before reading)."""
    names = load_attributes(group, "weight_names")
    if len(names) != len(symbolic):
        raise ValueError(f"Weight count mismatch for {label}. Layer expects {len(symbolic)} weight(s). Received "
                         f"{len(names)} saved weight(s)")
    values = []
    for name, v in zip(names, symbolic):
        expected = tuple(int(d) for d in v.shape)
        ds = _w.safe_dataset(group, name)
        got = tuple(int(d) for d in ds.shape)
        if got != expected:
            msg = (f"Shape mismatch in {label} for weight {_weight_name(v)}. Weight expects shape {expected}. "
                   f"Received saved weight with shape {got}")
            if skip_mismatch:
                warnings.warn("Skipping loading weights: " + msg, stacklevel=4)
                values.append(None)
                continue
            raise ValueError(msg)
        values.append(_w.read_dataset(ds))
    for v, value in zip(symbolic, values):
        if value is not None:
            v.assign(np.asarray(value).astype(v.dtype.as_numpy_dtype, copy=False))


def load_weights_from_group(group, model, skip_mismatch=False):
    """Order-based loading (layers with weights in ``model.layers`` order)."""
    filtered_layers = [layer for layer in model.layers if legacy_weights(layer)]
    layer_names = []
    for name in load_attributes(group, "layer_names"):
        if load_attributes(_w.safe_group(group, name), "weight_names"):
            layer_names.append(name)
    if len(layer_names) != len(filtered_layers):
        raise ValueError(f"Layer count mismatch when loading weights from file. Model expected "
                         f"{len(filtered_layers)} layers, found {len(layer_names)} saved layers.")
    for k, name in enumerate(layer_names):
        layer = filtered_layers[k]
        _read_subset(_w.safe_group(group, name), legacy_weights(layer), skip_mismatch,
                     f"layer #{k} (named {layer.name} in the current model, {name} in the save file)")
    if "top_level_model_weights" in group:
        top = _w.own_variables(model)
        _read_subset(_w.safe_group(group, "top_level_model_weights"), top, skip_mismatch, "top-level model")


def load_weights_from_group_by_name(group, model, skip_mismatch=False):
    """Name-based loading: each saved layer goes to the model's layers of that name (others are skipped)."""
    index = {}
    for layer in model.layers:
        index.setdefault(layer.name, []).append(layer)
    for k, name in enumerate(load_attributes(group, "layer_names")):
        layer_group = _w.safe_group(group, name)
        n_saved = len(load_attributes(layer_group, "weight_names"))
        for layer in index.get(name, []):
            symbolic = legacy_weights(layer)
            if n_saved != len(symbolic):
                msg = (f"Weight count mismatch for layer #{k} (named {layer.name}). Layer expects {len(symbolic)} "
                       f"weight(s). Received {n_saved} saved weight(s)")
                if skip_mismatch:
                    warnings.warn("Skipping loading of weights: " + msg, stacklevel=3)
                    continue
                raise ValueError(msg)
            _read_subset(layer_group, symbolic, skip_mismatch, f"layer #{k} (named {layer.name})")


def weights_root(f):
    """The group holding ``layer_names``: the file itself (``save_weights``) or its ``model_weights``."""
    if "layer_names" not in f.attrs and "layer_names0" not in f.attrs and "model_weights" in f:
        return _w.safe_group(f, "model_weights")
    return f


def model_from_h5(f, custom_objects=None, do_compile=True, safe_mode=True):
    """The model (with weights, compiled when ``compile`` and the file has a training config) in the open file."""
    from tensorlet._src.keras.saving import saving_api

    config = _json_attr(f, "model_config", required=True)
    config = from_keras2_config(config)
    config = _safe.check_config(config, custom_objects, safe_mode=safe_mode, legacy=True)
    model = saving_api.deserialize_model(config, custom_objects, safe_mode)
    saving_api._finish_build(model, config)
    load_weights_from_group(_w.safe_group(f, "model_weights"), model)
    if not do_compile:
        return model
    tc = _json_attr(f, "training_config", required=False)
    if tc is None:
        warnings.warn("No training configuration found in the save file, so the model was *not* compiled. "
                      "Compile it manually.", stacklevel=3)
        return model
    _compile_from_training_config(model, tc, custom_objects, safe_mode)
    if "optimizer_weights" in f:
        _load_optimizer_weights(model, _w.safe_group(f, "optimizer_weights"))
    return model


def _compile_from_training_config(model, tc, custom_objects, safe_mode):
    from tensorlet._src.keras import losses as _losses
    from tensorlet._src.keras import metrics as _metrics
    from tensorlet._src.keras import optimizers as _optimizers
    from tensorlet._src.keras.saving.serialization import CustomObjectScope

    checker = _safe._Checker(custom_objects, _safe.is_safe_mode(safe_mode), legacy=True)
    tc = checker.check(tc)
    opt_config = tc.get("optimizer_config")
    if not isinstance(opt_config, dict):
        raise ValueError("Invalid training config: missing `optimizer_config`.")
    with CustomObjectScope(custom_objects or {}):
        optimizer = _optimizers.deserialize(opt_config)

        def loss_of(c):
            if isinstance(c, dict) and "class_name" in c:
                return _losses.deserialize(c)
            if isinstance(c, dict):
                return {k: loss_of(v) for k, v in c.items()}
            if isinstance(c, list):
                return [loss_of(v) for v in c]
            return c

        def metric_of(c):
            if isinstance(c, str) or c is None:
                return c
            if isinstance(c, dict) and "class_name" in c:
                try:
                    return _metrics.deserialize(c)
                except (TypeError, ValueError):
                    name = (c.get("config") or {}).get("name") if isinstance(c.get("config"), dict) else None
                    if isinstance(name, str):
                        return name
                    raise
            if isinstance(c, dict):
                return {k: metric_of(v) for k, v in c.items()}
            if isinstance(c, list):
                return [metric_of(v) for v in c]
            return c

        def metrics_of(c):
            if isinstance(c, list) and len(c) == 1 and isinstance(c[0], list):  # tf.keras 2.x: one list per output
                c = c[0]
            return metric_of(c)

        model.compile(optimizer=optimizer, loss=loss_of(tc.get("loss")), metrics=metrics_of(tc.get("metrics")),
                      weighted_metrics=metrics_of(tc.get("weighted_metrics")), loss_weights=tc.get("loss_weights"))


def _load_optimizer_weights(model, group):
    optimizer = model.optimizer
    try:
        if not getattr(optimizer, "built", True):
            optimizer.build(model.trainable_variables)
    except (NotImplementedError, AttributeError, ValueError):
        warnings.warn("Error when creating the weights of the optimizer, making it impossible to restore the saved "
                      "optimizer state. As a result, your model is starting with a freshly initialized optimizer.",
                      stacklevel=3)
        return
    names = load_attributes(group, "weight_names")
    variables = list(optimizer.variables)
    ok = len(names) == len(variables)
    datasets = []
    if ok:
        for name, v in zip(names, variables):
            ds = _w.safe_dataset(group, name)
            if tuple(int(d) for d in ds.shape) != tuple(int(d) for d in v.shape):
                ok = False
                break
            datasets.append(ds)
    if not ok:
        warnings.warn("Error in loading the saved optimizer state. As a result, your model is starting with a freshly "
                      "initialized optimizer.", stacklevel=3)
        return
    for v, ds in zip(variables, datasets):
        v.assign(np.asarray(_w.read_dataset(ds)).astype(v.dtype.as_numpy_dtype, copy=False))
