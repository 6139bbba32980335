"""Preprocessing layers: ``Rescaling``, ``Normalization`` (``adapt`` on arrays, tensors, datasets and iterables of
batches), ``CategoryEncoding``, ``Resizing``, ``CenterCrop`` and the augmentation layers ``RandomFlip``,
``RandomRotation``, ``RandomZoom`` and ``RandomTranslation`` (random only when ``training`` is true, which is
their default when called directly, as in Keras 3).

The random layers draw stateless values from a ``keras.random.SeedGenerator``, so they work eagerly and traced;
their random bits differ from TensorFlow's.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlet._src.autodiff.custom import custom_gradient
from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.ops import array_blocks
from tensorlet._src.ops import creation
from tensorlet._src.ops import linalg_decomp
from tensorlet._src.ops import math_unary
from tensorlet._src.ops.array_select import one_hot, where, reverse
from tensorlet._src.ops.array_blocks import concat, stack
from tensorlet._src.ops.array_shape import expand_dims, reshape, squeeze, transpose
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.image_ops import resize
from tensorlet._src.ops.math_binary import cast, maximum
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.math_unary import floor, sqrt
from tensorlet._src.ops.reduce import reduce_max, reduce_sum
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export


def _epsilon():
    from tensorlet._src.keras import backend as kb

    return kb.epsilon()


@tf_export("keras.layers.Rescaling")
class Rescaling(Layer):
    """``inputs * scale + offset`` (scale/offset may be per-channel lists).

    >>> tf.keras.layers.Rescaling(1 / 255.0)(tf.constant([255.0])).numpy()
    array([1.], dtype=float32)
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset
        self.supports_masking = True
        self.built = True

    def call(self, inputs):
        dt = self.compute_dtype
        x = cast(inputs, dt) if inputs.dtype.name != dt else inputs
        scale = cast(convert_to_tensor(self.scale), dt)
        offset = cast(convert_to_tensor(self.offset), dt)
        if len(scale.shape) > 0 and len(x.shape) > 0 and scale.shape[-1] != x.shape[-1] and scale.shape[-1] == 1:
            scale = reshape(scale, [-1])
        return x * scale + offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()

        def ser(v):
            return np.asarray(v).tolist() if isinstance(v, (np.ndarray, list, tuple)) else v

        config.update({"scale": ser(self.scale), "offset": ser(self.offset)})
        return config


