"""``tf.keras.optimizers.SGD``: gradient descent with optional (Nesterov) momentum, Keras 3's update rule."""

from __future__ import annotations

from tensorlet._src.ops.math_binary import cast
from tensorlet._src.keras.optimizers import _sparse as S
from tensorlet._src.keras.optimizers.base import Optimizer
from tensorlet._src.ops.registry import tf_export


@tf_export("keras.optimizers.SGD")
class SGD(Optimizer):
    """``v = momentum * v - lr * g; w += v`` (``w -= lr * g`` without momentum).

    >>> opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.momentums = []
        if self.momentum != 0:
            self.momentums = self.add_optimizer_variables(variables, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        lr = cast(learning_rate, variable.dtype)
        gradient = S.cast(gradient, variable.dtype)
        m = self.momentums[self._get_variable_index(variable)] if self.momentum != 0 else None
        if m is None:
            self.assign_sub(variable, S.mul(gradient, lr))
            return
        momentum = cast(self.momentum, variable.dtype)
        self.assign(m, S.sub(m * momentum, S.mul(gradient, lr)))
        if self.nesterov:
            self.assign_add(variable, S.sub(m * momentum, S.mul(gradient, lr)))
        else:
            self.assign_add(variable, m)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}
