"""``tf.keras.optimizers.RMSprop``, ``Adagrad`` and ``Adadelta`` with Keras 3's update rules."""

from __future__ import annotations

from tensorlet._src.ops.math_binary import cast
from tensorlet._src.ops.math_unary import sqrt, square
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.keras.optimizers.base import Optimizer
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.optimizers.RMSprop")
class RMSprop(Optimizer):
    """Divides the gradient by a running RMS: ``w -= lr * g / sqrt(ms + eps)`` (optionally centered/momentum).

    >>> opt = tf.keras.optimizers.RMSprop(learning_rate=1e-3, rho=0.9)
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = self.add_optimizer_variables(var_list, "momentum") if self.momentum > 0 else []
        self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient") if self.centered else []

    def update_step(self, gradient, variable, learning_rate):
        lr = cast(learning_rate, variable.dtype)
        gradient = S.cast(gradient, variable.dtype)
        i = self._get_variable_index(variable)
        velocity = self._velocities[i]
        rho = self.rho
        self.assign(velocity, S.add(velocity * rho, S.mul(S.square(gradient), 1 - rho)))
        if self.centered:
            average_grad = self._average_gradients[i]
            self.assign(average_grad, S.add(average_grad * rho, S.mul(gradient, 1 - rho)))
            denominator = velocity - square(average_grad) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = S.div(S.mul(lr, gradient), sqrt(denominator))
        if self.momentum > 0:
            momentum = self._momentums[i]
            self.assign(momentum, S.add(momentum * self.momentum, increment))
            self.assign_sub(variable, momentum)
        else:
            self.assign_sub(variable, increment)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}


@tf_export("keras.optimizers.Adagrad")
class Adagrad(Optimizer):
    """Per-parameter rates from the sum of squared gradients: ``w -= lr * g / sqrt(acc + eps)``."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None,
                 name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list):
        if self.built:
            return
        from tensorlet._src.keras import initializers

        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(
            var_list, "accumulator", initializer=initializers.Constant(self.initial_accumulator_value))

    def update_step(self, gradient, variable, learning_rate):
        lr = cast(learning_rate, variable.dtype)
        gradient = S.cast(gradient, variable.dtype)
        acc = self._accumulators[self._get_variable_index(variable)]
        self.assign_add(acc, S.square(gradient))
        self.assign_sub(variable, S.div(S.mul(lr, gradient), sqrt(acc + self.epsilon)))

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}


@tf_export("keras.optimizers.Adadelta")
class Adadelta(Optimizer):
    """Step sizes from running averages of squared gradients and squared updates."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"])

    def update_step(self, grad, variable, learning_rate):
        lr = cast(learning_rate, variable.dtype)
        grad = S.cast(grad, variable.dtype)
        rho = self.rho
        i = self._get_variable_index(variable)
        acc_grad, acc_delta = self._accumulated_grads[i], self._accumulated_delta_vars[i]

        def rms(x):
            return sqrt(x + self.epsilon)

        self.assign(acc_grad, S.add(acc_grad * rho, S.mul(S.square(grad), 1 - rho)))
        delta = S.negative(S.div(S.mul(rms(acc_delta), grad), rms(acc_grad)))
        self.assign(acc_delta, S.add(acc_delta * rho, S.mul(S.square(delta), 1 - rho)))
        self.assign_add(variable, S.mul(lr, delta))

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}
