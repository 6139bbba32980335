"""Functional models: ``Model(inputs, outputs)`` over the graph of layer calls recorded on KerasTensors.

The graph is ordered as Keras orders it (operations by decreasing depth from the outputs), which fixes
``model.layers`` and the summary's row order; calling the model runs the nodes in that order on real tensors.

>>> a = tf.keras.Input((2,), name="a")
>>> b = tf.keras.Input((2,), name="b")
>>> out = tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([a, b])) if hasattr(tf.keras.layers,
...     "Concatenate") else tf.keras.layers.Dense(1)(a)
>>> isinstance(tf.keras.Model([a, b], out), tf.keras.Model)
True
"""

from __future__ import annotations

import collections

import numpy as np

from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.keras.engine.base_layer import Layer, get_keras_mask, set_keras_mask
from tensorlet._src.keras.engine.keras_tensor import KerasTensor
from tensorlet._src.keras.engine.training import Model
from tensorlet._src.util import nest
from tensorlet._src.ops.array_shape import expand_dims, squeeze
from tensorlet._src.ops.math_binary import cast


def _build_map(inputs, outputs):
    finished, in_progress = set(), set()
    ordered = []
    op_index = {}
    input_ids = {id(t) for t in nest.flatten(inputs)}

    def helper(tensor):
        hist = tensor._keras_history
        if hist is None:
            raise ValueError(f"Output tensors of a Functional model must be the output of a Keras `Layer` (thus "
                             f"holding past layer metadata). Found: {tensor}")
        op, node_index, _ = hist
        node = op._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError(f"Tensor {tensor} from operation '{op.name}' is part of a cycle.")
        if op not in op_index:
            op_index[op] = len(op_index)
        in_progress.add(id(node))
        if not node.is_input and id(tensor) not in input_ids:
            for t in node.input_tensors:
                helper(t)
        finished.add(id(node))
        in_progress.discard(id(node))
        ordered.append(node)

    for out in nest.flatten(outputs):
        helper(out)
    return ordered, op_index


def map_graph(inputs, outputs):
    """(nodes grouped by depth, operations in Keras's order) for the graph between ``inputs`` and ``outputs``."""
    ordered, op_index = _build_map(inputs, outputs)
    node_depth = {}
    op_depth = {}
    nodes = {}
    for node in reversed(ordered):
        nodes[id(node)] = node
        depth = node_depth.setdefault(id(node), 0)
        depth = max(depth, op_depth.get(node.operation, 0))
        op_depth[node.operation] = depth
        node_depth[id(node)] = depth
        for parent in node.parent_nodes:
            nodes.setdefault(id(parent), parent)
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for t in nest.flatten(inputs):
        op = t._keras_history[0]
        if op not in op_depth:
            op_depth[op] = 0
            op_index[op] = -1
            node_depth[id(op._inbound_nodes[0])] = 0
            nodes[id(op._inbound_nodes[0])] = op._inbound_nodes[0]
    by_depth = collections.defaultdict(list)
    for nid, depth in node_depth.items():
        by_depth[depth].append(nodes[nid])
    ops_by_depth = collections.defaultdict(list)
    for op, depth in op_depth.items():
        ops_by_depth[depth].append(op)
    operations = []
    for depth in sorted(ops_by_depth, reverse=True):
        operations.extend(sorted(ops_by_depth[depth], key=lambda o: op_index[o]))
    # every input must be reachable
    computable = {id(t) for t in nest.flatten(inputs)}
    for depth in sorted(by_depth, reverse=True):
        for node in by_depth[depth]:
            if node.is_input:
                continue
            for t in node.input_tensors:
                if id(t) not in computable:
                    raise ValueError(f"Graph disconnected: cannot find parent for tensor {t} at operation "
                                     f"'{node.operation.name}'. The following previous operations were accessed "
                                     "without issue: " + str([o.name for o in operations if o is not node.operation]))
            for t in node.output_tensors:
                computable.add(id(t))
    return by_depth, operations


def _is_input_tensor(t):
    hist = t._keras_history
    return hist is not None and hist[0]._inbound_nodes[hist[1]].is_input


