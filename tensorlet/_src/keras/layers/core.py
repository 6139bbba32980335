"""Core Keras layers: Dense, Activation, Dropout (+ spatial), Flatten, Reshape, Permute, RepeatVector, Lambda,
Embedding, Masking, Identity.  Weights and formulas follow Keras 3 (Dense kernel ``(in, out)``), so weights move
between tensorlet and Keras with ``get_weights``/``set_weights``.

>>> tf.keras.layers.Dense(4, activation="relu")(np.ones((2, 3), np.float32)).shape
TensorShape([2, 4])
"""

from __future__ import annotations

import math

from tensorlet._src.ops import array_shape
from tensorlet._src.ops.array_shape import expand_dims, reshape, squeeze, tile, transpose
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary import cast, not_equal
from tensorlet._src.ops.matmul import matmul
from tensorlet._src.ops.random_stateless import stateless_uniform
from tensorlet._src.ops.reduce import reduce_any
from tensorlet._src.keras import backend as _backend
from tensorlet._src.keras.engine.base_layer import InputSpec, Layer, set_keras_mask
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import mixed_precision
from tensorlet._src.keras import activations, constraints, initializers, regularizers
from tensorlet._src.keras.saving.serialization import serialize_keras_object as _ser


def _dim_list(x):
    """Static dims where known, dynamic scalars elsewhere (works on traced tensors)."""
    static = list(x.shape)
    if all(d is not None for d in static):
        return static
    dyn = array_shape.shape(x)
    return [d if d is not None else dyn[i] for i, d in enumerate(static)]


# --- Dense ----------------------------------------------------------------------------------------------------------
@tf_export("keras.layers.Dense")
class Dense(Layer):
    """``activation(inputs @ kernel + bias)``, kernel of shape ``(input_dim, units)``.

    >>> layer = tf.keras.layers.Dense(3)
    >>> layer(np.ones((2, 5), np.float32)).shape
    TensorShape([2, 3])
    >>> [w.shape for w in layer.get_weights()]
    [(5, 3), (3,)]
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, int) or units <= 0:  # Keras: '3', 2.5, numpy ints and None are refused
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. "
                             f"Received: units={units}")
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.quantization_config = quantization_config
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {tuple(input_shape)}")
        self.kernel = self.add_weight(name="kernel", shape=(input_dim, self.units),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})
        self.built = True

    def call(self, inputs, training=None):
        kernel = self.kernel
        bias = self.bias
        if not inputs.dtype.is_floating:  # integer inputs (uint8 images): Keras's matmul promotes them to float
            inputs = cast(inputs, self.compute_dtype)
        if kernel.dtype != inputs.dtype:
            kernel = cast(kernel, inputs.dtype)
            bias = cast(bias, inputs.dtype) if bias is not None else None
        rank = inputs.shape.rank if hasattr(inputs.shape, "rank") else len(inputs.shape)
        if rank == 2:
            x = matmul(inputs, kernel)
        else:
            dims = _dim_list(inputs)
            flat = reshape(inputs, [-1, dims[-1]])
            x = reshape(matmul(flat, kernel), dims[:-1] + [self.units])
        if bias is not None:
            x = x + bias
        if self.activation is not None:
            x = self.activation(x)
        return x

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)[:-1] + (self.units,)

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable, "dtype": _dtype_config(self)}
        config.update({
            "units": self.units, "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
            "kernel_initializer": _ser(self.kernel_initializer), "bias_initializer": _ser(self.bias_initializer),
            "kernel_regularizer": _ser(self.kernel_regularizer), "bias_regularizer": _ser(self.bias_regularizer),
            "kernel_constraint": _ser(self.kernel_constraint), "bias_constraint": _ser(self.bias_constraint),
            "quantization_config": None})
        if self.lora_rank:
            config["lora_rank"] = self.lora_rank
            config["lora_alpha"] = self.lora_alpha
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = _ser(self.activity_regularizer)
        return config


def _dtype_config(layer):
    return mixed_precision.serialize(layer.dtype_policy)


def _base_config(layer, **extra):
    config = {"name": layer.name, "trainable": layer.trainable, "dtype": _dtype_config(layer)}
    config.update(extra)
    return config


# --- Activation -----------------------------------------------------------------------------------------------------
@tf_export("keras.layers.Activation")
class Activation(Layer):
    """Applies an activation function: ``Activation("relu")``."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)
        self._build_at_init()

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return _base_config(self, activation=activations.serialize(self.activation))


