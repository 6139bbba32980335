"""``tf.saved_model.load`` and the objects it returns: user objects (callable when they saved ``__call__``),
``signatures`` (keyword tensors in, a dict out), restored tf.functions that pick the saved concrete function
matching their arguments.  The reading itself is ``tf_load`` (TF's SavedModel format).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.module import Module
from tensorlet._src.framework.tensor import Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph.concrete import ConcreteFunction, _Leaf
from tensorlet._src.graph.function import _SpecLike
from tensorlet._src.graph.ir import GraphTensor
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.saved_model.bg_compile import LoadedConcreteFunction
from tensorlet._src.saved_model.codec import SavedModelError
from tensorlet._src.util import nest

_NO_DEFAULT = object()


class _UserObject(Module):
    """A loaded object: the saved object's variables, sub-objects and tf.functions as attributes."""

    def __init__(self, class_name="_UserObject"):
        self._name = "_user_object"
        self._scope_name = "_user_object"
        self._saved_class = class_name

    @property
    def variables(self):
        """The saved ``variables`` attribute (Keras exports keep one), else every variable reachable."""
        saved = self.__dict__.get("variables")
        return tuple(saved) if isinstance(saved, (list, tuple)) else Module.variables.fget(self)

    @property
    def trainable_variables(self):
        saved = self.__dict__.get("trainable_variables")
        return tuple(saved) if isinstance(saved, (list, tuple)) else Module.trainable_variables.fget(self)

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError("'_UserObject' object is not callable")
        return fn(*args, **kwargs)

    def __repr__(self):
        return f"<tensorlet.saved_model._UserObject (saved from {self._saved_class}) at {hex(id(self))}>"


class _SignatureMap(Mapping):
    """``loaded.signatures``: name -> signature function."""

    def __init__(self, sigs):
        self._sigs = dict(sigs)

    def __getitem__(self, key):
        return self._sigs[key]

    def __iter__(self):
        return iter(self._sigs)

    def __len__(self):
        return len(self._sigs)

    def __repr__(self):
        return f"_SignatureMap({self._sigs!r})"


# --- functions ----------------------------------------------------------------------------------------------------
def _spec_text(spec, name=None):
    from tensorlet._src.data.structure import TensorSpec

    return repr(TensorSpec(spec.shape, spec.dtype, name=name))


class SignatureFunction(LoadedConcreteFunction):
    """A signature: call with keyword arguments named after its inputs; returns a dict of outputs."""

    def __init__(self, graph, input_keys, output_keys, name):
        template = {k: _Leaf(i) for k, i in output_keys}
        outs = {k: graph.outputs[i] for k, i in output_keys}
        phs = dict(zip(input_keys, graph.inputs))
        super().__init__(graph, ((), phs), outs, template)
        from tensorlet._src.data.structure import TensorSpec

        self.structured_outputs = {k: TensorSpec(t.shape, t.dtype, name=k) for k, t in outs.items()}
        self._input_keys = list(input_keys)
        self._name = name

    @property
    def structured_input_signature(self):
        from tensorlet._src.data.structure import TensorSpec

        return (), {k: TensorSpec(t.shape, t.dtype, name=k) for k, t in zip(self._input_keys, self.graph.inputs)}

    def __call__(self, *args, **kwargs):
        keys = self._input_keys
        if len(args) > len(keys):
            raise TypeError(f"Binding inputs to tf.function failed due to `too many positional arguments`. Received "
                            f"args: {args} and kwargs: {kwargs} for signature: {self._sig_text()}.")
        values = dict(zip(keys, args))
        for k in keys[len(args):]:  # Python's binding order: a missing argument is reported first
            if k in kwargs:
                values[k] = kwargs[k]
            else:
                raise TypeError(f"Binding inputs to tf.function failed due to `missing a required argument: '{k}'`. "
                                f"Received args: {args} and kwargs: {kwargs} for signature: {self._sig_text()}.")
        for k in kwargs:
            if k not in keys:
                raise TypeError(f"Binding inputs to tf.function failed due to `got an unexpected keyword argument "
                                f"'{k}'`. Received args: {args} and kwargs: {kwargs} for signature: "
                                f"{self._sig_text()}.")
            if k in keys[:len(args)]:
                raise TypeError(f"Binding inputs to tf.function failed due to `multiple values for argument '{k}'`.")
        return ConcreteFunction.__call__(self, *[values[k] for k in keys])

    def _sig_text(self):
        ins = ", ".join(f"{k}: {_spec_text(t, k)}" for k, t in zip(self._input_keys, self.graph.inputs))
        outs = ", ".join(f"['{k}', {_spec_text(t, k)}]" for k, t in self.structured_outputs.items())
        return f"(*, {ins}) -> Dict[{outs}]"

    def pretty_printed_signature(self, verbose=True):
        lines = ["Input Parameters:"]
        lines += [f"  {k} (KEYWORD_ONLY): {_spec_text(t, k)}" for k, t in zip(self._input_keys, self.graph.inputs)]
        outs = ", ".join(f"[{k!r}, {_spec_text(t, k)}]" for k, t in self.structured_outputs.items())
        lines += ["Output Type:", f"  Dict[{outs}]"]
        return "\n".join(lines)

    def __repr__(self):
        return f"<ConcreteFunction {self._sig_text()} at {hex(id(self)).upper().replace('X', 'x')}>"


