"""Nodes of the functional graph and the output shapes of symbolic layer calls.

``symbolic_call`` is what ``layer(keras_tensor)`` does: build the layer from the placeholder shapes, find the output
shapes/dtypes and record a ``Node``.  Output shapes are found by running the layer on small placeholder values
(``None`` dims become 2 and 3 in two runs; a dim that follows them is ``None`` in the result); every variable's value
is restored afterwards, so stateful layers (moving averages, seed generators) are not changed by graph building.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.keras.engine.keras_tensor import KerasTensor
from tensorlet._src.util import nest
from tensorlet._src.keras.engine import call_context
from tensorlet._src.keras.engine.input_spec import assert_input_compatibility
from tensorlet._src.keras.engine.masking import get_keras_mask, set_keras_mask


class Node:
    """One call of a layer in a functional graph: its arguments (with KerasTensors) and output KerasTensors."""

    def __init__(self, operation, call_args=(), call_kwargs=None, outputs=None):
        self.operation = operation
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        self.outputs = outputs
        self.input_tensors = [x for x in nest.flatten([list(self.call_args), self.call_kwargs])
                              if isinstance(x, KerasTensor)]
        self.output_tensors = [x for x in nest.flatten(outputs) if isinstance(x, KerasTensor)]
        index = len(operation._inbound_nodes)
        operation._inbound_nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            t._keras_history = (operation, index, i)
        for t in self.input_tensors:
            hist = t._keras_history
            if hist is not None:
                hist[0]._outbound_nodes.append(self)

    @property
    def parent_nodes(self):
        out = []
        for t in self.input_tensors:
            if t._keras_history is not None:
                op, ni, _ = t._keras_history
                out.append(op._inbound_nodes[ni])
        return out

    @property
    def is_input(self):
        return not self.input_tensors

    @property
    def input_value(self):
        return self.input_tensors[0] if len(self.input_tensors) == 1 else list(self.input_tensors)

    @property
    def output_value(self):
        return self.output_tensors[0] if len(self.output_tensors) == 1 else list(self.output_tensors)


# --- placeholder values --------------------------------------------------------------------------------------------
def _dummy(kt, fill):
    from tensorlet._src.framework.tensor import constant

    shape = tuple(fill if d is None else d for d in kt.shape)
    dtype = kt.dtype
    if dtype == "string":
        return constant(np.full(shape, b"", dtype=object))
    if dtype == "bool":
        return constant(np.zeros(shape, bool))
    np_dtype = np.dtype(dtype) if dtype != "bfloat16" else np.float32
    value = np.ones(shape, np_dtype) if np_dtype.kind in "fc" else np.zeros(shape, np_dtype)
    t = constant(value)
    if dtype == "bfloat16":
        from tensorlet._src.ops.math_binary import cast

        t = cast(t, "bfloat16")
    return t


def _replace(structure, fill):
    return nest.map_structure(lambda x: _dummy(x, fill) if isinstance(x, KerasTensor) else x, structure)


def _has_none(structure):
    return any(isinstance(x, KerasTensor) and None in x.shape for x in nest.flatten(structure))


def _snapshot(layer):
    return [(v, v._v) for v in layer.variables]


def _restore(snapshot):
    for v, value in snapshot:
        v._v = value


def _run(layer, args, kwargs, fill):
    """Runs ``layer.__call__`` on placeholder values, leaving variables and losses as they were."""
    from tensorlet._src.framework.context import init_scope

    a = _replace(list(args), fill)
    k = _replace(dict(kwargs), fill)
    masks = {}
    for src, dst in zip(nest.flatten([list(args), dict(kwargs)]), nest.flatten([a, k])):
        if isinstance(src, KerasTensor) and src._keras_mask is not None:
            masks[id(dst)] = dst
            set_keras_mask(dst, _dummy(src._keras_mask, fill))
    layers = layer._flatten_layers() if hasattr(layer, "_flatten_layers") else [layer]
    saved_losses = [(lay, list(lay._losses)) for lay in layers]
    snap = None
    try:
        with call_context.symbolic_build(), init_scope():
            if not layer.built:
                layer._maybe_build(tuple(a), k)
            snap = _snapshot(layer)
            out = layer.__call__(*a, **k)
    finally:
        if snap is not None:
            _restore(snap)
        for lay, losses in saved_losses:
            lay._losses[:] = losses
    return out


def _spec_of(value):

    if value is None or not hasattr(value, "shape") or not hasattr(value, "dtype"):
        return value, None
    mask = get_keras_mask(value)
    return (tuple(value.shape), value.dtype.name if hasattr(value.dtype, "name") else str(value.dtype)), mask


def infer_output_spec(layer, args, kwargs):
    """KerasTensors describing ``layer``'s outputs for KerasTensor arguments."""
    out1 = _run(layer, args, kwargs, 2)
    flat1 = nest.flatten(out1)
    if _has_none([list(args), dict(kwargs)]):
        flat2 = nest.flatten(_run(layer, args, kwargs, 3))
    else:
        flat2 = flat1
    specs = []
    for v1, v2 in zip(flat1, flat2):
        s1, m1 = _spec_of(v1)
        if m1 is None and not isinstance(s1, tuple):
            specs.append(v1)
            continue
        if s1 is None or not isinstance(s1, tuple):
            specs.append(v1)
            continue
        s2, _ = _spec_of(v2)
        shape = tuple(d1 if d1 == d2 else None for d1, d2 in zip(s1[0], s2[0]))
        kt = KerasTensor(shape, s1[1], sparse=type(v1).__name__ == "SparseTensor")  # Keras flags sparse outputs
        if m1 is not None and hasattr(m1, "shape"):
            ms1 = tuple(m1.shape)
            m2 = _spec_of(v2)[1]
            ms2 = tuple(m2.shape) if m2 is not None else ms1
            kt._keras_mask = KerasTensor(tuple(a if a == b else None for a, b in zip(ms1, ms2)), "bool")
        specs.append(kt)
    return nest.pack_sequence_as(out1, specs)