@tf_export("keras.layers.Normalization")
class Normalization(Layer):
    """``(x - mean) / max(sqrt(variance), epsilon)`` per ``axis`` position; mean/variance given or ``adapt``-ed.

    >>> layer = tf.keras.layers.Normalization(axis=None)
    >>> layer.adapt(np.array([1.0, 2.0, 3.0], np.float32))
    >>> layer(np.array([2.0], np.float32)).numpy()
    array([0.], dtype=float32)
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        self.input_mean, self.input_variance = mean, variance
        self.invert = invert
        self.supports_masking = True
        self._build_input_shape = None
        self._mean_value = self._var_value = None
        if (mean is not None) != (variance is not None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must be set. Received: "
                             f"mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"When setting values directly, `mean` and `variance` must have the same shape. "
                                 f"Received: mean shape {np.shape(mean)} and variance shape {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"The rank of `mean` must be less than or equal to the number of axes "
                                 f"({len(self.axis)}). Received: mean shape {np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape):
        if input_shape is None:
            return
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        self._build_input_shape = input_shape
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                             f"ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                                 f"inputs.shape={input_shape}, with unknown axis at index {d}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1 for d in range(ndim)]
        shape = tuple(input_shape[d] for d in self._keep_axis)
        self._mean_and_var_shape = shape
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=shape, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=shape, initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64", initializer="zeros",
                                         trainable=False)
        else:
            mean = np.asarray(self.input_mean, np.float64)
            var = np.asarray(self.input_variance, np.float64)
            if mean.ndim:
                expanded = [1] * ndim
                for i in range(1, mean.ndim + 1):
                    expanded[self._keep_axis[-i]] = mean.shape[-i]
                mean, var = mean.reshape(expanded), var.reshape(expanded)
            dt = np.dtype(self.compute_dtype)
            self._mean_value = np.broadcast_to(mean, self._broadcast_shape).astype(dt)
            self._var_value = np.broadcast_to(var, self._broadcast_shape).astype(dt)
        self.built = True

    @property
    def mean(self):
        if self._mean_value is not None:
            return constant(self._mean_value)
        if getattr(self, "adapt_mean", None) is None:
            return None
        return cast(reshape(self.adapt_mean, self._broadcast_shape), self.compute_dtype)

    @property
    def variance(self):
        if self._var_value is not None:
            return constant(self._var_value)
        if getattr(self, "adapt_variance", None) is None:
            return None
        return cast(reshape(self.adapt_variance, self._broadcast_shape), self.compute_dtype)

    def adapt(self, data):
        """Computes mean and variance over ``data``: an array, a tensor, a batched ``tf.data.Dataset`` or an
        iterable of batches (a dataset's ``(x, y)`` elements use x)."""
        batches = None
        if isinstance(data, np.ndarray) or hasattr(data, "numpy") and hasattr(data, "dtype"):
            arr = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
            shape = arr.shape
        elif hasattr(data, "element_spec") and hasattr(data, "batch"):
            spec = data.element_spec
            spec = spec[0] if isinstance(spec, tuple) else spec
            if len(tuple(spec.shape)) == 1:
                data = data.batch(128)
                spec = data.element_spec
                spec = spec[0] if isinstance(spec, tuple) else spec
            shape = tuple(spec.shape)
            batches = data
        elif hasattr(data, "__iter__"):
            it = iter(data)
            first = next(it, None)
            if first is None:
                raise ValueError("adapt() received an empty iterable (no batches). Expected at least one batch. Pass "
                                 "a non-empty iterable of arrays or tensors, e.g. layer.adapt([x]) or "
                                 "layer.adapt(list_of_batches).")
            first = first[0] if isinstance(first, tuple) else first
            if getattr(first, "shape", None) is None:
                raise TypeError(f"adapt() expects an iterable that yields arrays or tensors with a `.shape` "
                                f"attribute (e.g. numpy arrays or backend tensors). Got an element of type "
                                f"{type(first).__name__}. Ensure each yielded element is array-like with a "
                                "`.shape` attribute.")
            shape = tuple(first.shape)
            import itertools

            batches = itertools.chain([first], it)
        else:
            raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports `np.ndarray`, backend tensors, "
                            "`tf.data.Dataset`, `keras.utils.PyDataset`, and iterables of batches (e.g. list, "
                            "generator).")
        if not self.built or self._build_input_shape is None:
            self.build(shape)
        else:
            for d in self._keep_axis:
                if shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"The layer was built with input_shape={self._build_input_shape}, but adapt() "
                                     f"is being called with data with an incompatible shape, data.shape={shape}")
        if batches is None:
            arr = arr.astype(np.float64) if arr.dtype.kind != "f" else arr
            mean, var = np.mean(arr, axis=self._reduce_axis), np.var(arr, axis=self._reduce_axis)
        else:
            mean = np.zeros(self._mean_and_var_shape)
            var = np.zeros(self._mean_and_var_shape)
            total = 0
            for b in batches:
                b = b[0] if isinstance(b, tuple) else b
                b = np.asarray(b.numpy() if hasattr(b, "numpy") else b, np.float64)
                bm, bv = np.mean(b, axis=self._reduce_axis), np.var(b, axis=self._reduce_axis)
                n = int(np.prod([b.shape[d] for d in self._reduce_axis])) if self._reduce_axis else 1
                total += n
                w = n / total
                new_mean = mean * (1 - w) + bm * w
                var = (var + (mean - new_mean) ** 2) * (1 - w) + (bv + (bm - new_mean) ** 2) * w
                mean = new_mean
        self.adapt_mean.assign(np.asarray(mean, np.float32))
        self.adapt_variance.assign(np.asarray(var, np.float32))

    def finalize_state(self):
        """Kept for Keras compatibility: the statistics are read from the weights at each call."""

    def call(self, inputs):
        if self.mean is None:
            raise ValueError("You must call `.build(input_shape)` on the layer before using it.")
        dt = self.compute_dtype
        x = cast(inputs, dt) if inputs.dtype.name != dt else inputs
        std = maximum(sqrt(self.variance), cast(_epsilon(), dt))
        if self.invert:
            return self.mean + x * std
        return (x - self.mean) / std

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": np.array(self.input_mean).tolist(), "variance": np.array(self.input_variance).tolist()})
        return config