def clone_from_intermediate(inputs, outputs):
    """Keras's ``clone_graph_nodes``: a model may start at intermediate Keras tensors (``Model(encoded, out)``);
    each such input becomes a new ``Input`` named ``<tensor name>CLONE`` and the layer calls between it and
    ``outputs`` are replayed on it (same layers, same weights, new nodes)."""
    from tensorlet._src.keras.engine.input_layer import Input

    flat = nest.flatten(inputs)
    new = [t if _is_input_tensor(t) else Input(batch_shape=tuple(t.shape), dtype=t.dtype, sparse=t.sparse,
                                                  name=f"{t.name}CLONE") for t in flat]
    values = {id(ref): x for ref, x in zip(flat, new)}
    ordered, _ = _build_map(inputs, outputs)  # parents before children
    for node in ordered:
        if node.is_input or all(id(t) in values for t in node.output_tensors):
            continue
        if any(id(t) not in values for t in node.input_tensors):
            continue  # not downstream of the inputs: map_graph reports the disconnection
        swap = lambda a: values[id(a)] if isinstance(a, KerasTensor) else a  # noqa: E731
        out = node.operation(*nest.map_structure(swap, list(node.call_args)),
                             **nest.map_structure(swap, dict(node.call_kwargs)))
        for ref, val in zip(nest.flatten(node.outputs), nest.flatten(out)):
            if isinstance(ref, KerasTensor):
                values[id(ref)] = val
    return (nest.pack_sequence_as(inputs, new),
            nest.map_structure(lambda t: values.get(id(t), t), outputs))


