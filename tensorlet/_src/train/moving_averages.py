"""``tf.train.ExponentialMovingAverage``: shadow variables that track moving averages of variables."""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.variables import Variable

__all__ = ["ExponentialMovingAverage"]


def _base_name(var):
    return (getattr(var, "name", "") or "").split(":")[0]


@tf_export("train.ExponentialMovingAverage")
class ExponentialMovingAverage:
    """``shadow = decay * shadow + (1 - decay) * variable`` on each ``apply``.

    With ``num_updates`` the decay is ``min(decay, (1 + num_updates) / (10 + num_updates))``; with
    ``zero_debias=True`` the shadows of tensors (not variables) are debiased as in TF (Adam's correction).
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}

    name = property(lambda self: self._name)

    def _key(self, var):
        return id(var)

    def _effective_decay(self):
        decay = convert_to_tensor(self._decay, _dt.float32).numpy()
        if self._num_updates is not None:
            n = float(convert_to_tensor(self._num_updates).numpy())
            decay = min(float(decay), (1.0 + n) / (10.0 + n))
        return float(decay)

    def apply(self, var_list=None):
        """Create shadows (initialised to the current values) for new variables and update all of them."""
        if var_list is None:
            raise ValueError("`var_list` is required when eager execution is enabled (TF 2 has no collections)")
        var_list = list(var_list)
        for v in var_list:
            if v.dtype.base_dtype not in (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64):
                raise TypeError(f"The variables must be half, float, or double: {_base_name(v)}")
            if self._key(v) not in self._averages:
                init = v.read_value() if hasattr(v, "read_value") else convert_to_tensor(v)
                self._averages[self._key(v)] = (v, Variable(init, trainable=False,
                                                            name=f"{_base_name(v)}/{self._name}"))
        decay = self._effective_decay()
        for v in var_list:
            _, avg = self._averages[self._key(v)]
            value = v.read_value() if hasattr(v, "read_value") else convert_to_tensor(v)
            avg.assign_sub((avg.read_value() - value) * (1.0 - decay))
        return None

    def average(self, var):
        """The shadow variable of ``var`` (None if ``apply`` has not seen it)."""
        entry = self._averages.get(self._key(var))
        return entry[1] if entry else None

    def average_name(self, var):
        return f"{_base_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """``{checkpoint name of each shadow: variable}`` for restoring averages into the variables."""
        out = {}
        for v, _ in self._averages.values():
            out[self.average_name(v)] = v
        return out