@tf_export("keras.layers.Identity")
class Identity(Layer):
    """Returns its inputs unchanged."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        from tensorlet._src.util import nest

        return nest.map_structure(lambda x: x, inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return _base_config(self)


# --- Dropout --------------------------------------------------------------------------------------------------------
def _check_rate(rate):
    if not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                         f"Received: rate={rate}")


def dropout(inputs, rate, noise_shape, seed):
    """Inverted dropout with a stateless random mask drawn from ``seed`` (a ``[2]`` int tensor)."""
    shape = noise_shape if noise_shape is not None else array_shape.shape(inputs)
    u = stateless_uniform(shape, seed=seed, dtype=inputs.dtype if inputs.dtype.is_floating else "float32")
    keep = cast(u >= rate, inputs.dtype)
    return inputs * cast(1.0 / (1.0 - rate), inputs.dtype) * keep


@tf_export("keras.layers.Dropout")
class Dropout(Layer):
    """Sets a fraction ``rate`` of inputs to 0 during training and scales the rest by ``1 / (1 - rate)``.

    >>> tf.keras.layers.Dropout(0.5)(np.ones((2, 2), np.float32)).numpy().tolist()   # inference: identity
    [[1.0, 1.0], [1.0, 1.0]]
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_rate(rate)
        self.rate = rate
        self.seed = seed
        self.noise_shape = tuple(noise_shape) if noise_shape is not None else None
        if rate > 0:
            from tensorlet._src.keras.random import SeedGenerator

            self.seed_generator = SeedGenerator(seed)
            self._seed_generators.append(self.seed_generator)
        self.supports_masking = True
        self._build_at_init()

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dims = _dim_list(inputs)
        return [dims[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return dropout(inputs, self.rate, self._noise_shape(inputs), self.seed_generator.next())
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return _base_config(self, rate=self.rate, seed=self.seed, noise_shape=self.noise_shape)


class _SpatialDropout(Dropout):
    _rank = 1

    def __init__(self, rate, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, seed=seed, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return dropout(inputs, self.rate, self._noise_shape(inputs), self.seed_generator.next())
        return inputs

    def get_config(self):
        return {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype_policy.name}


@tf_export("keras.layers.SpatialDropout1D")
class SpatialDropout1D(_SpatialDropout):
    """Drops whole 1D feature maps (channels) of ``(batch, steps, channels)`` inputs."""

    _rank = 1

    def _noise_shape(self, inputs):
        d = _dim_list(inputs)
        return [d[0], 1, d[2]]


class _SpatialDropoutND(_SpatialDropout):
    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, seed=seed, name=name, dtype=dtype, **kwargs)
        self.data_format = _backend.standardize_data_format(data_format)

    def _noise_shape(self, inputs):
        d = _dim_list(inputs)
        ones = [1] * self._rank
        if self.data_format == "channels_first":
            return [d[0], d[1]] + ones
        return [d[0]] + ones + [d[-1]]

    def get_config(self):
        return {"rate": self.rate, "data_format": self.data_format, "seed": self.seed, "name": self.name,
                "dtype": self.dtype_policy.name}


@tf_export("keras.layers.SpatialDropout2D")
class SpatialDropout2D(_SpatialDropoutND):
    """Drops whole 2D feature maps of ``(batch, rows, cols, channels)`` inputs."""

    _rank = 2


@tf_export("keras.layers.SpatialDropout3D")
class SpatialDropout3D(_SpatialDropoutND):
    """Drops whole 3D feature maps of 5D inputs."""

    _rank = 3


# --- shape layers ---------------------------------------------------------------------------------------------------
@tf_export("keras.layers.Flatten")
class Flatten(Layer):
    """Flattens all dimensions but the batch: ``(None, 4, 5) -> (None, 20)``."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _backend.standardize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = len(inputs.shape)
        if self.data_format == "channels_first" and rank > 2:
            inputs = transpose(inputs, [0] + list(range(2, rank)) + [1])
        rest = list(inputs.shape)[1:]
        if rank == 1:
            return expand_dims(inputs, 1)
        if all(d is not None for d in rest):
            n = int(math.prod(rest))
            batch = inputs.shape[0]
            return reshape(inputs, [batch if batch is not None else array_shape.shape(inputs)[0], n])
        return reshape(inputs, [array_shape.shape(inputs)[0], -1])

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if not input_shape:
            return (1,)
        rest = input_shape[1:]
        n = int(math.prod(rest)) if all(d is not None for d in rest) else None
        return (input_shape[0], n if rest else 1)

    def get_config(self):
        return _base_config(self, data_format=self.data_format)


@tf_export("keras.layers.Reshape")
class Reshape(Layer):
    """Reshapes the non-batch dimensions: ``Reshape((3, 4))``; one ``-1`` is inferred."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target_shape = tuple(target_shape)
        if target_shape.count(-1) > 1:
            raise ValueError("The `target_shape` argument must not contain more than one `-1` value. Received: "
                             f"target_shape={target_shape}")
        self.target_shape = target_shape

    def _resolved(self, input_shape):
        rest = input_shape[1:]
        target = list(self.target_shape)
        if -1 in target:
            known = int(math.prod(d for d in target if d != -1))
            if all(d is not None for d in rest):
                total = int(math.prod(rest))
                if known == 0 or total % known:
                    raise ValueError("The total size of the tensor must be unchanged. Received: input_shape="
                                     f"{tuple(input_shape)}, target_shape={self.target_shape}")
                target[target.index(-1)] = total // known
            else:
                target[target.index(-1)] = None
        elif all(d is not None for d in rest) and int(math.prod(rest)) != int(math.prod(target)):
            raise ValueError("The total size of the tensor must be unchanged. Received: input_shape="
                             f"{tuple(input_shape)}, target_shape={self.target_shape}")
        return tuple(target)

    def call(self, inputs):
        target = self._resolved(tuple(inputs.shape))
        batch = inputs.shape[0]
        shape = ([batch if batch is not None else array_shape.shape(inputs)[0]]
                 + [-1 if d is None else d for d in target])
        return reshape(inputs, shape)

    def compute_output_shape(self, input_shape):
        return (tuple(input_shape)[0],) + self._resolved(tuple(input_shape))

    def get_config(self):
        return _base_config(self, target_shape=self.target_shape)


@tf_export("keras.layers.Permute")
class Permute(Layer):
    """Permutes the non-batch dimensions: ``Permute((2, 1))`` swaps axes 1 and 2."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self):
        return _base_config(self, dims=self.dims)


@tf_export("keras.layers.RepeatVector")
class RepeatVector(Layer):
    """Repeats a ``(batch, features)`` input ``n`` times: ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        if not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        return _base_config(self, n=self.n)


# --- Lambda ---------------------------------------------------------------------------------------------------------
@tf_export("keras.layers.Lambda")
class Lambda(Layer):
    """Wraps a function as a layer: ``Lambda(lambda x: x ** 2)``."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self._output_shape = output_shape
        self.mask = mask
        import inspect

        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            params = {}
        self._fn_has_training = "training" in params
        self._fn_has_mask = "mask" in params
        self.supports_masking = mask is not None

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_has_mask:
            kwargs["mask"] = mask
        if self._fn_has_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        shape = tuple(self._output_shape)
        return (tuple(input_shape)[0],) + shape if not isinstance(input_shape, list) else shape

    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object as _ser

        config = _base_config(self)
        fn = self.function
        if getattr(fn, "__name__", "") == "<lambda>":
            config["function"] = _ser(fn)
        else:
            config["function"] = _ser(fn)
        config["arguments"] = _ser(self.arguments)
        if self._output_shape is not None and not callable(self._output_shape):
            config["output_shape"] = self._output_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        config = dict(config)
        config["function"] = deserialize_keras_object(config["function"], custom_objects=custom_objects,
                                                      safe_mode=True if safe_mode is None else safe_mode)
        if "arguments" in config:
            config["arguments"] = deserialize_keras_object(config["arguments"])
        return super().from_config(config)


# --- Embedding / Masking --------------------------------------------------------------------------------------------
@tf_export("keras.layers.Embedding")
class Embedding(Layer):
    """Maps integer indices to dense vectors: weight ``embeddings`` of shape ``(input_dim, output_dim)``.

    >>> tf.keras.layers.Embedding(10, 4)(np.array([[1, 2]])).shape
    TensorShape([1, 2, 4])
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, weights=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        kwargs.pop("input_length", None)
        for arg, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"`{arg}` must be a positive integer. Received: {arg}={value} "
                                 f"(of type {type(value).__name__}).")
        if quantization_config is not None:
            raise NotImplementedError("tensorlet does not implement quantized Embedding layers yet "
                                      f"(quantization_config={quantization_config!r})")
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.autocast = False
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self._initial_weights = weights
        if weights is not None:
            self.build()

    def build(self, input_shape=None):
        if self.built:
            return
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer, name="embeddings",
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint, trainable=True)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, inputs):
        if inputs.dtype.name not in ("int32", "int64"):
            inputs = cast(inputs, "int32")
        out = gather(self.embeddings, inputs)
        if out.dtype.name != self.compute_dtype:
            out = cast(out, self.compute_dtype)
        return out

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = _base_config(self, input_dim=self.input_dim, output_dim=self.output_dim,
                              embeddings_initializer=_ser(self.embeddings_initializer),
                              embeddings_regularizer=_ser(self.embeddings_regularizer),
                              activity_regularizer=_ser(self.activity_regularizer),
                              embeddings_constraint=_ser(self.embeddings_constraint), mask_zero=self.mask_zero,
                              quantization_config=None)
        if self.lora_rank:
            config["lora_rank"] = self.lora_rank
            config["lora_alpha"] = self.lora_alpha
        return config


@tf_export("keras.layers.Masking")
class Masking(Layer):
    """Masks timesteps whose features all equal ``mask_value`` (downstream RNNs skip them)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True
        self._build_at_init()

    def compute_mask(self, inputs, mask=None):
        return reduce_any(not_equal(inputs, cast(self.mask_value, inputs.dtype)), axis=-1)

    def call(self, inputs):
        keep = reduce_any(not_equal(inputs, cast(self.mask_value, inputs.dtype)), axis=-1, keepdims=True)
        outputs = inputs * cast(keep, inputs.dtype)
        set_keras_mask(outputs, squeeze(keep, axis=-1))
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return _base_config(self, mask_value=self.mask_value)
