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
import warnings

import numpy as np

from tensorlet._src.framework import context as _context
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import module as _module
from tensorlet._src.framework.module import Module
from tensorlet._src.framework.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.graph import autograph
from tensorlet._src.keras import backend as _backend
from tensorlet._src.keras import constraints, initializers, mixed_precision, regularizers
from tensorlet._src.keras.engine import call_context
from tensorlet._src.keras.engine.input_spec import InputSpec, assert_input_compatibility, shape_tuple  # noqa: F401
from tensorlet._src.keras.engine.layer_utils import (auto_config, call_sig, is_default, to_shape_struct,
                                                   variable_aggregation)
from tensorlet._src.keras.engine.masking import collect_mask, get_keras_mask, set_keras_mask
from tensorlet._src.keras.saving.serialization import serialize_keras_object
from tensorlet._src.keras.engine.name_scope import KerasScope, current_path, scope_stack
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.train import keras_trackable as _ckpt_deps
from tensorlet._src.util import nest
from tensorlet._src.ops import array_shape
from tensorlet._src.ops import math_binary
from tensorlet._src.ops.math_binary import divide_no_nan

_FLOATS = frozenset(("float16", "bfloat16", "float32", "float64"))


def _is_tensor_like(x):
    return isinstance(x, (Tensor, Variable))


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
        object.__setattr__(obj, "_auto_config", auto_config(cls, args, kwargs))
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
            name = _backend.auto_name(_backend.to_snake_case(type(self).__name__))
        elif not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name} (of type {type(name)})")
        self._name = name
        self._scope_name = name
        self._trainable = bool(trainable)
        self._dtype_policy = mixed_precision.get(dtype)
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
        self._supports_masking = not is_default(type(self).compute_mask, Layer.compute_mask)
        self.built = False
        self._activity_regularizer = regularizers.get(activity_regularizer)
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
            with KerasScope(self._name, self):
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
        if is_default(type(self).build, Layer.build):
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
        self._dtype_policy = mixed_precision.get(value)

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
        self._activity_regularizer = regularizers.get(value)

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
        init = initializers.get(initializer)
        if name is None:
            name = _backend.auto_name("variable")
        path = self._weight_path(name)
        agg = variable_aggregation(aggregation)
        with _context.init_scope():
            value = init(shape, dtype=dtype) if callable(init) else init
            value = convert_to_tensor(value)
            if value.dtype is not dtype:
                value = math_binary.cast(value, dtype)
            v = Variable(value, trainable=bool(trainable), dtype=dtype, name=name,
                         constraint=constraints.get(constraint), aggregation=agg)
        v._name = name
        v.path = path
        v.regularizer = regularizers.get(regularizer)
        v.overwrite_with_gradient = overwrite_with_gradient
        v.autocast = autocast
        (self._trainable_variables if trainable else self._non_trainable_variables).append(v)
        _STRUCTURE[0] += 1
        return v

    def _weight_path(self, name):
        prefix = current_path()
        if not prefix:
            prefix = self._name
        elif prefix.rsplit("/", 1)[-1] != self._name and not any(c is self for _, c in scope_stack()):
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
            elif isinstance(obj, Variable) and getattr(obj, "path", None) is not None:
                # Keras variables only: a raw tf.Variable attribute is not a weight (Keras 3)
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
        first = args[0] if args else (kwargs.get(call_sig(self).first) if call_sig(self).first else None)
        shapes = nest.map_structure(lambda t: shape_tuple(t) if hasattr(t, "shape") else t, first) \
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
            self.build(to_shape_struct(shape))
        self.built = True

    # --- call -----------------------------------------------------------------------------------------------------
    def call(self, *args, **kwargs):
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` method implemented.")

    def __call__(self, *args, **kwargs):
        from tensorlet._src.keras.engine import keras_tensor as _kt

        if _kt.any_symbolic(args, kwargs):
            from tensorlet._src.keras.engine import node as _node

            return _node.symbolic_call(self, args, kwargs)
        sig = call_sig(self)
        args, kwargs = self._convert_inputs(args, kwargs)
        if not self.built:
            self._maybe_build(args, kwargs)
        first = args[0] if args else kwargs.get(sig.first)
        if self._input_spec is not None:
            assert_input_compatibility(self._input_spec, first, self._name)
        # training: explicit argument, else the outer layer's, else the call signature's default
        outer = call_context.get_call_context()
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
            previous_mask = collect_mask(first)
            if previous_mask is not None:
                kwargs["mask"] = previous_mask
        elif not sig.has_mask:
            previous_mask = collect_mask(first)
        else:
            previous_mask = kwargs.get("mask")
        ctx = outer if outer is not None else call_context.CallContext(self, training)
        if outer is None:
            self._clear_losses()
            call_context.set_call_context(ctx)
        prev_training = ctx.training
        ctx.training = training
        try:
            with KerasScope(self._name, self):
                call = self.call
                if _tracing():  # inside tf.function: the layer's Python control flow goes through AutoGraph
                    call = autograph.convert(call)
                outputs = call(*args, **kwargs)
        finally:
            ctx.training = prev_training
            if outer is None:
                call_context.set_call_context(None)
        self._called = True
        if self._activity_regularizer is not None:
            for out in nest.flatten(outputs):
                if _is_tensor_like(out):
                    loss = self._activity_regularizer(out)
                    if len(out.shape) > 0:  # Keras 3.15 divides by the batch size
                        loss = divide_no_nan(loss, math_binary.cast(array_shape.shape(out)[0], loss.dtype))
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
                    mask = get_keras_mask(x)
                    y = math_binary.cast(x, compute)
                    if mask is not None:
                        set_keras_mask(y, mask)
                    return y
                return x
            if isinstance(x, (np.ndarray, np.generic)) or (hasattr(x, "__array__") and not isinstance(x, type)):
                t = convert_to_tensor(x)
                if autocast and t.dtype.is_floating and t.dtype.name != compute and compute in _FLOATS:
                    t = math_binary.cast(t, compute)
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
        if is_default(type(self).get_config, Layer.get_config):
            auto = self._auto_config
            if auto is not None:
                config.update(auto)
                params = inspect.signature(type(self).__init__).parameters
                has_kwargs = "kwargs" in params and params["kwargs"].kind is inspect.Parameter.VAR_KEYWORD
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
        config["dtype"] = mixed_precision.serialize(self._dtype_policy)
        if self._activity_regularizer is not None:
            config["activity_regularizer"] = serialize_keras_object(self._activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from ``get_config()``'s dict."""
        config = dict(config)
        if "dtype" in config and isinstance(config["dtype"], dict):
            config["dtype"] = mixed_precision.get(config["dtype"])
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
        if isinstance(value, Variable) and getattr(value, "path", None) is not None:  # a keras.Variable: tracked
            own = self._trainable_variables if value.trainable else self._non_trainable_variables
            if not any(v is value for v in own):
                own.append(value)
        _ckpt_deps.note_assignment(self, name, value)  # checkpoint dependencies keep first-assignment order
        if _module.setattr_hook is not None:
            _module.setattr_hook(self, name, value)

    @property
    def submodules(self):
        """Keras 3 layers are not ``tf.Module``s to their users: they have no ``submodules`` (``_flatten_layers``
        lists the nested layers)."""
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'submodules'")

    def _checkpoint_dependencies(self):
        """What ``tf.train.Checkpoint`` saves under this layer, named as Keras 3 on TF names it."""
        return _ckpt_deps.layer_children(self)


_STRUCTURE = [0]  # bumped whenever layer structure may change (attribute set, weight added, layer built)
_LOSSES_ADDED = [0]  # add_loss calls so far: clearing losses is skipped while no layer ever added one


# --- helpers --------------------------------------------------------------------------------------------------------
def _tracing() -> bool:
    interp = _context.ctx.interp
    return interp is not None and hasattr(interp, "read_variable")


