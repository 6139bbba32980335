"""Normalization layers: ``BatchNormalization`` (batch statistics in training, moving statistics in inference, updated
with ``assign``), ``LayerNormalization``, ``GroupNormalization``, ``UnitNormalization`` and ``RMSNormalization``.

float16/bfloat16 inputs are normalized in float32 and cast back, as Keras does.
"""

from __future__ import annotations

from math import prod as _prod

from tensorlet._src.distribute.strategy import current_multi_replica_context
from tensorlet._src.ops.array_shape import broadcast_to, expand_dims, reshape, squeeze
from tensorlet._src.ops.gather_scatter import gather
from tensorlet._src.ops.math_binary import cast, minimum
from tensorlet._src.ops.math_unary import rsqrt, square
from tensorlet._src.ops.nn_norm import batch_normalization, moments
from tensorlet._src.ops.reduce import reduce_mean, reduce_prod, reduce_sum
from tensorlet._src.keras.engine.base_layer import InputSpec, Layer
from tensorlet._src.keras.layers import _k4_utils as U
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.keras import backend
from tensorlet._src.keras import constraints, initializers, regularizers

_LOW = ("float16", "bfloat16")


def _to_compute(x):
    return cast(x, "float32") if x.dtype.name in _LOW else x


def _out(layer, y):
    dt = getattr(layer, "compute_dtype", None)
    return cast(y, dt) if dt is not None and y.dtype.name != dt else y


def _family_config(layer, names):
    cfg = {}
    for kind, fam in (("initializer", initializers), ("regularizer", regularizers), ("constraint", constraints)):
        for n in names:
            cfg[f"{n}_{kind}"] = fam.serialize(getattr(layer, f"{n}_{kind}"))
    return cfg


def _set(layer, prefix, initializer, regularizer=None, constraint=None):
    setattr(layer, f"{prefix}_initializer", initializers.get(initializer))
    setattr(layer, f"{prefix}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{prefix}_constraint", constraints.get(constraint))


