"""Convolution layers: ``Conv1D/2D/3D``, ``Conv1DTranspose/2DTranspose/3DTranspose``, ``DepthwiseConv1D/2D`` and
``SeparableConv1D/2D`` with Keras 3's arguments, weight layout (kernels ``(*kernel_size, in / groups, filters)``,
transposed ``(*kernel_size, filters, in)``, depthwise ``(*kernel_size, in, depth_multiplier)``), errors and configs.

channels_first inputs are transposed to channels_last around the op, as Keras's TensorFlow backend does on CPU.
"""

from __future__ import annotations

from tensorlet._src.ops import array_shape
from tensorlet._src.ops import array_blocks
from tensorlet._src.ops.array_shape import expand_dims, reshape, squeeze
from tensorlet._src.ops.nn_conv_transpose import conv_transpose, depthwise_conv2d
from tensorlet._src.ops.nn_conv import conv2d, convolution
from tensorlet._src.keras.engine.base_layer import InputSpec, Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import activations, constraints, initializers, regularizers


def _add_bias(layer, y, bias, filters, rank):
    shape = (1,) * (rank + 1) + (filters,) if layer.data_format == "channels_last" else (1, filters) + (1,) * rank
    return y + reshape(U.cast_like(bias, y), shape)


def _finish(layer, y, rank, filters):
    if layer.use_bias:
        y = _add_bias(layer, y, layer.bias, filters, rank)
    if layer.activation is not None:
        y = layer.activation(y)
    return y


def _channels(layer, input_shape):
    return input_shape[-1] if layer.data_format == "channels_last" else input_shape[1]


def _common_config(layer, initializer_names):
    """The activation/bias/initializer/regularizer/constraint entries, in Keras's order."""
    cfg = {"activation": activations.serialize(layer.activation), "use_bias": layer.use_bias}
    for n in initializer_names:
        cfg[f"{n}_initializer"] = initializers.serialize(getattr(layer, f"{n}_initializer"))
    cfg["bias_initializer"] = initializers.serialize(layer.bias_initializer)
    for n in initializer_names:
        cfg[f"{n}_regularizer"] = regularizers.serialize(getattr(layer, f"{n}_regularizer"))
    cfg["bias_regularizer"] = regularizers.serialize(layer.bias_regularizer)
    cfg["activity_regularizer"] = regularizers.serialize(layer.activity_regularizer)
    for n in initializer_names:
        cfg[f"{n}_constraint"] = constraints.serialize(getattr(layer, f"{n}_constraint"))
    cfg["bias_constraint"] = constraints.serialize(layer.bias_constraint)
    return cfg


def _set_family(layer, prefix, initializer, regularizer, constraint):
    setattr(layer, f"{prefix}_initializer", initializers.get(initializer))
    setattr(layer, f"{prefix}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{prefix}_constraint", constraints.get(constraint))


def _check_common(layer, filters):
    if filters is not None and filters <= 0:
        raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                         f"filters={filters}.")
    if not all(layer.kernel_size):
        raise ValueError(f"The argument `kernel_size` cannot contain 0. Received kernel_size={layer.kernel_size}.")
    if not all(layer.strides):
        raise ValueError(f"The argument `strides` cannot contains 0. Received strides={layer.strides}")
    if max(layer.strides) > 1 and max(layer.dilation_rate) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={layer.strides} and dilation_rate={layer.dilation_rate}")


class BaseConv(Layer):
    """N-D convolution: ``activation(conv(inputs, kernel) + bias)``."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if lora_rank:
            raise NotImplementedError("tensorlet's convolution layers do not implement LoRA (`lora_rank`) yet.")
        self.rank = rank
        self.filters = filters
        self.groups = groups
        self.kernel_size = U.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = U.standardize_tuple(strides, rank, "strides")
        self.dilation_rate = U.standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = U.standardize_padding(padding, allow_causal=rank == 1)
        self.data_format = U.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        _set_family(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        _set_family(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.lora_rank = None
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if filters is not None and filters <= 0:
            _check_common(self, filters)
        if groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: groups={groups}.")
        if filters is not None and filters % groups != 0:
            raise ValueError(f"The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={groups}, filters={filters}.")
        _check_common(self, filters)

    def build(self, input_shape):
        c = _channels(self, input_shape)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1 if self.data_format == "channels_last" else 1: c})
        if c % self.groups != 0:
            raise ValueError(f"The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {c} channels (full input shape is "
                             f"{tuple(input_shape)}).")
        self.compute_output_shape(input_shape)
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (c // self.groups, self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self.dtype)
        self.built = True

    def convolution_op(self, inputs, kernel):
        rank, x = self.rank, inputs
        cf = self.data_format == "channels_first"
        if cf:
            x = U.to_channels_last(x, rank)
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = array_blocks.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        y = convolution(x, U.cast_like(kernel, x), strides=list(self.strides), padding=padding.upper(),
                             data_format=U.tf_format("channels_last", rank), dilations=list(self.dilation_rate))
        return U.to_channels_first(y, rank) if cf else y

    def call(self, inputs):
        return _finish(self, self.convolution_op(inputs, self.kernel), self.rank, self.filters)

    def compute_output_shape(self, input_shape):
        return U.conv_output_shape(input_shape, self.filters, self.kernel_size, self.strides, self.padding,
                                   self.data_format, self.dilation_rate)

    def get_config(self):
        config = super().get_config()
        config.update({"filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
                       "padding": self.padding, "data_format": self.data_format,
                       "dilation_rate": self.dilation_rate, "groups": self.groups})
        config.update(_common_config(self, ["kernel"]))
        return config


@tf_export("keras.layers.Conv1D", "keras.layers.Convolution1D")
class Conv1D(BaseConv):
    """1-D convolution (temporal); ``padding`` may also be ``"causal"``.

    >>> tf.keras.layers.Conv1D(4, 3)(tf.ones([2, 10, 3])).shape
    TensorShape([2, 8, 4])
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


