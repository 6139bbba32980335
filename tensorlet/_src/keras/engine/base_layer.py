"""``tf.keras.layers.Layer`` and ``InputSpec``: Keras 3's layer contract on top of ``tf.Module``.

A layer creates its weights in ``build(input_shape)`` (called by ``__call__`` on first use) and computes in
``call(inputs, training=None, mask=None)``.  ``__call__`` converts NumPy inputs, casts float inputs to the layer's
compute dtype, checks ``input_spec``, propagates ``training`` to nested layers, carries Keras masks and, when given
``keras.Input`` placeholders, records a node of the functional graph instead of computing.

>>> class Scale(tf.keras.layers.Layer):
...     def build(self, input_shape):
...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
...     def call(self, x):
...         return x * self.w
>>> Scale()(np.ones((2, 3))).shape
TensorShape([2, 3])
"""

from __future__ import annotations

import inspect
import sys
import threading
import warnings
import weakref

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import module as _module
from tensorlet._src.framework.module import Module
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable, VariableAggregation
from tensorlet._src.keras import backend as _backend
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.train import keras_trackable as _ckpt_deps
from tensorlet._src.util import nest

_local = threading.local()
_FLOATS = frozenset(("float16", "bfloat16", "float32", "float64"))


# --- masks: tensors have no attribute slots, so masks live in a side table ------------------------------------------
_MASKS = {}


def _drop_mask(key):
    _MASKS.pop(key, None)


def get_keras_mask(x):
    """The Keras mask attached to tensor ``x`` (``x._keras_mask`` in TF), or None."""
    if x is None:
        return None
    m = getattr(x, "__dict__", None)
    if m is not None:
        return m.get("_keras_mask")
    entry = _MASKS.get(id(x))
    if entry is not None and entry[0]() is x:
        return entry[1]
    return None


def set_keras_mask(x, mask):
    """Attaches ``mask`` to ``x`` (``None`` removes it)."""
    if x is None:
        return
    if hasattr(x, "__dict__"):
        x.__dict__["_keras_mask"] = mask
        return
    key = id(x)
    if mask is None:
        _MASKS.pop(key, None)
        return
    try:
        ref = weakref.ref(x, lambda _r, k=key: _drop_mask(k))
    except TypeError:
        return
    _MASKS[key] = (ref, mask)


# --- dtype policies -----------------------------------------------------------------------------------------------
class _Policy:
    """Fallback dtype policy (``keras.mixed_precision`` provides the public class)."""

    def __init__(self, name):
        self._name = name
        if name == "mixed_float16":
            self._compute, self._variable = "float16", "float32"
        elif name == "mixed_bfloat16":
            self._compute, self._variable = "bfloat16", "float32"
        else:
            self._compute = self._variable = _dt.as_dtype(name).name

    name = property(lambda self: self._name)
    compute_dtype = property(lambda self: self._compute)
    variable_dtype = property(lambda self: self._variable)

    def get_config(self):
        return {"name": self._name}

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'


def _global_policy():
    try:
        from tensorlet._src.keras import mixed_precision as mp

        return mp.global_policy()
    except (ImportError, AttributeError):
        return None


def get_policy(dtype):
    """A dtype policy from ``None`` (global policy), a name, a ``tf.DType``, a policy or its config dict."""
    if dtype is None:
        pol = _global_policy()
        return pol if pol is not None else _make_policy(_backend.floatx())
    if hasattr(dtype, "compute_dtype") and hasattr(dtype, "variable_dtype"):
        return dtype
    if isinstance(dtype, dict):
        cfg = dtype.get("config", {})
        return _make_policy(cfg.get("name", _backend.floatx()) if isinstance(cfg, dict) else cfg)
    if isinstance(dtype, _dt.DType):
        return _make_policy(dtype.name)
    if isinstance(dtype, str):
        return _make_policy(dtype)
    return _make_policy(_dt.as_dtype(dtype).name)


def _make_policy(name):
    try:
        from tensorlet._src.keras import mixed_precision as mp

        cls = getattr(mp, "DTypePolicy", None) or mp.Policy
        return cls(name)
    except (ImportError, AttributeError):
        return _Policy(name)


def _policy_config(policy):
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": policy.name}, "registered_name": None}


