"""Keras 3 config (de)serialization: ``{"module", "class_name", "config", "registered_name"}`` dicts.

Public Keras classes are named by their public module (``"keras.layers"`` + ``"Dense"``); user classes and functions
registered with ``@register_keras_serializable(package="my")`` by ``"my>Name"``.

>>> serialize_keras_object(tf.keras.layers.Dense(2))["class_name"]
'Dense'
"""

from __future__ import annotations

import importlib
import inspect
import threading
import types
import warnings

import numpy as np

from tensorlet._src.ops.registry import tf_export

PLAIN_TYPES = (str, int, float, bool)
_GLOBAL_CUSTOM_OBJECTS = {}
_GLOBAL_CUSTOM_NAMES = {}
_local = threading.local()


# --- registration -------------------------------------------------------------------------------------------------
@tf_export("keras.saving.register_keras_serializable", "keras.utils.register_keras_serializable")
def register_keras_serializable(package="Custom", name=None):
    """Registers a class or function under ``"package>name"`` so configs naming it can be deserialized.

    >>> @tf.keras.utils.register_keras_serializable(package="demo")
    ... def my_act(x):
    ...     return x
    """

    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorator


@tf_export("keras.saving.get_registered_name", "keras.utils.get_registered_name")
def get_registered_name(obj):
    """The name ``obj`` is registered under, or its ``__name__``."""
    obj = getattr(obj, "__dict__", {}).get("_keras_functional_of", obj)  # a functional instance of a Model subclass
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return obj.__name__


@tf_export("keras.saving.get_registered_object", "keras.utils.get_registered_object")
def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered (or passed in a custom-object scope/dict) under ``name``, else ``None``."""
    scope = _scope_objects()
    if name in scope:
        return scope[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


@tf_export("keras.saving.get_custom_objects", "keras.utils.get_custom_objects")
def get_custom_objects():
    """The global (mutable) dict of registered custom objects."""
    return _GLOBAL_CUSTOM_OBJECTS


def _scope_objects():
    merged = {}
    for d in getattr(_local, "scopes", ()):
        merged.update(d)
    return merged


@tf_export("keras.saving.CustomObjectScope", "keras.saving.custom_object_scope", "keras.utils.CustomObjectScope",
           "keras.utils.custom_object_scope")
class CustomObjectScope:
    """``with custom_object_scope({"MyLayer": MyLayer}):`` makes the names resolvable while deserializing."""

    def __init__(self, custom_objects):
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self):
        if not hasattr(_local, "scopes"):
            _local.scopes = []
        _local.scopes.append(self.custom_objects)
        return self

    def __exit__(self, *args):
        _local.scopes.pop()
        return False


# --- public names of tensorlet's Keras objects ------------------------------------------------------------------------
_PUBLIC = {}
_PUBLIC_SIZE = [0]


def _public_name(obj):
    """The first ``keras.*`` public name of a class/function exported with ``tf_export``, or None."""
    mod = getattr(obj, "__module__", None) or ""
    if not mod.startswith("tensorlet._src.keras"):
        return None
    from tensorlet._src.ops.registry import EXPORTS

    if _PUBLIC_SIZE[0] != len(EXPORTS):
        _PUBLIC.clear()
        for pub, src in EXPORTS.items():
            if pub.startswith("keras.") and src not in _PUBLIC:
                _PUBLIC[src] = pub
        _PUBLIC_SIZE[0] = len(EXPORTS)
    return _PUBLIC.get((mod, getattr(obj, "__name__", None)))


def _lookup_public(module, class_name):
    """The object exported as ``{module}.{class_name}`` (``module`` like ``keras.layers``), or None."""
    from tensorlet._src.ops.registry import EXPORTS

    if not module:
        return None
    if module.startswith("tf.keras") or module.startswith("tf_keras"):
        module = module.split(".", 1)[1] if module.startswith("tf.") else "keras" + module[len("tf_keras"):]
    src = EXPORTS.get(f"{module}.{class_name}")
    if src is None and module.startswith("keras.src."):  # a Keras-internal module path: try the family root
        fam = module.split(".")[2]
        src = EXPORTS.get(f"keras.{fam}.{class_name}")
    if src is None:
        return None
    return getattr(importlib.import_module(src[0]), src[1])


def _lookup_any_keras(class_name, families=None):
    """Keras 2 configs carry no module: find ``class_name`` among the public Keras names."""
    from tensorlet._src.ops.registry import EXPORTS

    _ensure_keras_loaded()
    for pub, src in EXPORTS.items():
        parts = pub.split(".")
        if parts[0] == "keras" and parts[-1] == class_name and (families is None or parts[1] in families):
            return getattr(importlib.import_module(src[0]), src[1])
    return None


def _ensure_keras_loaded():
    """Import tensorlet's Keras packages so their exports are in the table (they load lazily)."""
    for m in ("layers", "models", "initializers", "activations", "regularizers", "constraints", "optimizers",
              "losses", "metrics", "callbacks", "utils"):
        try:
            importlib.import_module(f"tensorlet.keras.{m}")
        except Exception:  # noqa: BLE001  (a family not written yet)
            pass