def infer_output_shape(layer, args, kwargs):
    """Output shape(s) for input shape(s) (``compute_output_shape``'s default)."""
    def to_kt(s):
        return KerasTensor(s, layer.compute_dtype if hasattr(layer, "compute_dtype") else "float32")

    if len(args) == 1 and not kwargs:
        shapes = args[0]
        structure = _shape_structure(shapes, to_kt)
        spec = infer_output_spec(layer, (structure,), {})
    else:
        spec = infer_output_spec(layer, tuple(_shape_structure(s, to_kt) for s in args), kwargs)
    return nest.map_structure(lambda t: t.shape if isinstance(t, KerasTensor) else t, spec)


def _is_shape(s):
    return isinstance(s, (tuple, list)) and all(d is None or isinstance(d, (int, np.integer)) for d in s)


def _shape_structure(s, to_kt):
    if hasattr(s, "as_list"):
        return to_kt(tuple(s.as_list()))
    if _is_shape(s):
        return to_kt(tuple(s))
    if isinstance(s, dict):
        return {k: _shape_structure(v, to_kt) for k, v in s.items()}
    if isinstance(s, (list, tuple)):
        return type(s)(_shape_structure(v, to_kt) for v in s)
    return s


# --- recording ----------------------------------------------------------------------------------------------------
def symbolic_call(layer, args, kwargs):
    """``layer(*args, **kwargs)`` on KerasTensors: records a node and returns output KerasTensors."""

    if not layer.built:
        first = args[0] if args else next(iter(kwargs.values()))
        layer._maybe_build((first,) if not args else args, {} if args else kwargs)
    if layer.input_spec is not None and args:
        assert_input_compatibility(layer.input_spec, args[0], layer.name)
    outputs = infer_output_spec(layer, args, kwargs)
    Node(layer, args, kwargs, outputs)
    return outputs


class _Operation:
    """Marker base: functional-graph operations that are not layers (``x + y`` on KerasTensors)."""


def operation(name, fn, *operands):
    """Records ``fn(*operands)`` (some of them KerasTensors) as a node of an operation layer named ``name``."""
    from tensorlet._src.keras.engine.base_layer import Layer

    class _OpLayer(Layer, _Operation):
        def call(self, *xs):
            return self._fn(*xs)

        def get_config(self):
            return {"name": self.name}

    _OpLayer.__name__ = "".join(p.capitalize() for p in name.split("_"))
    op = _OpLayer(name=_auto(name))
    op._fn = fn
    return op(*operands)


def _auto(prefix):
    from tensorlet._src.keras import backend as _backend

    return _backend.auto_name(prefix)
