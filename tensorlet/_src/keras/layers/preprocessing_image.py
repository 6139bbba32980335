"""Image augmentation layers ``RandomContrast``, ``RandomBrightness`` and ``RandomCrop`` (Keras 3's semantics).

They draw from a ``keras.random.SeedGenerator`` with ``keras.random.uniform`` (TF's stateless bits), so with
the same ``seed`` they produce exactly Keras-on-TF's outputs, eagerly, inside ``tf.function`` and in ``tf.data``
maps. Random only when ``training`` is true, which is the default when they are called directly.

>>> RandomBrightness(0.1, seed=1)(np.full((1, 2, 2, 3), 100.0, "float32")).shape
TensorShape([1, 2, 2, 3])
"""

from __future__ import annotations

from tensorlet._src.keras.backend import standardize_data_format
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.ops._dtypes import cast, convert
from tensorlet._src.keras.ops.image import resize as _resize
from tensorlet._src.keras.random import SeedGenerator
from tensorlet._src.keras.random_functions import uniform
from tensorlet._src.ops import math_binary as mb
from tensorlet._src.ops import reduce as rd
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.ops.registry import tf_export


class _Augment(Layer):
    def __init__(self, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. "
                             f"Received: value_range={value_range}")
        self.value_range = tuple(sorted(value_range))
        self.seed = seed
        self.data_format = standardize_data_format(data_format)
        self.seed_generator = SeedGenerator(seed)
        self.supports_masking = False
        self.built = True

    def _factor_shape(self, x):
        rank = x.shape.rank
        if rank == 3:
            return (1, 1, 1)
        if rank == 4:
            return (x.shape[0], 1, 1, 1)
        raise ValueError(f"Expected the input image to be rank 3 or 4. Received inputs.shape={x.shape}")

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"value_range": list(self.value_range), "seed": self.seed})
        return config


@tf_export("keras.layers.RandomContrast")
class RandomContrast(_Augment):
    """Scales each image's deviation from its per-channel mean by a factor in ``[1 - lower, 1 + upper]``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, **kwargs)
        msg = ("The `factor` argument should be a number (or a list of two numbers) in the range [0, 1]. "
               f"Received: factor={factor}")
        if isinstance(factor, (int, float)):  # Keras's rule: a number f means (max(-f, 0), f) = (0, f)
            if not 0 <= factor <= 1:
                raise ValueError(msg)
            lo, hi = 0.0, float(abs(factor))
        elif isinstance(factor, (tuple, list)) and len(factor) == 2 and factor[0] <= 1 and factor[1] >= 0:
            lo, hi = sorted(float(v) for v in factor)
        else:
            raise ValueError(msg)
        self.factor = (lo, hi)
        self._lo, self._hi = lo, hi

    def call(self, inputs, training=True):
        x = cast(convert(inputs), self.compute_dtype)
        if not training:
            return x
        f = uniform(self._factor_shape(x), 1.0 - self._lo, 1.0 + self._hi, dtype=self.compute_dtype,
                    seed=self.seed_generator)
        h, w = (-3, -2) if self.data_format == "channels_last" else (-2, -1)
        m = rd.reduce_mean(rd.reduce_mean(x, axis=h, keepdims=True), axis=w, keepdims=True)
        y = mb.add(mb.multiply(mb.subtract(x, m), f), m)
        return clip_by_value(y, mb.cast(self.value_range[0], y.dtype), mb.cast(self.value_range[1], y.dtype))

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config


@tf_export("keras.layers.RandomBrightness")
class RandomBrightness(_Augment):
    """Adds ``delta * (max - min)`` per image, ``delta`` uniform in the factor range, then clips to
    ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(value_range=value_range, seed=seed, **kwargs)
        if isinstance(factor, (int, float)):
            lo, hi = -abs(float(factor)), abs(float(factor))
        elif len(factor) == 2:
            lo, hi = sorted(float(v) for v in factor)
        else:
            raise ValueError(f"The `factor` argument should be a number (or a list of two numbers) in the range "
                             f"[-1.0, 1.0]. Received: factor={factor}")
        if lo < -1 or hi > 1:
            raise ValueError(f"The `factor` argument should be a number (or a list of two numbers) in the range "
                             f"[-1.0, 1.0]. Received: factor={factor}")
        self.factor = factor
        self._lo, self._hi = lo, hi

    def call(self, inputs, training=True):
        x = cast(convert(inputs), self.compute_dtype)
        if not training:
            return x
        d = uniform(self._factor_shape(x), self._lo, self._hi, seed=self.seed_generator)
        d = mb.multiply(d, mb.cast(self.value_range[1] - self.value_range[0], d.dtype))
        y = mb.add(x, cast(d, x.dtype.name))
        return clip_by_value(y, mb.cast(self.value_range[0], y.dtype), mb.cast(self.value_range[1], y.dtype))

    def get_config(self):
        config = super().get_config()
        config["factor"] = self.factor
        return config


@tf_export("keras.layers.RandomCrop")
class RandomCrop(Layer):
    """Crops a random ``height x width`` window while training (resizing when the image is smaller);
    at inference images pass through, as in Keras 3."""

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.height, self.width, self.seed = height, width, seed
        self.data_format = standardize_data_format(data_format)
        self.seed_generator = SeedGenerator(seed)
        self.built = True

    def call(self, inputs, training=True):
        x = cast(convert(inputs), self.compute_dtype)
        ha, wa = (-3, -2) if self.data_format == "channels_last" else (-2, -1)
        h, w = x.shape[ha], x.shape[wa]
        if h is None or w is None:
            raise ValueError(f"RandomCrop requires the input to have a fully defined height and width. Received: "
                             f"images.shape={x.shape}")
        if not training:
            return x
        if h > self.height and w > self.width:
            hs = cast(uniform((), 0, float(h - self.height + 1), seed=self.seed_generator), "int32")
            ws = cast(uniform((), 0, float(w - self.width + 1), seed=self.seed_generator), "int32")
            from tensorlet._src.ops.array_select import slice as _slice

            begin = [0] * x.shape.rank
            size = [-1] * x.shape.rank
            begin[ha], begin[wa] = hs, ws
            size[ha], size[wa] = self.height, self.width
            from tensorlet._src.ops.array_blocks import stack

            x = _slice(x, stack([convert(b, "int32") if isinstance(b, int) else b for b in begin], 0), size)
            return x
        y = _resize(x, (self.height, self.width), data_format=self.data_format)
        return cast(y, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        ha, wa = (len(out) - 3, len(out) - 2) if self.data_format == "channels_last" else (len(out) - 2, len(out) - 1)
        out[ha], out[wa] = self.height, self.width
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "seed": self.seed,
                       "data_format": self.data_format})
        return config
