"""Keras hooks: ``model.export(dir)`` (Keras 3's ``serve`` endpoint) and the default signature of
``tf.saved_model.save(model, dir)``.

``Model.export`` delegates here with one line::

    from tensorlet._src.saved_model.keras_export import export_keras_model
    return export_keras_model(self, filepath, format=format, verbose=verbose, input_signature=input_signature,
                              **kwargs)
"""

from __future__ import annotations

import sys

from tensorlet._src.util import nest


def _keras_layer_class():
    mod = sys.modules.get("tensorlet._src.keras.engine.base_layer")
    return getattr(mod, "Layer", None) if mod is not None else None


def is_keras_layer(obj) -> bool:
    cls = _keras_layer_class()
    return cls is not None and isinstance(obj, cls)


def _spec(shape, dtype, name):
    from tensorlet._src.data.structure import TensorSpec

    return TensorSpec(shape, dtype, name=name)


def input_signature(model, named=True):
    """The structure of ``TensorSpec``s a built Keras model takes (batch dimension None), or None."""
    inputs = getattr(model, "_inputs_struct", None)
    if inputs is None:
        functional = getattr(model, "_functional", None)
        inputs = getattr(functional, "_inputs_struct", None) if functional is not None else None
    if inputs is not None:
        return nest.map_structure(lambda t: _spec(t.shape, t.dtype, t.name if named else None), inputs)
    shapes = (getattr(model, "_build_shapes_dict", None) or {}).get("input_shape")
    if shapes is None:
        return None
    dtype = getattr(model, "compute_dtype", "float32") or "float32"

    def one(shape):
        shape = tuple(shape)
        return _spec((None,) + shape[1:] if shape else shape, dtype, None)

    if isinstance(shapes, (tuple, list)) and all(d is None or isinstance(d, int) for d in shapes):
        return one(shapes)
    if isinstance(shapes, dict):
        return {k: one(v) for k, v in shapes.items()}
    if isinstance(shapes, (tuple, list)):
        return [one(s) for s in shapes]
    return None


def _call_function(model, sig, name):
    from tensorlet._src.graph.function import Function

    def serve(inputs):
        return model(inputs, training=False)

    serve.__name__ = name
    return Function(serve, name=name, input_signature=[sig], autograph=False)


def default_signature(obj):
    """For ``tf.saved_model.save(keras_model)``: a concrete function calling the model (input key ``inputs``),
    or None for anything that is not a built Keras model."""
    if not is_keras_layer(obj):
        return None
    sig = input_signature(obj, named=False)
    if sig is None:
        return None
    cf = _call_function(obj, sig, "_default_save_signature").get_concrete_function()
    from tensorlet._src.saved_model.signatures import valid

    return cf if valid(cf) else None


class _ExportArchive:
    """The root object an export writes: the model's variables and the ``serve`` endpoint."""

    def __init__(self, model, serve):
        self.variables = list(model.variables)
        self.trainable_variables = list(model.trainable_variables)
        self.non_trainable_variables = list(model.non_trainable_variables)
        self.serve = serve

    def _checkpoint_dependencies(self):
        return [("variables", self.variables), ("trainable_variables", self.trainable_variables),
                ("non_trainable_variables", self.non_trainable_variables)]


def _print_endpoints(filepath, cf, variables):
    from tensorlet._src.framework.tensor_shape import TensorShape

    args, _ = cf._structured_inputs
    lines = [f"Saved artifact at '{filepath}'. The following endpoints are available:", "", "* Endpoint 'serve'"]
    for i, a in enumerate(args):
        spec = nest.map_structure(lambda t: _spec(t.shape, t.dtype, t.node.name), a)
        lines.append(f"  args_{i} (POSITIONAL_ONLY): {spec!r}")
    lines.append("Output Type:")
    out = nest.map_structure(lambda t: _spec(TensorShape(t.shape), t.dtype, None) if hasattr(t, "node") else t,
                             cf.structured_outputs)
    lines.append(f"  {out!r}")
    lines.append("Captures:")
    lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" for v in variables]
    print("\n".join(lines))


def export_keras_model(model, filepath, format="tf_saved_model", verbose=None, input_signature=None,  # noqa: A002
                       **kwargs):
    """``model.export(filepath)``: a SavedModel whose ``serve`` endpoint (and ``serve`` / ``serving_default``
    signatures) run the model's forward pass; reload with ``tf.saved_model.load`` or ``keras.layers.TFSMLayer``."""
    from tensorlet._src.saved_model.save import save

    if format != "tf_saved_model":
        raise ValueError(f"Unrecognized format={format!r}: tensorlet exports format='tf_saved_model' only.")
    sig = input_signature
    if sig is None:
        sig = globals()["input_signature"](model)
    elif isinstance(sig, (list, tuple)) and len(sig) == 1:
        sig = sig[0]
    if sig is None:
        raise ValueError("The model provided has not yet been built. It must be built before export. Call the model "
                         "on data or pass `input_signature` to `export()`.")
    serve = _call_function(model, sig, "serve")
    cf = serve.get_concrete_function()
    archive = _ExportArchive(model, serve)
    save(archive, filepath, signatures={"serve": cf, "serving_default": cf})
    if verbose is None or verbose:
        _print_endpoints(filepath, cf, archive.variables)
