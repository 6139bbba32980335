"""Pooling layers: ``MaxPooling1D/2D/3D``, ``AveragePooling1D/2D/3D`` (and the ``MaxPool``/``AvgPool`` aliases),
``GlobalAveragePooling1D/2D/3D`` and ``GlobalMaxPooling1D/2D/3D`` with ``keepdims`` and masks (1-D average).

channels_first inputs are transposed to channels_last around TF's pooling op, as Keras's TensorFlow backend does.
"""

from __future__ import annotations

from tensorlet._src.ops.array_shape import expand_dims
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.nn_pool import avg_pool, max_pool
from tensorlet._src.ops.reduce import reduce_max, reduce_mean, reduce_sum
from tensorlet._src.keras.engine.base_layer import InputSpec, Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export


class BasePooling(Layer):
    """Windowed max or average pooling (``pool_mode``)."""

    def __init__(self, pool_size, strides, pool_dimensions, pool_mode="max", padding="valid", data_format=None,
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = U.standardize_tuple(pool_size, pool_dimensions, "pool_size")
        strides = pool_size if strides is None else strides
        self.strides = U.standardize_tuple(strides, pool_dimensions, "strides", allow_zero=True)
        self.pool_mode = pool_mode
        self.padding = U.standardize_padding(padding)
        self.data_format = U.standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._rank = pool_dimensions

    def call(self, inputs):
        x, rank = inputs, self._rank
        cf = self.data_format == "channels_first"
        if cf:
            x = U.to_channels_last(x, rank)
        fn = max_pool if self.pool_mode == "max" else avg_pool
        y = fn(x, list(self.pool_size), list(self.strides), self.padding.upper(),
               data_format=U.tf_format("channels_last", rank))
        return U.to_channels_first(y, rank) if cf else y

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        cl = self.data_format == "channels_last"
        spatial = input_shape[1:-1] if cl else input_shape[2:]
        out = []
        for n, k, s in zip(spatial, self.pool_size, self.strides):
            if n is None:
                out.append(None)
            elif self.padding == "valid":
                o = (n - k) // s + 1
                if o <= 0:
                    raise ValueError(f"Computed output size would be negative. Received: `inputs.shape="
                                     f"{input_shape}` and `pool_size={self.pool_size}`.")
                out.append(o)
            else:
                out.append((n - 1) // s + 1)
        if cl:
            return (input_shape[0],) + tuple(out) + (input_shape[-1],)
        return (input_shape[0], input_shape[1]) + tuple(out)

    def get_config(self):
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "padding": self.padding, "strides": self.strides,
                       "data_format": self.data_format})
        return config


def _pool_class(name, rank, mode, default, aliases, doc):
    def __init__(self, pool_size=default, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        if pool_size is _REQUIRED:
            raise TypeError(f"{type(self).__name__}.__init__() missing 1 required positional argument: 'pool_size'")
        BasePooling.__init__(self, pool_size, strides, rank, mode, padding, data_format, name=name, **kwargs)

    cls = type(name, (BasePooling,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})
    return tf_export(*[f"keras.layers.{a}" for a in (name,) + aliases])(cls)


_REQUIRED = object()

MaxPooling1D = _pool_class("MaxPooling1D", 1, "max", 2, ("MaxPool1D",), "Max pooling over windows of a sequence.")
MaxPooling2D = _pool_class("MaxPooling2D", 2, "max", (2, 2), ("MaxPool2D",), """Max pooling over 2-D windows.

    >>> tf.keras.layers.MaxPooling2D()(tf.ones([1, 4, 4, 3])).shape
    TensorShape([1, 2, 2, 3])
    """)
MaxPooling3D = _pool_class("MaxPooling3D", 3, "max", (2, 2, 2), ("MaxPool3D",), "Max pooling over 3-D windows.")
AveragePooling1D = _pool_class("AveragePooling1D", 1, "average", _REQUIRED, ("AvgPool1D",),
                               "Average pooling over windows of a sequence (SAME padding averages valid cells).")
AveragePooling2D = _pool_class("AveragePooling2D", 2, "average", _REQUIRED, ("AvgPool2D",), """Average pooling.

    >>> tf.keras.layers.AveragePooling2D(2)(tf.ones([1, 4, 4, 3])).shape
    TensorShape([1, 2, 2, 3])
    """)
AveragePooling3D = _pool_class("AveragePooling3D", 3, "average", _REQUIRED, ("AvgPool3D",),
                               "Average pooling over 3-D windows.")


class BaseGlobalPooling(Layer):
    """Reduce all spatial axes with mean or max (``keepdims`` keeps them as size 1)."""

    def __init__(self, pool_dimensions, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = U.standardize_data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)
        self._rank = pool_dimensions

    def _axes(self):
        return list(range(1, self._rank + 1)) if self.data_format == "channels_last" else \
            list(range(2, self._rank + 2))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        cl = self.data_format == "channels_last"
        if self.keepdims:
            if cl:
                return (input_shape[0],) + (1,) * self._rank + (input_shape[-1],)
            return (input_shape[0], input_shape[1]) + (1,) * self._rank
        return (input_shape[0], input_shape[-1] if cl else input_shape[1])

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


class _GlobalAverage(BaseGlobalPooling):
    def call(self, inputs, mask=None):
        axes = self._axes()
        if mask is not None and self._rank == 1:
            m = cast(expand_dims(cast(mask, "bool"), 2 if self.data_format == "channels_last" else 1),
                       inputs.dtype)
            return reduce_sum(inputs * m, axis=axes, keepdims=self.keepdims) / \
                reduce_sum(m, axis=axes, keepdims=self.keepdims)
        return reduce_mean(inputs, axis=axes, keepdims=self.keepdims)


class _GlobalMax(BaseGlobalPooling):
    def call(self, inputs):
        return reduce_max(inputs, axis=self._axes(), keepdims=self.keepdims)


def _global_class(name, base, rank, aliases, doc):
    def __init__(self, data_format=None, keepdims=False, **kwargs):
        base.__init__(self, rank, data_format=data_format, keepdims=keepdims, **kwargs)
        if rank == 1 and base is _GlobalAverage:
            self.supports_masking = True

    cls = type(name, (base,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})
    return tf_export(*[f"keras.layers.{a}" for a in (name,) + aliases])(cls)


GlobalAveragePooling1D = _global_class("GlobalAveragePooling1D", _GlobalAverage, 1, ("GlobalAvgPool1D",),
                                       "Mean over the steps axis (masked steps excluded).")
GlobalAveragePooling2D = _global_class("GlobalAveragePooling2D", _GlobalAverage, 2, ("GlobalAvgPool2D",), """Mean
    over height and width.

    >>> tf.keras.layers.GlobalAveragePooling2D()(tf.ones([2, 4, 4, 3])).shape
    TensorShape([2, 3])
    """)
GlobalAveragePooling3D = _global_class("GlobalAveragePooling3D", _GlobalAverage, 3, ("GlobalAvgPool3D",),
                                       "Mean over the three spatial axes.")
GlobalMaxPooling1D = _global_class("GlobalMaxPooling1D", _GlobalMax, 1, ("GlobalMaxPool1D",),
                                   "Max over the steps axis.")
GlobalMaxPooling2D = _global_class("GlobalMaxPooling2D", _GlobalMax, 2, ("GlobalMaxPool2D",),
                                   "Max over height and width.")
GlobalMaxPooling3D = _global_class("GlobalMaxPooling3D", _GlobalMax, 3, ("GlobalMaxPool3D",),
                                   "Max over the three spatial axes.")