# --- serialize ----------------------------------------------------------------------------------------------------
@tf_export("keras.saving.serialize_keras_object", "keras.utils.serialize_keras_object")
def serialize_keras_object(obj):
    """The config dict of a Keras object (layers, initializers, ...), reversible by ``deserialize_keras_object``."""
    if obj is None or isinstance(obj, PLAIN_TYPES):
        return obj
    if isinstance(obj, (list, tuple)):
        out = [serialize_keras_object(x) for x in obj]
        return tuple(out) if isinstance(obj, tuple) else out
    if isinstance(obj, dict):
        return serialize_dict(obj)
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {"class_name": "__slice__", "config": {"start": serialize_keras_object(obj.start),
                                                      "stop": serialize_keras_object(obj.stop),
                                                      "step": serialize_keras_object(obj.step)}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    from tensorlet._src.framework import dtypes as D
    from tensorlet._src.framework.tensor import Tensor
    from tensorlet._src.framework.tensor_shape import TensorShape
    from tensorlet._src.framework.variables import Variable

    if isinstance(obj, TensorShape):
        return obj.as_list() if obj.rank is not None else None
    if isinstance(obj, D.DType):
        return obj.name
    if isinstance(obj, (Tensor, Variable)) and not _is_keras_tensor(obj):
        a = np.asarray(obj)
        return {"class_name": "__tensor__", "config": {"value": a.tolist(), "dtype": str(obj.dtype.name)}}
    if _is_keras_tensor(obj):
        history = getattr(obj, "_keras_history", None)
        if history:
            history = list(history)
            history[0] = history[0].name
        return {"class_name": "__keras_tensor__",
                "config": {"shape": obj.shape, "dtype": obj.dtype, "keras_history": history}}
    if type(obj).__module__ == "numpy":
        if isinstance(obj, np.ndarray) and obj.ndim > 0:
            return {"class_name": "__numpy__", "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
        return obj.item()
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        warnings.warn("The object being serialized includes a `lambda`. This is unsafe. In order to reload the "
                      "object, you will have to pass `safe_mode=False` to the loading function. Please avoid using "
                      "`lambda` in the future, and use named Python functions instead.", stacklevel=2)
        return {"class_name": "__lambda__", "config": {"value": _func_dump(obj)}}

    inner = _class_or_fn_config(obj)
    target = obj if isinstance(obj, (types.FunctionType, type)) else obj.__class__
    public = _public_name(target)
    if public is not None:
        parts = public.split(".")
        if isinstance(obj, types.FunctionType):
            config = {"module": ".".join(parts[:-1]), "class_name": "function", "config": inner,
                      "registered_name": inner}
        else:
            config = {"module": ".".join(parts[:-1]), "class_name": parts[-1], "config": inner,
                      "registered_name": None}
        _build_and_compile_config(obj, config)
        return config
    if isinstance(obj, types.FunctionType):
        module = obj.__module__
        registered = _GLOBAL_CUSTOM_NAMES.get(obj)
        return {"module": module, "class_name": "function", "config": registered or obj.__name__,
                "registered_name": registered or obj.__name__}
    module = obj.__class__.__module__
    registered = None if module == "builtins" else get_registered_name(obj.__class__)
    config = {"module": None if module == "__main__" else module, "class_name": obj.__class__.__name__,
              "config": inner, "registered_name": registered}
    _build_and_compile_config(obj, config)
    return config


def _is_keras_tensor(obj):
    return type(obj).__name__ == "KerasTensor" and hasattr(obj, "_keras_history")


def serialize_dict(obj):
    return {k: serialize_keras_object(v) for k, v in obj.items()}


def _class_or_fn_config(obj):
    if isinstance(obj, types.FunctionType):
        return _GLOBAL_CUSTOM_NAMES.get(obj, obj.__name__)
    if hasattr(obj, "get_config") and not isinstance(obj, type):
        config = obj.get_config()
        if not isinstance(config, dict):
            raise TypeError(f"The `get_config()` method of {obj} should return a dict. It returned: {config}")
        return serialize_dict(config)
    if hasattr(obj, "__name__"):
        return get_registered_name(obj)
    raise TypeError(f"Cannot serialize object {obj} of type {type(obj)}. To be serializable, a class must "
                    "implement the `get_config()` method.")


def _build_and_compile_config(obj, config):
    if hasattr(obj, "get_build_config") and not isinstance(obj, type):
        build = obj.get_build_config()
        if build is not None:
            config["build_config"] = serialize_dict(build)
    if hasattr(obj, "get_compile_config") and not isinstance(obj, type):
        compile_config = obj.get_compile_config()
        if compile_config is not None:
            config["compile_config"] = serialize_dict(compile_config)


def _func_dump(fn):
    import base64
    import marshal

    return base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")


# --- deserialize --------------------------------------------------------------------------------------------------
_SAFE_MODE = [True]


@tf_export("keras.config.enable_unsafe_deserialization")
def enable_unsafe_deserialization():
    """Allows loading configs that contain Python lambdas (``safe_mode=False`` everywhere)."""
    _SAFE_MODE[0] = False


@tf_export("keras.saving.deserialize_keras_object", "keras.utils.deserialize_keras_object")
def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """Rebuilds the object a config dict (from ``serialize_keras_object``) describes."""
    module_objects = kwargs.pop("module_objects", None)
    custom_objects = {**(custom_objects or {}), **_scope_objects(), **_GLOBAL_CUSTOM_OBJECTS}
    if config is None:
        return None
    if isinstance(config, str) and config in custom_objects:
        return custom_objects[config]
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(x, custom_objects=custom_objects, safe_mode=safe_mode) for x in config]
    if module_objects is not None and isinstance(config, (str, dict)):
        found = _from_module_objects(config, module_objects, custom_objects)
        if found is not None:
            return found
    if isinstance(config, PLAIN_TYPES):
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {k: deserialize_keras_object(v, custom_objects=custom_objects, safe_mode=safe_mode)
                for k, v in config.items()}
    class_name = config["class_name"]
    inner = config["config"] if config["config"] is not None else {}
    if class_name == "__tensor__":
        from tensorlet._src.framework.tensor import constant

        return constant(inner["value"], dtype=inner["dtype"])
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        return slice(*(deserialize_keras_object(inner[k], custom_objects=custom_objects, safe_mode=safe_mode)
                       for k in ("start", "stop", "step")))
    if class_name == "__keras_tensor__":
        from tensorlet._src.keras.engine.keras_tensor import KerasTensor

        obj = KerasTensor(inner["shape"], dtype=inner["dtype"])
        obj._pre_serialization_keras_history = inner["keras_history"]
        return obj
    if class_name == "__lambda__":
        if safe_mode and _SAFE_MODE[0]:
            raise ValueError("Requested the deserialization of a Python lambda. This carries a potential risk of "
                             "arbitrary code execution and thus it is disallowed by default. If you trust the "
                             "source of the artifact, you can override this error by passing `safe_mode=False` to "
                             "the loading function, or calling `keras.config.enable_unsafe_deserialization().")
        import base64
        import marshal

        code = marshal.loads(base64.b64decode(inner["value"]))
        return types.FunctionType(code, globals())
    module = config.get("module")
    registered_name = config.get("registered_name", class_name)
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError("Expected 'config' to be a non-null str for a function classname,\n"
                            f"instead got {type(inner)}\nFull config: {config}")
        return _retrieve(inner, registered_name, module, "function", config, custom_objects)
    if not isinstance(inner, dict):
        raise TypeError(f"Expected 'config' to be a dict for {class_name},\ninstead got {type(inner)}\n"
                        f"Full config: {config}")
    cls = _retrieve(class_name, registered_name, module, "class", config, custom_objects)
    if isinstance(cls, types.FunctionType):
        return cls
    if not hasattr(cls, "from_config"):
        raise TypeError(f"Unable to reconstruct an instance of '{class_name}' because the class is missing a "
                        f"`from_config()` method. Full object config: {config}")
    with CustomObjectScope(custom_objects):
        try:
            instance = cls.from_config(inner)
        except TypeError as e:
            raise TypeError(f"{cls} could not be deserialized properly. Please ensure that components that are "
                            "Python object instances (layers, models, etc.) returned by `get_config()` are "
                            "explicitly deserialized in the model's `from_config()` method.\n\n"
                            f"config={config}.\n\nException encountered: {e}") from e
        build_config = config.get("build_config")
        if build_config and not getattr(instance, "built", True) and hasattr(instance, "build_from_config"):
            instance.build_from_config(build_config)
            instance.built = True
        compile_config = config.get("compile_config")
        if compile_config and hasattr(instance, "compile_from_config"):
            instance.compile_from_config(compile_config)
    return instance


def _from_module_objects(config, module_objects, custom_objects):
    name = config
    if isinstance(config, dict):
        if "class_name" not in config:
            raise ValueError(f"Unknown `config` as a `dict`, config={config}")
        if config["class_name"] in custom_objects or config.get("registered_name") in custom_objects:
            return None
        name = config["config"] if config["class_name"] == "function" else config["class_name"]
        if isinstance(name, dict):
            return None
    obj = module_objects.get(name)
    if obj is None:
        return None
    if isinstance(config, str) or config["class_name"] == "function":
        return obj() if inspect.isclass(obj) else obj
    inner = config.get("config") or {}
    return obj.from_config(inner) if hasattr(obj, "from_config") else obj(**inner)


def _retrieve(name, registered_name, module, obj_type, full_config, custom_objects):
    for key in (registered_name, name):
        if key and key in custom_objects:
            return custom_objects[key]
        if key and key in _GLOBAL_CUSTOM_OBJECTS:
            return _GLOBAL_CUSTOM_OBJECTS[key]
    if module:
        if module.startswith("keras") or module.startswith("tf_keras") or module.startswith("tf.keras"):
            _ensure_keras_loaded()
            obj = _lookup_public(module, name)
            if obj is not None:
                return obj
            if module == "builtins" or module.startswith("keras.src"):
                obj = _lookup_any_keras(name)
                if obj is not None:
                    return obj
        else:
            try:
                mod = importlib.import_module(module)
            except ImportError:
                mod = None
            if mod is not None and hasattr(mod, name):
                return getattr(mod, name)
    elif obj_type == "class" and module is None and "module" not in full_config:
        obj = _lookup_any_keras(name)  # Keras 2 style config: {"class_name", "config"}
        if obj is not None:
            return obj
    if module is None and "module" in full_config:
        raise TypeError(f"Cannot deserialize object of type `{name}`. If `{name}` is a custom class, please "
                        "register it using the `@keras.saving.register_keras_serializable()` decorator.")
    raise TypeError(f"Could not locate {obj_type} '{name}'. Make sure custom classes and functions are decorated "
                    f"with `@keras.saving.register_keras_serializable()`. If they are already decorated, make sure "
                    f"they are all imported so that the decorator is run before trying to load them. "
                    f"Full object config: {full_config}")