class Functional(Model):
    """A model defined by a graph of layer calls (``keras.Model(inputs, outputs)``)."""

    def __new__(cls, *args, **kwargs):
        return Layer.__new__(cls, *args, **kwargs)

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        if isinstance(inputs, dict):
            for v in inputs.values():
                if not isinstance(v, KerasTensor):
                    raise ValueError(f"When providing `inputs` as a dict, all values in the dict must be KerasTensors. "
                                     f"Received: inputs={inputs} including invalid value {v} of type {type(v)}")
        flat_inputs = nest.flatten(inputs)
        for x in flat_inputs:
            if not isinstance(x, KerasTensor):
                raise ValueError(f"All `inputs` values must be KerasTensors. Received: inputs={inputs} including "
                                 f"invalid value {x} of type {type(x)}")
        flat_outputs = nest.flatten(outputs)
        for x in flat_outputs:
            if not isinstance(x, KerasTensor):
                raise ValueError(f"All `outputs` values must be KerasTensors. Received: outputs={outputs} including "
                                 f"invalid value {x} of type {type(x)}")
        if not all(_is_input_tensor(t) for t in flat_inputs):
            inputs, outputs = clone_from_intermediate(inputs, outputs)
        dtype = kwargs.pop("dtype", None)
        Layer.__init__(self, name=name, trainable=trainable, dtype=dtype, **kwargs)
        self._init_training_state()
        self._init_graph(inputs, outputs)

    def _init_graph(self, inputs, outputs):
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1 and not isinstance(inputs, dict):
            inputs = inputs[0] if not isinstance(inputs[0], (list, tuple, dict)) else inputs
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self._nodes_by_depth, operations = map_graph(inputs, outputs)
        self._run_order = [n for d in sorted(self._nodes_by_depth, reverse=True) for n in self._nodes_by_depth[d]
                           if not n.is_input]
        self._operations = operations
        object.__setattr__(self, "_functional_layers", list(operations))
        self.built = True
        self._is_graph_network = True

    # --- structure ------------------------------------------------------------------------------------------------
    @property
    def inputs(self):
        return nest.flatten(self._inputs_struct)

    @property
    def outputs(self):
        return nest.flatten(self._outputs_struct)

    @property
    def input(self):
        return self._inputs_struct

    @property
    def output(self):
        return self._outputs_struct

    @property
    def input_names(self):
        return [t._keras_history[0].name for t in self.inputs]

    @property
    def output_names(self):
        return [t._keras_history[0].name for t in self.outputs]

    @property
    def input_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape), self._inputs_struct)

    @property
    def output_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape), self._outputs_struct)

    @property
    def _layers(self):
        return list(self.__dict__.get("_functional_layers", ()))

    def _tracked(self):
        own, extra = Layer._tracked(self)
        layers = list(self.__dict__.get("_functional_layers", ()))
        seen = {id(x) for x in layers}
        for lay in extra:
            if id(lay) not in seen:
                layers.append(lay)
        return own, layers

    # --- running --------------------------------------------------------------------------------------------------
    def _standardize_inputs(self, inputs):
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            names = self.input_names
            if all(n in inputs for n in names):
                flat = [inputs[n] for n in names]
            else:
                flat = nest.flatten(inputs)
        elif isinstance(self._inputs_struct, dict) and isinstance(inputs, dict):
            flat = [inputs[k] for k in nest.flatten({k: k for k in self._inputs_struct})]
        else:
            flat = nest.flatten(inputs)
        refs = self.inputs
        if len(flat) != len(refs):
            raise ValueError(f'Layer "{self.name}" expects {len(refs)} input(s), but it received {len(flat)} input '
                             f"tensors. Inputs received: {inputs}")
        out = []
        for x, ref in zip(flat, refs):
            if x is None:
                out.append(x)
                continue
            if not isinstance(x, (Tensor, Variable)):
                x = convert_to_tensor(np.asarray(x, dtype=ref.dtype) if ref.dtype != "string" else x)
            elif x.dtype.name != ref.dtype and ref.dtype != "string" and x.dtype.name != "string":
                # as Keras's convert_to_tensor(x, dtype=input.dtype): a tensor of another dtype is cast
                m = get_keras_mask(x)
                x = cast(x, ref.dtype)
                if m is not None:
                    set_keras_mask(x, m)
            rank = len(ref.shape)
            if x.shape.rank is not None and x.shape.rank == rank + 1 and x.shape[-1] == 1:
                x = squeeze(x, axis=-1)
            elif x.shape.rank is not None and x.shape.rank == rank - 1 and ref.shape[-1] == 1:
                x = expand_dims(x, axis=-1)
            out.append(x)
        return out

    def call(self, inputs, training=None, mask=None):
        flat = self._standardize_inputs(inputs)
        if mask is not None:
            for x, m in zip(flat, nest.flatten(mask)):
                if m is not None:
                    set_keras_mask(x, m)
        return self._run_graph(flat, training)

    def _run_graph(self, flat_inputs, training=None):
        values = {id(ref): x for ref, x in zip(self.inputs, flat_inputs)}
        for node in self._run_order:
            if any(id(t) not in values for t in node.input_tensors):
                continue
            args = nest.map_structure(lambda a: values[id(a)] if isinstance(a, KerasTensor) else a,
                                      list(node.call_args))
            kwargs = nest.map_structure(lambda a: values[id(a)] if isinstance(a, KerasTensor) else a,
                                        dict(node.call_kwargs))
            if training is not None and "training" not in node.call_kwargs:
                kwargs["training"] = training
            out = node.operation(*args, **kwargs)
            for ref, val in zip(nest.flatten(node.outputs), nest.flatten(out)):
                if isinstance(ref, KerasTensor):
                    values[id(ref)] = val
        return nest.map_structure(lambda t: values[id(t)], self._outputs_struct)

    def compute_output_spec(self, inputs, training=None, mask=None):
        return self._outputs_struct

    def compute_output_shape(self, input_shape):
        return nest.map_structure(lambda t: tuple(t.shape), self._outputs_struct)

    # --- config ---------------------------------------------------------------------------------------------------
    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object

        kept = {}
        for depth_nodes in self._nodes_by_depth.values():
            for node in depth_nodes:
                kept[id(node)] = node
        layer_configs = []
        for op in self._operations:
            cfg = serialize_keras_object(op)
            cfg["name"] = op.name
            inbound = []
            for node in op._inbound_nodes:
                if id(node) not in kept or node.is_input:
                    continue
                inbound.append({"args": _ser_args(list(node.call_args), self),
                                "kwargs": _ser_args(dict(node.call_kwargs), self)})
            cfg["inbound_nodes"] = inbound
            layer_configs.append(cfg)

        def ref(t):
            op, node_index, tensor_index = t._keras_history
            return [op.name, _kept_index(op, node_index, kept), tensor_index]

        config = {"name": self.name, "trainable": self.trainable, "layers": layer_configs,
                  "input_layers": nest.map_structure(ref, self._inputs_struct) if not isinstance(
                      self._inputs_struct, KerasTensor) else ref(self._inputs_struct),
                  "output_layers": nest.map_structure(ref, self._outputs_struct) if not isinstance(
                      self._outputs_struct, KerasTensor) else ref(self._outputs_struct)}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return functional_from_config(cls, config, custom_objects=custom_objects)


