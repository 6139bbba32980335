"""The loss and metric containers behind ``model.compile(loss=..., metrics=...)`` (Keras 3's compile_utils).

``CompileLoss`` maps the user's loss spec (one loss, a list per output, a dict by output name) onto the model's
outputs and sums ``loss_weight * loss``; with several outputs it also tracks ``"{output}_loss"`` means.
``CompileMetrics`` builds the metric objects on the first batch (``"accuracy"`` is resolved from the shapes) and
reports their results in one dict.
"""

from __future__ import annotations

from tensorlet._src.ops.array_shape import shape
from tensorlet._src.ops.math_binary import cast
from tensorlet._src.util import nest
from tensorlet._src.keras import backend


def _flat(y):
    return nest.flatten(y)


# --- losses ---------------------------------------------------------------------------------------------------------
def _losses_module():
    from tensorlet._src.keras import losses

    return losses


def _object_name(obj):
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        return name
    name = getattr(obj, "__name__", None)
    if name:
        return name
    return backend.to_snake_case(type(obj).__name__)


def get_loss(identifier, y_true, y_pred):
    """A Loss object for one output (``"crossentropy"``/``"ce"`` resolved from the shapes, as Keras does)."""
    if identifier is None:
        return None
    losses = _losses_module()
    if str(identifier).lower() in ("crossentropy", "ce"):
        is_binary, is_sparse = _binary_or_sparse(y_true, y_pred)
        if is_binary:
            obj = losses.binary_crossentropy
        elif is_sparse:
            obj = losses.sparse_categorical_crossentropy
        else:
            obj = losses.categorical_crossentropy
    else:
        obj = losses.get(identifier)
    if not isinstance(obj, losses.Loss):
        name = identifier if isinstance(identifier, str) else _object_name(obj)
        obj = losses.LossFunctionWrapper(obj, name=name)
    return obj


def _binary_or_sparse(y_true, y_pred):
    t, p = tuple(y_true.shape), tuple(y_pred.shape)
    is_binary = bool(p) and p[-1] == 1
    is_sparse = len(t) < len(p) or (bool(t) and t[-1] == 1 and bool(p) and p[-1] is not None and p[-1] > 1)
    return is_binary, is_sparse