@tf_export("keras.layers.BatchNormalization")
class BatchNormalization(Layer):
    """Normalizes over the batch (training) or with the moving statistics (inference); weights gamma, beta,
    moving_mean, moving_variance.  In training the moving statistics become
    ``moving * momentum + batch * (1 - momentum)`` (population variance).

    >>> bn = tf.keras.layers.BatchNormalization()
    >>> bn(tf.ones([4, 3]), training=True).shape
    TensorShape([4, 3])
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)
        if renorm:
            raise NotImplementedError("tensorlet's BatchNormalization does not implement `renorm=True` yet.")
        self.synchronized = synchronized
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        _set(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        _set(self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.supports_masking = True
        self.renorm = renorm
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.gamma = self.beta = self.moving_mean = self.moving_variance = None
        self._reduction_axes = None

    def build(self, input_shape):
        shape = (input_shape[self.axis],)
        if self.scale:
            self.gamma = self.add_weight(shape=shape, name="gamma", initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         trainable=True)
        if self.center:
            self.beta = self.add_weight(shape=shape, name="beta", initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        trainable=True)
        self.moving_mean = self.add_weight(shape=shape, name="moving_mean",
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(shape=shape, name="moving_variance",
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: input_shape[self.axis]})
        axes = list(range(len(input_shape)))
        del axes[self.axis]
        self._reduction_axes = axes
        self.built = True

    def compute_output_shape(self, input_shape):
        U.check_axes(self.axis, input_shape)
        return tuple(input_shape)

    def _moments(self, x, mask):
        axes = self._reduction_axes
        replicas = current_multi_replica_context() if self.synchronized else None
        if mask is None and replicas is not None:  # statistics of the global batch (Keras's synchronized=True)
            dims = U.shape(x)
            local_count = cast(reduce_prod(gather(dims, axes)) if not isinstance(dims, tuple) else
                               _prod(dims[a] for a in axes), x.dtype)
            total, total_sq, count = replicas.all_reduce(
                "SUM", [reduce_sum(x, axes), reduce_sum(square(x), axes), local_count])
            mean = total / count
            return mean, total_sq / count - square(mean)
        if mask is None:
            return moments(x, axes)
        m = cast(broadcast_to(expand_dims(cast(mask, "bool"), -1), U.shape(x)), x.dtype)
        eps = backend.epsilon()
        count = reduce_sum(m, axes, keepdims=True) + eps
        mean = reduce_sum(x * m, axes, keepdims=True) / count
        var = reduce_sum(square((x - mean) * m), axes, keepdims=True) / count
        return squeeze(mean), squeeze(var)

    def call(self, inputs, training=None, mask=None):
        if mask is not None and len(mask.shape) != len(inputs.shape) - 1:
            raise ValueError(f"The mask provided should be one dimension less than the inputs. Received: "
                             f"mask.shape={tuple(mask.shape)}, inputs.shape={tuple(inputs.shape)}")
        x = _to_compute(inputs)
        mm, mv = U.cast_like(self.moving_mean, x), U.cast_like(self.moving_variance, x)
        gamma = U.cast_like(self.gamma, x) if self.scale else None
        beta = U.cast_like(self.beta, x) if self.center else None
        if training and self.trainable:
            mean, var = self._moments(x, mask)
            self.moving_mean.assign(cast(mm * self.momentum + mean * (1.0 - self.momentum),
                                           self.moving_mean.dtype))
            self.moving_variance.assign(cast(mv * self.momentum + var * (1.0 - self.momentum),
                                               self.moving_variance.dtype))
        else:
            mean, var = mm, mv
        rank = len(x.shape)
        if self.axis not in (-1, rank - 1):
            shape = [1] * rank
            shape[self.axis] = -1
            mean, var = reshape(mean, shape), reshape(var, shape)
            gamma = None if gamma is None else reshape(gamma, shape)
            beta = None if beta is None else reshape(beta, shape)
        y = batch_normalization(x, mean, var, beta, gamma, self.epsilon)
        return _out(self, y)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon, "center": self.center,
                       "scale": self.scale,
                       "beta_initializer": initializers.serialize(self.beta_initializer),
                       "gamma_initializer": initializers.serialize(self.gamma_initializer),
                       "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
                       "moving_variance_initializer": initializers.serialize(self.moving_variance_initializer),
                       "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                       "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                       "beta_constraint": constraints.serialize(self.beta_constraint),
                       "gamma_constraint": constraints.serialize(self.gamma_constraint),
                       "synchronized": self.synchronized, "renorm": self.renorm,
                       "renorm_clipping": self.renorm_clipping, "renorm_momentum": self.renorm_momentum})
        return config


@tf_export("keras.layers.LayerNormalization")
class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (int or list), then ``* gamma + beta``.

    >>> tf.keras.layers.LayerNormalization()(tf.constant([[1.0, 2.0, 3.0]])).shape
    TensorShape([1, 3])
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        rms_scaling = kwargs.pop("rms_scaling", False)
        if rms_scaling:
            import warnings

            warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument incorrectly scales the "
                          "input by the variance, not the root mean square. To correctly use RMS Normalization, "
                          "please use `keras.layers.RMSNormalization` instead.", stacklevel=2)
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis!r}")
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.rms_scaling = rms_scaling
        _set(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        _set(self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        if isinstance(self.axis, (list, tuple)):
            self.axis = sorted(self.axis)
            shape = tuple(input_shape[a] for a in self.axis)
        else:
            shape = (input_shape[self.axis],)
            self.axis = [self.axis]
        self.gamma = self.beta = None
        if self.scale or self.rms_scaling:
            self.gamma = self.add_weight(name="gamma", shape=shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         trainable=True)
        if self.center and not self.rms_scaling:
            self.beta = self.add_weight(name="beta", shape=shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        trainable=True)
        self.built = True

    def call(self, inputs):
        x = _to_compute(inputs)
        rank = len(x.shape)
        axes = sorted(a % rank for a in self.axis)
        bshape = [1] * rank
        for a in axes:
            bshape[a] = x.shape[a] if x.shape[a] is not None else -1

        def bc(v):
            if v is None:
                return None
            v = U.cast_like(v, x)
            return v if axes == [rank - 1] else reshape(v, bshape)

        gamma, beta = bc(self.gamma), bc(self.beta)
        if self.rms_scaling:
            _, var = moments(x, axes, keepdims=True)
            y = x * rsqrt(var + self.epsilon)
            if gamma is not None:
                y = y * gamma
        else:
            mean, var = moments(x, axes, keepdims=True)
            inv = rsqrt(var + self.epsilon)
            if gamma is not None:
                inv = inv * gamma
            res = -mean * inv
            if beta is not None:
                res = res + beta
            y = x * inv + res
        return _out(self, y)

    def compute_output_shape(self, input_shape):
        U.check_axes(self.axis, input_shape)
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
                       "rms_scaling": self.rms_scaling,
                       "beta_initializer": initializers.serialize(self.beta_initializer),
                       "gamma_initializer": initializers.serialize(self.gamma_initializer),
                       "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                       "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                       "beta_constraint": constraints.serialize(self.beta_constraint),
                       "gamma_constraint": constraints.serialize(self.gamma_constraint)})
        return config


@tf_export("keras.layers.GroupNormalization")
class GroupNormalization(Layer):
    """Normalizes over groups of channels (``groups=-1``: instance normalization).

    >>> tf.keras.layers.GroupNormalization(groups=2)(tf.ones([1, 3, 4])).shape
    TensorShape([1, 3, 4])
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        if not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError("Received an invalid value for argument `groups`, expected a positive integer (or `-1` "
                             f"for instance normalization). Received: groups={groups}")
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        _set(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        _set(self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint)

    def build(self, input_shape):
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {tuple(input_shape)}.")
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels ({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                             f"({dim}).")
        self.input_spec = InputSpec(ndim=len(input_shape), axes={self.axis: dim})
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(shape=(dim,), name="gamma", initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(shape=(dim,), name="beta", initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint)
        self.built = True

    def call(self, inputs):
        rank = len(inputs.shape)
        axis = self.axis % rank
        dims = U.static_or_dynamic_shape(inputs)
        dim = inputs.shape[axis]
        gshape = [-1] + dims[1:]
        gshape[axis] = dim // self.groups
        gshape.insert(axis, self.groups)
        x = _to_compute(reshape(inputs, gshape))
        red = [a for a in range(1, rank + 1) if a != axis]
        mean, var = moments(x, red, keepdims=True)
        inv = rsqrt(var + self.epsilon)
        bshape = [1] * rank
        bshape[axis] = dim // self.groups
        bshape.insert(axis, self.groups)
        if self.scale:
            inv = inv * reshape(U.cast_like(self.gamma, x), bshape)
        res = -mean * inv
        if self.center:
            res = res + reshape(U.cast_like(self.beta, x), bshape)
        y = cast(x * inv + res, inputs.dtype) if x.dtype != inputs.dtype else x * inv + res
        return _out(self, reshape(y, U.shape(inputs)))

    def compute_output_shape(self, input_shape):
        U.check_axes(self.axis, input_shape)
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"groups": self.groups, "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                       "scale": self.scale})
        config.update(_family_config(self, ["beta", "gamma"]))
        return config


@tf_export("keras.layers.UnitNormalization")
class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over ``axis``: ``x * min(rsqrt(sum(x**2)), 1e12)``.

    >>> tf.keras.layers.UnitNormalization()(tf.constant([[3.0, 4.0]])).numpy()
    array([[0.6, 0.8]], dtype=float32)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Invalid value for `axis` argument: expected an int or a list/tuple of ints. "
                            f"Received: axis={axis}")
        self.supports_masking = True

    def build(self, input_shape):
        self.built = True

    def call(self, inputs):
        x = inputs
        inv = rsqrt(reduce_sum(square(x), axis=self.axis, keepdims=True))
        return x * minimum(inv, cast(1e12, x.dtype))

    def compute_output_shape(self, input_shape):
        U.check_axes(self.axis, input_shape)
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis})
        return config


@tf_export("keras.layers.RMSNormalization")
class RMSNormalization(Layer):
    """``x * rsqrt(mean(x**2, axis) + epsilon) * scale``; weight ``scale`` over the normalized axes."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon

    def build(self, input_shape):
        shape = tuple(input_shape[a] for a in self.axis) if isinstance(self.axis, (list, tuple)) \
            else (input_shape[self.axis],)
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")
        self.built = True

    def call(self, x):
        xc = _to_compute(x)
        rank = len(xc.shape)
        axes = U.normalize_axes(self.axis, rank)
        scale = U.cast_like(self.scale, xc)
        if axes != [rank - 1]:
            bshape = [xc.shape[a] if a in axes else 1 for a in range(rank)]
            scale = reshape(scale, bshape)
        y = xc * rsqrt(reduce_mean(square(xc), axis=axes, keepdims=True) + self.epsilon) * scale
        return _out(self, y)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon})
        return config
