"""``tf.keras.losses.Loss``: the loss base class and Keras 3's reductions, masks and sample weights.

A subclass implements ``call(y_true, y_pred)`` returning per-sample losses; ``__call__`` casts both to the loss
dtype, weights the values (``sample_weight`` and any Keras mask on ``y_pred``) and reduces them
(``"sum_over_batch_size"`` by default, ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``, ``"none"``/``None``).

>>> class MyLoss(tf.keras.losses.Loss):
...     def call(self, y_true, y_pred):
...         return tf.abs(y_true - y_pred)
>>> float(MyLoss()([1.0, 2.0], [1.5, 1.0]))
0.75
"""

from __future__ import annotations

from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.array_shape import size, expand_dims, squeeze
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import ones_like, zeros_like
from tensorlet._src.ops.math_binary import cast, divide_no_nan, logical_and
from tensorlet._src.ops.reduce import reduce_sum
from tensorlet._src.keras import backend
from tensorlet._src.keras.engine.masking import get_keras_mask
from tensorlet._src.keras.mixed_precision import get as get_policy
from tensorlet._src.ops.registry import tf_export

_REDUCTIONS = {"sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight"}


def standardize_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {_REDUCTIONS}. Received: "
                         f"reduction={reduction}")
    return reduction


def to_tensor(x, dtype=None):
    """A tensor of ``x`` (cast to ``dtype`` when given: Keras converts tensors of another dtype by casting)."""
    if not _is_tensor(x):
        x = convert_to_tensor(x)
    if dtype is not None and x.dtype.name != _name(dtype):
        x = cast(x, dtype)
    return x


def _name(dtype):
    return dtype if isinstance(dtype, str) else dtype.name


def _is_tensor(x):
    from tensorlet._src.framework.tensor import Tensor
    from tensorlet._src.framework.variables import Variable

    return isinstance(x, (Tensor, Variable))


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Squeezes or expands a trailing size-1 dimension so ``x1`` and ``x2`` have the same rank."""
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, axis=-1)
        else:
            x1 = squeeze(x1, axis=-1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, axis=-1)
        else:
            x2 = squeeze(x2, axis=-1)
    return x1, x2


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    if reduction is None or reduction == "none" or tuple(values.shape) in ((), (0,)):
        return values
    loss = reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            divisor = cast(reduce_sum(sample_weight), loss.dtype)
        else:
            divisor = cast(size(values), loss.dtype)
        loss = divide_no_nan(loss, divisor)
    return loss


def apply_mask(sample_weight, mask, dtype, reduction):
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        total = cast(size(mask), dtype)
        valid = reduce_sum(cast(mask, dtype))
        weight = divide_no_nan(total, valid)
        float_mask = where(cast(mask, "bool"), weight * ones_like(cast(mask, dtype)),
                             zeros_like(cast(mask, dtype)))
    else:
        float_mask = cast(mask, dtype)
    if sample_weight is not None:
        sample_weight = cast(sample_weight, dtype)
        float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
        return sample_weight * float_mask
    return float_mask


def reduce_weighted_values(values, sample_weight=None, mask=None, reduction="sum_over_batch_size", dtype=None):
    """Weights ``values`` by ``sample_weight`` and ``mask`` (broadcast to the same rank) and reduces them."""
    reduction = standardize_reduction(reduction)
    values = to_tensor(values, dtype)
    if sample_weight is not None:
        sample_weight = to_tensor(sample_weight, dtype)
    if mask is not None:
        mask = to_tensor(mask, dtype)
    sample_weight = apply_mask(sample_weight, mask, values.dtype, reduction)
    if sample_weight is not None:
        sample_weight = cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)


@tf_export("keras.Loss", "keras.losses.Loss")
class Loss:
    """Base class of losses: implement ``call(y_true, y_pred)``; ``__call__`` adds weighting and reduction."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or backend.auto_name(backend.to_snake_case(type(self).__name__))
        self.reduction = standardize_reduction(reduction)
        self._dtype_policy = get_policy(dtype or backend.floatx())
        self._dtype = self._dtype_policy.compute_dtype

    @property
    def dtype(self):
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        in_mask = get_keras_mask(y_pred)
        y_pred = _map(lambda x: to_tensor(x, self.dtype), y_pred)
        y_true = _map(lambda x: to_tensor(x, self.dtype), y_true)
        losses = self.call(y_true, y_pred)
        out_mask = get_keras_mask(losses)
        if in_mask is not None and out_mask is not None:
            mask = logical_and(cast(in_mask, "bool"), cast(out_mask, "bool"))
        else:
            mask = in_mask if in_mask is not None else out_mask
        return reduce_weighted_values(losses, sample_weight=sample_weight, mask=mask, reduction=self.reduction,
                                      dtype=self.dtype)

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _map(fn, x):
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) and x and not all(isinstance(e, (int, float, bool)) for e in x) and \
            all(hasattr(e, "shape") for e in x):
        return type(x)(_map(fn, v) for v in x)
    return fn(x)


class LossFunctionWrapper(Loss):
    """A ``Loss`` that calls ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object

        config = super().get_config()
        config["fn"] = serialize_keras_object(self.fn)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("fn"), (dict, str)):
            from tensorlet._src.keras.losses import deserialize

            config["fn"] = deserialize(config["fn"])
        return cls(**config)

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


@tf_export("keras.losses.Reduction")
class Reduction:
    """tf.keras 2's reduction names (Keras 3 takes the strings directly)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')