@tf_export("keras.layers.CategoryEncoding")
class CategoryEncoding(Layer):
    """Integer category ids -> one-hot, multi-hot or count vectors of length ``num_tokens``.

    >>> tf.keras.layers.CategoryEncoding(num_tokens=4)(tf.constant([[0, 1], [3, 3]])).numpy()
    array([[1., 1., 0., 0.],
           [0., 0., 0., 1.]], dtype=float32)
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens is not known "
                             "beforehand, use the IntegerLookup layer instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse
        self.built = True

    def call(self, inputs, count_weights=None):
        from tensorlet._src.keras.layers.preprocessing_lookup import sparse_output

        return sparse_output(self._dense(inputs, count_weights), self.sparse)

    def _dense(self, inputs, count_weights):
        if count_weights is not None and self.output_mode != "count":
            raise ValueError(f"`count_weights` is not used when `output_mode` is not `'count'`. Received "
                             f"`count_weights={count_weights}`.")
        x = convert_to_tensor(inputs)
        if not x.dtype.is_integer:
            x = cast(x, "int64")
        dtype = self.dtype
        if len(x.shape) == 0:
            x = expand_dims(x, -1)
        if self.output_mode == "one_hot":
            if len(x.shape) > 1 and x.shape[-1] == 1:
                x = squeeze(x, [-1])
            return one_hot(x, self.num_tokens, dtype=dtype)
        oh = one_hot(x, self.num_tokens, dtype=dtype)  # rank 1: one sample; rank 2: a batch of samples
        if self.output_mode == "multi_hot":
            return reduce_max(oh, axis=-2)
        if count_weights is not None:
            oh = oh * expand_dims(cast(convert_to_tensor(count_weights), dtype), -1)
        return reduce_sum(oh, axis=-2)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) == 0:
            return (self.num_tokens,)
        if self.output_mode == "one_hot":
            if input_shape[-1] != 1 or len(input_shape) == 1:
                return input_shape + (self.num_tokens,)
            return input_shape[:-1] + (self.num_tokens,)
        return input_shape[:-1] + (self.num_tokens,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode})
        return config


# --- image geometry -----------------------------------------------------------------------------------------------

def _hw_axes(images, data_format):
    rank = len(images.shape)
    if data_format == "channels_last":
        return rank - 3, rank - 2
    return rank - 2, rank - 1


def _crop_pad_resize(images, height, width, interpolation, crop, pad, fill_value, antialias, data_format):
    """Keras's image resize (channels_last, rank 3 or 4) with crop_to_aspect_ratio / pad_to_aspect_ratio."""
    x = images
    cf = data_format == "channels_first"
    rank = len(x.shape)
    if cf:
        x = transpose(x, [0, 2, 3, 1] if rank == 4 else [1, 2, 0])
    h, w = x.shape[-3], x.shape[-2]
    if crop and h is not None and w is not None:
        ch = max(min(h, int(w * height / width)), 1)
        cw = max(min(w, int(h * width / height)), 1)
        hs, ws = int((h - ch) / 2), int((w - cw) / 2)
        x = x[..., hs:hs + ch, ws:ws + cw, :]
    elif pad and h is not None and w is not None:
        ph = max(h, int(w * height / width))
        pw = max(w, int(h * width / height))
        hs, ws = int((ph - h) / 2), int((pw - w) / 2)
        pads = [[0, 0]] * (rank - 3) + [[hs, hs], [ws, ws], [0, 0]]
        x = array_blocks.pad(x, pads, constant_values=fill_value)
    y = resize(x, [height, width], method=interpolation, antialias=antialias)
    if y.dtype != images.dtype and images.dtype.is_floating:
        y = cast(y, images.dtype)
    if cf:
        y = transpose(y, [0, 3, 1, 2] if rank == 4 else [2, 0, 1])
    return y