# --- InputSpec ----------------------------------------------------------------------------------------------------
@tf_export("keras.InputSpec", "keras.layers.InputSpec")
class InputSpec:
    """The rank, dtype and shape a layer expects of each input: ``InputSpec(min_ndim=2, axes={-1: 3})``."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = _backend.standardize_dtype(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = tuple(None if d is None else int(d) for d in shape)
            self.ndim = len(self.shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self):
        spec = [f"dtype={self.dtype}" if self.dtype else "", f"shape={self.shape}" if self.shape else "",
                f"ndim={self.ndim}" if self.ndim else "", f"max_ndim={self.max_ndim}" if self.max_ndim else "",
                f"min_ndim={self.min_ndim}" if self.min_ndim else "", f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _shape_tuple(x):
    s = x.shape
    if hasattr(s, "as_list"):
        return tuple(s.as_list()) if s.rank is not None else None
    return tuple(s)


def assert_input_compatibility(input_spec, inputs, layer_name):
    """Raises Keras's ``ValueError`` when ``inputs`` do not match ``input_spec``."""
    if not input_spec:
        return
    input_spec = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in input_spec]
        if all(names):
            listed = []
            for n in names:
                if n not in inputs:
                    raise ValueError(f'Missing data for input "{n}". You passed a data dictionary with keys '
                                     f"{list(inputs.keys())}. Expected the following keys: {names}")
                listed.append(inputs[n])
            inputs = listed
    inputs = nest.flatten(inputs)
    if len(inputs) != len(input_spec):
        raise ValueError(f'Layer "{layer_name}" expects {len(input_spec)} input(s), but it received '
                         f"{len(inputs)} input tensors. Inputs received: {inputs}")
    for i, (x, spec) in enumerate(zip(inputs, input_spec)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for "
                             f"layer '{layer_name}'.")
        shape = _shape_tuple(x)
        if shape is None:
            continue
        ndim = len(shape)
        head = f"Input {i} with name '{spec.name}' of layer '{layer_name}' is incompatible with the layer: "
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(head + f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(head + f"expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(head + f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                             f"Full shape received: {shape}")
        if spec.dtype is not None:
            dtype = _backend.standardize_dtype(x.dtype)
            if dtype != spec.dtype:
                raise ValueError(head + f"expected dtype={spec.dtype}, found dtype={dtype}")
        if spec.axes:
            for axis, value in spec.axes.items():
                if value is not None and -ndim <= axis < ndim and shape[axis] not in {value, None}:
                    raise ValueError(head + f"expected axis {axis} of input shape to have value {value}, "
                                     f"but received input with shape {shape}")
        if spec.shape is not None:
            spec_shape, got = spec.shape, shape
            if spec.allow_last_axis_squeeze:
                if got and got[-1] == 1:
                    got = got[:-1]
                if spec_shape and spec_shape[-1] == 1:
                    spec_shape = spec_shape[:-1]
            for sd, d in zip(spec_shape, got):
                if sd is not None and d is not None and sd != d:
                    raise ValueError(head + f"expected shape={spec.shape}, found shape={shape}")


# --- call context and weight name scopes ----------------------------------------------------------------------------
class _CallContext:
    __slots__ = ("entry_layer", "training")

    def __init__(self, entry_layer, training=None):
        self.entry_layer = entry_layer
        self.training = training


def _call_ctx():
    return getattr(_local, "call_ctx", None)


def _scope_stack():
    s = getattr(_local, "scopes", None)
    if s is None:
        s = _local.scopes = []
    return s


class _KerasScope:
    """Keras's name scope for weight paths (``sequential/dense/kernel``); re-entering a layer's own scope is a no-op."""

    __slots__ = ("name", "caller", "pushed")

    def __init__(self, name, caller=None):
        self.name = name
        self.caller = caller
        self.pushed = False

    def __enter__(self):
        s = _scope_stack()
        if not (s and self.caller is not None and s[-1][1] is self.caller):
            s.append((self.name, self.caller))
            self.pushed = True
        return self

    def __exit__(self, *exc):
        if self.pushed:
            _scope_stack().pop()
        return False


def current_path():
    return "/".join(n for n, _ in _scope_stack())


def in_symbolic_build():
    return getattr(_local, "symbolic", 0) > 0


# --- signature analysis (cached per class) ---------------------------------------------------------------------------
_SIG_CACHE = {}


class _CallSig:
    __slots__ = ("params", "first", "has_training", "has_mask", "training_default", "var_kw", "names",
                 "mask_args")

    def __init__(self, fn):
        sig = inspect.signature(fn)
        params = [p for p in sig.parameters.values() if p.name != "self"]
        self.params = params
        self.names = [p.name for p in params]
        self.first = params[0].name if params else None
        self.has_training = "training" in self.names
        self.has_mask = "mask" in self.names
        self.var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
        d = sig.parameters.get("training")
        self.training_default = None if d is None or d.default is inspect.Parameter.empty else d.default
        self.mask_args = [n for n in self.names if n.endswith("_mask")]


def _call_sig(layer):
    cls = type(layer)
    call = cls.call
    sig = _SIG_CACHE.get(call)
    if sig is None:
        sig = _SIG_CACHE[call] = _CallSig(layer.call)
    return sig


def _is_tensor_like(x):
    return isinstance(x, (Tensor, Variable))


def _is_default(method, base_method):
    return getattr(method, "__func__", method) is base_method


# --- Layer --------------------------------------------------------------------------------------------------------
@tf_export("keras.Layer", "keras.layers.Layer")
class Layer(Module):
    """Base class of Keras layers: override ``build(input_shape)`` and ``call(inputs, ...)``.

    >>> layer = tf.keras.layers.Dense(2)
    >>> layer(np.ones((1, 3), np.float32)).shape
    TensorShape([1, 2])
    """

    # attributes the weight/sub-layer walk never enters
    _KERAS_NOT_TRACKED = frozenset(("_inbound_nodes", "_outbound_nodes", "_trainable_variables",
                                    "_non_trainable_variables", "_losses", "_auto_config", "_input_spec",
                                    "_dtype_policy", "_activity_regularizer", "_build_shapes_dict",
                                    "_keras_history", "_parent_model", "_seed_generators", "_metrics", "build",
                                    "_tracked_cache"))

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        object.__setattr__(obj, "_auto_config", _auto_config(cls, args, kwargs))
        return obj

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None, autocast=True, name=None,
                 **kwargs):
        input_dim = kwargs.pop("input_dim", None)
        input_shape = kwargs.pop("input_shape", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        batch_size = kwargs.pop("batch_size", None)
        kwargs.pop("input_length", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        if input_dim is not None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            batch_size = batch_input_shape[0]
            input_shape = tuple(batch_input_shape[1:])
        if input_shape is not None:
            warnings.warn("Do not pass an `input_shape`/`input_dim` argument to a layer. When using Sequential "
                          "models, prefer using an `Input(shape)` object as the first layer in the model "
                          "instead.", UserWarning, stacklevel=2)
        self._input_shape_arg = tuple(input_shape) if input_shape is not None else None
        self._batch_size_arg = batch_size
        if name is None:
            name = _backend.auto_name(_snake(type(self).__name__))
        elif not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name} (of type {type(name)})")
        self._name = name
        self._scope_name = name
        self._trainable = bool(trainable)
        self._dtype_policy = get_policy(dtype)
        self.autocast = autocast
        self._trainable_variables = []
        self._non_trainable_variables = []
        self._losses = []
        self._metrics = []
        self._seed_generators = []
        self._inbound_nodes = []
        self._outbound_nodes = []
        self._input_spec = None
        self._build_shapes_dict = None
        self._supports_masking = not _is_default(type(self).compute_mask, Layer.compute_mask)
        self.built = False
        self._activity_regularizer = _get_regularizer(activity_regularizer)
        self._called = False
        self._wrap_build()

    def _wrap_build(self):
        """Like Keras, every ``build`` call (also a user's direct one) runs in the layer's weight scope, records the
        shapes for ``get_build_config`` and marks the layer built."""
        original = self.build
        if getattr(original, "_keras_build_wrapper", False):
            return

        def build(*args, **kwargs):
            _STRUCTURE[0] += 1
            with _KerasScope(self._name, self):
                original(*args, **kwargs)
            _STRUCTURE[0] += 1
            shape = args[0] if args else next(iter(kwargs.values()), None)
            self._build_shapes_dict = {"input_shape": shape}
            self.built = True

        build._keras_build_wrapper = True
        build.__wrapped__ = original
        object.__setattr__(self, "build", build)

    def _build_at_init(self):
        """Layers without weights (Dropout, Activation, ...) are built as soon as they exist, as in Keras."""
        if _is_default(type(self).build, Layer.build):
            self.built = True

    # --- naming / dtype -------------------------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def path(self):
        return self._name

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        self._dtype_policy = get_policy(value)

    @property
    def dtype(self):
        """The dtype of the layer's weights (``"float32"``)."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self):
        """The dtype of the layer's computations (``"float16"`` under ``mixed_float16``)."""
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self):
        return self._dtype_policy.variable_dtype

    @property
    def input_dtype(self):
        return self._dtype_policy.compute_dtype

    @property
    def supports_masking(self):
        return self._supports_masking

    @supports_masking.setter
    def supports_masking(self, value):
        self._supports_masking = bool(value)

    @property
    def input_spec(self):
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, value):
        self._activity_regularizer = _get_regularizer(value)

    # --- weights --------------------------------------------------------------------------------------------------
    def add_weight(self, *args, shape=None, initializer=None, dtype=None, trainable=True, autocast=True,
                   regularizer=None, constraint=None, aggregation="none", overwrite_with_gradient=False,
                   name=None, **legacy):
        """Creates a weight variable tracked by the layer (``variable.path == "dense/kernel"``).

        >>> layer = tf.keras.layers.Layer()
        >>> w = layer.add_weight(shape=(2,), initializer="zeros", name="w")
        >>> layer.weights[0] is w
        True
        """
        if args:
            if len(args) > 3:
                raise TypeError(f"add_weight() takes at most 3 positional arguments but {len(args)} were given.")
            if isinstance(args[0], str):
                raise ValueError("`name` must be passed as a keyword argument. Received: "
                                 f"add_weight('{args[0]}', ...). Use: add_weight(shape=..., name='{args[0]}').")
            if shape is not None:
                raise ValueError("`shape` was passed both positionally and as a keyword argument.")
            shape = args[0]
            if len(args) > 1:
                if initializer is not None:
                    raise ValueError("`initializer` was passed both positionally and as a keyword argument.")
                initializer = args[1]
            if len(args) > 2:
                if dtype is not None:
                    raise ValueError("`dtype` was passed both positionally and as a keyword argument.")
                dtype = args[2]
        for k in ("use_resource", "synchronization", "partitioner", "caching_device", "getter",
                  "experimental_autocast"):
            legacy.pop(k, None)
        if legacy:
            raise TypeError(f"add_weight() got an unexpected keyword argument '{next(iter(legacy))}'")
        return self._make_weight(shape, initializer, dtype, trainable, regularizer, constraint, aggregation, name,
                                 overwrite_with_gradient, autocast)

    def add_variable(self, *args, **kwargs):
        """TF1-era alias of ``add_weight`` that also accepts ``add_variable(name, shape, ...)``."""
        if args and isinstance(args[0], str):
            kwargs.setdefault("name", args[0])
            args = args[1:]
        if args:
            kwargs.setdefault("shape", args[0])
            if len(args) > 1:
                kwargs.setdefault("dtype", args[1])
            if len(args) > 2:
                kwargs.setdefault("initializer", args[2])
            args = ()
        return self.add_weight(**kwargs)

    def _make_weight(self, shape, initializer, dtype, trainable, regularizer, constraint, aggregation, name,
                     overwrite_with_gradient=False, autocast=True):
        from tensorlet._src.framework.context import init_scope

        shape = () if shape is None else shape
        if hasattr(shape, "as_list"):
            shape = shape.as_list()
        shape = tuple(shape)
        if any(d is None for d in shape):
            raise ValueError(f"Shapes used to initialize variables must be fully-defined (no `None` dimensions). "
                             f"Received: shape={shape} for variable path='{self._weight_path(name)}'")
        shape = tuple(int(d) for d in shape)
        dtype = _dt.as_dtype(dtype if dtype is not None else self.variable_dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = _get_initializer(initializer)
        if name is None:
            name = _backend.auto_name("variable")
        path = self._weight_path(name)
        agg = _aggregation(aggregation)
        with init_scope():
            value = init(shape, dtype=dtype) if callable(init) else init
            value = convert_to_tensor(value)
            if value.dtype is not dtype:
                from tensorlet._src.ops.math_binary import cast

                value = cast(value, dtype)
            v = Variable(value, trainable=bool(trainable), dtype=dtype, name=name,
                         constraint=_get_constraint(constraint), aggregation=agg)
        v._name = name
        v.path = path
        v.regularizer = _get_regularizer(regularizer)
        v.overwrite_with_gradient = overwrite_with_gradient
        v.autocast = autocast
        (self._trainable_variables if trainable else self._non_trainable_variables).append(v)
        _STRUCTURE[0] += 1
        return v

    def _weight_path(self, name):
        prefix = current_path()
        if not prefix:
            prefix = self._name
        elif prefix.rsplit("/", 1)[-1] != self._name and not any(c is self for _, c in _scope_stack()):
            prefix = prefix + "/" + self._name
        return f"{prefix}/{name}"

    def _tracked(self):
        """(own variables, sub-layers) in Keras's order: add_weight order, then attributes in assignment order.

        Cached until any layer attribute is set or weights/sub-layers are added (``_STRUCTURE[0]`` changes)."""
        cache = self.__dict__.get("_tracked_cache")
        if cache is not None and cache[0] == _STRUCTURE[0]:
            return cache[1]
        result = self._walk_tracked()
        object.__setattr__(self, "_tracked_cache", (_STRUCTURE[0], result))
        return result

    def _walk_tracked(self):
        own = list(self._trainable_variables) + list(self._non_trainable_variables)
        seen = {id(v) for v in own}
        layers = []
        seen_layers = {id(self)}
        skip = self._KERAS_NOT_TRACKED

        def walk(obj, depth):
            if isinstance(obj, Layer):
                if id(obj) not in seen_layers:
                    seen_layers.add(id(obj))
                    layers.append(obj)
            elif isinstance(obj, Variable):
                if id(obj) not in seen:
                    seen.add(id(obj))
                    own.append(obj)
            elif depth < 4 and isinstance(obj, (list, tuple)):
                for item in obj:
                    walk(item, depth + 1)
            elif depth < 4 and isinstance(obj, dict):
                for item in obj.values():
                    walk(item, depth + 1)

        for key, value in vars(self).items():
            if key in skip or key.startswith("__"):
                continue
            walk(value, 0)
        return own, layers

    @property
    def _layers(self):
        return self._tracked()[1]

    def _flatten_layers(self, include_self=True, recursive=True):
        out = [self] if include_self else []
        seen = {id(self)}
        stack = list(reversed(self._tracked()[1]))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            if recursive:
                stack.extend(reversed(layer._tracked()[1]))
        return out

    @property
    def weights(self):
        """All weights: this layer's own (trainable first), then each sub-layer's, as in Keras."""
        own, layers = self._tracked()
        out = list(own)
        seen = {id(v) for v in out}
        for layer in layers:
            for w in layer.weights:
                if id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
        return out

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [v for v in self.weights if v.trainable]

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    @property
    def variables(self):
        """Weights plus other state (random seed generators)."""
        out = list(self.weights)
        seen = {id(v) for v in out}
        for layer in self._flatten_layers():
            for g in layer._seed_generators:
                st = getattr(g, "state", None)
                if st is not None and id(st) not in seen:
                    seen.add(id(st))
                    out.append(st)
        return out

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        value = bool(value)
        self._trainable = value
        own, layers = self._tracked()
        for v in self._trainable_variables:
            v._trainable = value
        for layer in layers:
            layer.trainable = value

    def get_weights(self):
        """The weights as a list of NumPy arrays, in ``weights`` order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights):
        """Sets the weights from NumPy arrays (same order and shapes as ``get_weights()``)."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of "
                             f"length {len(weights)}, but the layer was expecting {len(params)} weights.")
        for v, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(v.shape) != w.shape:
                raise ValueError(f"Layer {self.name} weight shape {tuple(v.shape)} is not compatible with "
                                 f"provided weight shape {w.shape}.")
        for v, w in zip(params, weights):
            v.assign(np.asarray(w, dtype=v.dtype.as_numpy_dtype))

    def count_params(self):
        """The number of scalars in all weights."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                             "You can build it manually via: `layer.build(input_shape)`.")
        return int(sum(int(np.prod(v.shape)) for v in self.weights))

    # --- losses ---------------------------------------------------------------------------------------------------
    def add_loss(self, loss):
        """Adds a scalar loss term (collected in ``layer.losses`` and added by ``fit``)."""
        _LOSSES_ADDED[0] += 1
        for x in nest.flatten(loss):
            if x is not None:
                self._losses.append(x if _is_tensor_like(x) else convert_to_tensor(x))

    def _own_losses(self):
        return list(self._losses)

    @property
    def losses(self):
        """Losses from ``add_loss`` during the last call (this layer and sub-layers), then weight regularizers."""
        out = []
        layers = self._flatten_layers()
        for layer in layers:
            out.extend(layer._losses)
        for v in self.trainable_weights:
            reg = getattr(v, "regularizer", None)
            if reg is not None:
                out.append(reg(v))
        return out

    def _clear_losses(self):
        if not _LOSSES_ADDED[0]:
            return
        for layer in self._flatten_layers():
            layer._losses.clear()

    @property
    def metrics(self):
        return list(self._metrics)

    # --- build ----------------------------------------------------------------------------------------------------
    def build(self, input_shape):
        """Creates the layer's weights for ``input_shape``; the default only marks the layer built."""
        self.built = True

    def _maybe_build(self, args, kwargs):
        if self.built:
            return
        self._maybe_build_now(args, kwargs)
        ck = sys.modules.get("tensorlet._src.train.checkpoint")
        if ck is not None and ck._PENDING:  # values restored before the weights existed (deferred restoration)
            ck.restore_pending(self)

    def _maybe_build_now(self, args, kwargs):
        first = args[0] if args else (kwargs.get(_call_sig(self).first) if _call_sig(self).first else None)
        shapes = nest.map_structure(lambda t: _shape_tuple(t) if hasattr(t, "shape") else t, first) \
            if first is not None else None
        if isinstance(shapes, list) and shapes and all(isinstance(s, tuple) for s in shapes):
            shapes = list(shapes)
        self.build(shapes)
        self.built = True

    def get_build_config(self):
        if self._build_shapes_dict is not None:
            return dict(self._build_shapes_dict)
        return None

    def build_from_config(self, config):
        shape = config.get("input_shape") if config else None
        if shape is not None:
            self.build(_to_shape_struct(shape))
        self.built = True

    # --- call -----------------------------------------------------------------------------------------------------
    def call(self, *args, **kwargs):
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` method implemented.")

    def __call__(self, *args, **kwargs):
        from tensorlet._src.keras.engine import keras_tensor as _kt

        if _kt.any_symbolic(args, kwargs):
            from tensorlet._src.keras.engine import node as _node

            return _node.symbolic_call(self, args, kwargs)
        sig = _call_sig(self)
        args, kwargs = self._convert_inputs(args, kwargs)
        if not self.built:
            self._maybe_build(args, kwargs)
        first = args[0] if args else kwargs.get(sig.first)
        if self._input_spec is not None:
            assert_input_compatibility(self._input_spec, first, self._name)
        # training: explicit argument, else the outer layer's, else the call signature's default
        outer = _call_ctx()
        training = kwargs.get("training")
        if training is None:
            training = outer.training if outer is not None else None
            if training is None:
                training = sig.training_default
        if sig.has_training:
            if training is not None:
                kwargs["training"] = training
        else:
            kwargs.pop("training", None)
        previous_mask = None
        if sig.has_mask and kwargs.get("mask") is None:
            previous_mask = _collect_mask(first)
            if previous_mask is not None:
                kwargs["mask"] = previous_mask
        elif not sig.has_mask:
            previous_mask = _collect_mask(first)
        else:
            previous_mask = kwargs.get("mask")
        ctx = outer if outer is not None else _CallContext(self, training)
        if outer is None:
            self._clear_losses()
            _local.call_ctx = ctx
        prev_training = ctx.training
        ctx.training = training
        try:
            with _KerasScope(self._name, self):
                call = self.call
                if _tracing():  # inside tf.function: the layer's Python control flow goes through AutoGraph
                    from tensorlet._src.graph.autograph import convert

                    call = convert(call)
                outputs = call(*args, **kwargs)
        finally:
            ctx.training = prev_training
            if outer is None:
                _local.call_ctx = None
        self._called = True
        if self._activity_regularizer is not None:
            from tensorlet._src.autodiff import lazy as T

            for out in nest.flatten(outputs):
                if _is_tensor_like(out):
                    loss = self._activity_regularizer(out)
                    if len(out.shape) > 0:  # Keras 3.15 divides by the batch size
                        loss = T.math.divide_no_nan(loss, T.cast(T.shape(out)[0], loss.dtype))
                    self.add_loss(loss)
        if self.supports_masking:
            self._set_mask_metadata(first, outputs, previous_mask)
        elif previous_mask is not None and any(m is not None for m in nest.flatten(previous_mask)) \
                and not sig.has_mask:
            warnings.warn(f"Layer '{self.name}' (of type {type(self).__name__}) was passed an input with a mask "
                          "attached to it. However, this layer does not support masking and will therefore destroy "
                          "the mask information. Downstream layers will not see the mask.", stacklevel=2)
        return outputs

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        masks = self.compute_mask(inputs, previous_mask)
        if masks is None:
            return
        flat_out = nest.flatten(outputs)
        flat_masks = nest.flatten(masks) if isinstance(masks, (list, tuple)) else [masks] * len(flat_out)
        if len(flat_masks) == 1 and len(flat_out) > 1:
            flat_masks = flat_masks * len(flat_out)
        for out, m in zip(flat_out, flat_masks):
            if _is_tensor_like(out) and get_keras_mask(out) is None:
                set_keras_mask(out, m)

    def _convert_inputs(self, args, kwargs):
        compute = self._dtype_policy.compute_dtype
        autocast = self.autocast
        if len(args) == 1 and not kwargs:
            a = args[0]
            if a.__class__ is EagerTensor and (a._v.dtype.name == compute or not autocast):
                return args, kwargs

        def conv(x):
            if isinstance(x, (Tensor, Variable)):
                if autocast and x.dtype.is_floating and x.dtype.name != compute and compute in _FLOATS:
                    from tensorlet._src.ops.math_binary import cast

                    mask = get_keras_mask(x)
                    y = cast(x, compute)
                    if mask is not None:
                        set_keras_mask(y, mask)
                    return y
                return x
            if isinstance(x, (np.ndarray, np.generic)) or (hasattr(x, "__array__") and not isinstance(x, type)):
                t = convert_to_tensor(x)
                if autocast and t.dtype.is_floating and t.dtype.name != compute and compute in _FLOATS:
                    from tensorlet._src.ops.math_binary import cast

                    t = cast(t, compute)
                return t
            return x

        args = tuple(nest.map_structure(conv, a) for a in args)
        if kwargs:
            kwargs = {k: (nest.map_structure(conv, v) if k not in ("training", "mask") else v)
                      for k, v in kwargs.items()}
        return args, kwargs

    def compute_mask(self, inputs, previous_mask):
        """The mask of the outputs; by default the input mask passes through."""
        return previous_mask

    def compute_output_shape(self, *args, **kwargs):
        """The output shape for an input shape (found by running ``call`` on placeholder values)."""
        from tensorlet._src.keras.engine import node as _node

        return _node.infer_output_shape(self, args, kwargs)

    def compute_output_spec(self, *args, **kwargs):
        from tensorlet._src.keras.engine import node as _node

        return _node.infer_output_spec(self, args, kwargs)

    # --- functional graph ------------------------------------------------------------------------------------------
    def _node_attr(self, attr, what):
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        if len(self._inbound_nodes) > 1 and what != "input":
            pass
        return getattr(self._inbound_nodes[0], attr)

    @property
    def input(self):
        """The functional-API input tensor(s) of the layer's first call."""
        return self._node_attr("input_value", "input")

    @property
    def output(self):
        """The functional-API output tensor(s) of the layer's first call."""
        return self._node_attr("output_value", "output")

    @property
    def input_shape(self):
        try:
            return nest.map_structure(lambda t: tuple(t.shape), self.input)
        except AttributeError:
            if self._build_shapes_dict:
                return self._build_shapes_dict["input_shape"]
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined input "
                                 "shape.") from None

    @property
    def output_shape(self):
        try:
            return nest.map_structure(lambda t: tuple(t.shape), self.output)
        except AttributeError:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined output "
                                 "shape.") from None

    # --- config ---------------------------------------------------------------------------------------------------
    def get_config(self):
        """The constructor arguments as a JSON-friendly dict (``from_config`` reverses it)."""
        config = {"name": self.name}
        if _is_default(type(self).get_config, Layer.get_config):
            auto = self._auto_config
            if auto is not None:
                config.update(auto)
                import inspect as _inspect

                params = _inspect.signature(type(self).__init__).parameters
                has_kwargs = "kwargs" in params and params["kwargs"].kind is _inspect.Parameter.VAR_KEYWORD
                if "name" not in params and not has_kwargs:
                    config.pop("name", None)
            elif type(self).__init__ is not Layer.__init__:
                raise NotImplementedError(
                    f"Layer {type(self).__name__} was created by passing non-serializable argument values in "
                    "`__init__()`, and therefore the layer must override `get_config()` in order to be "
                    f"serializable. Please implement `get_config()`.\n\nExample:\n\nclass "
                    f"{type(self).__name__}(Layer):\n    def __init__(self, arg1, arg2, **kwargs):\n"
                    "        super().__init__(**kwargs)\n        self.arg1 = arg1\n        self.arg2 = arg2\n\n"
                    "    def get_config(self):\n        config = super().get_config()\n        config.update({\n"
                    '            "arg1": self.arg1,\n            "arg2": self.arg2,\n        })\n'
                    "        return config")
        config["trainable"] = self.trainable
        config["dtype"] = _policy_config(self._dtype_policy)
        if self._activity_regularizer is not None:
            config["activity_regularizer"] = _serialize(self._activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from ``get_config()``'s dict."""
        config = dict(config)
        if "dtype" in config and isinstance(config["dtype"], dict):
            config["dtype"] = get_policy(config["dtype"])
        try:
            return cls(**config)
        except Exception as e:
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using config={config}.\n\n"
                            f"Exception encountered: {e}") from e

    # --- misc -----------------------------------------------------------------------------------------------------
    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    def _check_super_called(self):
        if "_trainable_variables" not in vars(self):
            raise RuntimeError("You forgot to call `super().__init__()` as the first statement in the `__init__()` "
                               "method. Go back and add it.")

    def __setattr__(self, name, value):
        if name != "_trainable_variables" and "_trainable_variables" not in self.__dict__ and \
                isinstance(value, (Layer, Variable)):
            raise RuntimeError("You forgot to call `super().__init__()` as the first statement in the `__init__()` "
                               "method. Go back and add it.")
        _STRUCTURE[0] += 1
        object.__setattr__(self, name, value)
        _ckpt_deps.note_assignment(self, name, value)  # checkpoint dependencies keep first-assignment order
        if _module.setattr_hook is not None:
            _module.setattr_hook(self, name, value)

    def _checkpoint_dependencies(self):
        """What ``tf.train.Checkpoint`` saves under this layer, named as Keras 3 on TF names it."""
        return _ckpt_deps.layer_children(self)


_STRUCTURE = [0]  # bumped whenever layer structure may change (attribute set, weight added, layer built)
_LOSSES_ADDED = [0]  # add_loss calls so far: clearing losses is skipped while no layer ever added one


# --- helpers --------------------------------------------------------------------------------------------------------
def _tracing() -> bool:
    from tensorlet._src.framework.context import ctx

    interp = ctx.interp
    return interp is not None and hasattr(interp, "read_variable")


def _snake(name):
    import re

    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _collect_mask(x):
    if x is None:
        return None
    if isinstance(x, (list, tuple, dict)):
        masks = nest.map_structure(get_keras_mask, x)
        return None if all(m is None for m in nest.flatten(masks)) else masks
    return get_keras_mask(x)


def _to_shape_struct(shape):
    if isinstance(shape, dict):
        return {k: _to_shape_struct(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and all(isinstance(s, (list, tuple)) or s is None for s in shape) \
            and any(isinstance(s, (list, tuple)) for s in shape):
        return [_to_shape_struct(s) if s is not None else None for s in shape]
    return tuple(shape) if isinstance(shape, (list, tuple)) else shape


def _auto_config(cls, args, kwargs):
    """Keras 3's automatic config: the constructor arguments (defaults filled in, ``name`` dropped) when they are
    all plain values, else None."""
    import inspect as _inspect

    try:
        sig = _inspect.signature(cls.__init__)
        bound = sig.bind(None, *args, **kwargs)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind is p.POSITIONAL_ONLY for p in params[1:]):
        return None
    bound.apply_defaults()
    cfg = {}
    for k, v in list(bound.arguments.items())[1:]:
        p = sig.parameters[k]
        if p.kind is p.VAR_KEYWORD:
            cfg.update(v)
        elif p.kind is p.VAR_POSITIONAL:
            if v:
                return None
        else:
            cfg[k] = v
    cfg.pop("name", None)
    return cfg if _json_friendly(cfg) else None


def _json_friendly(obj):
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return True
    if isinstance(obj, (list, tuple)):
        return all(_json_friendly(x) for x in obj)
    if isinstance(obj, dict):
        return all(isinstance(k, str) and _json_friendly(v) for k, v in obj.items())
    return False


def _aggregation(a):
    if isinstance(a, VariableAggregation):
        return a
    if a is None:
        return VariableAggregation.NONE
    a = str(a).lower()
    return {"none": VariableAggregation.NONE, "sum": VariableAggregation.SUM, "mean": VariableAggregation.MEAN,
            "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA}.get(a, VariableAggregation.NONE)


def _fallback_initializer(name):
    from tensorlet._src.autodiff import lazy as T

    name = name.lower() if isinstance(name, str) else name

    def init(shape, dtype=None):
        dtype = dtype or "float32"
        if name in ("zeros", "zero"):
            return T.zeros(shape, dtype)
        if name in ("ones", "one"):
            return T.ones(shape, dtype)
        fan_in = shape[-2] if len(shape) >= 2 else (shape[0] if shape else 1)
        fan_out = shape[-1] if shape else 1
        rf = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
        limit = float(np.sqrt(6.0 / max(1, (fan_in + fan_out) * rf)))
        return T.random.uniform(shape, -limit, limit, dtype=dtype)

    return init


def _get_initializer(identifier):
    try:
        from tensorlet._src.keras import initializers

        return initializers.get(identifier)
    except ImportError:
        if callable(identifier):
            return identifier
        return _fallback_initializer(identifier)


def _get_regularizer(identifier):
    if identifier is None:
        return None
    try:
        from tensorlet._src.keras import regularizers

        return regularizers.get(identifier)
    except ImportError:
        return identifier if callable(identifier) else None


def _get_constraint(identifier):
    if identifier is None:
        return None
    try:
        from tensorlet._src.keras import constraints

        return constraints.get(identifier)
    except ImportError:
        return identifier if callable(identifier) else None


def _serialize(obj):
    from tensorlet._src.keras.saving.serialization import serialize_keras_object

    return serialize_keras_object(obj)