def _kept_index(op, node_index, kept):
    nodes = [n for n in op._inbound_nodes if id(n) in kept]
    node = op._inbound_nodes[node_index]
    return nodes.index(node) if node in nodes else node_index


def _ser_args(structure, model):
    from tensorlet._src.keras.saving.serialization import serialize_keras_object

    kept_map = {id(n): n for nodes in model._nodes_by_depth.values() for n in nodes}

    def conv(x):
        if isinstance(x, KerasTensor):
            op, ni, ti = x._keras_history
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": x.shape, "dtype": x.dtype,
                               "keras_history": [op.name, _kept_index(op, ni, kept_map), ti]}}
        return serialize_keras_object(x)

    if isinstance(structure, dict):
        return {k: nest.map_structure(conv, v) for k, v in structure.items()}
    return [nest.map_structure(conv, v) for v in structure]


def functional_from_config(cls, config, custom_objects=None):
    """Rebuilds a functional model from ``get_config()``'s dict (layers re-created and re-called in order)."""
    from tensorlet._src.keras.saving.serialization import deserialize_keras_object

    created = {}
    pending = []
    for lcfg in config["layers"]:
        lcfg = dict(lcfg)
        inbound = lcfg.pop("inbound_nodes", [])
        name = lcfg.pop("name", None) or lcfg.get("config", {}).get("name")
        layer = deserialize_keras_object(lcfg, custom_objects=custom_objects)
        created[name] = layer
        pending.append((name, layer, inbound))
    outputs_of = collections.defaultdict(list)  # layer name -> list of node outputs (flat)
    for name, layer in created.items():
        if layer._inbound_nodes and layer._inbound_nodes[0].is_input:
            outputs_of[name].append(nest.flatten(layer._inbound_nodes[0].outputs))

    def resolve(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            lname, ni, ti = x["config"]["keras_history"]
            return outputs_of[lname][ni][ti] if ni < len(outputs_of[lname]) else None
        if isinstance(x, dict):
            return {k: resolve(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [resolve(v) for v in x]
        return x

    # outputs are keyed by the name the file gives a layer: a layer whose get_config omits `name` gets a new one
    remaining = [(name, layer, list(inbound)) for name, layer, inbound in pending if inbound]
    progress = True
    while remaining and progress:
        progress = False
        nxt = []
        for name, layer, inbound in remaining:
            while inbound:
                node = inbound[0]
                args = resolve(node.get("args", []))
                kwargs = resolve(node.get("kwargs", {}))
                if _has_missing(node, outputs_of):
                    break
                if len(args) == 1 and isinstance(args[0], list) and _is_tensor_list(args[0]):
                    out = layer(args[0], **kwargs)
                else:
                    out = layer(*args, **kwargs)
                outputs_of[name].append(nest.flatten(out))
                inbound.pop(0)
                progress = True
            if inbound:
                nxt.append((name, layer, inbound))
        remaining = nxt
    if remaining:
        raise ValueError(f"Could not rebuild the functional graph: layers {[name for name, _, _ in remaining]} "
                         "have unresolved inputs.")

    def ref(r):
        if isinstance(r, (list, tuple)) and len(r) == 3 and isinstance(r[0], str):
            return outputs_of[r[0]][r[1]][r[2]]
        return [ref(x) for x in r] if isinstance(r, (list, tuple)) else {k: ref(v) for k, v in r.items()}

    inputs = ref(config["input_layers"])
    outputs = ref(config["output_layers"])
    kwargs = {"name": config.get("name"), "trainable": config.get("trainable", True)}
    if cls is Model or cls is Functional:
        return Functional(inputs, outputs, **kwargs)
    return cls(inputs=inputs, outputs=outputs, **kwargs)


def _has_missing(node, outputs_of):
    flat = _find_tensor_refs(node)
    return any(ni >= len(outputs_of[lname]) for lname, ni, _ in flat)


def _find_tensor_refs(obj):
    out = []
    if isinstance(obj, dict):
        if obj.get("class_name") == "__keras_tensor__":
            out.append(tuple(obj["config"]["keras_history"]))
        else:
            for v in obj.values():
                out.extend(_find_tensor_refs(v))
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out.extend(_find_tensor_refs(v))
    return out


def _is_tensor_list(xs):
    return all(isinstance(x, KerasTensor) for x in xs)
