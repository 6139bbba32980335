"""TF-format SavedModels, Keras models and concrete functions in TensorFlow.js's Graph-model format.

``model.json`` holds what tensorflowjs_converter writes: ``format: "graph-model"``, ``signature`` (the
SignatureDef's inputs/outputs as TensorInfo JSON), ``modelTopology`` (the frozen, optimized ``GraphDef`` in TF's
JSON proto mapping: ``node`` with ``name``/``op``/``input``/``device``/``attr``, ``library``, ``versions``),
``userDefinedMetadata`` when there is any, and ``weightsManifest``: one entry per ``Const`` node, in node order,
whose data lives in the shards (the ``Const``'s ``value`` keeps only dtype and shape).

Freezing walks the traced graph: variable reads become constants, nodes whose inputs are all constant are
folded on their NumPy kernels (grappler's constant folding), Identity-like nodes are bypassed, every other node
becomes a NodeDef through ``saved_model.tf_ops.node_to_tf`` (TF's OpDefs, default attrs filled in), and each
output gets an ``Identity`` node (``Identity``, ``Identity_1``, ...) as in TF's frozen graphs.  ``graph_opt``
then applies the converter's fusions.  Graphs with control flow (``If``/``While``) are refused.

>>> tensorlet.tfjs.converters.convert_tf_saved_model("saved_model_dir", "web_model")   # doctest: +SKIP
"""

from __future__ import annotations

import json
import os

import numpy as np

from tensorlet._src.graph.ir import CONST, PLACEHOLDER, READ_VAR
from tensorlet._src.ops.array_identity import PASSTHROUGH
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.tfjs import graph_opt
from tensorlet._src.tfjs.weights import (DEFAULT_SHARD, VERSION, atomic_write, quantization_map, shard_size,
                                         write_weights)

PRODUCER = 2474  # the GraphDef version TF 2.21 writes
_STRUCTURED_KEYS = "structuredOutputKeys"


def _passthrough(node, val):
    """The input that an ``x + 0`` / ``x - 0`` / ``x * 1`` node returns unchanged (grappler's constant folding drops
    such nodes when the constant does not broadcast ``x`` to a new shape), or None."""
    op = node.op.name
    if op not in ("Add", "AddV2", "BiasAdd", "Sub", "Mul") or len(node.inputs) != 2:
        return None
    a, b = node.inputs
    out = node.outputs[0]
    for c, x in ([(b, a)] if op in ("Sub", "BiasAdd") else [(b, a), (a, b)]):
        if val[id(c)][0] != "c" or val[id(x)][0] == "c":
            continue
        arr = val[id(c)][1]
        if not arr.size or not np.all(arr == (1 if op == "Mul" else 0)):
            continue
        if op == "BiasAdd" and arr.ndim == 1:
            return x  # a BiasAdd never changes its input's shape
        if x.dtype != out.dtype or x.shape.rank is None or out.shape.rank is None or \
                x.shape.as_list() != out.shape.as_list() or arr.ndim > x.shape.rank:
            continue
        return x
    return None


