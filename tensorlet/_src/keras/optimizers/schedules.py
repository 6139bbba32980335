"""``tf.keras.optimizers.schedules``: learning rates as functions of the step (Keras 3's formulas).

>>> s = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
>>> float(s(10))
0.05
"""

from __future__ import annotations

import math

from tensorlet._src.framework.tensor import constant, convert_to_tensor
from tensorlet._src.ops import math_binary
from tensorlet._src.ops.array_select import where
from tensorlet._src.ops.creation import ones_like, zeros
from tensorlet._src.ops.math_binary import cast, equal, greater, less, less_equal, logical_and, minimum
from tensorlet._src.ops.math_unary import ceil, cos, floor, log
from tensorlet._src.keras import _objects
from tensorlet._src.ops.registry import tf_export

_P = "keras.optimizers.schedules."


def _check_steps(name, value):
    if value <= 0:
        raise ValueError(f"Argument `{name}` must be > 0. Received: {name}={value}")


@tf_export(_P + "LearningRateSchedule")
class LearningRateSchedule:
    """Base class: ``__call__(step)`` returns the learning rate; subclasses also implement ``get_config``."""

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{self.__class__.__name__}' must override "
                                  "`__call__(self, step)`.")

    def get_config(self):
        raise NotImplementedError(f"Learning rate schedule '{self.__class__.__name__}' must override `get_config()` "
                                  "in order to be serializable.")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@tf_export(_P + "ExponentialDecay")
class ExponentialDecay(LearningRateSchedule):
    """``initial * decay_rate ** (step / decay_steps)`` (floored exponent when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step):
        init = convert_to_tensor(self.initial_learning_rate)
        dt = init.dtype
        p = cast(step, dt) / cast(self.decay_steps, dt)
        if self.staircase:
            p = floor(p)
        return init * math_binary.pow(cast(self.decay_rate, dt), p)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


@tf_export(_P + "PiecewiseConstantDecay")
class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]``."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        step = convert_to_tensor(step)
        bounds = [cast(convert_to_tensor(b), step.dtype) for b in self.boundaries]
        values = [convert_to_tensor(v) for v in self.values]
        dt = values[0].dtype
        out = zeros([], dtype=dt)
        out = out + cast(less_equal(step, bounds[0]), dt) * values[0]
        out = out + cast(greater(step, bounds[-1]), dt) * values[-1]
        for low, high, value in zip(bounds[:-1], bounds[1:], values[1:-1]):
            out = out + cast(logical_and(greater(step, low), less_equal(step, high)), dt) * value
        return out

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


@tf_export(_P + "PolynomialDecay")
class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end`` (repeating when ``cycle``)."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                 name="PolynomialDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step):
        init = convert_to_tensor(self.initial_learning_rate)
        dt = init.dtype
        end = cast(self.end_learning_rate, dt)
        power = cast(self.power, dt)
        s = cast(step, dt)
        steps = cast(self.decay_steps, dt)
        if self.cycle:
            mult = where(equal(s, 0), ones_like(s), ceil(s / cast(self.decay_steps, dt)))
            steps = steps * mult
        else:
            s = minimum(s, steps)
        p = s / steps
        return (init - end) * math_binary.pow(1 - p, power) + end

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


@tf_export(_P + "InverseTimeDecay")
class InverseTimeDecay(LearningRateSchedule):
    """``initial / (1 + decay_rate * step / decay_steps)``."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="InverseTimeDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step):
        init = convert_to_tensor(self.initial_learning_rate)
        dt = init.dtype
        p = cast(step, dt) / cast(self.decay_steps, dt)
        if self.staircase:
            p = floor(p)
        return init / (cast(1, dt) + cast(self.decay_rate, dt) * p)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


@tf_export(_P + "CosineDecay")
class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial`` (or, after a linear warmup, from ``warmup_target``) to ``alpha * lr``."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay", warmup_target=None,
                 warmup_steps=0):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target
        _check_steps("decay_steps", decay_steps)

    def _decay(self, step, decay_steps, from_lr, dt):
        fraction = step / decay_steps
        cosine = 0.5 * (1.0 + cos(constant(math.pi, dtype=dt) * fraction))
        return from_lr * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step):
        init = convert_to_tensor(self.initial_learning_rate)
        dt = init.dtype
        decay_steps = cast(self.decay_steps, dt)
        s = cast(step, dt)
        if self.warmup_target is None:
            return self._decay(minimum(s, decay_steps), decay_steps, init, dt)
        target = cast(self.warmup_target, dt)
        warmup_steps = cast(self.warmup_steps, dt)
        s = minimum(s, decay_steps + warmup_steps)
        warm = (target - init) * (s / warmup_steps) + init
        decayed = self._decay(s - warmup_steps, decay_steps, target, dt)
        return where(less(s, warmup_steps), warm, decayed)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


@tf_export(_P + "CosineDecayRestarts")
class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods grow by ``t_mul``, peaks scale by ``m_mul``."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name="SGDRDecay"):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name
        _check_steps("first_decay_steps", first_decay_steps)

    def __call__(self, step):
        init = convert_to_tensor(self.initial_learning_rate)
        dt = init.dtype
        alpha = cast(self.alpha, dt)
        t_mul = cast(self._t_mul, dt)
        m_mul = cast(self._m_mul, dt)
        fraction = cast(step, dt) / cast(self.first_decay_steps, dt)
        if float(self._t_mul) == 1.0:
            i_restart = floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = floor(log(1.0 - fraction * (1.0 - t_mul)) / log(t_mul))
            sum_r = (1.0 - math_binary.pow(t_mul, i_restart)) / (1.0 - t_mul)
            fraction = (fraction - sum_r) / math_binary.pow(t_mul, i_restart)
        m_fac = math_binary.pow(m_mul, i_restart)
        cosine = 0.5 * m_fac * (1.0 + cos(constant(math.pi, dtype=dt) * fraction))
        return init * ((1 - alpha) * cosine + alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self._t_mul, "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_ALL = {c.__name__: c for c in (LearningRateSchedule, ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay,
                                 InverseTimeDecay, CosineDecay, CosineDecayRestarts)}


@tf_export(_P + "serialize")
def serialize(learning_rate_schedule):
    """The Keras 3 config dict of a schedule."""
    return _objects.serialize_object(learning_rate_schedule)


@tf_export(_P + "deserialize")
def deserialize(config, custom_objects=None):
    """A schedule from its config dict."""
    return _objects.deserialize_object(config, _ALL, custom_objects, kind="decay")
