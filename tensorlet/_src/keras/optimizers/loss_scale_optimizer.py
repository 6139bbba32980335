"""``tf.keras.optimizers.LossScaleOptimizer``: dynamic loss scaling for float16 training (Keras 3).

The loss is multiplied by ``dynamic_scale`` (``scale_loss``); ``apply`` divides the gradients back, skips the step
and halves the scale when any gradient is not finite, and doubles it after ``dynamic_growth_steps`` good steps.

>>> opt = tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
"""

from __future__ import annotations

from tensorlet._src.framework.tensor import constant
from tensorlet._src.ops.array_blocks import stack
from tensorlet._src.ops.math_binary import cast, equal
from tensorlet._src.ops.math_unary import is_finite
from tensorlet._src.ops.reduce import reduce_all
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.keras.optimizers.base import Optimizer, _cond
from tensorlet._src.ops.registry import tf_export

_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None, "use_ema": False,
             "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
             "gradient_accumulation_steps": None}


@tf_export("keras.optimizers.LossScaleOptimizer", "keras.mixed_precision.LossScaleOptimizer")
class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer`` with a dynamic loss scale starting at ``initial_scale``."""

    def __init__(self, inner_optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000, name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        for arg, default in _DEFAULTS.items():
            if arg in kwargs:
                value = kwargs.pop(arg)
                if (default is None and value is not None) or value != default:
                    raise ValueError(f"LossScaleOptimizer does not support `{arg}`. Instead, set `{arg}` on the "
                                     "`inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs.keys())}`.")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None

    def build(self, var_list):
        from tensorlet._src.keras import initializers

        self.step_counter = self.add_variable(shape=(), dtype="int64", initializer=initializers.Zeros(),
                                              name="step_counter")
        self.dynamic_scale = self.add_variable(shape=(), dtype="float32",
                                               initializer=initializers.Constant(self.initial_scale),
                                               name="dynamic_scale")
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self):
        return self._variables + self.inner_optimizer.variables

    def check_finite(self, grads):
        """A boolean tensor: every gradient value is finite."""
        flags = [reduce_all(is_finite(g.values if S.is_sparse(g) else g)) for g in grads if g is not None]
        return reduce_all(stack(flags))

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        if not self.built:
            self.build(trainable_variables)
            self.built = True
        tvs = list(trainable_variables) if trainable_variables is not None else None

        def finite():
            scale = self.dynamic_scale
            ref = tvs or self._trainable_variables
            unscaled = [g if g is None or self._overwrite_variable_with_gradient(v) else
                        S.div(g, cast(scale, g.dtype)) for g, v in zip(grads, ref)]
            self.inner_optimizer.apply(unscaled, trainable_variables=tvs)

            def upscale():
                self.step_counter.assign(constant(0, dtype="int64"))
                self.dynamic_scale.assign(self.dynamic_scale * 2.0)

            def increment():
                self.step_counter.assign_add(constant(1, dtype="int64"))

            _cond(equal(self.step_counter, self.dynamic_growth_steps - 1), upscale, increment)

        def not_finite():
            self.step_counter.assign(constant(0, dtype="int64"))
            self.dynamic_scale.assign(self.dynamic_scale * 0.5)

        _cond(self.check_finite(grads), finite, not_finite)

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        if hasattr(self, "inner_optimizer"):
            self.inner_optimizer.learning_rate = learning_rate
        else:  # the base __init__ sets its own (unused) rate
            Optimizer.learning_rate.fset(self, learning_rate)

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    def scale_loss(self, loss):
        """``loss * dynamic_scale`` (``initial_scale`` before the first step)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        return loss * cast(scale, loss.dtype) if hasattr(loss, "dtype") else loss * scale

    def get_unscaled_gradients(self, grads):
        """tf.keras 2's API: ``grads / loss_scale``."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        return [None if g is None else S.div(g, cast(scale, g.dtype)) for g in grads]

    def get_scaled_loss(self, loss):
        """tf.keras 2's API: same as ``scale_loss``."""
        return self.scale_loss(loss)

    @property
    def loss_scale(self):
        return self.dynamic_scale if self.built else constant(self.initial_scale)

    def finalize_variable_values(self, var_list):
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self):
        from tensorlet._src.keras.saving.serialization import serialize_keras_object

        return {"name": self.name, "inner_optimizer": serialize_keras_object(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorlet._src.keras.saving.serialization import deserialize_keras_object

        config = dict(config)
        inner = deserialize_keras_object(config.pop("inner_optimizer"), custom_objects=custom_objects)
        return cls(inner, **config)