@tf_export("keras.layers.Conv2D", "keras.layers.Convolution2D")
class Conv2D(BaseConv):
    """2-D convolution over images; kernel ``(kh, kw, in / groups, filters)``.

    >>> tf.keras.layers.Conv2D(8, 3, padding="same")(tf.ones([1, 5, 5, 3])).shape
    TensorShape([1, 5, 5, 8])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


@tf_export("keras.layers.Conv3D", "keras.layers.Convolution3D")
class Conv3D(BaseConv):
    """3-D convolution over volumes.

    >>> tf.keras.layers.Conv3D(2, 2)(tf.ones([1, 3, 3, 3, 1])).shape
    TensorShape([1, 2, 2, 2, 2])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


# --- transposed -------------------------------------------------------------------------------------------------

class BaseConvTranspose(Layer):
    """N-D transposed convolution; kernel ``(*kernel_size, filters, in_channels)``."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = filters
        self.kernel_size = U.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = U.standardize_tuple(strides, rank, "strides")
        self.dilation_rate = U.standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = U.standardize_padding(padding)
        self.output_padding = None if output_padding is None else \
            U.standardize_tuple(output_padding, rank, "output_padding", allow_zero=True)
        self.data_format = U.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        _set_family(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        _set_family(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if filters is not None and filters <= 0:
            _check_common(self, filters)
        if not all(self.kernel_size):
            _check_common(self, filters)
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received strides={self.strides}.")
        if self.output_padding is not None:
            for i, (op, s) in enumerate(zip(self.output_padding, self.strides)):
                if op >= s:
                    raise ValueError(f"`output_padding` must be strictly less than `strides` for all dimensions. "
                                     f"At dimension {i}, `output_padding` is {op} but `strides` is {s}. Received: "
                                     f"output_padding={self.output_padding}, strides={self.strides}")
        _check_common(self, filters)

    def build(self, input_shape):
        c = _channels(self, input_shape)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1 if self.data_format == "channels_last" else 1: c})
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (self.filters, c),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self.dtype)
        self.built = True

    def _spatial_out(self, spatial):
        ops = self.output_padding or (None,) * self.rank
        return [U.deconv_length(n, k, s, self.padding, op, d)
                for n, k, s, op, d in zip(spatial, self.kernel_size, self.strides, ops, self.dilation_rate)]

    def call(self, inputs):
        rank, x = self.rank, inputs
        cf = self.data_format == "channels_first"
        if cf:
            x = U.to_channels_last(x, rank)
        shape = list(x.shape)
        batch = shape[0] if shape[0] is not None else array_shape.shape(x)[0]
        spatial = shape[1:-1]
        if None in spatial:
            raise ValueError(f"{type(self).__name__} needs known spatial dimensions; received input shape "
                             f"{tuple(inputs.shape)}.")
        out_shape = [batch] + self._spatial_out(spatial) + [self.filters]
        y = conv_transpose(x, U.cast_like(self.kernel, x), out_shape, list(self.strides),
                                padding=self.padding.upper(), data_format=U.tf_format("channels_last", rank),
                                dilations=list(self.dilation_rate))
        if cf:
            y = U.to_channels_first(y, rank)
        return _finish(self, y, rank, self.filters)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        cl = self.data_format == "channels_last"
        spatial = self._spatial_out(input_shape[1:-1] if cl else input_shape[2:])
        return tuple([input_shape[0]] + spatial + [self.filters]) if cl else \
            tuple([input_shape[0], self.filters] + spatial)

    def get_config(self):
        config = super().get_config()
        config.update({"filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
                       "padding": self.padding, "output_padding": self.output_padding,
                       "data_format": self.data_format, "dilation_rate": self.dilation_rate})
        config.update(_common_config(self, ["kernel"]))
        return config


@tf_export("keras.layers.Conv1DTranspose", "keras.layers.Convolution1DTranspose")
class Conv1DTranspose(BaseConvTranspose):
    """1-D transposed convolution.

    >>> tf.keras.layers.Conv1DTranspose(2, 3, strides=2)(tf.ones([1, 4, 3])).shape
    TensorShape([1, 9, 2])
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                         bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