def _bind(params, args, kwargs):
    """Python's argument binding for saved parameters: name -> value (defaults applied), or raises TypeError."""
    out, kwargs, i = {}, dict(kwargs), 0
    for name, kind, default in params:
        if kind in ("positional_only", "positional_or_keyword"):
            if i < len(args):
                if name in kwargs and kind != "positional_only":
                    raise TypeError(f"got multiple values for argument '{name}'")
                out[name] = args[i]
                i += 1
                continue
            if kind != "positional_only" and name in kwargs:
                out[name] = kwargs.pop(name)
            elif default is not _NO_DEFAULT:
                out[name] = default
            else:
                raise TypeError(f"missing a required argument: '{name}'")
        elif kind == "var_positional":
            out[name] = tuple(args[i:])
            i = len(args)
        elif kind == "keyword_only":
            if name in kwargs:
                out[name] = kwargs.pop(name)
            elif default is not _NO_DEFAULT:
                out[name] = default
            else:
                raise TypeError(f"missing a required argument: '{name}'")
        else:  # var_keyword
            out[name] = dict(kwargs)
            kwargs = {}
    if i < len(args):
        raise TypeError("too many positional arguments")
    if kwargs:
        raise TypeError(f"got an unexpected keyword argument '{next(iter(kwargs))}'")
    return out