def freeze(graph, input_names, where="TF.js graph model"):
    """(NodeDefs in execution order, {const name: array}, [output refs]) of a traced graph, frozen and folded."""
    from tensorlet._src.graph.executor import run_kernel
    from tensorlet._src.saved_model import protos as P
    from tensorlet._src.saved_model.codec import Unsupported
    from tensorlet._src.saved_model.tf_export import _Names, _set_defaults
    from tensorlet._src.saved_model.tf_ops import attr_value, node_to_tf, opdef, shape_proto

    names = _Names()
    names.used.update(input_names)  # the signature's input names are the placeholders' names
    val = {}  # id(GraphTensor) -> ("c", array, base name) | ("r", ref)
    made = {}  # id(GraphTensor) -> name of its Const node
    nodes, consts = [], {}
    ph_names = dict(zip((id(t) for t in graph.inputs), input_names))

    def const_ref(gt):
        v = val[id(gt)]
        if v[0] == "r":
            return v[1]
        if id(gt) not in made:
            name = names(v[2])
            consts[name] = np.asarray(v[1])
            nodes.append(graph_opt.const_node(name, consts[name]))
            made[id(gt)] = name
        return made[id(gt)]

    for node in graph.nodes:
        w = f"{where}: node {node.name} ({node.op.name})"
        if node.op is PLACEHOLDER:
            t = node.outputs[0]
            nd = P.NodeDef(name=ph_names[id(t)] if id(t) in ph_names else names(node.name), op="Placeholder")
            nd.attr["dtype"].type = t.dtype.as_datatype_enum
            shape_proto(t.shape, nd.attr["shape"].shape)
            nodes.append(nd)
            val[id(t)] = ("r", nd.name)
        elif node.op is CONST:
            val[id(node.outputs[0])] = ("c", np.asarray(node.attrs["value"]), node.name)
        elif node.op is READ_VAR:
            val[id(node.outputs[0])] = ("c", np.asarray(node.attrs["var"].numpy()), node.name)
        elif node.op in PASSTHROUGH:
            val[id(node.outputs[0])] = val[id(node.inputs[0])]
        elif any(hasattr(v, "assign") for v in node.attrs.values()):
            raise ValueError(f"{w}: writes a variable; a TF.js graph model is a frozen inference graph (convert a "
                             "signature that only reads its variables).")
        elif any(hasattr(v, "nodes") for v in node.attrs.values()):  # If / While: their branches and bodies are graphs
            raise ValueError(f"{w}: the TF.js graph-model export handles graphs without control flow; this graph "
                             f"has a {node.op.name} node.")
        elif not getattr(node.op, "stateful", False) and node.inputs and \
                all(val[id(t)][0] == "c" for t in node.inputs):
            out = run_kernel(node.op, [val[id(t)][1] for t in node.inputs], node.attrs, node.loc)
            outs = out if len(node.outputs) > 1 else (out,)
            for k, (t, v) in enumerate(zip(node.outputs, outs)):
                val[id(t)] = ("c", np.asarray(v), node.name if k == 0 else f"{node.name}_{k}")
        elif _passthrough(node, val) is not None:
            val[id(node.outputs[0])] = val[id(_passthrough(node, val))]
        else:
            try:
                tf_name, extra, attrs = node_to_tf(node, [t.dtype for t in node.inputs],
                                                   [t.dtype for t in node.outputs], w)
            except Unsupported as e:
                raise ValueError(f"Cannot write this graph for TF.js: {e}") from None
            ins = [const_ref(t) for t in node.inputs]
            for k, (idx, value) in enumerate(extra):
                cname = names(f"{node.name}/const{k}" if k else f"{node.name}/const")
                consts[cname] = np.asarray(value)
                nodes.append(graph_opt.const_node(cname, consts[cname]))
                ins.insert(idx, cname)
            nd = P.NodeDef(name=names(node.name), op=tf_name)
            nd.input.extend(ins)
            for k, v in attrs.items():
                nd.attr[k].CopyFrom(v)
            _set_defaults(opdef(tf_name), nd)
            nodes.append(nd)
            for k, t in enumerate(node.outputs):
                val[id(t)] = ("r", nd.name if k == 0 else f"{nd.name}:{k}")
    outputs = []
    for k, t in enumerate(graph.outputs):
        ref = const_ref(t)
        nd = P.NodeDef(name=names("Identity" if k == 0 else f"Identity_{k}"), op="Identity")
        nd.input.append(ref)
        nd.attr["T"].CopyFrom(attr_value("type", t.dtype, "Identity"))
        nodes.append(nd)
        outputs.append(nd.name)
    return nodes, consts, outputs


def optimize(nodes, consts, outputs, input_names):
    """The converter's rewrites, then its node order: constants, placeholders, the other nodes."""
    nodes = graph_opt.mul_conv_push_down(nodes, consts)
    nodes = graph_opt.fold_batch_norms(nodes, consts, outputs)
    nodes = graph_opt.normalize_bias_add(nodes, consts)
    nodes = graph_opt.swap_max_of_monotonic(nodes, outputs)
    nodes = graph_opt.fuse_contractions(nodes, outputs)
    nodes = graph_opt.prune(nodes, outputs, keep=input_names)
    kept = {n.name for n in nodes}
    phs = {n.name: n for n in nodes if n.op == "Placeholder"}
    order = [n for n in nodes if n.op == "Const"]
    order += [phs[p] for p in input_names if p in phs]
    order += [n for n in nodes if n.op not in ("Const", "Placeholder")]
    return order, {k: v for k, v in consts.items() if k in kept}


