"""What ``Layer`` works out about a layer class once: its ``call`` signature (``training``/``mask`` arguments, their
defaults; cached per class) and Keras 3's automatic config (the constructor arguments when they are plain values)."""

from __future__ import annotations

import inspect

from tensorlet._src.framework.variables import VariableAggregation

_SIG_CACHE = {}


class CallSig:
    __slots__ = ("params", "first", "has_training", "has_mask", "training_default", "var_kw", "names",
                 "mask_args")

    def __init__(self, fn):
        sig = inspect.signature(fn)
        params = [p for p in sig.parameters.values() if p.name != "self"]
        self.params = params
        self.names = [p.name for p in params]
        self.first = params[0].name if params else None
        self.has_training = "training" in self.names
        self.has_mask = "mask" in self.names
        self.var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
        d = sig.parameters.get("training")
        self.training_default = None if d is None or d.default is inspect.Parameter.empty else d.default
        self.mask_args = [n for n in self.names if n.endswith("_mask")]


def call_sig(layer):
    cls = type(layer)
    call = cls.call
    sig = _SIG_CACHE.get(call)
    if sig is None:
        sig = _SIG_CACHE[call] = CallSig(layer.call)
    return sig


def is_default(method, base_method):
    return getattr(method, "__func__", method) is base_method


# --- Layer --------------------------------------------------------------------------------------------------------


def auto_config(cls, args, kwargs):
    """Keras 3's automatic config: the constructor arguments (defaults filled in, ``name`` dropped) when they are
    all plain values, else None."""
    try:
        sig = inspect.signature(cls.__init__)
        bound = sig.bind(None, *args, **kwargs)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind is p.POSITIONAL_ONLY for p in params[1:]):
        return None
    bound.apply_defaults()
    cfg = {}
    for k, v in list(bound.arguments.items())[1:]:
        p = sig.parameters[k]
        if p.kind is p.VAR_KEYWORD:
            cfg.update(v)
        elif p.kind is p.VAR_POSITIONAL:
            if v:
                return None
        else:
            cfg[k] = v
    cfg.pop("name", None)
    return cfg if json_friendly(cfg) else None


def json_friendly(obj):
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return True
    if isinstance(obj, (list, tuple)):
        return all(json_friendly(x) for x in obj)
    if isinstance(obj, dict):
        return all(isinstance(k, str) and json_friendly(v) for k, v in obj.items())
    return False


def to_shape_struct(shape):
    if isinstance(shape, dict):
        return {k: to_shape_struct(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and all(isinstance(s, (list, tuple)) or s is None for s in shape) \
            and any(isinstance(s, (list, tuple)) for s in shape):
        return [to_shape_struct(s) if s is not None else None for s in shape]
    return tuple(shape) if isinstance(shape, (list, tuple)) else shape


def variable_aggregation(a):
    if isinstance(a, VariableAggregation):
        return a
    if a is None:
        return VariableAggregation.NONE
    a = str(a).lower()
    return {"none": VariableAggregation.NONE, "sum": VariableAggregation.SUM, "mean": VariableAggregation.MEAN,
            "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA}.get(a, VariableAggregation.NONE)
