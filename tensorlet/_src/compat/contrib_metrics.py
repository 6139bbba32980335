"""``tf.contrib.eager.metrics`` (TF 1.x): stateful eager metrics called like functions.

``m(values)`` accumulates and returns its arguments; ``m.result()`` reads the value (float64 by default).

>>> m = tf.compat.v1.contrib.eager.metrics.Mean("loss")
>>> _ = m(0); _ = m(5)
>>> m.result().numpy()
2.5
"""

from __future__ import annotations

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework.context import init_scope
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops import array_shape
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.framework.variables import Variable
from tensorlet._src.ops.array_shape import size, broadcast_to, squeeze
from tensorlet._src.ops.creation import zeros
from tensorlet._src.ops.math_binary import cast, divide, equal
from tensorlet._src.ops.reduce import argmax, reduce_sum


@tf_export("compat.v1.contrib.eager.metrics.Metric")
class Metric:
    """Base class: subclasses define ``build()``, ``call(*args)`` and ``result()`` and create state with
    ``add_variable``."""

    def __init__(self, name=None, use_global_variables=False):
        self._name = name or type(self).__name__.lower()
        self._built = False
        self._vars = []
        self._initial = []

    @property
    def name(self):
        return self._name

    @property
    def variables(self):
        return list(self._vars)

    def add_variable(self, name, shape=None, dtype=None, initializer=None):
        """A non-trainable state variable (zeros unless ``initializer``)."""
        dtype = _dt.float64 if dtype is None else _dt.as_dtype(dtype)
        shape = () if shape is None else shape
        with init_scope():
            init = zeros(shape, dtype) if initializer is None else cast(initializer, dtype)
            v = Variable(init, trainable=False, name=f"{self._name}/{name}")
        self._vars.append(v)
        self._initial.append(init)
        return v

    def init_variables(self):
        """Resets the state."""
        for v, init in zip(self._vars, self._initial):
            v.assign(init)

    def __call__(self, *args, **kwargs):
        if not self._built:
            self.build(*args, **kwargs)
            self._built = True
        return self.call(*args, **kwargs)

    def build(self, *args, **kwargs):
        pass

    def call(self, *args, **kwargs):
        raise NotImplementedError

    def result(self, write_summary=True):
        raise NotImplementedError

    def value(self):
        return self.result(write_summary=False)

    def _checkpoint_dependencies(self):
        return {v.name.split("/")[-1].split(":")[0]: v for v in self._vars}

    def _summary(self, t, write_summary):
        if write_summary:
            from tensorlet._src.compat import contrib_summary

            contrib_summary.scalar(self._name, t)
        return t


@tf_export("compat.v1.contrib.eager.metrics.Mean")
class Mean(Metric):
    """The (weighted) mean of everything passed in."""

    def __init__(self, name=None, dtype=_dt.float64, use_global_variables=False):
        super().__init__(name=name, use_global_variables=use_global_variables)
        self.dtype = _dt.as_dtype(dtype)
        self.numer = self.add_variable("numer", dtype=self.dtype)
        self.denom = self.add_variable("denom", dtype=self.dtype)

    def call(self, values, weights=None):
        v = cast(convert_to_tensor(values), self.dtype)
        if weights is None:
            self.denom.assign_add(cast(size(v), self.dtype))
            self.numer.assign_add(reduce_sum(v))
            return values
        w = broadcast_to(cast(convert_to_tensor(weights), self.dtype), array_shape.shape(v))
        self.denom.assign_add(reduce_sum(w))
        self.numer.assign_add(reduce_sum(v * w))
        return values, weights

    def result(self, write_summary=True):
        return self._summary(divide(self.numer.read_value(), self.denom.read_value()), write_summary)


@tf_export("compat.v1.contrib.eager.metrics.Accuracy")
class Accuracy(Mean):
    """The fraction of ``labels == predictions``."""

    def __init__(self, name=None, dtype=_dt.float64):
        super().__init__(name=name, dtype=dtype)

    def call(self, labels, predictions, weights=None):
        matches = cast(equal(convert_to_tensor(labels), cast(predictions, convert_to_tensor(labels).dtype)),
                         self.dtype)
        super().call(matches, weights=weights)
        return (labels, predictions) if weights is None else (labels, predictions, weights)


@tf_export("compat.v1.contrib.eager.metrics.CategoricalAccuracy")
class CategoricalAccuracy(Mean):
    """Accuracy of ``argmax(predictions)`` against one-hot ``labels``."""

    def __init__(self, name=None, dtype=_dt.float64):
        super().__init__(name=name, dtype=dtype)

    def call(self, labels, predictions, weights=None):
        matches = cast(equal(argmax(labels, axis=-1), argmax(predictions, axis=-1)), self.dtype)
        super().call(matches, weights=weights)
        return (labels, predictions) if weights is None else (labels, predictions, weights)


@tf_export("compat.v1.contrib.eager.metrics.SparseAccuracy")
class SparseAccuracy(Mean):
    """Accuracy of ``argmax(predictions)`` against integer ``labels``."""

    def __init__(self, name=None, dtype=_dt.float64):
        super().__init__(name=name, dtype=dtype)

    def call(self, labels, predictions, weights=None):
        labels = convert_to_tensor(labels)
        if labels.shape.rank == predictions.shape.rank:
            labels = squeeze(labels, axis=[-1])
        pred = cast(argmax(predictions, axis=-1), labels.dtype)
        super().call(cast(equal(labels, pred), self.dtype), weights=weights)
        return (labels, predictions) if weights is None else (labels, predictions, weights)


@tf_export("compat.v1.contrib.eager.metrics.BinaryAccuracy")
class BinaryAccuracy(Mean):
    """Accuracy of ``predictions > threshold`` against 0/1 ``labels``."""

    def __init__(self, threshold=0.5, name=None, dtype=_dt.float64):
        super().__init__(name=name, dtype=dtype)
        self.threshold = threshold

    def call(self, labels, predictions, weights=None):
        predictions = convert_to_tensor(predictions)
        pred = cast(predictions > cast(self.threshold, predictions.dtype), self.dtype)
        super().call(cast(equal(cast(labels, self.dtype), pred), self.dtype), weights=weights)
        return (labels, predictions) if weights is None else (labels, predictions, weights)