def _output_shapes(graph):
    """The outputs' shapes: the traced ones, or where those are unknown, the ones a run on zeros at batch 1 and 2
    shows (dims that differ stay unknown), as TF's shape inference would give them."""
    from tensorlet._src.framework.tensor_shape import TensorShape
    from tensorlet._src.graph.executor import run_graph

    shapes = [t.shape for t in graph.outputs]
    if all(s.is_fully_defined() for s in shapes):
        return shapes
    feeds = []
    for t in graph.inputs:
        dims = t.shape.as_list() if t.shape.rank is not None else None
        if dims is None or any(d is None for d in dims[1:]):
            return shapes
        feeds.append(dims)
    try:
        with np.errstate(all="ignore"):
            runs = [run_graph(graph, [np.zeros([b if d is None else d for d in dims], t.dtype.as_numpy_dtype)
                                      for dims, t in zip(feeds, graph.inputs)])[0] for b in (1, 2)]
    except Exception:  # noqa: BLE001 - the shapes stay as traced
        return shapes
    out = []
    for s, a, b in zip(shapes, *runs):
        sa, sb = np.shape(a), np.shape(b)
        if len(sa) != len(sb) or (s.rank is not None and s.rank != len(sa)):
            out.append(s)
            continue
        probe = [x if x == y else None for x, y in zip(sa, sb)]
        known = s.as_list() if s.rank is not None else probe
        out.append(TensorShape([k if k is not None else p for k, p in zip(known, probe)]))
    return out


def _tensor_info(name, dtype, shape):
    from google.protobuf.json_format import MessageToDict

    from tensorlet._src.saved_model import protos as P
    from tensorlet._src.saved_model.tf_ops import shape_proto

    ti = P.meta_graph_pb2.TensorInfo(name=name, dtype=dtype.as_datatype_enum)
    shape_proto(shape, ti.tensor_shape)
    return MessageToDict(ti)


def _io_keys(cf):
    """(input keys in graph-input order or None, output keys in graph-output order or None)."""
    ins = None
    sis = getattr(cf, "structured_input_signature", None)
    if getattr(cf, "_input_keys", None):
        ins = list(cf._input_keys)
    elif sis is not None and isinstance(sis[1], dict) and not sis[0] and len(sis[1]) == len(cf.graph.inputs):
        ins = list(sis[1])
    outs = None
    tpl = getattr(cf, "_out_template", None)
    if isinstance(tpl, dict) and all(hasattr(v, "i") for v in tpl.values()):
        by_index = {v.i: str(k) for k, v in tpl.items()}
        if sorted(by_index) == list(range(len(cf.graph.outputs))):
            outs = [by_index[i] for i in range(len(cf.graph.outputs))]
    return ins, outs


def convert_function(cf, output_dir, *, signature_keys=True, quantization_dtype_map=None,
                     weight_shard_size_bytes=DEFAULT_SHARD, metadata=None, use_structured_outputs_names=False,
                     tf_version=None):
    """Writes ``model.json`` + shards for a ConcreteFunction; returns the ``model.json`` path."""
    from google.protobuf.json_format import MessageToDict

    from tensorlet._src.saved_model import protos as P

    shard = shard_size(weight_shard_size_bytes)
    quantize = quantization_map(quantization_dtype_map)
    graph = cf.graph
    in_keys, out_keys = _io_keys(cf)
    ph = [in_keys[i] if in_keys else (t.node.name.split(":")[0]) for i, t in enumerate(graph.inputs)]
    nodes, consts, outputs = freeze(graph, ph)
    nodes, consts = optimize(nodes, consts, outputs, ph)
    sig = {"inputs": {}, "outputs": {}}
    for i, t in enumerate(graph.inputs):
        key = ph[i] if signature_keys and in_keys else f"{ph[i]}:0"
        sig["inputs"][key] = _tensor_info(f"{ph[i]}:0", t.dtype, t.shape)
    for i, (t, shape) in enumerate(zip(graph.outputs, _output_shapes(graph))):
        key = out_keys[i] if signature_keys and out_keys else f"{outputs[i]}:0"
        sig["outputs"][key] = _tensor_info(f"{outputs[i]}:0", t.dtype, shape)
    meta = dict(metadata or {})
    if use_structured_outputs_names:
        if out_keys is None:
            raise ValueError("Converter only supports dict structured_outputs.")
        meta[_STRUCTURED_KEYS] = sorted(out_keys)
    gd = P.GraphDef()
    gd.node.extend(nodes)
    gd.library.SetInParent()
    gd.versions.producer = PRODUCER
    os.makedirs(output_dir, exist_ok=True)
    manifest = write_weights([(n.name, consts[n.name]) for n in nodes if n.op == "Const"], output_dir, quantize,
                             shard)
    doc = {"format": "graph-model", "generatedBy": tf_version or _tf_version(), "convertedBy": VERSION,
           "signature": sig, "modelTopology": MessageToDict(gd)}
    if meta:
        doc["userDefinedMetadata"] = meta
    doc["weightsManifest"] = manifest
    path = os.path.join(output_dir, "model.json")
    atomic_write(path, json.dumps(doc).encode())
    return path