@tf_export("keras.layers.Resizing")
class Resizing(Layer):
    """Resizes images to (height, width) (``crop_to_aspect_ratio``/``pad_to_aspect_ratio`` keep the aspect).

    >>> tf.keras.layers.Resizing(2, 3)(tf.ones([1, 4, 4, 1])).shape
    TensorShape([1, 2, 3, 1])
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, antialias=False, data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.height, self.width = height, width
        self.interpolation = interpolation
        self.data_format = U.standardize_data_format(data_format)
        self.crop_to_aspect_ratio, self.pad_to_aspect_ratio = crop_to_aspect_ratio, pad_to_aspect_ratio
        self.fill_mode, self.fill_value, self.antialias = fill_mode, fill_value, antialias
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
        self.built = True

    def call(self, inputs):
        x = cast(inputs, self.compute_dtype) if inputs.dtype.name != self.compute_dtype else inputs
        return _crop_pad_resize(x, self.height, self.width, self.interpolation, self.crop_to_aspect_ratio,
                                self.pad_to_aspect_ratio, self.fill_value, self.antialias, self.data_format)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        ha, wa = (len(out) - 3, len(out) - 2) if self.data_format == "channels_last" else (len(out) - 2,
                                                                                           len(out) - 1)
        out[ha], out[wa] = self.height, self.width
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "height": self.height, "width": self.width,
                       "interpolation": self.interpolation, "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                       "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                       "fill_value": self.fill_value, "antialias": self.antialias})
        return config


@tf_export("keras.layers.CenterCrop")
class CenterCrop(Layer):
    """Crops the central (height, width) window (resizes when the image is smaller).

    >>> tf.keras.layers.CenterCrop(2, 2)(tf.ones([1, 4, 4, 3])).shape
    TensorShape([1, 2, 2, 3])
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height, self.width = height, width
        self.data_format = U.standardize_data_format(data_format)
        self.built = True

    def call(self, inputs):
        x = cast(inputs, self.compute_dtype) if inputs.dtype.name != self.compute_dtype else inputs
        ha, wa = _hw_axes(x, self.data_format)
        h, w = x.shape[ha], x.shape[wa]
        if h is not None and w is not None and h >= self.height and w >= self.width:
            hs, ws = (h - self.height) // 2, (w - self.width) // 2
            idx = [slice(None)] * len(x.shape)
            idx[ha], idx[wa] = slice(hs, hs + self.height), slice(ws, ws + self.width)
            return x[tuple(idx)]
        return _crop_pad_resize(x, self.height, self.width, "bilinear", True, False, 0.0, False, self.data_format)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        ha, wa = (len(out) - 3, len(out) - 2) if self.data_format == "channels_last" else (len(out) - 2,
                                                                                           len(out) - 1)
        out[ha], out[wa] = self.height, self.width
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "height": self.height, "width": self.width})
        return config


# --- random augmentation ------------------------------------------------------------------------------------------

def _map_coord(c, size, mode):
    """TF's ImageProjectiveTransform coordinate mapping for out-of-range coordinates (float tensors)."""
    n = float(size)
    if mode == "reflect":
        if size <= 1:
            return zeros_like(c)
        sz2 = 2.0 * n
        low = c + sz2 * floor(-c / sz2)
        low = where(low < -n, low + sz2, -low - 1.0)
        high = c - sz2 * floor(c / sz2)
        high = where(high >= n, sz2 - high - 1.0, high)
        c = where(c < 0, low, where(c > n - 1, high, c))
        return clip_by_value(c, 0.0, n - 1)
    if mode == "wrap":  # TF's quirky integer arithmetic, kept for identical results
        if size <= 1:
            return zeros_like(c)
        sz = n - 1.0
        c = where(c < 0, c + n * (floor(-c / sz) + 1.0), where(c > n - 1, c - n * floor(c / sz), c))
        return clip_by_value(c, 0.0, n - 1)
    if mode == "nearest":
        return clip_by_value(c, 0.0, n - 1)
    return c  # constant: out-of-range reads give fill_value


def _inverse_transforms(transforms):
    m = concat([transforms, ones_like(transforms[:, :1])], axis=1)
    inv = reshape(linalg_decomp.inv(reshape(m, [-1, 3, 3])), [-1, 9])
    return inv[:, :8] / inv[:, 8:9]


