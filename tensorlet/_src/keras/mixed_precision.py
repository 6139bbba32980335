"""``tf.keras.mixed_precision``: dtype policies (Keras 3) and the global policy layers default to.

``"mixed_float16"`` computes in float16 and keeps variables in float32 (``"mixed_bfloat16"`` likewise with
bfloat16); any dtype name is a plain policy.  ``LossScaleOptimizer`` lives in ``keras.optimizers``.

>>> tf.keras.mixed_precision.Policy("mixed_float16").compute_dtype
'float16'
"""

from __future__ import annotations

from tensorlet._src.keras import _objects, backend
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.ops.math_binary import cast

_STATE = {"policy": None}


def _standardize(name):
    return backend.standardize_dtype(name)


@tf_export("keras.DTypePolicy", "keras.dtype_policies.DTypePolicy", "keras.mixed_precision.DTypePolicy",
           "keras.mixed_precision.Policy")
class DTypePolicy:
    """A layer's compute and variable dtypes, from a name like ``"float32"`` or ``"mixed_float16"``."""

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        self._quantization_mode = None

    def _parse_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: name={name} "
                            f"(of type {type(name)})")
        if name == "mixed_float16":
            return "float16", "float32"
        if name == "mixed_bfloat16":
            return "bfloat16", "float32"
        try:
            dtype = _standardize(name)
        except (TypeError, ValueError):
            dtype = None
        if dtype is None:
            raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include "
                             "'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as 'float32'.")
        return dtype, dtype

    variable_dtype = property(lambda self: self._variable_dtype)
    compute_dtype = property(lambda self: self._compute_dtype)
    name = property(lambda self: self._name)
    quantization_mode = property(lambda self: self._quantization_mode)

    def convert_input(self, x, autocast, dtype):
        """Casts floating tensors to ``dtype`` when ``autocast`` (what a layer does to its inputs)."""
        dtype = _standardize(dtype)
        if not hasattr(x, "dtype") and hasattr(x, "__array__"):
            x = convert_to_tensor(x)
        if hasattr(x, "dtype") and autocast and x.dtype.is_floating and x.dtype.name != dtype and \
                _standardize(dtype) in ("float16", "bfloat16", "float32", "float64"):
            x = cast(x, dtype)
        return x

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'

    __str__ = __repr__

    def __eq__(self, other):
        if type(other) not in (DTypePolicy, FloatDTypePolicy):
            return False
        return self._name == other._name

    def __hash__(self):
        return hash(self._name)


@tf_export("keras.FloatDTypePolicy", "keras.dtype_policies.FloatDTypePolicy")
class FloatDTypePolicy(DTypePolicy):
    """Alias kept by Keras for older code (a plain float ``DTypePolicy``)."""


@tf_export("keras.config.set_dtype_policy", "keras.mixed_precision.set_dtype_policy",
           "keras.mixed_precision.set_global_policy")
def set_dtype_policy(policy):
    """Sets the policy new layers use by default: ``set_global_policy("mixed_float16")``."""
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy (such as "
                             f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} "
                             f"(of type {type(policy)})")
        policy = DTypePolicy(policy)
    _STATE["policy"] = policy


@tf_export("keras.config.dtype_policy", "keras.mixed_precision.dtype_policy", "keras.mixed_precision.global_policy")
def dtype_policy():
    """The current global policy (``DTypePolicy(floatx())`` until one is set)."""
    policy = _STATE["policy"]
    if policy is None:
        policy = DTypePolicy(backend.floatx())
        _STATE["policy"] = policy
    return policy


set_global_policy = set_dtype_policy
global_policy = dtype_policy
Policy = DTypePolicy


def _reset():
    """Forget the global policy (``keras.backend.clear_session``)."""
    _STATE["policy"] = None


@tf_export("keras.dtype_policies.serialize")
def serialize(dtype_policy):
    """``{"module": "keras", "class_name": "DTypePolicy", "config": {"name": ...}, "registered_name": None}``."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": dtype_policy.get_config(),
            "registered_name": None}


@tf_export("keras.dtype_policies.deserialize")
def deserialize(config, custom_objects=None):
    """A policy from its config dict."""
    return _objects.deserialize_object(config, {"DTypePolicy": DTypePolicy, "FloatDTypePolicy": FloatDTypePolicy},
                                       custom_objects, kind="dtype policy")


@tf_export("keras.dtype_policies.get")
def get(identifier):
    """A policy from ``None`` (the global one), a name, a config dict or a policy."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    try:
        return DTypePolicy(_standardize(identifier))
    except Exception:  # noqa: BLE001
        raise ValueError(f"Cannot interpret `dtype` argument. Expected a string or an instance of DTypePolicy. "
                         f"Received: dtype={identifier}") from None
