"""``tf.keras.optimizers.Ftrl`` and ``Lion`` with Keras 3's update rules."""

from __future__ import annotations

from tensorlet._src.ops import math_binary
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.math_clip import clip_by_value
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.keras.optimizers.base import Optimizer
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.optimizers.Ftrl")
class Ftrl(Optimizer):
    """Follow The Regularized Leader (McMahan et al.), with L1/L2 and L2-shrinkage regularization."""

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        checks = (("initial_accumulator_value", initial_accumulator_value < 0.0, "positive or zero"),
                  ("learning_rate_power", learning_rate_power > 0.0, "negative or zero"),
                  ("l1_regularization_strength", l1_regularization_strength < 0.0, "positive or zero"),
                  ("l2_regularization_strength", l2_regularization_strength < 0.0, "positive or zero"))
        for arg, bad, what in checks:
            if bad:
                raise ValueError(f"`{arg}` needs to be {what}. Received: {arg}={locals()[arg]}.")
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("`l2_shrinkage_regularization_strength` needs to be positive or zero. Received: "
                             f"l2_shrinkage_regularization_strength={l2_shrinkage_regularization_strength}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        if self.built:
            return
        from tensorlet._src.keras import initializers

        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"],
            initializer=[initializers.Constant(self.initial_accumulator_value), "zeros"])

    def update_step(self, gradient, variable, learning_rate):
        lr = cast(learning_rate, variable.dtype)
        gradient = S.cast(gradient, variable.dtype)
        i = self._get_variable_index(variable)
        accum, linear = self._accumulators[i], self._linears[i]
        lr_power = self.learning_rate_power
        l2_reg = self.l2_regularization_strength + self.beta / (2.0 * lr)
        grad_to_use = S.add(gradient, variable * (2 * self.l2_shrinkage_regularization_strength))
        new_accum = S.add(accum, S.square(gradient))
        sigma = (math_binary.pow(new_accum, -lr_power) - math_binary.pow(accum, -lr_power)) / lr
        self.assign_add(linear, grad_to_use - sigma * variable)
        quadratic = math_binary.pow(new_accum, -lr_power) / lr + 2 * l2_reg
        l1 = self.l1_regularization_strength
        linear_clipped = clip_by_value(linear, cast(-l1, linear.dtype), cast(l1, linear.dtype))
        self.assign(variable, (linear_clipped - linear) / quadratic)
        self.assign(accum, new_accum)

    def get_config(self):
        return {**super().get_config(), "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
                "beta": self.beta}


@tf_export("keras.optimizers.Lion")
class Lion(Optimizer):
    """Sign of an interpolated momentum: ``w -= lr * sign(b1 * m + (1 - b1) * g)``."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
                             f"to SignSGD. Received: beta_1={beta_1}.")

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        dt = variable.dtype
        lr = cast(learning_rate, dt)
        gradient = S.cast(gradient, dt)
        beta_1 = cast(self.beta_1, dt)
        beta_2 = cast(self.beta_2, dt)
        m = self._momentums[self._get_variable_index(variable)]
        self.assign_sub(variable, S.mul(lr, S.sign(S.add(m * beta_1, S.mul(gradient, 1.0 - beta_1)))))
        self.assign(m, S.add(m * beta_2, S.mul(gradient, 1.0 - beta_2)))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}