def affine_transform(images, transforms, interpolation="bilinear", fill_mode="constant", fill_value=0.0):
    """Projective transform of NHWC ``images`` by ``transforms`` [B, 8] (output -> input coordinates), with TF's
    ImageProjectiveTransformV3 semantics, gradient included: TF differentiates it as the transform of the
    output gradient by the inverse matrices (zero fill), not as the exact adjoint, and so does this."""
    transforms = cast(transforms, "float32")

    @custom_gradient
    def op(x):
        def grad(dy):
            return _sample(dy, _inverse_transforms(transforms), interpolation, fill_mode, 0.0)
        return _sample(x, transforms, interpolation, fill_mode, fill_value), grad

    return op(images)


def _sample(images, transforms, interpolation, fill_mode, fill_value):
    b, h, w, c = images.shape
    dt = images.dtype
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
    ys, xs = constant(ys.reshape(1, -1)), constant(xs.reshape(1, -1))
    m = cast(transforms, "float32")
    a0, a1, a2, b0, b1, b2, c0, c1 = [m[:, i:i + 1] for i in range(8)]
    k = c0 * xs + c1 * ys + 1.0
    sx = (a0 * xs + a1 * ys + a2) / k
    sy = (b0 * xs + b1 * ys + b2) / k
    sx, sy = _map_coord(sx, w, fill_mode), _map_coord(sy, h, fill_mode)
    flat = reshape(images, [-1, c])
    base = reshape(creation.range(U.dim(images, 0)) * (h * w), [-1, 1])
    fill = cast(fill_value, dt)

    def read(yy, xx):
        inside = (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
        yi = cast(clip_by_value(yy, 0.0, h - 1.0), "int32")
        xi = cast(clip_by_value(xx, 0.0, w - 1.0), "int32")
        vals = gather(flat, base + yi * w + xi)
        return where(expand_dims(inside, -1), vals, fill)

    if interpolation == "nearest":
        out = read(math_unary.round(sy), math_unary.round(sx))
    else:
        y0, x0 = floor(sy), floor(sx)
        y1, x1 = y0 + 1.0, x0 + 1.0
        wx1 = cast(expand_dims(sx - x0, -1), dt)
        wx0 = cast(expand_dims(x1 - sx, -1), dt)
        wy1 = cast(expand_dims(sy - y0, -1), dt)
        wy0 = cast(expand_dims(y1 - sy, -1), dt)
        top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
        bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
        out = wy0 * top + wy1 * bottom
    return reshape(out, [-1, h, w, c])


def _affine(angle, tx, ty, zx, zy, height, width):
    """Keras's affine matrix about the image centre (angle in radians, translations in pixels)."""
    cx, cy = 0.5 * (width - 1), 0.5 * (height - 1)
    cos, sin = math_unary.cos(angle), math_unary.sin(angle)
    a0, a1 = zx * cos, -zx * sin
    b0, b1 = zy * sin, zy * cos
    a2 = tx + cx - cx * a0 - cy * a1
    b2 = ty + cy - cx * b0 - cy * b1
    zero = zeros_like(a0)
    return stack([a0, a1, a2, b0, b1, b2, zero, zero], axis=1)


def _range(factor, name, symmetric_ok=True):
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"The `{name}` argument should be a number (or a list of two numbers) in the range "
                             f"[-1.0, 1.0]. Received: {name}={factor}")
        lo, hi = float(factor[0]), float(factor[1])
    else:
        lo, hi = -abs(float(factor)), abs(float(factor))
    return min(lo, hi), max(lo, hi)