def _tf_version():
    from tensorlet._src.framework.versions import VERSION as TF_VERSION

    return TF_VERSION


def _saved_model_tf_version(saved_model_dir, tags):
    from tensorlet._src.saved_model import protos as P

    try:
        with open(os.path.join(saved_model_dir, "saved_model.pb"), "rb") as f:
            sm = P.SavedModel.FromString(f.read())
    except (OSError, ValueError):
        return None
    for mg in sm.meta_graphs:
        if set(mg.meta_info_def.tags) == set(tags):
            return mg.meta_info_def.tensorflow_version or None
    return None


@tf_export("tfjs.converters.convert_tf_saved_model")
def convert_tf_saved_model(saved_model_dir, output_dir, signature_def="serving_default", saved_model_tags="serve",
                           quantization_dtype_map=None, weight_shard_size_bytes=DEFAULT_SHARD, metadata=None,
                           use_structured_outputs_names=False):
    """Converts a TF-format SavedModel's signature to a TF.js Graph model in ``output_dir``.

    ``saved_model_tags`` is a comma-separated tag list; ``quantization_dtype_map`` maps ``"float16"`` /
    ``"uint8"`` / ``"uint16"`` to ``True`` or a list of weight-name wildcards (tensorflowjs's signature).
    """
    from tensorlet._src.saved_model.load import load

    tags = [t for t in (saved_model_tags or "serve").split(",") if t]
    if not os.path.isfile(os.path.join(saved_model_dir, "saved_model.pb")):
        raise OSError(f"SavedModel file does not exist at: {saved_model_dir}")
    loaded = load(saved_model_dir, tags=tags)
    sigs = getattr(loaded, "signatures", {}) or {}
    name = signature_def or "serving_default"
    if name not in sigs:
        raise ValueError(f"Signature '{name}' does not exist. The following signatures are available: "
                         f"{list(sigs)}")
    return convert_function(sigs[name], output_dir, quantization_dtype_map=quantization_dtype_map,
                            weight_shard_size_bytes=weight_shard_size_bytes, metadata=metadata,
                            use_structured_outputs_names=use_structured_outputs_names,
                            tf_version=_saved_model_tf_version(saved_model_dir, tags))


@tf_export("tfjs.converters.convert_keras_model_to_graph_model")
def convert_keras_model_to_graph_model(keras_model, output_dir, quantization_dtype_map=None,
                                       weight_shard_size_bytes=DEFAULT_SHARD, metadata=None):
    """A Keras model's inference function (``model(x, training=False)``, batch dimension open) as a TF.js Graph
    model."""
    from tensorlet._src.data.structure import TensorSpec
    from tensorlet._src.framework.tensor_shape import TensorShape
    from tensorlet._src.graph.function import function

    inputs = getattr(keras_model, "inputs", None)
    if not inputs:
        raise ValueError("The Keras model has no known input shape: build it (call it on data, or start it with "
                         "keras.Input(shape=...)) before converting it.")
    specs = [TensorSpec(TensorShape(list(t.shape)), t.dtype, name=getattr(t, "name", None)) for t in inputs]
    single = len(specs) == 1

    def serve(*xs):
        return keras_model(xs[0] if single else list(xs), training=False)

    cf = function(serve).get_concrete_function(*specs)
    return convert_function(cf, output_dir, signature_keys=False, quantization_dtype_map=quantization_dtype_map,
                            weight_shard_size_bytes=weight_shard_size_bytes, metadata=metadata)


@tf_export("tfjs.converters.convert_concrete_function")
def convert_concrete_function(concrete_function, output_dir, quantization_dtype_map=None,
                              weight_shard_size_bytes=DEFAULT_SHARD, metadata=None):
    """A traced function (``f.get_concrete_function(...)``) as a TF.js Graph model."""
    if not hasattr(concrete_function, "graph"):
        raise ValueError(f"Expected a ConcreteFunction; got {type(concrete_function).__name__}.")
    return convert_function(concrete_function, output_dir, signature_keys=False,
                            quantization_dtype_map=quantization_dtype_map,
                            weight_shard_size_bytes=weight_shard_size_bytes, metadata=metadata)