@tf_export("keras.layers.Conv2DTranspose", "keras.layers.Convolution2DTranspose")
class Conv2DTranspose(BaseConvTranspose):
    """2-D transposed convolution ("deconvolution").

    >>> tf.keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(tf.ones([1, 4, 4, 3])).shape
    TensorShape([1, 8, 8, 4])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                         bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


@tf_export("keras.layers.Conv3DTranspose", "keras.layers.Convolution3DTranspose")
class Conv3DTranspose(BaseConvTranspose):
    """3-D transposed convolution."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 output_padding=None, dilation_rate=(1, 1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, output_padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                         bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


# --- depthwise and separable ------------------------------------------------------------------------------------

def _depthwise(x, kernel, rank, strides, padding, dilation_rate):
    """Depthwise convolution of a channels_last input (1-D runs as 2-D over a unit height).

    Strides > 1 together with dilation > 1 (which TF's op rejects) runs the dilated convolution at stride 1 with
    SAME's explicit padding, then subsamples, as Keras's TensorFlow backend does."""
    k = kernel
    if rank == 1:
        x = expand_dims(x, 1)
        k = expand_dims(k, 0)
        strides, dilation_rate = (1,) + tuple(strides), (1,) + tuple(dilation_rate)
    strides, dilation_rate = tuple(strides), tuple(dilation_rate)
    pad = padding.upper()
    if max(strides) > 1 and max(dilation_rate) > 1:
        if pad == "SAME":
            x = _pad_same(x, tuple(k.shape[:2]), strides, dilation_rate)
        y = depthwise_conv2d(x, k, [1, 1, 1, 1], "VALID", dilations=list(dilation_rate))
        y = y[:, ::strides[0], ::strides[1], :]
    else:
        y = depthwise_conv2d(x, k, [1, strides[0], strides[1], 1], pad, dilations=list(dilation_rate))
    return y


