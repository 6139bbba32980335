"""Signatures: which concrete functions a SavedModel serves, with TF's input and output key names.

A signature takes keyword arguments named after its inputs (a ``TensorSpec``'s name, else the Python
argument name; nested arguments add ``_1``, ``_2``...) and returns a dict: a function returning a dict of
tensors keeps its keys, one returning a tensor or a flat list/tuple of tensors gets ``output_0``,
``output_1``, ...
"""

from __future__ import annotations

import re

from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.graph.concrete import ConcreteFunction, _Leaf
from tensorlet._src.graph.function import Function
from tensorlet._src.graph.ir import GraphTensor
from tensorlet._src.util import nest

DEFAULT_KEY = "serving_default"
DEFAULT_SIGNATURE_ATTR = "_default_save_signature"
_DEFAULT_PH = re.compile(r"^arg\d+$")


def _bad_signature(fn):
    return ValueError(f"Expected a TensorFlow function for which to generate a signature, but got {fn}. Only "
                      "`tf.functions` with an input signature or concrete functions can be used as a signature.")


def _as_concrete(fn):
    from tensorlet._src.saved_model.load import RestoredFunction

    if isinstance(fn, ConcreteFunction):
        return fn
    if isinstance(fn, Function) and fn.input_signature is not None:
        return fn.get_concrete_function()
    if isinstance(fn, RestoredFunction) and len(fn.concrete_functions) == 1 and fn.input_signature is not None:
        return fn.concrete_functions[0]
    return None


def _param_names(cf):
    fn = cf._function
    sig = getattr(fn, "_signature", None) if fn is not None else None
    if sig is None:
        return []
    return [p.name for p in sig.parameters.values()]


def input_keys(cf) -> list:
    """The signature's input key for each flat input of ``cf`` (in graph input order)."""
    args, kwargs = cf._structured_inputs
    names = _param_names(cf)
    keys = {}
    for j, a in enumerate(args):
        base = names[j] if j < len(names) else f"args_{j}"
        for k, t in enumerate(x for x in nest.flatten(a) if isinstance(x, GraphTensor)):
            keys[id(t)] = base if k == 0 else f"{base}_{k}"
    for name in sorted(kwargs):
        for k, t in enumerate(x for x in nest.flatten(kwargs[name]) if isinstance(x, GraphTensor)):
            keys[id(t)] = name if k == 0 else f"{name}_{k}"
    out, used = [], set()
    for i, ph in enumerate(cf.graph.inputs):
        own = ph.node.name
        key = keys.get(id(ph), f"input_{i}") if _DEFAULT_PH.match(own) and own == f"arg{i}" else own
        base, n = key, 1
        while key in used:
            key, n = f"{base}_{n}", n + 1
        used.add(key)
        out.append(key)
    return out


def output_keys(cf):
    """[(key, flat output index)] for a signature over ``cf``, or None if its outputs cannot be a signature."""
    t = cf._out_template
    if isinstance(t, _Leaf):
        return [("output_0", t.i)]
    if isinstance(t, dict):
        if not all(isinstance(k, str) for k in t) or not all(isinstance(v, _Leaf) for v in t.values()):
            return None
        return [(k, t[k].i) for k in sorted(t)]
    if isinstance(t, (list, tuple)) and not hasattr(t, "_fields"):
        if any(isinstance(x, (list, tuple, dict)) for x in t):
            return None
        return [(f"output_{j}", x.i) for j, x in enumerate(t) if isinstance(x, _Leaf)]
    return None


def valid(cf) -> bool:
    flat = nest.flatten(cf._structured_inputs)
    return all(isinstance(x, Tensor) for x in flat) and output_keys(cf) is not None


def _label(fn):
    """TF names a signature's wrapper ``signature_wrapper_<name>`` after a tf.function given as the signature,
    plain ``signature_wrapper`` for a concrete function."""
    from tensorlet._src.saved_model.load import RestoredFunction

    if isinstance(fn, (Function, RestoredFunction)):
        name = getattr(fn, "__name__", None) or getattr(fn, "_name", None)
        return name if isinstance(name, str) and name else None
    return None


class SignatureSpec:
    def __init__(self, name, cf, label=None):
        self.name = name
        self.cf = cf
        self.label = label  # the tf.function's name when the signature was given as one
        own = getattr(cf, "_input_keys", None)  # a loaded signature keeps its keys
        self.inputs = list(own) if own is not None else input_keys(cf)
        outs = output_keys(cf)
        if outs is None:
            raise ValueError(f"Got a non-Tensor value or a nested structure as the output of signature function "
                             f"'{name}' ({cf._out_template!r}). Signature functions must return a tensor, a flat "
                             "list/tuple of tensors, or a dict of str to tensors.")
        if not all(isinstance(x, Tensor) for x in nest.flatten(cf._structured_inputs)):
            raise ValueError(f"Signature function '{name}' takes non-Tensor arguments "
                             f"{cf._structured_inputs!r}; signatures take only tensors.")
        self.outputs = outs

    def to_json(self, builder) -> dict:
        return {"function": builder.function_index(self.cf), "inputs": self.inputs,
                "outputs": [[k, i] for k, i in self.outputs]}


def _find_default(obj, keras_functions=None):
    """TF's rule: the root's ``_default_save_signature`` (a built Keras model's call), else its only tf.function
    with an input signature; ``(concrete function, tf.function or None)``, or None when there is no such
    function."""
    from tensorlet._src.saved_model import keras_export
    from tensorlet._src.saved_model.save import _function_children

    fn = getattr(obj, DEFAULT_SIGNATURE_ATTR, None) if not isinstance(obj, (list, tuple, dict)) else None
    if fn is None and keras_export.is_keras_layer(obj):
        fn = keras_export.default_signature(obj, keras_functions)
    if fn is not None:
        cf = _as_concrete(fn)
        return (cf, fn) if cf is not None and valid(cf) else None
    candidates = []
    for _, child in _function_children(obj):
        if isinstance(child, ConcreteFunction) or getattr(child, "input_signature", None) is not None:
            cf = _as_concrete(child)
            if cf is not None and valid(cf):
                candidates.append((cf, child))
    return candidates[0] if len(candidates) == 1 else None


def resolve(obj, signatures, builder) -> dict:
    """{name: SignatureSpec} for ``tf.saved_model.save(obj, signatures=...)``."""
    if signatures is None:
        from tensorlet._src.saved_model.load import _SignatureMap

        loaded = getattr(obj, "signatures", None)
        if isinstance(loaded, _SignatureMap):  # re-saving a loaded SavedModel keeps its signatures
            return {name: SignatureSpec(name, fn) for name, fn in loaded.items()}
        found = _find_default(obj, getattr(builder, "keras_functions", None))
        return {} if found is None else {DEFAULT_KEY: SignatureSpec(DEFAULT_KEY, found[0], _label(found[1]))}
    if not isinstance(signatures, dict):
        signatures = {DEFAULT_KEY: signatures}
    out = {}
    for name, fn in signatures.items():
        if not isinstance(name, str):
            raise ValueError(f"Signature keys must be strings, got {name!r}.")
        cf = _as_concrete(fn)
        if cf is None:
            raise _bad_signature(fn)
        out[name] = SignatureSpec(name, cf, _label(fn))
    return out
