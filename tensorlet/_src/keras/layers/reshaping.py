"""Spatial reshaping layers: ``ZeroPadding1D/2D/3D``, ``Cropping1D/2D/3D`` and ``UpSampling1D/2D/3D`` (nearest by
repetition; UpSampling2D also resizes with ``bilinear``, ``bicubic``, ``lanczos3/5``, ``area``)."""

from __future__ import annotations

from tensorlet._src.ops.array_blocks import pad
from tensorlet._src.ops.array_shape import repeat, transpose
from tensorlet._src.ops.image_ops import resize
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.keras.engine.base_layer import InputSpec, Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export

_ORD = ("1st", "2nd", "3rd")


def _pairs(value, n, what, example):
    """An int, n ints or n pairs -> n (before, after) pairs (Keras's errors)."""
    if isinstance(value, int):
        if what == "cropping" and value < 0:
            raise ValueError(f"`cropping` cannot be negative. Received: cropping={value}.")
        return ((value, value),) * n
    if hasattr(value, "__len__"):
        if len(value) != n:
            if n == 2:
                raise ValueError(f"`{what}` should have two elements. Received: {what}={value}.")
            raise ValueError(f"`{what}` should have {n} elements. Received: {value}.")
        return tuple(U.standardize_tuple(v, 2, f"{_ORD[i]} entry of {what}", allow_zero=True)
                     for i, v in enumerate(value))
    raise ValueError(f"`{what}` should be either an int, {example}. Received: {what}={value}.")


def _spatial(shape, data_format, rank):
    return list(range(1, rank + 1)) if data_format == "channels_last" else list(range(2, rank + 2))


class _ZeroPadding(Layer):
    _rank = 2

    def __init__(self, padding, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = U.standardize_data_format(data_format)
        if self._rank == 1:
            self.padding = U.standardize_tuple(padding, 2, "padding", allow_zero=True)
        else:
            example = ("a tuple of 2 ints (symmetric_height_crop, symmetric_width_crop), or a tuple of 2 tuples of 2 "
                       "ints ((top_crop, bottom_crop), (left_crop, right_crop))") if self._rank == 2 else \
                ("a tuple of 3 ints (symmetric_dim1_pad, symmetric_dim2_pad, symmetric_dim3_pad), or a tuple of 3 "
                 "tuples of 2 ints ((left_dim1_pad, right_dim1_pad), (left_dim2_pad, right_dim2_pad), "
                 "(left_dim3_pad, right_dim2_pad))")
            self.padding = _pairs(padding, self._rank, "padding", example)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _pads(self):
        return (self.padding,) if self._rank == 1 else self.padding

    def call(self, inputs):
        pads = [[0, 0]] * (self._rank + 2)
        for a, p in zip(_spatial(None, self.data_format, self._rank), self._pads()):
            pads[a] = list(p)
        return pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        for a, p in zip(_spatial(None, self.data_format, self._rank), self._pads()):
            if out[a] is not None:
                out[a] = out[a] + p[0] + p[1]
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


@tf_export("keras.layers.ZeroPadding1D")
class ZeroPadding1D(_ZeroPadding):
    """Zero-pads the steps axis: ``padding`` int or (left, right).

    >>> tf.keras.layers.ZeroPadding1D(2)(tf.ones([1, 3, 1])).shape
    TensorShape([1, 7, 1])
    """

    _rank = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


@tf_export("keras.layers.ZeroPadding2D")
class ZeroPadding2D(_ZeroPadding):
    """Zero-pads rows and columns.

    >>> tf.keras.layers.ZeroPadding2D(1)(tf.ones([1, 2, 2, 1])).shape
    TensorShape([1, 4, 4, 1])
    """

    _rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


@tf_export("keras.layers.ZeroPadding3D")
class ZeroPadding3D(_ZeroPadding):
    """Zero-pads the three spatial axes."""

    _rank = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class _Cropping(Layer):
    _rank = 2

    def _crops(self):
        return (self.cropping,) if self._rank == 1 else self.cropping

    def _check(self, shape, word):
        axes = _spatial(None, getattr(self, "data_format", "channels_last"), self._rank)
        for a, c in zip(axes, self._crops()):
            if shape[a] is not None and sum(c) >= shape[a]:
                if self._rank == 1:
                    raise ValueError(f"`cropping` parameter of `Cropping1D` layer must be smaller than the input "
                                     f"length. Received: {word}={tuple(shape)}, cropping={self.cropping}")
                raise ValueError(f"Values in `cropping` argument should be smaller than the corresponding spatial "
                                 f"dimension of the input. Received: {word}={tuple(shape)}, "
                                 f"cropping={self.cropping}")

    def call(self, inputs):
        self._check(tuple(inputs.shape), "inputs.shape" if self._rank == 1 else "inputs")
        idx = [slice(None)] * (self._rank + 2)
        for a, (lo, hi) in zip(_spatial(None, getattr(self, "data_format", "channels_last"), self._rank),
                               self._crops()):
            idx[a] = slice(lo, -hi if hi else None)
        return inputs[tuple(idx)]

    def compute_output_shape(self, input_shape):
        self._check(tuple(input_shape), "input_shape")
        out = list(input_shape)
        for a, c in zip(_spatial(None, getattr(self, "data_format", "channels_last"), self._rank), self._crops()):
            if out[a] is not None:
                out[a] = out[a] - c[0] - c[1]
        return tuple(out)


@tf_export("keras.layers.Cropping1D")
class Cropping1D(_Cropping):
    """Crops the steps axis: ``cropping`` int or (start, end).

    >>> tf.keras.layers.Cropping1D((1, 2))(tf.ones([1, 6, 2])).shape
    TensorShape([1, 3, 2])
    """

    _rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = U.standardize_tuple(cropping, 2, "cropping", allow_zero=True)
        self.input_spec = InputSpec(ndim=3)

    def get_config(self):
        config = super().get_config()
        config.update({"cropping": self.cropping})
        return config


class _CroppingND(_Cropping):
    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = U.standardize_data_format(data_format)
        example = ("a tuple of 2 ints (symmetric_height_crop, symmetric_width_crop), or a tuple of 2 tuples of 2 "
                   "ints ((top_crop, bottom_crop), (left_crop, right_crop))") if self._rank == 2 else \
            ("a tuple of 3 ints (symmetric_dim1_crop, symmetric_dim2_crop, symmetric_dim3_crop), or a tuple of 3 "
             "tuples of 2 ints ((left_dim1_crop, right_dim1_crop), (left_dim2_crop, right_dim2_crop), "
             "(left_dim3_crop, right_dim2_crop))")
        self.cropping = _pairs(cropping, self._rank, "cropping", example)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def get_config(self):
        config = super().get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config


@tf_export("keras.layers.Cropping2D")
class Cropping2D(_CroppingND):
    """Crops rows and columns: ``((top, bottom), (left, right))``.

    >>> tf.keras.layers.Cropping2D(1)(tf.ones([1, 4, 4, 1])).shape
    TensorShape([1, 2, 2, 1])
    """

    _rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


@tf_export("keras.layers.Cropping3D")
class Cropping3D(_CroppingND):
    """Crops the three spatial axes."""

    _rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


def _repeat(x, n, axis):
    return x if n == 1 else repeat(x, n, axis=axis)


@tf_export("keras.layers.UpSampling1D")
class UpSampling1D(Layer):
    """Repeats each step ``size`` times.

    >>> tf.keras.layers.UpSampling1D(2)(tf.ones([1, 3, 2])).shape
    TensorShape([1, 6, 2])
    """

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(f"Expected an integer value for `size`, got {type(size)}.")
        if size <= 0:
            raise ValueError(f"Argument `size` should be a positive integer. Received: size={size}")
        self.size = size
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        return _repeat(inputs, self.size, 1)

    def compute_output_shape(self, input_shape):
        n = input_shape[1]
        return (input_shape[0], None if n is None else n * self.size, input_shape[2])

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size})
        return config


