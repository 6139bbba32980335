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
    """A tf.function calling ``model`` with Keras 3's Python names: the export's ``__call__(args_0)`` (Keras traces
    ``model.__call__(*args)``), the default save signature's ``serving_default(inputs)``; the saved FullArgSpec
    records the parameter's name."""
    from tensorlet._src.graph.function import Function

    if name == "__call__":
        def fn(args_0):
            return model(args_0, training=False)
    else:
        def fn(inputs):
            return model(inputs, training=False)

    fn.__name__ = fn.__qualname__ = name
    return Function(fn, name=name, input_signature=[sig], autograph=False)


def _is_keras_model(obj) -> bool:
    mod = sys.modules.get("tensorlet._src.keras.engine.training")
    cls = getattr(mod, "Model", None) if mod is not None else None
    return cls is not None and isinstance(obj, cls)


def default_save_function(obj, cache):
    """A built Keras model's ``_default_save_signature``: a tf.function ``serving_default(inputs)`` calling the
    model, as Keras 3 gives every Model for ``tf.saved_model.save`` (the root's is also the default signature);
    None for anything else.  ``cache`` keeps one per model for the save."""
    if not _is_keras_model(obj):
        return None
    hit = cache.get(id(obj))
    if hit is None:
        sig = input_signature(obj, named=False)
        fn = None if sig is None else _call_function(obj, sig, "serving_default")
        if fn is not None:
            from tensorlet._src.saved_model.signatures import valid

            try:
                fn = fn if valid(fn.get_concrete_function()) else None
            except (TypeError, ValueError):  # a model that cannot be called on its own input signature
                fn = None
        hit = cache[id(obj)] = (obj, fn)
    return hit[1]


def default_signature(obj, cache=None):
    """For ``tf.saved_model.save(keras_model)``: the ``_default_save_signature`` tf.function (input key
    ``inputs``), or None for anything that is not a built Keras model."""
    if not is_keras_layer(obj):
        return None
    fn = default_save_function(obj, {} if cache is None else cache)
    if fn is None and not _is_keras_model(obj):  # a bare layer: its call, under the same name
        sig = input_signature(obj, named=False)
        fn = None if sig is None else _call_function(obj, sig, "serving_default")
    return fn


class _TrackedList(list):
    """A list the object graph keeps even when empty (Keras's export archive writes its empty lists)."""

    def _saved_model_children(self):
        return [(str(i), v) for i, v in enumerate(self)]


class _VariableCopy:
    """One of the archive's ``_all_variables``: Keras 3 lists the tf.Variables its endpoints use there, objects
    apart from the Keras variables in ``variables``, so TF writes them as their own variable nodes (same name,
    value saved again under ``_all_variables/<i>``).  A read-only view of the model's variable."""

    def __init__(self, v):
        self._of = v
        self.dtype, self.shape, self.trainable = v.dtype, v.shape, v.trainable
        self.name = v.name
        self.path = getattr(v, "path", None)

    def numpy(self):
        return self._of.numpy()

    def assign(self, value):
        raise TypeError("an exported variable copy is read-only")


class _ExportArchive:
    """The root object an export writes, with Keras 3's children in its order: the model's variables, the
    variables the endpoints use (``_all_variables``: trainable then not, in the order the function captures
    them), tracked assets (``_misc_assets``: none), then the ``serve`` endpoint."""

    def __init__(self, model, serve):
        self.variables = _TrackedList(model.variables)
        self.trainable_variables = _TrackedList(model.trainable_variables)
        self.non_trainable_variables = _TrackedList(model.non_trainable_variables)
        used = list(serve.get_concrete_function().graph.variables)
        used = [v for v in used if v.trainable] + [v for v in used if not v.trainable]
        self._all_variables = _TrackedList(_VariableCopy(v) for v in used)
        self._misc_assets = _TrackedList()
        self.serve = serve

    def _saved_model_children(self):
        return [("variables", self.variables), ("trainable_variables", self.trainable_variables),
                ("non_trainable_variables", self.non_trainable_variables), ("_all_variables", self._all_variables),
                ("_misc_assets", self._misc_assets)]


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
    serve = _call_function(model, sig, "__call__")
    cf = serve.get_concrete_function()
    archive = _ExportArchive(model, serve)
    save(archive, filepath, signatures={"serve": serve, "serving_default": serve})
    if verbose is None or verbose:
        _print_endpoints(filepath, cf, archive.variables)
