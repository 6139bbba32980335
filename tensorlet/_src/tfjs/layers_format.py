"""Keras models in TensorFlow.js's Layers format: ``model.json`` + binary weight shards.

``model.json`` holds ``modelTopology`` (the Keras model config in the Keras 2 JSON that tfjs-layers
deserializes: plain ``class_name``/``config`` objects, ``batch_input_shape``, nested-list ``inbound_nodes``) and
``weightsManifest`` (shard paths and one spec per weight: ``name`` as ``<layer>/<weight>``, ``shape``, ``dtype``
and, when quantized, tfjs-converter's ``quantization`` record).  Weights are concatenated in layer order and cut
into shards of ``weight_shard_size_bytes`` (4 MiB by default), named ``group1-shardKofN.bin``.

>>> tensorlet.tfjs.save_keras_model(model, "web_model")                    # doctest: +SKIP
"""

from __future__ import annotations

import json
import os

import numpy as np

from tensorlet._src.ops.registry import tf_export
from tensorlet._src.tfjs.weights import (DEFAULT_SHARD, VERSION, atomic_write, quantization_map, shard_size,
                                         write_weights)


# --- topology -------------------------------------------------------------------------------------------------------
def _plain(obj):
    """Keras 3 serialized objects -> the Keras 2 form tfjs reads (``{"class_name", "config"}``; dtype policies as
    their dtype name)."""
    if isinstance(obj, dict):
        if "class_name" in obj and "config" in obj and ("module" in obj or "registered_name" in obj):
            if obj["class_name"] in ("DTypePolicy", "Policy", "FloatDTypePolicy"):
                return (obj.get("config") or {}).get("name", "float32")
            return {"class_name": obj["class_name"], "config": _plain(obj["config"])}
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def _history(arg):
    if isinstance(arg, dict) and arg.get("class_name") == "__keras_tensor__":
        return list(arg["config"]["keras_history"]) + [{}]
    raise ValueError(f"TF.js Layers format: unsupported layer call argument {arg!r} (only Keras tensors).")


def _layer(entry):
    cfg = _plain(entry.get("config", {}))
    cls = entry["class_name"]
    if cls == "InputLayer":
        cfg = dict(cfg)
        if "batch_shape" in cfg:
            cfg["batch_input_shape"] = cfg.pop("batch_shape")
        cfg.pop("optional", None)
    out = {"class_name": cls, "config": cfg}
    if "name" in entry:
        out["name"] = entry["name"]
    if "inbound_nodes" in entry:
        nodes = []
        for node in entry["inbound_nodes"]:
            if isinstance(node, dict):  # Keras 3: {"args": [...], "kwargs": {...}}
                args = node.get("args", [])
                if len(args) == 1 and isinstance(args[0], (list, tuple)):
                    args = args[0]
                nodes.append([_history(a) for a in args])
            else:
                nodes.append(node)
        out["inbound_nodes"] = nodes
    return out


def _io_list(v):
    if v and not isinstance(v[0], (list, tuple)):
        return [list(v)]
    return [list(x) for x in v]


def topology(model) -> dict:
    """``modelTopology`` for ``model`` (Sequential or functional)."""
    cls = type(model).__name__
    cfg = model.get_config()
    if cls == "Sequential" or "input_layers" not in cfg:
        if cls != "Sequential":
            raise ValueError(f"TF.js Layers format needs a Sequential or functional Keras model; got a subclassed "
                             f"{cls}. Export it as a SavedModel instead.")
        config = {"name": cfg.get("name", "sequential"), "layers": [_layer(e) for e in cfg["layers"]]}
    else:
        cls = "Functional" if cls in ("Functional", "Model") else cls
        config = {"name": cfg.get("name", "model"), "layers": [_layer(e) for e in cfg["layers"]],
                  "input_layers": _io_list(cfg["input_layers"]), "output_layers": _io_list(cfg["output_layers"])}
        cls = "Model" if cls == "Functional" else cls
    return {"class_name": cls, "config": config, "keras_version": "tfjs-layers 4", "backend": "tensorflow"}


# --- weights --------------------------------------------------------------------------------------------------------
# Keras 3 weight names that tfjs-layers (Keras 2 names) calls differently: {(layer class, name): tfjs name}
_TFJS_NAMES = {("DepthwiseConv2D", "kernel"): "depthwise_kernel", ("DepthwiseConv1D", "kernel"): "depthwise_kernel"}


def _weights(model):
    out = []
    for layer in model.layers:
        for w in layer.weights:
            short = getattr(w, "name", "w").split("/")[-1].split(":")[0]
            short = _TFJS_NAMES.get((type(layer).__name__, short), short)
            out.append((f"{layer.name}/{short}", np.asarray(w.numpy())))
    return out


@tf_export("tfjs.converters.save_keras_model")
def save_keras_model(model, artifacts_dir, quantization_dtype_map=None, weight_shard_size_bytes=DEFAULT_SHARD,
                     metadata=None):
    """Writes ``model`` to ``artifacts_dir`` in TF.js Layers format (``model.json`` + ``group1-shard*.bin``).

    ``quantization_dtype_map`` maps ``"float16"``/``"uint8"``/``"uint16"`` to ``True`` (every float weight) or a
    list of weight-name wildcards, as ``tensorflowjs.converters.save_keras_model`` takes it.
    """
    shard = shard_size(weight_shard_size_bytes)
    quantize = quantization_map(quantization_dtype_map)
    os.makedirs(artifacts_dir, exist_ok=True)
    manifest = write_weights(_weights(model), artifacts_dir, quantize, shard)
    doc = {"format": "layers-model", "generatedBy": VERSION, "convertedBy": VERSION,
           "modelTopology": {"keras_version": "tfjs-layers 4", "backend": "tensorflow",
                             "model_config": {k: v for k, v in topology(model).items()
                                              if k in ("class_name", "config")}},
           "weightsManifest": manifest}
    if metadata:
        doc["userDefinedMetadata"] = dict(metadata)
    atomic_write(os.path.join(artifacts_dir, "model.json"), json.dumps(doc).encode())
    return os.path.join(artifacts_dir, "model.json")
