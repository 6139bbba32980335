"""``tf.keras.optimizers.Adam``, ``AdamW``, ``Adamax`` and ``Nadam`` with Keras 3's update rules."""

from __future__ import annotations

from tensorlet._src.ops import math_binary
from tensorlet._src.ops.math_binary import cast, maximum
from tensorlet._src.ops.math_unary import sqrt
from tensorlet._src.keras import backend
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.keras.optimizers.base import Optimizer, keras_variable
from tensorlet._src.ops.registry import tf_export


def _base_kwargs(**kw):
    return kw


@tf_export("keras.optimizers.Adam")
class Adam(Optimizer):
    """Adaptive moments: ``w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)``.

    >>> opt = tf.keras.optimizers.Adam(learning_rate=1e-3)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def update_step(self, gradient, variable, learning_rate):
        dt = variable.dtype
        lr = cast(learning_rate, dt)
        gradient = S.cast(gradient, dt)
        step = cast(self.iterations + 1, dt)
        b1_power = math_binary.pow(cast(self.beta_1, dt), step)
        b2_power = math_binary.pow(cast(self.beta_2, dt), step)
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        alpha = lr * sqrt(1 - b2_power) / (1 - b1_power)
        self.assign_add(m, S.mul(S.sub(gradient, m), 1 - self.beta_1))
        self.assign_add(v, S.mul(S.sub(S.square(gradient), v), 1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[i]
            self.assign(v_hat, maximum(v_hat, v))
            v = v_hat
        self.assign_sub(variable, (m * alpha) / (sqrt(v) + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                "amsgrad": self.amsgrad}


@tf_export("keras.optimizers.AdamW")
class AdamW(Adam):
    """Adam with decoupled weight decay (``w -= lr * weight_decay * w`` before each step)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")


@tf_export("keras.optimizers.Adamax")
class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(b2 * u, |g|)``."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None,
                 name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient, variable, learning_rate):
        dt = variable.dtype
        lr = cast(learning_rate, dt)
        gradient = S.cast(gradient, dt)
        step = cast(self.iterations + 1, dt)
        b1_power = math_binary.pow(cast(self.beta_1, dt), step)
        i = self._get_variable_index(variable)
        m, u = self._m[i], self._u[i]
        self.assign_add(m, S.mul(S.sub(gradient, m), 1 - self.beta_1))
        self.assign(u, S.maximum(u * self.beta_2, S.abs(gradient)))
        self.assign_sub(variable, (lr * m) / ((1 - b1_power) * (u + self.epsilon)))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


@tf_export("keras.optimizers.Nadam")
class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat's schedule ``u_t = b1 * (1 - 0.5 * 0.96^t)``)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None, gradient_accumulation_steps=None,
                 name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        if self.built:
            return
        dtype = var_list[0].dtype if var_list else backend.floatx()
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        self._u_product = keras_variable(1.0, "variable", dtype, f"{self.name}/variable")
        self._variables.append(self._u_product)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        dt = self._u_product.dtype
        self.assign(self._u_product, self._u_product * self.beta_1 *
                    (1.0 - 0.5 * math_binary.pow(cast(0.96, dt), cast(self.iterations + 1, dt))))
        super()._backend_update_step(grads, trainable_variables, learning_rate)

    def update_step(self, gradient, variable, learning_rate):
        dt = variable.dtype
        lr = cast(learning_rate, dt)
        gradient = S.cast(gradient, dt)
        step = cast(self.iterations + 1, dt)
        next_step = cast(self.iterations + 2, dt)
        decay = cast(0.96, dt)
        beta_1 = cast(self.beta_1, dt)
        beta_2 = cast(self.beta_2, dt)
        u_t = beta_1 * (1.0 - 0.5 * math_binary.pow(decay, step))
        u_t_1 = beta_1 * (1.0 - 0.5 * math_binary.pow(decay, next_step))
        u_product_t = cast(self._u_product, dt)
        u_product_t_1 = u_product_t * u_t_1
        b2_power = math_binary.pow(beta_2, step)
        i = self._get_variable_index(variable)
        m, v = self._momentums[i], self._velocities[i]
        self.assign_add(m, S.mul(S.sub(gradient, m), 1 - beta_1))
        self.assign_add(v, S.mul(S.sub(S.square(gradient), v), 1 - beta_2))
        m_hat = S.add((u_t_1 * m) / (1 - u_product_t_1), S.div(S.mul(1 - u_t, gradient), 1 - u_product_t))
        v_hat = v / (1 - b2_power)
        self.assign_sub(variable, S.div(S.mul(m_hat, lr), sqrt(v_hat) + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}