def _pad_same(x, kernel_size, strides, dilation_rate):
    shape = list(x.shape)
    pads = [[0, 0]]
    for i, (k, s, d) in enumerate(zip(kernel_size, strides, dilation_rate)):
        n = shape[1 + i]
        eff = (k - 1) * d + 1
        total = max(((n + s - 1) // s - 1) * s + eff - n, 0)
        pads.append([total // 2, total - total // 2])
    return array_blocks.pad(x, pads + [[0, 0]])


class BaseDepthwiseConv(Layer):
    """Depthwise convolution; kernel ``(*kernel_size, in_channels, depth_multiplier)``."""

    def __init__(self, rank, depth_multiplier, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.depth_multiplier = depth_multiplier
        self.kernel_size = U.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = U.standardize_tuple(strides, rank, "strides")
        self.dilation_rate = U.standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = U.standardize_padding(padding)
        self.data_format = U.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        _set_family(self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        _set_family(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if depth_multiplier is not None and depth_multiplier <= 0:
            raise ValueError(f"Invalid value for argument `depth_multiplier`. Expected a strictly positive value. "
                             f"Received depth_multiplier={depth_multiplier}.")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0. Received strides={self.strides}")

    def build(self, input_shape):
        c = _channels(self, input_shape)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1 if self.data_format == "channels_last" else 1: c})
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (c, self.depth_multiplier),
                                      initializer=self.depthwise_initializer,
                                      regularizer=self.depthwise_regularizer,
                                      constraint=self.depthwise_constraint, trainable=True, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.depth_multiplier * c,),
                                        initializer=self.bias_initializer, regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, trainable=True, dtype=self.dtype)
        self.built = True

    def call(self, inputs):
        x, rank = inputs, self.rank
        cf = self.data_format == "channels_first"
        if cf:
            x = U.to_channels_last(x, rank)
        y = _depthwise(x, U.cast_like(self.kernel, x), rank, self.strides, self.padding, self.dilation_rate)
        if rank == 1:
            y = squeeze(y, [1])
        if cf:
            y = U.to_channels_first(y, rank)
        return _finish(self, y, rank, int(self.kernel.shape[-2]) * self.depth_multiplier)

    def compute_output_shape(self, input_shape):
        c = _channels(self, input_shape)
        return U.conv_output_shape(input_shape, None if c is None else c * self.depth_multiplier, self.kernel_size,
                                   self.strides, self.padding, self.data_format, self.dilation_rate)

    def get_config(self):
        config = super().get_config()
        config.update({"depth_multiplier": self.depth_multiplier, "kernel_size": self.kernel_size,
                       "strides": self.strides, "padding": self.padding, "data_format": self.data_format,
                       "dilation_rate": self.dilation_rate})
        config.update(_common_config(self, ["depthwise"]))
        return config


@tf_export("keras.layers.DepthwiseConv1D")
class DepthwiseConv1D(BaseDepthwiseConv):
    """1-D depthwise convolution (each input channel convolved with its own ``depth_multiplier`` filters)."""

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, depth_multiplier, kernel_size, strides, padding, data_format, dilation_rate, activation,
                         use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)


@tf_export("keras.layers.DepthwiseConv2D")
class DepthwiseConv2D(BaseDepthwiseConv):
    """2-D depthwise convolution.

    >>> tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=2)(tf.ones([1, 5, 5, 3])).shape
    TensorShape([1, 3, 3, 6])
    """

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, depth_multiplier, kernel_size, strides, padding, data_format, dilation_rate, activation,
                         use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)


class BaseSeparableConv(Layer):
    """Depthwise then pointwise convolution; weights depthwise_kernel, pointwise_kernel, bias."""

    def __init__(self, rank, depth_multiplier, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.depth_multiplier = depth_multiplier
        self.filters = filters
        self.kernel_size = U.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = U.standardize_tuple(strides, rank, "strides")
        self.dilation_rate = U.standardize_tuple(dilation_rate, rank, "dilation_rate")
        self.padding = U.standardize_padding(padding)
        self.data_format = U.standardize_data_format(data_format)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        _set_family(self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        _set_family(self, "pointwise", pointwise_initializer, pointwise_regularizer, pointwise_constraint)
        _set_family(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        if depth_multiplier is not None and depth_multiplier <= 0:
            raise ValueError(f"Invalid value for argument `depth_multiplier`. Expected a strictly positive value. "
                             f"Received depth_multiplier={depth_multiplier}.")
        if filters is not None and filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                             f"filters={filters}.")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0. Received: "
                             f"kernel_size={self.kernel_size}.")
        if not all(self.strides):
            raise ValueError(f"The argument `strides` cannot contains 0(s). Received: strides={self.strides}")

    def build(self, input_shape):
        c = _channels(self, input_shape)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1 if self.data_format == "channels_last" else 1: c})
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel", shape=self.kernel_size + (c, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True, dtype=self.dtype)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel", shape=(1,) * self.rank + (self.depth_multiplier * c, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self.dtype)
        self.built = True

    def call(self, inputs):
        x, rank = inputs, self.rank
        cf = self.data_format == "channels_first"
        if cf:
            x = U.to_channels_last(x, rank)
        y = _depthwise(x, U.cast_like(self.depthwise_kernel, x), rank, self.strides, self.padding,
                       self.dilation_rate)
        pw = U.cast_like(self.pointwise_kernel, x)
        if rank == 1:
            pw = expand_dims(pw, 0)
        y = conv2d(y, pw, 1, "VALID")
        if rank == 1:
            y = squeeze(y, [1])
        if cf:
            y = U.to_channels_first(y, rank)
        return _finish(self, y, rank, self.filters)

    def compute_output_shape(self, input_shape):
        return U.conv_output_shape(input_shape, self.filters, self.kernel_size, self.strides, self.padding,
                                   self.data_format, self.dilation_rate)

    def get_config(self):
        config = super().get_config()
        config.update({"depth_multiplier": self.depth_multiplier, "filters": self.filters,
                       "kernel_size": self.kernel_size, "strides": self.strides, "padding": self.padding,
                       "data_format": self.data_format, "dilation_rate": self.dilation_rate})
        config.update(_common_config(self, ["depthwise", "pointwise"]))
        return config


@tf_export("keras.layers.SeparableConv1D", "keras.layers.SeparableConvolution1D")
class SeparableConv1D(BaseSeparableConv):
    """1-D separable convolution."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, depth_multiplier, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs)


@tf_export("keras.layers.SeparableConv2D", "keras.layers.SeparableConvolution2D")
class SeparableConv2D(BaseSeparableConv):
    """2-D separable convolution.

    >>> tf.keras.layers.SeparableConv2D(4, 3)(tf.ones([1, 5, 5, 2])).shape
    TensorShape([1, 3, 3, 4])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, depth_multiplier, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
                         depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs)