def _match(template, value, found) -> bool:
    """Does call value ``value`` fit ``template`` (a traced structure with placeholders)?  Collects
    (placeholder, tensor) pairs in ``found``."""
    if isinstance(template, GraphTensor):
        if isinstance(value, _SpecLike):
            ok = _dt.as_dtype(value.dtype) is template.dtype and template.shape.is_compatible_with(value.shape)
            if ok:
                found.append((template, None))
            return ok
        if isinstance(value, Variable):
            value = value.value()
        if not isinstance(value, Tensor):
            if not isinstance(value, (np.ndarray, np.generic, list, tuple, int, float, complex)) or \
                    isinstance(value, bool) and template.dtype is not _dt.bool:
                return False
            try:
                value = convert_to_tensor(value, dtype_hint=template.dtype)
            except (TypeError, ValueError):
                return False
        if value.dtype is not template.dtype or not template.shape.is_compatible_with(value.shape):
            return False
        found.append((template, value))
        return True
    if isinstance(template, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(template):
            return False
        return all(_match(t, v, found) for t, v in zip(template, value))
    if isinstance(template, dict):
        if not isinstance(value, dict) or set(value) != set(template):
            return False
        return all(_match(template[k], value[k], found) for k in template)
    if isinstance(value, (Tensor, Variable)):
        return False
    if isinstance(template, bool) or isinstance(value, bool):
        return type(template) is type(value) and template == value
    try:
        return bool(template == value)
    except Exception:  # noqa: BLE001 - incomparable values simply do not match
        return False


def _describe_args(args, kwargs, names=(), indent="  "):
    lines = [f"{indent}Positional arguments ({len(args)} total):"]
    lines += [f"{indent}  * {_arg_text(a, names[i] if i < len(names) else None)}" for i, a in enumerate(args)]
    kw = ", ".join(f"{k!r}: {_arg_text(v, k)}" for k, v in kwargs.items())
    lines.append(f"{indent}Keyword arguments: {{{kw}}}")
    return "\n".join(lines)


def _arg_text(a, name=None):
    """A traced argument as TF prints it: placeholders as TensorSpecs named after their parameter."""
    from tensorlet._src.data.structure import TensorSpec
    from tensorlet._src.saved_model.signatures import _DEFAULT_PH

    def one(x):
        if isinstance(x, GraphTensor):
            own = x.node.name
            return TensorSpec(x.shape, x.dtype, name=name if name and _DEFAULT_PH.match(own) else own)
        return x

    return repr(nest.map_structure(one, a))


class RestoredFunction:
    """A loaded ``tf.function``: calls the saved concrete function matching the arguments."""

    def __init__(self, name, concrete_functions, params, input_signature=None):
        self._name = name
        self.__name__ = name
        self.concrete_functions = list(concrete_functions)
        self._params = params
        self.input_signature = input_signature
        self._canon = [self._canonical(cf._structured_inputs) for cf in self.concrete_functions]

    @property
    def name(self):
        return self._name

    def _canonical(self, structured):
        args, kwargs = structured
        if self._params is None:
            return (tuple(args), dict(kwargs))
        try:
            return _bind(self._params, tuple(args), kwargs)
        except TypeError:
            return (tuple(args), dict(kwargs))

    def _find(self, args, kwargs):
        if self._params is not None:
            try:
                call = _bind(self._params, args, kwargs)
            except TypeError as e:
                raise TypeError(f"{self._name}() {e}") from None
        else:
            call = (tuple(args), dict(kwargs))
        for cf, canon in zip(self.concrete_functions, self._canon):
            found = []
            if type(canon) is type(call) and _match(canon, call, found):
                return cf, found
        options = []
        names = [p[0] for p in self._params or ()]
        for i, cf in enumerate(self.concrete_functions):
            a, k = cf._structured_inputs
            options.append(f"Option {i + 1}:\n{_describe_args(a, k, names)}")
        raise ValueError("Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
                         f"{_describe_args(args, kwargs)}\n\n Expected these arguments to match one of the "
                         f"following {len(options)} option(s):\n\n" + "\n\n".join(options))

    def __call__(self, *args, **kwargs):
        cf, found = self._find(args, kwargs)
        order = {id(t): i for i, t in enumerate(cf.graph.inputs)}
        flat = [None] * len(cf.graph.inputs)
        for ph, value in found:
            flat[order[id(ph)]] = value
        return ConcreteFunction.__call__(cf, *flat)

    def get_concrete_function(self, *args, **kwargs):
        """The saved concrete function for these arguments (tensors or ``tf.TensorSpec``s)."""
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        return self._find(args, kwargs)[0]

    def experimental_get_tracing_count(self):
        return 0

    def __repr__(self):
        return f"<tensorlet.saved_model.RestoredFunction {self._name}>"


# --- the entry points -------------------------------------------------------------------------------------------
@tf_export("saved_model.contains_saved_model")
def contains_saved_model(export_dir) -> bool:
    """True if ``export_dir`` is a directory holding a SavedModel (``saved_model.pb``)."""
    export_dir = os.fspath(export_dir)
    return os.path.isdir(export_dir) and os.path.isfile(os.path.join(export_dir, "saved_model.pb"))


@tf_export("saved_model.load")
def load(export_dir, tags=None, options=None):
    """Loads a SavedModel written by ``tf.saved_model.save``; no Python code of the original program is needed.

    Returns an object with the saved attributes (variables, sub-objects, tf.functions), ``signatures``
    (name -> function taking keyword arguments and returning a dict) and ``variables`` /
    ``trainable_variables``.

    >>> loaded = tf.saved_model.load("/tmp/adder")  # doctest: +SKIP
    >>> loaded.add(tf.constant([1.0]))  # doctest: +SKIP
    <tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.], dtype=float32)>
    """
    export_dir = os.fspath(export_dir)
    from tensorlet._src.saved_model import tf_load

    if not tf_load.is_tf_saved_model(export_dir) and os.path.isfile(os.path.join(export_dir, "saved_model.json")):
        raise SavedModelError(f"{export_dir} holds a SavedModel in the private JSON format of an earlier tensorlet "
                              "(saved_model.json), which this version no longer reads: load it with that version "
                              "and save it again (saves now write TensorFlow's format, saved_model.pb)")
    return tf_load.load_tf(export_dir, tags)
