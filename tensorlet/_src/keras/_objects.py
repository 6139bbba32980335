"""Shared helpers of the Keras object families (initializers, activations, regularizers, constraints, optimizers,
losses): ``get``/``serialize``/``deserialize`` in Keras 3's config format, ``floatx`` and seeds.

Keras 3 serializes an object as ``{"module", "class_name", "config", "registered_name"}``; ``get`` accepts that
dict, the Keras 2 form ``{"class_name", "config"}``, a name, a class (instantiated) or a callable.
"""

from __future__ import annotations

import inspect


def floatx():
    """Keras's default float type (``keras.backend.floatx()``), ``"float32"`` unless changed."""
    try:
        from tensorlet._src.keras import backend as _b  # K1's module, when present

        return _b.floatx()
    except (ImportError, AttributeError):
        return "float32"


def epsilon():
    """Keras's fuzz factor (``keras.backend.epsilon()``, 1e-7 unless changed)."""
    try:
        from tensorlet._src.keras import backend as _b

        return _b.epsilon()
    except (ImportError, AttributeError):
        return 1e-7


def _custom_lookup(name, custom_objects):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    try:
        from tensorlet._src.keras.saving import serialization as _s
    except ImportError:
        return None
    for attr in ("get_registered_object", "_get_registered_object"):
        fn = getattr(_s, attr, None)
        if fn is not None:
            try:
                obj = fn(name, custom_objects)
            except TypeError:
                obj = fn(name)
            if obj is not None:
                return obj
    return None


def _registered_name(obj):
    cls = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    try:
        from tensorlet._src.keras.saving import serialization as _s

        fn = getattr(_s, "get_registered_name", None)
        if fn is not None:
            name = fn(cls)
            if name and name != cls.__name__:
                return name
    except ImportError:
        pass
    return getattr(cls, "_keras_registered_name", None)


def serialize_object(obj, module):
    """Keras 3's dict for an object with ``get_config`` (``module`` for built-ins, e.g. ``"keras.initializers"``)."""
    if obj is None:
        return None
    try:
        from tensorlet._src.keras.saving.serialization import serialize_keras_object
    except ImportError:
        serialize_keras_object = None
    if serialize_keras_object is not None:
        return serialize_keras_object(obj)
    cls = type(obj)
    builtin = cls.__module__.startswith("tensorlet._src.keras")
    registered = None if builtin else _registered_name(obj)
    return {"module": module if builtin else cls.__module__, "class_name": cls.__name__,
            "config": obj.get_config(), "registered_name": registered if registered else
            (None if builtin else cls.__name__)}


def deserialize_object(config, module_objects, custom_objects=None, kind="object", printable=None):
    """Builds an object from a name or a config dict, looking names up in ``module_objects`` then custom objects."""
    if config is None:
        return None
    if isinstance(config, str):
        obj = _custom_lookup(config, custom_objects) or module_objects.get(config)
        if obj is None:
            raise ValueError(f"Could not interpret {kind} identifier: {config}")
        return obj() if inspect.isclass(obj) else obj
    if isinstance(config, dict):
        if "class_name" not in config:
            raise ValueError(f"Could not interpret {kind} identifier: {printable or config}")
        name = config["class_name"]
        inner = config.get("config", {}) or {}
        if name == "function" or name == "__lambda__":
            fname = inner if isinstance(inner, str) else config.get("config")
            obj = _custom_lookup(fname, custom_objects) or module_objects.get(fname)
            if obj is None:
                raise ValueError(f"Could not interpret {kind} identifier: {config}")
            return obj
        reg = config.get("registered_name")
        cls = (reg and _custom_lookup(reg, custom_objects)) or _custom_lookup(name, custom_objects) or \
            module_objects.get(name)
        if cls is None:
            raise TypeError(f"Could not locate class '{name}'. Make sure custom classes are decorated with "
                            f"`@keras.saving.register_keras_serializable()`. Full object config: {config}")
        if inspect.isclass(cls):
            if hasattr(cls, "from_config"):
                return cls.from_config(dict(inner))
            return cls(**inner)
        return cls
    raise ValueError(f"Could not interpret {kind} identifier: {config}")


def snake(name: str) -> str:
    import re

    s = re.sub(r"\W+", "", name)
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", s)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def seed_pair(seed):
    """Keras 3's TF-backend stateless seed for an int seed: ``[seed mod (2**31 - 2), 0]`` (int32)."""
    if hasattr(seed, "next"):  # keras.random.SeedGenerator
        return seed.next()
    return [int(seed) % (2**31 - 2), 0]


def default_seed():
    """An unseeded Keras object's seed: drawn from Python's ``random`` (seeded by ``keras.utils.set_random_seed``)."""
    import random

    return random.randint(1, int(1e9))