class CompileLoss:
    """Total compiled loss for a model's outputs; ``metrics`` are the per-output loss means (multi-output)."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        if loss_weights and not isinstance(loss_weights, (list, tuple, dict, float, int)):
            raise ValueError("Expected `loss_weights` argument to be a float (single output case) or a list, tuple, "
                             "or dict (multiple output case). Received instead: "
                             f"loss_weights={loss_weights} of type {type(loss_weights)}")
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        self.output_names = output_names
        self.built = False
        self._metrics = []
        self._entries = []  # (index into flat outputs, loss object, weight, name)
        self.name = "compile_loss"

    @property
    def metrics(self):
        return self._metrics

    @property
    def variables(self):
        out = []
        for m in self._metrics:
            out.extend(m.variables)
        return out

    def _names(self, n):
        names = list(self.output_names) if self.output_names and len(self.output_names) == n else [None] * n
        return names

    def build(self, y_true, y_pred):
        flat_pred = _flat(y_pred)
        n = len(flat_pred)
        names = self._names(n)
        if isinstance(y_pred, dict):
            names = list(nest.flatten({k: k for k in y_pred}))
        loss, weights = self._user_loss, self._user_loss_weights
        if isinstance(loss, dict):
            missing = [k for k in loss if k not in names]
            if missing:
                raise ValueError(f"Expected keys {names} in loss dict, but found loss.keys()={list(loss.keys())}")
            per = [loss.get(k) for k in names]
        elif isinstance(loss, (list, tuple)):
            if len(loss) != n:
                if n == 1 and len(loss) == 1:
                    per = list(loss)
                else:
                    raise ValueError(f"For a model with {n} outputs, when providing the `loss` argument as a list, "
                                     f"it should have as many entries as the model has outputs. Received:\n"
                                     f"loss={loss}\nof length {len(loss)}")
            else:
                per = list(loss)
        else:
            per = [loss] * n
        if isinstance(weights, dict):
            w = [weights.get(k) for k in names]
        elif isinstance(weights, (list, tuple)):
            if len(weights) != len([p for p in per if p is not None]) and len(weights) != n:
                raise ValueError(f"`loss_weights` must match the number of losses, got {len(per)} losses and "
                                 f"{len(weights)} weights.")
            w = list(weights)
        else:
            w = [weights] * n
        flat_true = _flat(self._align_true(y_true, y_pred, names))
        self._entries = []
        for i, (spec, weight) in enumerate(zip(per, w)):
            if spec is None:
                continue
            obj = get_loss(spec, flat_true[i] if i < len(flat_true) else flat_pred[i], flat_pred[i])
            name = names[i] if names[i] is not None else getattr(obj, "name", "loss")
            self._entries.append((i, obj, weight, name))
        if len(self._entries) > 1:
            from tensorlet._src.keras.metrics import Mean

            self._metrics = [Mean(name=f"{name}_loss") for _, _, _, name in self._entries]
        self.built = True

    def _align_true(self, y_true, y_pred, names):
        if isinstance(y_true, dict) and not isinstance(y_pred, dict):
            if all(k in y_true for k in names if k is not None) and all(n is not None for n in names):
                return [y_true[k] for k in names]
        if isinstance(y_pred, dict) and isinstance(y_true, dict):
            return {k: y_true.get(k) for k in y_pred}
        if not isinstance(y_true, (list, tuple, dict)) and len(_flat(y_pred)) == 1:
            return [y_true]
        return y_true

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_pred = _flat(y_pred)
        names = self._names(len(flat_pred))
        if isinstance(y_pred, dict):
            names = list(nest.flatten({k: k for k in y_pred}))
        flat_true = _flat(self._align_true(y_true, y_pred, names))
        if sample_weight is not None and isinstance(sample_weight, (list, tuple, dict)):
            flat_sw = _flat(self._align_true(sample_weight, y_pred, names))
        else:
            flat_sw = [sample_weight] * len(flat_pred)
        values = []
        batch = shape(flat_pred[0])[0] if len(self._entries) > 1 else None
        for k, (i, fn, weight, _) in enumerate(self._entries):
            v = fn(flat_true[i], flat_pred[i], flat_sw[i] if i < len(flat_sw) else None)
            if v.dtype.name != "float32" and v.dtype.is_floating:
                v = cast(v, "float32")
            if self._metrics:  # per-output trackers record the unweighted loss, as Keras does
                self._metrics[k].update_state(v, sample_weight=batch)
            if weight is not None:
                v = v * float(weight)
            values.append(v)
        if not values:
            return None
        if len(values) > 1:
            total = values[0]
            for v in values[1:]:
                total = total + v
            return total
        return values[0]

    def reset_state(self):
        for m in self._metrics:
            m.reset_state()


# --- metrics --------------------------------------------------------------------------------------------------------
class _MetricsList:
    def __init__(self, metrics, output_name=None):
        self.metrics = metrics
        self.output_name = output_name


def _metrics_list(spec, y_true, y_pred, output_name):
    from tensorlet._src.keras.metrics import get_compile_metric

    if spec is None:
        return None
    specs = list(spec) if isinstance(spec, (list, tuple)) else [spec]
    return _MetricsList([get_compile_metric(m, tuple(y_true.shape), tuple(y_pred.shape)) for m in specs],
                        output_name)


class CompileMetrics:
    """The metrics of ``compile(metrics=..., weighted_metrics=...)``; ``result()`` is a dict by metric name."""

    def __init__(self, metrics, weighted_metrics, output_names=None):
        if metrics and not isinstance(metrics, (list, tuple, dict)):
            raise ValueError("Expected `metrics` argument to be a list, tuple, or dict. Received instead: "
                             f"metrics={metrics} of type {type(metrics)}")
        if weighted_metrics and not isinstance(weighted_metrics, (list, tuple, dict)):
            raise ValueError("Expected `weighted_metrics` argument to be a list, tuple, or dict. Received instead: "
                             f"weighted_metrics={weighted_metrics} of type {type(weighted_metrics)}")
        self._user_metrics = metrics
        self._user_weighted = weighted_metrics
        self.output_names = output_names
        self.name = "compile_metrics"
        self.built = False
        self._flat = []
        self._flat_weighted = []

    def __repr__(self):
        return "<CompileMetrics name=compile_metrics>"

    @property
    def metrics(self):
        if not self.built:
            return []
        out = []
        for ml in self._flat + self._flat_weighted:
            if ml is not None:
                out.extend(ml.metrics)
        return out

    @property
    def variables(self):
        out = []
        for m in self.metrics:
            out.extend(m.variables)
        return out

    def _build_set(self, spec, names, flat_true, flat_pred):
        n = len(flat_pred)
        if not spec:
            return [None] * n
        if n == 1:
            return [_metrics_list(nest.flatten(spec), flat_true[0], flat_pred[0], None)]
        if isinstance(spec, dict):
            per = [spec.get(k) for k in names]
        elif isinstance(spec, (list, tuple)) and len(spec) == n and all(
                isinstance(s, (list, tuple)) or s is None for s in spec):
            per = list(spec)
        else:
            per = [spec] * n
        return [_metrics_list(s, t, p, name) for s, t, p, name in zip(per, flat_true, flat_pred, names)]

    def build(self, y_true, y_pred):
        flat_pred = _flat(y_pred)
        n = len(flat_pred)
        names = list(self.output_names) if self.output_names and len(self.output_names) == n else [None] * n
        if isinstance(y_pred, dict):
            names = list(nest.flatten({k: k for k in y_pred}))
        self._names = names
        flat_true = self._flatten_true(y_true, y_pred)
        self._flat = self._build_set(self._user_metrics, names, flat_true, flat_pred)
        self._flat_weighted = self._build_set(self._user_weighted, names, flat_true, flat_pred)
        self.built = True

    def _flatten_true(self, y_true, y_pred):
        n = len(_flat(y_pred))
        if isinstance(y_true, dict) and not isinstance(y_pred, dict) and all(k is not None for k in self._names):
            if all(k in y_true for k in self._names):
                return [y_true[k] for k in self._names]
        if not isinstance(y_true, (list, tuple, dict)) and n == 1:
            return [y_true]
        return _flat(y_true)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_true = self._flatten_true(y_true, y_pred)
        flat_pred = _flat(y_pred)
        for ml, t, p in zip(self._flat, flat_true, flat_pred):
            if ml is not None:
                for m in ml.metrics:
                    m.update_state(t, p)
        if sample_weight is not None:
            sw = _flat(sample_weight) if isinstance(sample_weight, (list, tuple, dict)) else [sample_weight]
            if len(sw) < len(flat_true):
                sw = [sw[0]] * len(flat_true)
        else:
            sw = [None] * len(flat_true)
        for ml, t, p, w in zip(self._flat_weighted, flat_true, flat_pred, sw):
            if ml is not None:
                for m in ml.metrics:
                    m.update_state(t, p, sample_weight=w)

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def result(self):
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        results = {}
        counters = {}
        for ml in self._flat:
            if ml is None:
                continue
            for m in ml.metrics:
                name = f"{ml.output_name}_{m.name}" if ml.output_name else m.name
                if name not in counters:
                    counters[name] = 1
                else:
                    idx = counters[name]
                    counters[name] += 1
                    name = f"{name}_{idx}"
                results[name] = m.result()
        for ml in self._flat_weighted:
            if ml is None:
                continue
            for m in ml.metrics:
                name = f"{ml.output_name}_{m.name}" if ml.output_name else m.name
                if name not in counters:
                    counters[name] = 1
                else:
                    name = f"weighted_{m.name}"
                    if ml.output_name:
                        name = f"{ml.output_name}_{name}"
                    if name not in counters:
                        counters[name] = 1
                    else:
                        idx = counters[name]
                        counters[name] += 1
                        name = f"{name}_{idx}"
                results[name] = m.result()
        return results
