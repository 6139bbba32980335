"""Keras 3 metric base classes: ``Metric``, ``Sum``, ``Mean``, ``MeanMetricWrapper``, and the shared helpers.

Metrics hold their state in non-trainable ``tf.Variable``s created under ``tf.init_scope()``; ``update_state``,
``result`` and ``reset_state`` use tensorlet ops only, so they run unchanged inside a compiled train step.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.framework.context import init_scope
from tensorlet._src.framework.tensor import convert_to_tensor, is_tensor
from tensorlet._src.ops import array_shape
from tensorlet._src.ops import math_binary
from tensorlet._src.ops.array_shape import size, broadcast_to, expand_dims, squeeze
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import zeros, zeros_like
from tensorlet._src.ops.math_binary import cast, logical_or
from tensorlet._src.ops.reduce import reduce_mean, reduce_sum
from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.variables import Variable, VariableAggregation, VariableSynchronization
from tensorlet._src.keras import backend, initializers
from tensorlet._src.keras.backend import epsilon, floatx, to_snake_case  # noqa: F401  (used by the metric modules)
from tensorlet._src.keras.engine.masking import get_keras_mask
from tensorlet._src.ops.registry import tf_export

# ----------------------------------------------------------------------------------------------------------------
# small shared helpers


def auto_name(class_name):
    """``precision``, ``precision_1``, ... (shares Keras's global name counters with layers)."""
    return backend.auto_name(to_snake_case(class_name))


def standardize_dtype(dtype):
    """A metric's compute dtype as a string; accepts DType, str, NumPy dtypes and dtype policies."""
    if dtype is None:
        return floatx()
    policy_dtype = getattr(dtype, "compute_dtype", None)
    if policy_dtype is not None:
        return standardize_dtype(policy_dtype)
    if isinstance(dtype, str):
        if dtype.startswith("mixed_"):
            return dtype[len("mixed_"):]
        if dtype == "int":
            return "int64"
        if dtype == "float":
            return "float32"
    return _dt.as_dtype(dtype).name


def to_tensor(x, dtype=None):
    """Keras's ``ops.convert_to_tensor(x, dtype)``: data is converted, tensors of another dtype are cast."""
    if isinstance(x, Variable):
        x = x.value()
    elif not is_tensor(x):
        if dtype is None:
            return convert_to_tensor(x)
        x = convert_to_tensor(np.asarray(x))
    if dtype is not None and x.dtype is not _dt.as_dtype(dtype):
        x = cast(x, dtype)
    return x


def ndim(x):
    return x.shape.rank


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Keras's rule for matching the ranks of labels/predictions/weights that differ by one trailing 1."""
    r1, r2 = ndim(x1), ndim(x2)
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, axis=-1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, axis=-1)
    return x1, x2




def apply_mask(sample_weight, mask, dtype, reduction="sum"):
    """Folds a Keras mask into the sample weights (as ``keras.losses.loss.apply_mask``)."""
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = cast(size(mask), dtype)
        valid = reduce_sum(cast(mask, dtype))
        mask_weight = math_binary.divide_no_nan(total, valid)
        float_mask = where(cast(mask, "bool"), mask_weight, zeros_like(mask_weight))
    else:
        float_mask = cast(mask, dtype)
    if sample_weight is not None:
        sample_weight = to_tensor(sample_weight, dtype)
        float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
        return sample_weight * float_mask
    return float_mask


def broadcast_like(x, like):
    """``broadcast_to(x, shape(like))``; with a static shape when ``like``'s is fully known, otherwise by adding
    zeros of ``like``'s shape (works while tracing with unknown dims)."""
    if like.shape.is_fully_defined():
        return broadcast_to(x, like.shape.as_list())
    if x.dtype.is_bool:
        return logical_or(x, zeros_like(like, dtype="bool"))
    return x + zeros_like(like, dtype=x.dtype)


def shape_for_reshape(x):
    """``x``'s shape for reshaping back to it: static (``-1`` for one unknown dim) when possible, else dynamic."""
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and dims.count(None) <= 1:
        return [-1 if d is None else d for d in dims]
    return array_shape.shape(x)


def divide_no_nan(x, y):
    return math_binary.divide_no_nan(x, y)


def _value(v):
    return v.value() if isinstance(v, Variable) else v


def _initializer(initializer):
    if initializer is None or initializer == "zeros":
        return lambda shape, dtype=None: zeros(shape, dtype=dtype)
    if callable(initializer) and not isinstance(initializer, str):
        return initializer
    return initializers.get(initializer)