class _UpSamplingND(Layer):
    _rank = 2

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        for a, s in zip(_spatial(None, self.data_format, self._rank), self.size):
            if out[a] is not None:
                out[a] = out[a] * s
        return tuple(out)


@tf_export("keras.layers.UpSampling2D")
class UpSampling2D(_UpSamplingND):
    """Repeats rows and columns (``interpolation="nearest"``) or resizes (``"bilinear"``, ...).

    >>> tf.keras.layers.UpSampling2D(2)(tf.ones([1, 2, 2, 1])).shape
    TensorShape([1, 4, 4, 1])
    """

    _rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.data_format = U.standardize_data_format(data_format)
        self.size = U.standardize_tuple(size, 2, "size")
        self.interpolation = interpolation.lower()
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        x = inputs
        cf = self.data_format == "channels_first"
        if cf:
            x = transpose(x, [0, 2, 3, 1])
        if self.interpolation == "nearest":
            x = _repeat(_repeat(x, self.size[0], 1), self.size[1], 2)
        else:
            shape = U.static_or_dynamic_shape(x)
            x = resize(x, [shape[1] * self.size[0], shape[2] * self.size[1]], method=self.interpolation)
            if x.dtype != inputs.dtype:
                x = cast(x, inputs.dtype)
        if cf:
            x = transpose(x, [0, 3, 1, 2])
        return x

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format, "interpolation": self.interpolation})
        return config


@tf_export("keras.layers.UpSampling3D")
class UpSampling3D(_UpSamplingND):
    """Repeats the three spatial axes."""

    _rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = U.standardize_data_format(data_format)
        self.size = U.standardize_tuple(size, 3, "size")
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs):
        x = inputs
        for a, s in zip(_spatial(None, self.data_format, 3), self.size):
            x = _repeat(x, s, a)
        return x

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format})
        return config