class _RandomImage(Layer):
    """Base of the augmentation layers: channels_last rank-3/4 plumbing and the training switch."""

    _FILL = ("reflect", "wrap", "constant", "nearest")

    def __init__(self, seed=None, data_format=None, fill_mode="reflect", interpolation="bilinear", fill_value=0.0,
                 **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.data_format = U.standardize_data_format(data_format)
        if fill_mode not in self._FILL:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {self._FILL}.")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                      "('nearest', 'bilinear').")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value
        self.seed_generator = U.seed_generator(self, seed)
        self.supports_masking = False
        self.built = True

    def call(self, inputs, training=True):
        x = cast(inputs, self.compute_dtype) if inputs.dtype.name != self.compute_dtype else inputs
        if not training:
            return x
        rank = len(x.shape)
        if self.data_format == "channels_first":
            x = transpose(x, [0, 2, 3, 1] if rank == 4 else [1, 2, 0])
        if rank == 3:
            x = expand_dims(x, 0)
        y = self._augment(x)
        if rank == 3:
            y = squeeze(y, [0])
        if self.data_format == "channels_first":
            y = transpose(y, [0, 3, 1, 2] if rank == 4 else [2, 0, 1])
        return y

    def _transform(self, x, matrices):
        return affine_transform(x, matrices, self.interpolation, self.fill_mode, self.fill_value)

    def _uniform(self, n, lo, hi):
        return U.uniform([n], self.seed_generator, "float32", lo, hi)

    def compute_output_shape(self, input_shape):
        return input_shape

    def _base_config(self):
        config = Layer.get_config(self)
        config.update({"data_format": self.data_format})
        return config


@tf_export("keras.layers.RandomFlip")
class RandomFlip(_RandomImage):
    """Flips each image horizontally and/or vertically with probability 1/2 (training only)."""

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode

    def _augment(self, x):
        n = U.dim(x, 0)
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            flip = reshape(self._uniform(n, 0.0, 1.0) > 0.5, [-1, 1, 1, 1])
            x = where(flip, reverse(x, [2]), x)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            flip = reshape(self._uniform(n, 0.0, 1.0) > 0.5, [-1, 1, 1, 1])
            x = where(flip, reverse(x, [1]), x)
        return x

    def get_config(self):
        config = self._base_config()
        config.update({"seed": self.seed, "mode": self.mode})
        return config


@tf_export("keras.layers.RandomRotation")
class RandomRotation(_RandomImage):
    """Rotates by a random fraction of 2*pi in ``factor`` (counter-clockwise for positive values)."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, fill_mode=fill_mode, interpolation=interpolation,
                         fill_value=fill_value, **kwargs)
        self.factor = _range(factor, "factor")

    def _augment(self, x):
        n = U.dim(x, 0)
        angle = self._uniform(n, self.factor[0] * 2 * math.pi, self.factor[1] * 2 * math.pi)
        zeros, ones = zeros_like(angle), ones_like(angle)
        return self._transform(x, _affine(angle, zeros, zeros, ones, ones, x.shape[1], x.shape[2]))

    def get_config(self):
        config = self._base_config()
        config.update({"factor": self.factor, "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                       "interpolation": self.interpolation, "seed": self.seed})
        return config


@tf_export("keras.layers.RandomZoom")
class RandomZoom(_RandomImage):
    """Zooms by a random factor: ``height_factor`` > 0 zooms out, < 0 zooms in (``width_factor`` defaults to it)."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, fill_mode=fill_mode, interpolation=interpolation,
                         fill_value=fill_value, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._h = _range(height_factor, "height_factor")
        self._w = None if width_factor is None else _range(width_factor, "width_factor")

    def _augment(self, x):
        n = U.dim(x, 0)
        zy = 1.0 + self._uniform(n, *self._h)
        zx = zy if self._w is None else 1.0 + self._uniform(n, *self._w)
        zeros = zeros_like(zy)
        return self._transform(x, _affine(zeros, zeros, zeros, zx, zy, x.shape[1], x.shape[2]))

    def get_config(self):
        config = self._base_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor,
                       "fill_mode": self.fill_mode, "interpolation": self.interpolation, "seed": self.seed,
                       "fill_value": self.fill_value})
        return config


@tf_export("keras.layers.RandomTranslation")
class RandomTranslation(_RandomImage):
    """Shifts by random fractions of the height and width."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, fill_mode=fill_mode, interpolation=interpolation,
                         fill_value=fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h, self._w = _range(height_factor, "height_factor"), _range(width_factor, "width_factor")

    def _augment(self, x):
        n = U.dim(x, 0)
        h, w = x.shape[1], x.shape[2]
        ty = -self._uniform(n, *self._h) * h
        tx = -self._uniform(n, *self._w) * w
        zeros, ones = zeros_like(tx), ones_like(tx)
        return self._transform(x, _affine(zeros, tx, ty, ones, ones, h, w))

    def get_config(self):
        config = self._base_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor,
                       "fill_mode": self.fill_mode, "interpolation": self.interpolation, "seed": self.seed,
                       "fill_value": self.fill_value})
        return config