_AGGREGATIONS = {"sum": VariableAggregation.SUM, "mean": VariableAggregation.MEAN, "none": VariableAggregation.NONE,
                 "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA}


def make_variable(owner_name, name, shape, initializer, dtype, aggregation="sum"):
    """A metric state variable (non-trainable, on-read), made eagerly even while a step is being traced."""
    init = _initializer(initializer)
    shape = tuple(int(d) for d in shape) if shape is not None else ()
    agg = _AGGREGATIONS.get(aggregation, aggregation) if isinstance(aggregation, str) else aggregation
    with init_scope():
        value = init(shape, dtype=dtype)
        value = to_tensor(value, dtype)
        var = Variable(value, trainable=False, name=name, dtype=dtype,
                       synchronization=VariableSynchronization.ON_READ, aggregation=agg)
    var._name = name  # Keras 3's ``variable.name`` ("total") and ``variable.path`` ("mean/total"), as K1/K2 do
    var.path = f"{owner_name.replace('/', '>')}/{name}"
    return var


# ----------------------------------------------------------------------------------------------------------------
# Metric


@tf_export("keras.Metric", "keras.metrics.Metric")
class Metric:
    """Encapsulates metric logic and state (Keras 3).

    Subclasses create state with ``self.add_variable`` in ``__init__``, accumulate in ``update_state`` and report
    in ``result``:

    >>> class Count(tf.keras.metrics.Metric):
    ...     def __init__(self, name="count", **kwargs):
    ...         super().__init__(name=name, **kwargs)
    ...         self.n = self.add_variable(shape=(), initializer="zeros", name="n")
    ...     def update_state(self, values):
    ...         self.n.assign_add(tf.cast(tf.size(values), self.dtype))
    ...     def result(self):
    ...         return self.n
    """

    def __init__(self, dtype=None, name=None):
        self.name = name or auto_name(type(self).__name__)
        self._dtype_policy = dtype
        self._dtype = standardize_dtype(dtype)
        self._metrics = []
        self._variables = []
        self._tracking = True

    # --- state ------------------------------------------------------------------------------------------------
    def __setattr__(self, name, value):
        if self.__dict__.get("_tracking"):
            if isinstance(value, Metric) and value is not self and all(m is not value for m in self._metrics):
                self._metrics.append(value)
            elif isinstance(value, Variable) and all(v is not value for v in self._variables):
                self._variables.append(value)
        object.__setattr__(self, name, value)

    def _check_super_called(self):
        if "_tracking" not in self.__dict__:
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` method. Go add it!")

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """Creates a state variable (non-trainable) tracked by this metric."""
        self._check_super_called()
        dtype = standardize_dtype(dtype) if dtype is not None else floatx()
        var = make_variable(self.name, name or "variable", shape, initializer, dtype, aggregation)
        self._variables.append(var)
        return var

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """Backwards-compatible alias of ``add_variable``."""
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    @property
    def variables(self):
        out = list(self._variables)
        for m in self._metrics:
            out.extend(m.variables)
        return out

    @property
    def dtype(self):
        return self._dtype

    # --- the protocol ------------------------------------------------------------------------------------------
    def reset_state(self):
        """Sets every state variable back to zero."""
        for v in self.variables:
            v.assign(zeros(v.shape, dtype=v.dtype))

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    # --- config ------------------------------------------------------------------------------------------------
    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def _obj_type(self):
        return "Metric"

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


# ----------------------------------------------------------------------------------------------------------------
# reductions


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """Casts ``values``, folds masks and ``sample_weight`` in, and reduces everything but the batch axis."""
    dtype = dtype or floatx()
    mask = get_keras_mask(values)
    values = to_tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = to_tensor(sample_weight, dtype)
        if mask is not None:
            sample_weight = apply_mask(sample_weight, mask, dtype, "sum")
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        w_ndim, v_ndim = ndim(sample_weight), ndim(values)
        if v_ndim > w_ndim:
            values = reduce_fn(values, axis=list(range(w_ndim, v_ndim)))
        sample_weight = broadcast_like(sample_weight, values)
        values = values * sample_weight
        if w_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, w_ndim)))
    v_ndim = ndim(values)
    if v_ndim > 1:
        values = reduce_fn(values, axis=list(range(1, v_ndim)))
    return values, sample_weight


def _sum(x, axis=None):
    return reduce_sum(x, axis=axis)


def _mean(x, axis=None):
    return reduce_mean(x, axis=axis)


@tf_export("keras.metrics.Sum")
class Sum(Metric):
    """The (weighted) sum of the values seen.

    >>> m = tf.keras.metrics.Sum()
    >>> m.update_state([1, 3, 5, 7]); float(m.result())
    16.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight, _sum, self.dtype)
        self.total.assign_add(reduce_sum(values))

    def reset_state(self):
        self.total.assign(zeros((), dtype=self.total.dtype))

    def result(self):
        return cast(_value(self.total), self.dtype)


@tf_export("keras.metrics.Mean")
class Mean(Metric):
    """The (weighted) mean of the values seen.

    >>> m = tf.keras.metrics.Mean()
    >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0]); float(m.result())
    2.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, _mean, self.dtype)
        self.total.assign_add(reduce_sum(values))
        if sample_weight is not None:
            num_samples = reduce_sum(sample_weight)
        elif ndim(values) >= 1:
            num_samples = array_shape.shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(cast(num_samples, self.dtype))

    def reset_state(self):
        self.total.assign(zeros((), dtype=self.total.dtype))
        self.count.assign(zeros((), dtype=self.count.dtype))

    def result(self):
        return divide_no_nan(_value(self.total), cast(_value(self.count), self.dtype))


@tf_export("keras.metrics.MeanMetricWrapper")
class MeanMetricWrapper(Mean):
    """The mean of a per-sample function ``fn(y_true, y_pred, **kwargs)``.

    >>> m = tf.keras.metrics.MeanMetricWrapper(lambda t, p: tf.abs(t - p))
    >>> m.update_state(tf.constant([1.0, 2.0]), tf.constant([1.5, 2.0])); float(m.result())
    0.25
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs
        if _is_keras_loss(fn):
            self._direction = "down"

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = get_keras_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, self.dtype, "sum")
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        from tensorlet._src.keras.metrics.registry import serialize_fn

        config = {"fn": serialize_fn(self._fn)}
        config.update(self._fn_kwargs)
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if "fn" in config:
            from tensorlet._src.keras.metrics.registry import deserialize_fn

            config["fn"] = deserialize_fn(config["fn"])
        return cls(**config)


def _is_keras_loss(fn):
    mod = getattr(fn, "__module__", None) or type(fn).__module__
    return isinstance(mod, str) and mod.startswith("tensorlet._src.keras.losses")
