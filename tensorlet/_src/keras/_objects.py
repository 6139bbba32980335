"""The one object lookup of the Keras object families (activations, constraints, initializers, regularizers,
losses, metrics, optimizers): ``get``/``serialize``/``deserialize`` in Keras 3's config format, plus seeds.

Keras 3 serializes an object as ``{"module", "class_name", "config", "registered_name"}``; ``get`` accepts that
dict, the Keras 2 form ``{"class_name", "config"}``, a name, a class (instantiated) or a callable.  Each family
states what differs (how a name is looked up, whether classes are instantiated, what ``None`` gives) by the
arguments it passes to ``get_object``.
"""

from __future__ import annotations

import inspect
import random

from tensorlet._src.keras.saving import serialization as _serialization


def custom_lookup(name, custom_objects=None):
    """An object registered with ``register_keras_serializable`` (or in a custom-object scope/dict), or None."""
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    return _serialization.get_registered_object(name, custom_objects)


def registered_name(obj):
    """The ``package>name`` ``obj`` (or its class) is registered under, or None."""
    cls = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    name = _serialization.get_registered_name(cls)
    return name if name and name != cls.__name__ else None


def serialize_object(obj):
    """Keras 3's dict for an object with ``get_config`` (None stays None)."""
    if obj is None:
        return None
    return _serialization.serialize_keras_object(obj)


def get_object(identifier, kind, objects, deserialize, *, none=None, instantiate=True, by_name=None,
               accept=callable):
    """The object ``identifier`` names: ``None`` -> ``none``; a config dict -> ``deserialize(dict)``; a name ->
    ``by_name(name)`` when given, else ``objects[name]`` or a registered custom object; a class -> an instance
    (``instantiate``); any other callable as is.  A result that ``accept`` refuses raises Keras's ``ValueError``."""
    if identifier is None:
        return none
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = by_name(identifier) if by_name is not None else \
            (objects.get(identifier) or custom_lookup(identifier))
    else:
        obj = identifier
    if instantiate and inspect.isclass(obj):
        obj = obj()
    if obj is not None and accept(obj):
        return obj
    raise ValueError(f"Could not interpret {kind} identifier: {identifier}")


def deserialize_object(config, module_objects, custom_objects=None, kind="object", printable=None):
    """Builds an object from a name or a config dict, looking names up in custom objects then ``module_objects``."""
    if config is None:
        return None
    if isinstance(config, str):
        obj = custom_lookup(config, custom_objects) or module_objects.get(config)
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
            obj = custom_lookup(fname, custom_objects) or module_objects.get(fname)
            if obj is None:
                raise ValueError(f"Could not interpret {kind} identifier: {config}")
            return obj
        reg = config.get("registered_name")
        cls = (reg and custom_lookup(reg, custom_objects)) or custom_lookup(name, custom_objects) or \
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


def seed_pair(seed):
    """Keras 3's TF-backend stateless seed for an int seed: ``[seed mod (2**31 - 2), 0]`` (int32)."""
    if hasattr(seed, "next"):  # keras.random.SeedGenerator
        return seed.next()
    return [int(seed) % (2**31 - 2), 0]


def default_seed():
    """An unseeded Keras object's seed: drawn from Python's ``random`` (seeded by ``keras.utils.set_random_seed``)."""
    return random.randint(1, int(1e9))
